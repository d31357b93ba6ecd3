"""Describing a folder of new tools, as a first start or a `cp` of many files does: this
checkout against a revision.

    python bench/bench_describe_folder.py --against REF [--rounds R]

Two folders, each described from nothing (an empty data folder) in a child process that
opens the catalog and closes it: 1,000 small generated tools (each prints a clap-style help;
``tests/disclosure``'s catalog), and 12 copies of the bundled textkit (7 subcommands each),
made distinct by a custom section. Measured: the child's CPU time (user and system, its
threads included) and wall time, for this checkout and for the toolbay of git revision REF
unpacked beside (``revision_tree``), alternating which goes first. Prints every round, the
minimum and median of each, and the ratio of medians (this / REF).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
from revision_tree import in_turn, report_against, unpack_revision  # noqa: E402

# Run in the child: describe the folder argv[1] into the data folder argv[2], print the count.
_CHILD = """
import sys, anyio
from pathlib import Path
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import load_settings

async def describe():
    settings = load_settings(None, extensions=[Path(sys.argv[1])], agents=[], data_dir=Path(sys.argv[2]))
    async with CatalogKeeper.open(settings) as app:
        return len(app.catalog.current)

print(anyio.run(describe))
"""


def small_tools(folder: Path) -> None:
    from tests.disclosure.conftest import NOUNS, VERBS, help_module, help_text

    for verb in VERBS:
        for noun in NOUNS:
            (folder / f"{verb}_{noun}.wasm").write_bytes(help_module(help_text(verb, noun)))


def textkit_copies(folder: Path, copies: int = 12) -> None:
    program = (ROOT / "extensions" / "textkit.wasm").read_bytes()
    for number in range(copies):
        # A custom section named "x" holding the copy's number: other bytes, the same program.
        (folder / f"textkit{number}.wasm").write_bytes(program + b"\x00\x06\x01x" + number.to_bytes(4, "little"))


def describe_once(python_path: Path, folder: Path) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, tools) of describing ``folder`` from nothing in a child."""
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-data-") as data:
        env = {**os.environ, "PYTHONPATH": str(python_path)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _CHILD, str(folder), data], env=env, check=True,
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, metavar="REF", help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-describe-") as temp:
        base = Path(temp)
        (base / "other").mkdir()
        trees = {"this": ROOT, args.against: unpack_revision(args.against, base / "other")}
        for label, make in (("1,000 small generated tools", small_tools), ("12 copies of textkit", textkit_copies)):
            folder = base / make.__name__
            folder.mkdir()
            make(folder)
            print(f"{label}: described from nothing, this checkout vs {args.against}, {args.rounds} rounds")
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for number in range(args.rounds):
                for name in in_turn(list(trees), number):
                    cpu, wall, tools = describe_once(trees[name], folder)
                    samples[name].append((cpu, wall))
                    print(f"   round {number + 1} {name:>12}: CPU {cpu:6.2f} s  wall {wall:6.2f} s  ({tools} tools)")
            report_against(samples, args.against, indent="   ")
            print()


if __name__ == "__main__":
    main()
