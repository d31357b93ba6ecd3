"""Rebuilding the bundled tools from tools-src/ gives byte-identical binaries."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLS_SRC = REPO_ROOT / "tools-src"
TOOLS = ("textkit", "jsonkit", "hashsum")


def missing_toolchain() -> list[str]:
    """What build.sh needs but this machine lacks (empty when everything is there)."""
    missing = []
    for prog in ("clang", "wasm-ld", "go", "sha256sum"):
        if shutil.which(prog) is None:
            missing.append(prog)
    go = shutil.which("go")
    if go is not None and not _go_targets_wasip1(go):
        missing.append(f"a Go that builds for wasip1 (>= 1.21; {go} cannot)")
    for path in (
        "/usr/bin/rustc",
        "/usr/bin/cargo",
        "/usr/lib/rustlib/wasm32-wasi",  # libstd-rust-dev-wasm32
        "/usr/lib/wasm32-wasi/libc.a",  # wasi-libc
        "/usr/share/cargo/registry/clap-4.0.32",  # librust-clap-dev
        "/usr/share/cargo/registry/regex-1.7.1",  # librust-regex-dev
    ):
        if not os.path.exists(path):
            missing.append(path)
    return missing


def _go_targets_wasip1(go: str) -> bool:
    listed = subprocess.run([go, "tool", "dist", "list"], capture_output=True, text=True, check=False).stdout
    return "wasip1/wasm" in listed.split()


def toolchain_versions() -> str:
    def first_line(cmd: list[str]) -> str:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
        except OSError as e:
            return f"{cmd[0]}: {e}"
        return out.splitlines()[0] if out else f"{cmd[0]}: no output"

    return "; ".join(
        first_line(c) for c in (["clang", "--version"], ["/usr/bin/rustc", "--version"], ["go", "version"])
    )


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_rebuild_is_bit_identical(tmp_path: Path) -> None:
    missing = missing_toolchain()
    if missing:
        pytest.skip(f"toolchain for tools-src/build.sh not installed: {', '.join(missing)}")
    # Build from a copy in another directory, without caches, so nothing of this checkout or of
    # an earlier build can leak in.
    src = tmp_path / "elsewhere" / "tools-src"
    shutil.copytree(TOOLS_SRC, src, ignore=shutil.ignore_patterns("target", ".cargo-home"))
    out = tmp_path / "out"
    proc = subprocess.run(
        ["bash", str(src / "build.sh"), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1100,
    )
    assert proc.returncode == 0, f"build.sh failed:\n{proc.stdout}\n{proc.stderr}"
    committed = REPO_ROOT / "extensions"
    differing = [
        t for t in TOOLS if (out / f"{t}.wasm").read_bytes() != (committed / f"{t}.wasm").read_bytes()
    ]
    assert not differing, (
        f"rebuilt {differing} differ from the committed extensions/ binaries "
        f"(toolchains here: {toolchain_versions()}; the committed ones were built with Debian clang 14.0.6, "
        f"rustc 1.63.0 and go1.27.3)"
    )
