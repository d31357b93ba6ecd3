"""How long describing help takes, against a reference measured in the same run.

    python bench/bench_helptext.py

The reference is the least any reader must do: read the file, decode it as UTF-8 and
split it into lines. Goal: a typical help text in well under 5 ms; a 1 MB text in
well under a second.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from toolbay.errors import NotHelpError  # noqa: E402
from toolbay.helptext import build_tool_schema, describe_help  # noqa: E402

CORPUS = ROOT / "tests" / "helptext" / "corpus"


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def reference(paths: list[Path]) -> None:
    for path in paths:
        path.read_bytes().decode("utf-8", errors="replace").splitlines()


def describe_all(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(NotHelpError):
            build_tool_schema(describe_help(path.read_bytes()))


def one_megabyte() -> bytes:
    base = (CORPUS / "clap" / "ripgrep" / "long.txt").read_bytes()
    return (base * (1_000_000 // len(base) + 1))[:1_000_000]


def main() -> None:
    paths = sorted(CORPUS.glob("*/*/long.txt"))
    ref = timed(lambda: reference(paths), 20)
    ours = timed(lambda: describe_all(paths), 5)
    per_text = [timed(lambda p=p: describe_all([p]), 5) for p in paths]
    big = one_megabyte()
    big_path = Path("/tmp/toolbay-bench-1mb.txt")
    big_path.write_bytes(big)
    big_ref = timed(lambda: reference([big_path]), 5)
    big_ours = timed(lambda: describe_all([big_path]), 3)
    print(f"corpus: {len(paths)} texts, {sum(p.stat().st_size for p in paths) / 1024:.0f} KiB")
    print(f"  describe all: {ours * 1000:.1f} ms   reference: {ref * 1000:.2f} ms   ratio {ours / ref:.0f}x")
    print(f"  per text: median {statistics.median(per_text) * 1000:.2f} ms, "
          f"p90 {sorted(per_text)[int(len(per_text) * 0.9)] * 1000:.2f} ms, "
          f"max {max(per_text) * 1000:.2f} ms")
    print(f"1 MB text: describe {big_ours * 1000:.0f} ms   reference {big_ref * 1000:.2f} ms   "
          f"ratio {big_ours / big_ref:.0f}x")


if __name__ == "__main__":
    main()
