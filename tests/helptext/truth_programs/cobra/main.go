package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func dump(cmd *cobra.Command, args []string) {
	m := map[string]interface{}{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		m[f.Name] = map[string]interface{}{"value": f.Value.String(), "changed": f.Changed, "type": f.Value.Type()}
	})
	out, _ := json.Marshal(map[string]interface{}{"cmd": cmd.CommandPath(), "flags": m, "args": args, "argv": os.Args})
	fmt.Println(string(out))
}

func main() {
	root := &cobra.Command{Use: "gk", Short: "Manage gizmo kits", Version: "2.7.0"}
	root.PersistentFlags().String("log-level", "info", "Log level. One of: debug, info, warn")
	root.PersistentFlags().StringP("output", "o", "table", "Output format. One of: (json, yaml, table)")

	deploy := &cobra.Command{Use: "deploy SERVICE ENV", Short: "Deploy a service", Args: cobra.ExactArgs(2), Run: dump}
	deploy.Flags().Int("replicas", 1, "Number of replicas")
	deploy.Flags().Duration("wait", 30*time.Second, "How long to wait")
	deploy.Flags().StringSlice("tags", nil, "Tags to apply")
	deploy.Flags().StringToString("label", nil, "Labels, key=value")
	deploy.Flags().Bool("force", false, "Force the deploy")
	deploy.Flags().Bool("dry-run", true, "Only show what would happen")
	deploy.Flags().String("image", "", "Image to deploy (required)")
	deploy.MarkFlagRequired("image")
	deploy.Flags().CountP("verbose", "v", "Verbosity")
	deploy.Flags().Float32("ratio", 0.5, "Canary ratio")
	deploy.Flags().IntSlice("ports", []int{80}, "Ports to open")
	deploy.Flags().StringArrayP("env", "e", nil, "Environment KEY=VALUE (repeatable)")
	deploy.Flags().Int("tail", -1, "Lines to show, -1 for all")
	deploy.MarkFlagsMutuallyExclusive("force", "dry-run")

	cfg := &cobra.Command{Use: "config", Aliases: []string{"cfg"}, Short: "Read and write configuration"}
	get := &cobra.Command{Use: "get KEY", Short: "Get a value", Args: cobra.ExactArgs(1), Run: dump}
	set := &cobra.Command{Use: "set KEY VALUE", Short: "Set a value", Args: cobra.ExactArgs(2), Run: dump}
	set.Flags().Bool("global", false, "Write the global file")
	cfg.AddCommand(get, set)

	logs := &cobra.Command{Use: "logs [flags] POD [CONTAINER]", Short: "Show logs", Args: cobra.RangeArgs(1, 2), Run: dump}
	logs.Flags().BoolP("follow", "f", false, "Follow the log")
	logs.Flags().Duration("since", 0, "Only logs newer than a relative duration like 5s, 2m, or 3h")
	logs.Flags().Uint8("level", 3, "Minimum level")
	logs.Flags().String("color", "auto", "Colorize output")
	logs.Flags().Lookup("color").NoOptDefVal = "always"
	logs.Flags().Int32Slice("shard", nil, "Shards to read")

	root.AddCommand(deploy, cfg, logs)
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
