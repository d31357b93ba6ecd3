package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/jessevdk/go-flags"
)

type Opts struct {
	Verbose []bool  `short:"v" long:"verbose" description:"Show verbose debug information (repeatable)"`
	Name    string  `short:"n" long:"name" description:"A name" required:"true"`
	Mode    string  `short:"m" long:"mode" description:"Mode" choice:"fast" choice:"slow" default:"fast"`
	Count   int     `long:"count" description:"A count" default:"7"`
	Ratio   float64 `long:"ratio" description:"A ratio"`
	Include []string `short:"I" long:"include" description:"Include directory" value-name:"DIR"`
	Color   string  `long:"color" description:"Colour" optional:"yes" optional-value:"always" value-name:"WHEN"`
	Offset  int     `long:"offset" description:"Offset, may be negative"`
	Args    struct {
		Input  string   `positional-arg-name:"INPUT" description:"input file"`
		Output string   `positional-arg-name:"OUTPUT" description:"output file"`
		Rest   []string `positional-arg-name:"REST"`
	} `positional-args:"yes" required:"1"`
}

func main() {
	var o Opts
	p := flags.NewParser(&o, flags.Default)
	p.Name = "gfl"
	p.ShortDescription = "go-flags test"
	_, err := p.Parse()
	if err != nil {
		if fe, ok := err.(*flags.Error); ok && fe.Type == flags.ErrHelp {
			os.Exit(0)
		}
		os.Exit(1)
	}
	out, _ := json.Marshal(o)
	fmt.Println(string(out))
}
