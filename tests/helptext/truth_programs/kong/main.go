package main

import (
	"fmt"

	"github.com/alecthomas/kong"
)

var CLI struct {
	Output  string   `short:"o" default:"out.png" help:"Where to write the image."`
	Width   int      `short:"w" default:"640" help:"Width of the box in pixels."`
	Scale   float64  `help:"Scale factor."`
	Verbose bool     `short:"v" help:"Say what is done."`
	Mode    string   `short:"m" enum:"fit,fill,crop" default:"fit" help:"How to fit the box."`
	Retries int      `required:"" help:"Attempts before giving up."`
	Tag     []string `short:"t" help:"Tags to add."`
	Inputs  []string `arg:"" help:"Images to resize."`
}

func main() {
	kong.Parse(&CLI, kong.Name("resize"), kong.Description("Resizes images to fit a box."))
	fmt.Printf("%+v\n", CLI)
}
