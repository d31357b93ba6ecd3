package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func dump(c *cli.Context) error {
	m := map[string]interface{}{}
	for _, n := range c.FlagNames() {
		m[n] = c.Value(n)
	}
	out, _ := json.Marshal(map[string]interface{}{"cmd": c.Command.FullName(), "flags": m, "args": c.Args().Slice(), "argv": os.Args})
	fmt.Println(string(out))
	return nil
}

func main() {
	app := &cli.App{
		Name:    "uf",
		Usage:   "ship parcels",
		Version: "3.1.4",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "load configuration from `FILE`", EnvVars: []string{"UF_CONFIG"}},
			&cli.BoolFlag{Name: "debug", Usage: "debug mode"},
		},
		Commands: []*cli.Command{
			{
				Name: "send", Aliases: []string{"s"}, Usage: "send a parcel", ArgsUsage: "ADDRESS [NOTE]",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "weight", Aliases: []string{"w"}, Value: 1, Usage: "weight in kg"},
					&cli.Float64Flag{Name: "insurance", Value: 0, Usage: "insured value"},
					&cli.StringSliceFlag{Name: "tag", Aliases: []string{"t"}, Usage: "tag the parcel"},
					&cli.StringFlag{Name: "carrier", Value: "post", Usage: "carrier: post, dhl or ups", Required: true},
					&cli.BoolFlag{Name: "express", Aliases: []string{"x"}, Usage: "express delivery"},
					&cli.BoolFlag{Name: "signature", Value: true, Usage: "require a signature"},
					&cli.DurationFlag{Name: "timeout", Usage: "give up after"},
				},
				Action: dump,
			},
			{
				Name: "track", Usage: "track parcels", Category: "queries", ArgsUsage: "ID...",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "watch", Usage: "keep watching"}},
				Action: dump,
			},
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
