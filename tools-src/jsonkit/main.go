// jsonkit: format, query, inspect, validate and merge JSON documents.
// A WASI (wasm32-wasip1) command-line tool built with cobra.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

const (
	version   = "1.0.0"
	workspace = "/workspace"
)

// usageError marks errors caused by invalid arguments (exit status 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }

// exitError carries an exit status without a message (the command already printed one).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// inputFlags are the three ways of giving the document; every subcommand has them.
type inputFlags struct {
	input string
	file  string
}

func (in *inputFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&in.input, "input", "", what+" given inline as a JSON string")
	cmd.Flags().StringVar(&in.file, "file", "", what+" read from this file (relative paths are resolved against /workspace)")
}

func resolvePath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if st, err := os.Stat(workspace); err == nil && st.IsDir() {
		return filepath.Join(workspace, p)
	}
	return p
}

func readFileArg(p string) ([]byte, error) {
	if st, err := os.Stat(resolvePath(p)); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", p)
	}
	data, err := os.ReadFile(resolvePath(p))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %v", p, pe.Err)
		}
		return nil, err
	}
	return data, nil
}

// read returns the raw document bytes from --input, --file or standard input.
func (in *inputFlags) read(cmd *cobra.Command) ([]byte, error) {
	inputSet := cmd.Flags().Changed("input")
	fileSet := cmd.Flags().Changed("file")
	switch {
	case inputSet && fileSet:
		return nil, usageError{errors.New("--input and --file cannot be used together")}
	case inputSet:
		return []byte(in.input), nil
	case fileSet:
		return readFileArg(in.file)
	default:
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("standard input: %v", err)
		}
		return data, nil
	}
}

func (in *inputFlags) parse(cmd *cobra.Command) (any, error) {
	data, err := in.read(cmd)
	if err != nil {
		return nil, err
	}
	v, perr := parseJSON(data)
	if perr != nil {
		return nil, fmt.Errorf("invalid JSON: %s at offset %d (line %d, column %d)", perr.Msg, perr.Offset, perr.Line, perr.Column)
	}
	return v, nil
}

// outputFlags control how a JSON result is written.
type outputFlags struct {
	indent   int
	compact  bool
	sortKeys bool
}

func (o *outputFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&o.indent, "indent", 2, "number of spaces per indentation level (0-16)")
	cmd.Flags().BoolVar(&o.compact, "compact", false, "print on a single line without spaces (overrides --indent)")
	cmd.Flags().BoolVar(&o.sortKeys, "sort-keys", false, "sort object keys alphabetically (default: keep document order)")
}

func (o *outputFlags) write(v any) error {
	if o.indent < 0 || o.indent > 16 {
		return usageError{fmt.Errorf("--indent must be between 0 and 16, got %d", o.indent)}
	}
	ind := strings.Repeat(" ", o.indent)
	if o.compact {
		ind = ""
	}
	var b strings.Builder
	encode(&b, v, encodeOptions{indent: ind, pretty: !o.compact, sortKeys: o.sortKeys}, 0)
	b.WriteByte('\n')
	_, err := io.WriteString(os.Stdout, b.String())
	return err
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", args[0])}
	}
	return nil
}

func newFmtCmd() *cobra.Command {
	var in inputFlags
	var out outputFlags
	cmd := &cobra.Command{
		Use:   "fmt",
		Short: "Pretty-print or compact a JSON document",
		Long: `Pretty-print or compact a JSON document.

Reads the document from --input, --file or standard input and prints it
re-formatted. Numbers and key order are kept exactly as written unless
--sort-keys is given. Fails (exit status 1) if the input is not valid JSON.

PermissionLevel: read`,
		Example: `  jsonkit fmt --input '{"b":1,"a":[1,2]}'
  jsonkit fmt --file data/config.json --compact --sort-keys`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := in.parse(cmd)
			if err != nil {
				return err
			}
			return out.write(v)
		},
	}
	in.register(cmd, "document")
	out.register(cmd)
	return cmd
}

func newGetCmd() *cobra.Command {
	var in inputFlags
	var out outputFlags
	var raw bool
	cmd := &cobra.Command{
		Use:   "get PATH",
		Short: "Print the value found at a path such as items.0.name",
		Long: `Print the JSON value found at PATH in the document.

PATH is a sequence of object keys and array indexes separated by dots, as in
items.0.name or items[0].name. A key containing dots or brackets can be
written in quotes inside brackets: ["a.b"]. Negative indexes count from the
end of an array (-1 is the last item). An empty PATH, "." or "$" selects the
whole document; a leading "$." is ignored.

Exit status 1, with a message naming the first missing step, if the path does
not exist.

PermissionLevel: read`,
		Example: `  jsonkit get items.0.name --input '{"items":[{"name":"a"}]}'
  jsonkit get 'servers["eu-1"].port' --file config.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("get takes exactly one PATH argument, got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := parsePath(args[0])
			if err != nil {
				return usageError{err}
			}
			doc, err := in.parse(cmd)
			if err != nil {
				return err
			}
			v, err := lookup(doc, path)
			if err != nil {
				return err
			}
			if s, ok := v.(string); ok && raw {
				_, err := io.WriteString(os.Stdout, s+"\n")
				return err
			}
			return out.write(v)
		},
	}
	in.register(cmd, "document")
	out.register(cmd)
	cmd.Flags().BoolVar(&raw, "raw", false, "print a string result as plain text, without JSON quotes")
	return cmd
}

func newKeysCmd() *cobra.Command {
	var in inputFlags
	var at string
	var sorted bool
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "List the keys of an object (or the indexes of an array)",
		Long: `List the keys of the object at --path as a JSON array of strings, in document
order unless --sort is given. For an array, prints its indexes (0, 1, ...)
as a JSON array of numbers. Exit status 1 if the value is neither an object
nor an array, or if --path does not exist.

PermissionLevel: read`,
		Example: `  jsonkit keys --input '{"b":1,"a":2}'
  jsonkit keys --path items.0 --file data.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := parsePath(at)
			if err != nil {
				return usageError{err}
			}
			doc, err := in.parse(cmd)
			if err != nil {
				return err
			}
			v, err := lookup(doc, path)
			if err != nil {
				return err
			}
			var result []any
			switch t := v.(type) {
			case *object:
				keys := append([]string(nil), t.keys...)
				if sorted {
					sortStrings(keys)
				}
				for _, k := range keys {
					result = append(result, k)
				}
			case []any:
				for i := range t {
					result = append(result, number(fmt.Sprint(i)))
				}
			default:
				return fmt.Errorf("value at %q is %s, not an object or array", at, typeName(v))
			}
			if result == nil {
				result = []any{}
			}
			o := outputFlags{compact: true}
			return o.write(result)
		},
	}
	in.register(cmd, "document")
	cmd.Flags().StringVar(&at, "path", "", "path of the object to list, as in 'jsonkit get' (default: the whole document)")
	cmd.Flags().BoolVar(&sorted, "sort", false, "sort the keys alphabetically")
	return cmd
}

