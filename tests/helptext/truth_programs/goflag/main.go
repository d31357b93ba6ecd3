// thumbnailer: a Go program whose help the standard flag package prints (-h, on stderr).
// It makes no thumbnails: its help text and the flag package's own record of its flags are
// compared. With TOOLBAY_TRUTH=1 it prints that record (flag.VisitAll) as JSON truth for the
// help-text corpus instead of running; see tests/helptext/tools/framework_truth.py.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"
)

// choice is a flag whose value must be one of a fixed list.
type choice struct {
	allowed []string
	value   string
}

func (c *choice) String() string { return c.value }
func (c *choice) Set(s string) error {
	for _, a := range c.allowed {
		if s == a {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(c.allowed, ", "))
}

// list is a flag that may be given several times; each use adds a value.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// positional is an argument after the flags, as the usage line shows it.
type positional struct {
	Name     string   `json:"name"`
	Required bool     `json:"required"`
	Variadic bool     `json:"variadic"`
	Choices  []string `json:"choices"`
}

var positionals = []positional{{"IMAGE", true, true, []string{}}}

var (
	format  = &choice{allowed: []string{"jpeg", "png", "webp"}, value: "jpeg"}
	exclude list
)

func define(fs *flag.FlagSet) {
	fs.Int("size", 256, "longest side of a thumbnail in `pixels`")
	fs.Float64("quality", 0.8, "compression quality between 0 and 1")
	fs.String("out", "thumbs", "write thumbnails into `dir`")
	fs.Bool("overwrite", false, "replace thumbnails that exist")
	fs.Bool("v", false, "print each file as it is done")
	fs.Duration("timeout", 30*time.Second, "give up on one image after this long")
	fs.Uint("workers", 4, "how many images to work on at once")
	fs.Var(format, "format", "thumbnail format: one of jpeg, png, webp")
	fs.Var(&exclude, "exclude", "skip files matching this `glob` (may be repeated)")
	fs.String("prefix", "", "put this before each thumbnail's name")
}

type truthOption struct {
	Names      []string `json:"names"`
	TakesValue bool     `json:"takes_value"`
	Required   bool     `json:"required"`
	Choices    []string `json:"choices"`
	Repeatable bool     `json:"repeatable"`
	Type       string   `json:"type,omitempty"`
	Default    *string  `json:"default"`
}

func truth(fs *flag.FlagSet) {
	options := []truthOption{}
	fs.VisitAll(func(f *flag.Flag) {
		item := truthOption{Names: []string{"-" + f.Name}, Choices: []string{}}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			item.TakesValue = true
			switch v := f.Value.(type) {
			case *choice:
				item.Choices = v.allowed
				item.Type = "string"
			case *list:
				item.Repeatable = true
				item.Type = "string"
			case flag.Getter:
				switch reflect.TypeOf(v.Get()).Kind() {
				case reflect.Int, reflect.Uint:
					item.Type = "integer"
				case reflect.Float64:
					item.Type = "number"
				default: // strings, and durations ("30s")
					item.Type = "string"
				}
			}
			if f.DefValue != "" {
				item.Default = &f.DefValue
			}
		}
		options = append(options, item)
	})
	out, _ := json.MarshalIndent(map[string]any{
		"source": "Go flag definition of `thumbnailer`", "options": options,
		"positionals": positionals, "subcommands": []string{},
	}, "", "  ")
	fmt.Println(string(out))
}

func main() {
	fs := flag.NewFlagSet("thumbnailer", flag.ExitOnError)
	define(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: thumbnailer [flags] IMAGE...\n\nMakes thumbnails of images.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if os.Getenv("TOOLBAY_TRUTH") == "1" {
		truth(fs)
		return
	}
	fs.Parse(os.Args[1:])
	if fs.NArg() == 0 {
		fs.Usage()
		os.Exit(2)
	}
}
