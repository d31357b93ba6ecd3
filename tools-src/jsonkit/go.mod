module toolbay.local/jsonkit

go 1.21

// Sources are vendored from Debian's golang-github-spf13-cobra-dev (1.6.1),
// golang-github-spf13-pflag-dev (1.0.6~git20210604-d5e0c0615ace, recorded below
// as a pseudo-version whose time of day is unknown) and
// golang-github-inconshreveable-mousetrap-dev (1.0.0). Build with -mod=vendor.
require (
	github.com/spf13/cobra v1.6.1
	github.com/spf13/pflag v1.0.6-0.20210604000000-d5e0c0615ace
)

require github.com/inconshreveable/mousetrap v1.0.0 // indirect
