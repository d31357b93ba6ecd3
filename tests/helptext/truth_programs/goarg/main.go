package main

import (
	"fmt"

	"github.com/alexflint/go-arg"
)

type args struct {
	Output  string   `arg:"-o,--output" default:"out.png" help:"where to write the image"`
	Width   int      `arg:"-w,--width" default:"640" help:"width of the box in pixels"`
	Scale   float64  `arg:"--scale" help:"scale factor"`
	Verbose bool     `arg:"-v,--verbose" help:"say what is done"`
	Color   bool     `arg:"--color" default:"true" help:"colour the output"`
	Retries int      `arg:"--retries,required" help:"attempts before giving up"`
	Tag     []string `arg:"-t,--tag,separate" help:"a tag to add"`
	Inputs  []string `arg:"positional,required" help:"images to resize"`
}

func (args) Description() string { return "Resizes images to fit a box." }

func main() {
	var a args
	arg.MustParse(&a)
	fmt.Printf("%+v\n", a)
}