func newValidateCmd() *cobra.Command {
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check that the input is valid JSON",
		Long: `Check that the input is exactly one valid JSON value (RFC 8259).

Prints {"valid": true} and exits 0 when it is. Otherwise prints
{"valid": false, "error": MESSAGE, "offset": N, "line": L, "column": C}
and exits 1, where offset is the 0-based byte offset of the problem and
line and column are 1-based.

PermissionLevel: read`,
		Example: `  jsonkit validate --input '{"a": [1, 2,]}'
  jsonkit validate --file data.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := in.read(cmd)
			if err != nil {
				return err
			}
			o := outputFlags{compact: true}
			if _, perr := parseJSON(data); perr != nil {
				res := newObject()
				res.set("valid", false)
				res.set("error", perr.Msg)
				res.set("offset", number(fmt.Sprint(perr.Offset)))
				res.set("line", number(fmt.Sprint(perr.Line)))
				res.set("column", number(fmt.Sprint(perr.Column)))
				if err := o.write(res); err != nil {
					return err
				}
				return exitError{1}
			}
			res := newObject()
			res.set("valid", true)
			return o.write(res)
		},
	}
	in.register(cmd, "document")
	return cmd
}

func newMergeCmd() *cobra.Command {
	var in inputFlags
	var out outputFlags
	var patch, patchFile string
	cmd := &cobra.Command{
		Use:   "merge",
		Short: "Apply a JSON Merge Patch (RFC 7386) to a document",
		Long: `Apply a JSON Merge Patch (RFC 7386) to the document and print the result.

Objects in the patch are merged into the document recursively, a null value
removes the key, and any other value (including arrays) replaces the target.
The patch is given with --patch or --patch-file (exactly one is required).

PermissionLevel: read`,
		Example: `  jsonkit merge --input '{"a":1,"b":{"c":2}}' --patch '{"b":{"c":null,"d":3}}'`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var pdata []byte
			switch {
			case cmd.Flags().Changed("patch") && cmd.Flags().Changed("patch-file"):
				return usageError{errors.New("--patch and --patch-file cannot be used together")}
			case cmd.Flags().Changed("patch"):
				pdata = []byte(patch)
			case cmd.Flags().Changed("patch-file"):
				d, err := readFileArg(patchFile)
				if err != nil {
					return err
				}
				pdata = d
			default:
				return usageError{errors.New("a patch is required: give --patch or --patch-file")}
			}
			p, perr := parseJSON(pdata)
			if perr != nil {
				return fmt.Errorf("invalid JSON in patch: %s at offset %d", perr.Msg, perr.Offset)
			}
			doc, err := in.parse(cmd)
			if err != nil {
				return err
			}
			return out.write(mergePatch(doc, p))
		},
	}
	in.register(cmd, "document to patch")
	cmd.Flags().StringVar(&patch, "patch", "", "merge patch given inline as a JSON string")
	cmd.Flags().StringVar(&patchFile, "patch-file", "", "merge patch read from this file (relative paths are resolved against /workspace)")
	out.register(cmd)
	return cmd
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "jsonkit",
		Short: "Format, query, inspect, validate and merge JSON documents",
		Long: `jsonkit formats, queries, inspects, validates and merges JSON documents.

Every command reads one JSON document from --input (inline text), --file
(a path under /workspace) or, when neither is given, standard input, and
prints its result as JSON on standard output.

Exit status: 0 on success, 1 if the input is invalid, a path is not found or
a file cannot be read, 2 on invalid arguments.

Keywords: json, format, pretty-print, query, path, keys, validate, merge, patch
PermissionLevel: read`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	// No "help" subcommand: every listed command is a real operation ("jsonkit CMD --help" gives help).
	root.SetHelpCommand(&cobra.Command{Use: "no-help", Hidden: true})
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(newFmtCmd(), newGetCmd(), newKeysCmd(), newValidateCmd(), newMergeCmd())
	return root
}

func main() {
	root := newRootCmd()
	cmd, err := root.ExecuteC()
	if err == nil {
		return
	}
	var ee exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	fmt.Fprintf(os.Stderr, "jsonkit: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprintf(os.Stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		os.Exit(2)
	}
	os.Exit(1)
}
