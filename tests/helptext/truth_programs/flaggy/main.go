// A flaggy program (Debian golang-github-integrii-flaggy-dev 1.4.0) that prints what it parsed as JSON.
package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/integrii/flaggy"
)

func main() {
	flaggy.SetName("flgy")
	flaggy.SetDescription("Resize and tag images")
	flaggy.SetVersion("0.9.1")
	var verbose bool
	var workers = 4
	flaggy.Bool(&verbose, "v", "verbose", "Print progress")
	flaggy.Int(&workers, "w", "workers", "Number of worker threads")

	resize := flaggy.NewSubcommand("resize")
	resize.Description = "Resize an image"
	var src, dst string
	var width, height int
	var scale = 1.0
	var filter = "lanczos"
	var keep bool
	resize.AddPositionalValue(&src, "source", 1, true, "Source image")
	resize.AddPositionalValue(&dst, "dest", 2, false, "Destination image")
	resize.Int(&width, "W", "width", "Target width in pixels")
	resize.Int(&height, "H", "height", "Target height in pixels")
	resize.Float64(&scale, "s", "scale", "Scale factor")
	resize.String(&filter, "f", "filter", "Filter: nearest, bilinear or lanczos")
	resize.Bool(&keep, "k", "keep-aspect", "Keep the aspect ratio")

	tag := flaggy.NewSubcommand("tag")
	tag.Description = "Add tags to an image"
	var file string
	var tags []string
	var ids []int
	var ttl time.Duration
	tag.AddPositionalValue(&file, "file", 1, true, "Image file")
	tag.StringSlice(&tags, "t", "tag", "Tag to add (repeatable)")
	tag.IntSlice(&ids, "", "id", "Album id (repeatable)")
	tag.Duration(&ttl, "", "ttl", "Time the tags live")

	flaggy.AttachSubcommand(resize, 1)
	flaggy.AttachSubcommand(tag, 1)
	flaggy.Parse()
	m := map[string]any{"verbose": verbose, "workers": workers}
	if resize.Used {
		m["cmd"] = "resize"; m["source"] = src; m["dest"] = dst; m["width"] = width; m["height"] = height; m["scale"] = scale; m["filter"] = filter; m["keep_aspect"] = keep
	} else if tag.Used {
		m["cmd"] = "tag"; m["file"] = file; m["tags"] = tags; m["ids"] = ids; m["ttl"] = ttl.String()
	} else {
		m["cmd"] = nil
	}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
}
