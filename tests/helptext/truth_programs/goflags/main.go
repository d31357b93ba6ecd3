package main

import (
	"fmt"
	"os"

	flags "github.com/jessevdk/go-flags"
)

var opts struct {
	Output  string   `short:"o" long:"output" default:"out.png" description:"Where to write the image"`
	Width   int      `short:"w" long:"width" default:"640" description:"Width of the box in pixels"`
	Scale   float64  `long:"scale" description:"Scale factor"`
	Verbose bool     `short:"v" long:"verbose" description:"Say what is done"`
	Mode    string   `short:"m" long:"mode" choice:"fit" choice:"fill" choice:"crop" default:"fit" description:"How to fit the box"`
	Retries int      `long:"retries" required:"true" description:"Attempts before giving up"`
	Tag     []string `short:"t" long:"tag" description:"A tag to add"`
	Args    struct {
		Inputs []string `positional-arg-name:"INPUT" required:"1" description:"Images to resize"`
	} `positional-args:"yes" required:"yes"`
}

func main() {
	parser := flags.NewParser(&opts, flags.Default)
	parser.Name = "resize"
	parser.ShortDescription = "Resizes images to fit a box."
	if _, err := parser.Parse(); err != nil {
		if e, ok := err.(*flags.Error); ok && e.Type == flags.ErrHelp {
			os.Exit(0)
		}
		os.Exit(1)
	}
	fmt.Printf("%+v\n", opts)
}
