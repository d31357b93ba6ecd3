package main

import (
	"encoding/json"
	"fmt"

	"github.com/alecthomas/kong"
)

type CLI struct {
	Debug bool   `help:"Enable debug mode." short:"d"`
	Level string `enum:"low,mid,high" default:"mid" help:"Log level."`

	Rm struct {
		Force     bool     `short:"f" help:"Force removal."`
		Recursive bool     `short:"r" help:"Recursively remove files."`
		Depth     int      `default:"2" help:"How deep to go."`
		Paths     []string `arg:"" name:"path" help:"Paths to remove." type:"path"`
	} `cmd:"" help:"Remove files."`

	Ls struct {
		Color   bool     `negatable:"" default:"true" help:"Colour output."`
		Format  string   `enum:"json,text" default:"text" help:"Output format."`
		Sort    string   `xor:"order" help:"Sort key."`
		Reverse bool     `xor:"order" help:"Reverse order."`
		Label   []string `short:"l" help:"Labels to match."`
		Ratio   float64  `help:"Ratio."`
		Limit   int      `required:"" help:"Maximum entries."`
		Verbose int      `type:"counter" short:"v" help:"More output (repeatable)."`
		Path    string   `arg:"" optional:"" help:"Path to list."`
	} `cmd:"" help:"List paths."`

	Db struct {
		Migrate struct {
			Up struct {
				Steps int    `arg:"" help:"Steps to apply."`
				Dir   string `arg:"" optional:"" help:"Migrations directory."`
			} `cmd:"" help:"Apply migrations."`
			Down struct {
				All   bool     `help:"Revert all."`
				Notes []string `arg:"" optional:"" help:"Notes to record."`
			} `cmd:"" help:"Revert migrations."`
		} `cmd:"" help:"Run migrations."`
	} `cmd:"" help:"Database commands."`
}

func main() {
	var cli CLI
	ctx := kong.Parse(&cli, kong.Name("kg"), kong.Description("A kong test program."))
	out, _ := json.Marshal(cli)
	fmt.Printf("{\"command\":%q,\"cli\":%s}\n", ctx.Command(), out)
}
