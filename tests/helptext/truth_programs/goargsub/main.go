package main

import (
	"encoding/json"
	"fmt"

	"github.com/alexflint/go-arg"
)

type GetCmd struct {
	Key     string   `arg:"positional,required" help:"key to fetch"`
	Default string   `arg:"-d,--default" help:"value when missing"`
	Fields  []string `arg:"positional" help:"fields to print"`
}

type SetCmd struct {
	Key   string  `arg:"positional,required"`
	Value string  `arg:"positional,required"`
	TTL   int     `arg:"--ttl" default:"60" help:"seconds to live"`
	Score float64 `arg:"--score" help:"score"`
}

type Args struct {
	Get     *GetCmd  `arg:"subcommand:get" help:"get a key"`
	Set     *SetCmd  `arg:"subcommand:set" help:"set a key"`
	Verbose bool     `arg:"-v,--verbose" help:"verbosity"`
	Store   string   `arg:"--store,required" help:"store path"`
	Workers int      `arg:"-w" default:"4" help:"worker count"`
	Nocache bool     `arg:"--no-cache" help:"disable the cache"`
	Header  []string `arg:"-H,separate" help:"header to send"`
	Env     string   `arg:"env:GA_ENV" help:"environment"`
	IDs     []int    `arg:"--id" help:"numeric ids"`
}

func (Args) Description() string { return "ga is a go-arg key/value tool" }
func (Args) Version() string     { return "ga 2.0.0" }

func main() {
	var a Args
	arg.MustParse(&a)
	out, _ := json.Marshal(a)
	fmt.Println(string(out))
}
