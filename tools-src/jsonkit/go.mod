module toolbay.local/jsonkit

go 1.21

// Sources are vendored from cobra's own release v1.9.1 (its non-test Go files and
// LICENSE.txt: from 1.9 its default help and usage are Go functions, not text/template,
// so the linker can drop unused methods: 7.2 MB -> 4.9 MB, the same help text),
// Debian's golang-github-spf13-pflag-dev (1.0.6~git20210604-d5e0c0615ace, recorded below
// as a pseudo-version whose time of day is unknown) and
// golang-github-inconshreveable-mousetrap-dev (1.0.0). Build with -mod=vendor.
require (
	github.com/spf13/cobra v1.9.1
	github.com/spf13/pflag v1.0.6-0.20210604000000-d5e0c0615ace
)

require github.com/inconshreveable/mousetrap v1.0.0 // indirect
