package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON values are represented as: nil, bool, number, string, []any, *object.
// Objects keep their key order and numbers keep their exact text.

type number string

type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func sortStrings(s []string) { sort.Strings(s) }

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case *object:
		return "an object"
	}
	return "unknown"
}

type parseError struct {
	Msg    string
	Offset int // 0-based byte offset of the problem
	Line   int // 1-based
	Column int // 1-based, in bytes
}

func newParseError(data []byte, msg string, offset int) *parseError {
	if offset < 0 {
		offset = 0
	}
	if offset > len(data) {
		offset = len(data)
	}
	line := 1 + bytes.Count(data[:offset], []byte("\n"))
	col := offset - (bytes.LastIndexByte(data[:offset], '\n') + 1) + 1
	return &parseError{Msg: msg, Offset: offset, Line: line, Column: col}
}

// parseJSON parses exactly one JSON value (surrounding whitespace allowed).
func parseJSON(data []byte) (any, *parseError) {
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return nil, newParseError(data, "invalid UTF-8", i)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, convertError(data, dec, err)
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, newParseError(data, "unexpected data after the top-level value", skipSpace(data, end))
		}
		return nil, convertError(data, dec, err)
	}
	return v, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

func convertError(data []byte, dec *json.Decoder, err error) *parseError {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		if strings.Contains(se.Error(), "unexpected end") {
			return newParseError(data, "unexpected end of input", len(data))
		}
		// Offset counts the bytes read including the offending one.
		off := int(se.Offset) - 1
		if off >= 0 && off < len(data) && data[off] == ',' {
			if next := skipSpace(data, off+1); next < len(data) && (data[next] == ']' || data[next] == '}') {
				return newParseError(data, fmt.Sprintf("trailing comma before '%c'", data[next]), off)
			}
		}
		return newParseError(data, se.Error(), off)
	case err == io.EOF && len(bytes.TrimSpace(data)) == 0:
		return newParseError(data, "empty input: expected a JSON value", len(data))
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return newParseError(data, "unexpected end of input", len(data))
	case errors.Is(err, errObjectKey):
		return newParseError(data, err.Error(), int(dec.InputOffset()))
	}
	return newParseError(data, err.Error(), int(dec.InputOffset()))
}

var errObjectKey = errors.New("expected a string object key")

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errObjectKey
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				obj.set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %q", rune(t))
	case json.Number:
		return number(t), nil
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

type encodeOptions struct {
	indent   string
	pretty   bool
	sortKeys bool
}

func newline(b *strings.Builder, o encodeOptions, level int) {
	if !o.pretty {
		return
	}
	b.WriteByte('\n')
	for i := 0; i < level; i++ {
		b.WriteString(o.indent)
	}
}

func encode(b *strings.Builder, v any, o encodeOptions, level int) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case number:
		b.WriteString(string(t))
	case string:
		encodeString(b, t)
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, item := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, o, level+1)
			encode(b, item, o, level+1)
		}
		newline(b, o, level)
		b.WriteByte(']')
	case *object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		keys := t.keys
		if o.sortKeys {
			keys = append([]string(nil), keys...)
			sort.Strings(keys)
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, o, level+1)
			encodeString(b, k)
			b.WriteByte(':')
			if o.pretty {
				b.WriteByte(' ')
			}
			encode(b, t.vals[k], o, level+1)
		}
		newline(b, o, level)
		b.WriteByte('}')
	}
}

