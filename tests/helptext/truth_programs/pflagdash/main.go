// A pflag program whose usage line alone names the operands it takes after "--" (pflag's
// ArgsLenAtDash tells them apart): it prints what it parsed as JSON.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	flag "github.com/spf13/pflag"
)

func main() {
	verbose := flag.CountP("verbose", "v", "more output")
	flag.CommandLine.SetOutput(os.Stdout)
	flag.Usage = func() {
		fmt.Println("Usage: run [flags] SRC [EXTRA...] [-- CMD...]\n\nRun CMD in SRC.\n\nFlags:")
		flag.PrintDefaults()
	}
	flag.Parse()
	out, _ := json.Marshal(map[string]interface{}{"verbose": *verbose, "args": flag.Args(), "at_dash": flag.CommandLine.ArgsLenAtDash()})
	fmt.Println(string(out))
}
