"""The first ``tools/list`` after one file changed, at thousands of tools, in ``auto`` mode.

    python bench/bench_listing_after_change.py [--modules 8] [--rounds 5]

In ``auto`` mode a listing weighs the caller's full listing against ``token_budget``, which
needs each tool as shown (redacted) and its length. Those were kept for one catalog only, so
after a change to any file every tool was redacted again on the event loop: at 8,000 tools an
outside check saw every client held for 2 to 3 s. They are now kept for as long as each tool is
served, and only the changed file's tools are worked out again.

The catalog: ``--modules`` real Python tool modules of 1,000 tools each (``tests/disclosure``'s
generated module), beside the bundled tools, described once into a temporary data folder. Each
round rewrites one module (its 1,000 tools are new objects, the others the same), rescans, and
takes the CPU time of the next listing for the local caller; the reference is the same listing
again with nothing changed, measured in the same round. Printed: every round, the minimum and
the median of both, and their ratio (1,000 of the tools are new each round: a floor of about
1,000 / all of the tools).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.disclosure.conftest import NOUNS, VERBS, python_module  # noqa: E402
from toolbay.app import Toolbay  # noqa: E402
from toolbay.assembly import assemble  # noqa: E402
from toolbay.config import BUNDLED_EXTENSIONS, load_settings  # noqa: E402

TOOLS_PER_MODULE = len(VERBS) * len(NOUNS)


def listing_cpu_ms(app: Toolbay) -> tuple[int, float]:
    """(tools listed, CPU ms) of one listing for the local caller, as ``tools/list`` builds it."""
    started = time.process_time()
    listed = app.listed_definitions(app.local_principal, None)
    return len(listed), (time.process_time() - started) * 1000


async def rounds(folder: Path, data: Path, count: int) -> tuple[list[float], list[float], int, int]:
    settings = load_settings(None, extensions=[BUNDLED_EXTENSIONS, folder], agents=[], data_dir=data)
    settings.disclosure.mode = "auto"
    after: list[float] = []
    steady: list[float] = []
    async with assemble(settings, watch=False) as app:
        served = len(app.catalog.current)
        listed, _ = listing_cpu_ms(app)  # the first listing weighs every tool once
        for number in range(1, count + 1):
            # A new version of one module: a comment makes it another file, its tools new objects.
            module = folder / "module0.py"
            module.write_text(python_module("module0") + f"\n# version {number}\n", encoding="utf-8")
            await app.keeper.rescan()
            listed, changed_ms = listing_cpu_ms(app)
            _, steady_ms = listing_cpu_ms(app)
            after.append(changed_ms)
            steady.append(steady_ms)
            print(f"round {number}: first listing after the change {changed_ms:8.1f} ms CPU | "
                  f"the same again, nothing changed {steady_ms:6.1f} ms | ratio {changed_ms / steady_ms:5.1f}x",
                  flush=True)
    return after, steady, served, listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modules", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "tools"
        folder.mkdir()
        for number in range(args.modules):
            (folder / f"module{number}.py").write_text(python_module(f"module{number}"), encoding="utf-8")
        data = Path(temporary) / "data"
        print(f"{args.modules} modules of {TOOLS_PER_MODULE:,} tools beside the bundled tools, [disclosure] "
              f"mode auto; describing them once...", flush=True)
        after, steady, served, listed = anyio.run(rounds, folder, data, args.rounds)
        print(f"{served:,} tools served, {listed} listed (search-first: the budget is passed)")
        print(f"first listing after one module changed: min {min(after):.1f} ms, median {statistics.median(after):.1f}"
              f" ms CPU; the same listing again: min {min(steady):.1f} ms, median {statistics.median(steady):.1f} ms;"
              f" ratio of medians {statistics.median(after) / statistics.median(steady):.1f}x")


if __name__ == "__main__":
    main()