func encodeString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b.WriteString(`\u`)
			b.WriteByte(hex[(r>>12)&15])
			b.WriteByte(hex[(r>>8)&15])
			b.WriteByte(hex[(r>>4)&15])
			b.WriteByte(hex[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// A path step is either an object key or an array index written as digits.
type step struct {
	key     string
	isIndex bool // written in brackets as a number: must be an array index
	index   int
	numeric bool // the key text is an integer, usable as an array index
}

func parsePath(p string) ([]step, error) {
	s := strings.TrimSpace(p)
	if s == "" || s == "." || s == "$" {
		return nil, nil
	}
	if strings.HasPrefix(s, "$") {
		s = s[1:]
	}
	var steps []step
	i := 0
	expectDot := false
	for i < len(s) {
		c := s[i]
		switch {
		case c == '.':
			i++
			expectDot = false
			if i >= len(s) || s[i] == '.' {
				return nil, fmt.Errorf("invalid path %q: empty key at offset %d", p, i)
			}
			continue
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("invalid path %q: unclosed '['", p)
			}
			inner := strings.TrimSpace(s[i+1 : i+end])
			if len(inner) >= 2 && (inner[0] == '"' || inner[0] == '\'') {
				q := inner[0]
				// Find the closing quote, then the bracket after it.
				j := i + 1 + strings.IndexByte(s[i+1:], q) + 1
				k := strings.IndexByte(s[j:], q)
				if k < 0 {
					return nil, fmt.Errorf("invalid path %q: unclosed quote", p)
				}
				key := s[j : j+k]
				rest := strings.TrimLeft(s[j+k+1:], " ")
				if !strings.HasPrefix(rest, "]") {
					return nil, fmt.Errorf("invalid path %q: expected ']' after quoted key", p)
				}
				steps = append(steps, step{key: key})
				i = len(s) - len(rest) + 1
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil {
					return nil, fmt.Errorf("invalid path %q: %q is not an array index (quote keys: [\"key\"])", p, inner)
				}
				steps = append(steps, step{key: inner, isIndex: true, index: n, numeric: true})
				i += end + 1
			}
			expectDot = true
			continue
		}
		if expectDot {
			return nil, fmt.Errorf("invalid path %q: expected '.' or '[' at offset %d", p, i)
		}
		j := i
		for j < len(s) && s[j] != '.' && s[j] != '[' {
			j++
		}
		key := s[i:j]
		st := step{key: key}
		if n, err := strconv.Atoi(key); err == nil {
			st.numeric = true
			st.index = n
		}
		steps = append(steps, st)
		i = j
		expectDot = true
	}
	return steps, nil
}

func describe(steps []step) string {
	var b strings.Builder
	for i, st := range steps {
		switch {
		case st.isIndex:
			fmt.Fprintf(&b, "[%d]", st.index)
		case strings.ContainsAny(st.key, ".[]") || st.key == "":
			fmt.Fprintf(&b, "[%q]", st.key)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(st.key)
		}
	}
	if b.Len() == 0 {
		return "$"
	}
	return b.String()
}

func lookup(doc any, steps []step) (any, error) {
	cur := doc
	for i, st := range steps {
		where := describe(steps[:i])
		switch t := cur.(type) {
		case *object:
			if st.isIndex {
				return nil, fmt.Errorf("path not found: %s is an object, not an array (use .%s or [\"%s\"] for a key)", where, st.key, st.key)
			}
			v, ok := t.vals[st.key]
			if !ok {
				return nil, fmt.Errorf("path not found: key %q does not exist in the object at %s", st.key, where)
			}
			cur = v
		case []any:
			if !st.numeric {
				return nil, fmt.Errorf("path not found: %s is an array of %d items; %q is not an index", where, len(t), st.key)
			}
			idx := st.index
			if idx < 0 {
				idx += len(t)
			}
			if idx < 0 || idx >= len(t) {
				return nil, fmt.Errorf("path not found: index %d is out of range for the array of %d items at %s", st.index, len(t), where)
			}
			cur = t[idx]
		default:
			return nil, fmt.Errorf("path not found: %s is %s, which has no %q", where, typeName(cur), st.key)
		}
	}
	return cur, nil
}

// mergePatch applies an RFC 7386 JSON Merge Patch.
func mergePatch(target, patch any) any {
	p, ok := patch.(*object)
	if !ok {
		return patch
	}
	t, ok := target.(*object)
	if !ok {
		t = newObject()
	} else {
		c := newObject()
		for _, k := range t.keys {
			c.set(k, t.vals[k])
		}
		t = c
	}
	for _, k := range p.keys {
		v := p.vals[k]
		if v == nil {
			t.del(k)
			continue
		}
		t.set(k, mergePatch(t.vals[k], v))
	}
	return t
}
