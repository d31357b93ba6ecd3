"""What a server of 10,000 tools does for search before its first listing, and at the first search.

    python bench/bench_disclosure_start.py [--seal DIR] [--tools 10000] [--rounds 5]

The catalog: ``bench_search_speed``'s (the Seal-Tools tools, then renamed copies up to
``--tools``). Each round makes the server's ``Disclosure`` over it, which a server does once
its catalog is described and before it answers anything, then runs one search while a task
on the event loop ticks every millisecond. Measured (CPU time of the process; the loop's
longest wait between two ticks, in wall time):
- before the first listing: making the disclosure; reference: the same with the index filled
  then, as every start did before the first search filled it;
- the first search, which fills the index on a worker thread: its CPU, and how long the event
  loop (every other request) waited at most meanwhile; reference: the index filled on the
  event loop itself.
Every round is printed, then the minimum and median of each and the ratios of medians.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_search_quality import DEFAULT_SEAL  # noqa: E402
from bench_search_speed import catalog_of  # noqa: E402

from toolbay.catalog import Catalog, CatalogHolder  # noqa: E402
from toolbay.config import DisclosureSettings  # noqa: E402
from toolbay.handlers.base import Handler  # noqa: E402
from toolbay.protocol.disclosure import Disclosure  # noqa: E402
from toolbay.redaction import redacted  # noqa: E402
from toolbay.search import SearchIndex  # noqa: E402
from toolbay.words import CallContext, ToolDefinition, ToolResult  # noqa: E402


class _Served(Handler):
    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text="")


def served(definitions: list[ToolDefinition]) -> Catalog:
    return Catalog.build([_Served(ToolDefinition(
        name=d.name, description=d.description, input_schema=d.input_schema, source="wasm",
        origin=f"wasm:/tools/{d.name}.wasm")) for d in definitions])


class LoopWaits:
    """The event loop's longest wait (in seconds) between two ticks of ``tick``, a task that
    ticks every millisecond until ``done`` is set."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.done = anyio.Event()

    async def tick(self) -> None:
        last = time.perf_counter()
        while not self.done.is_set():
            await anyio.sleep(0.001)
            now = time.perf_counter()
            self.longest, last = max(self.longest, now - last), now


async def one_start(catalog: Catalog, *, reference: bool) -> tuple[float, float, float]:
    """(CPU seconds to make the disclosure, CPU seconds of the first search, the event loop's
    longest wait in seconds during that search). ``reference``: the index is filled as the
    disclosure is made, on the event loop."""
    holder = CatalogHolder(catalog)
    started = time.process_time()
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True)
    if reference:
        disclosure.index.put_many((key, redacted(entry.definition)) for key, entry in holder.current.keyed().items())
        disclosure._index_filled = True  # reaching in: the reference fills it itself, as a start did
    made = time.process_time() - started
    waits = LoopWaits()
    async with anyio.create_task_group() as group:
        group.start_soon(waits.tick)
        await anyio.sleep(0.01)
        started = time.process_time()
        if reference:
            # The index filled on the loop at the first search (what the reference's start did).
            disclosure._index_filled = False
            disclosure.index = SearchIndex(group_of=disclosure._group_of)
            disclosure.index.put_many((key, redacted(entry.definition))
                                      for key, entry in holder.current.keyed().items())
            disclosure._index_filled = True
        await disclosure.search("send an email with an attachment", 5, CallContext())
        first = time.process_time() - started
        waits.done.set()
    disclosure.close()
    return made, first, waits.longest


def arguments(description: str | None) -> argparse.Namespace:
    """--seal, --tools and --rounds, as this bench and those over the same catalog read them."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seal", type=Path, default=DEFAULT_SEAL)
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__)
    catalog = served(catalog_of(args.tools, args.seal))
    figures: dict[str, list[float]] = {}
    for round_number in range(1, args.rounds + 1):
        made, first, longest = anyio.run(lambda: one_start(catalog, reference=False))
        made_then, first_then, longest_then = anyio.run(lambda: one_start(catalog, reference=True))
        for label, value in (("made", made), ("made_then", made_then), ("first", first), ("first_then", first_then),
                             ("longest", longest), ("longest_then", longest_then)):
            figures.setdefault(label, []).append(value)
        print(f"round {round_number}: before the first listing {1000 * made:7.1f} ms CPU "
              f"(reference {1000 * made_then:7.1f}) | "
              f"first search {1000 * first:7.1f} ms CPU (reference {1000 * first_then:6.1f}), the loop waited at "
              f"most {1000 * longest:6.1f} ms (reference, filled on the loop: {1000 * longest_then:7.1f} ms)")
    print(f"over {args.rounds} rounds, {len(catalog)} tools:")
    for label, key in (("before the first listing, CPU", "made"), ("  reference: index filled then", "made_then"),
                       ("first search, CPU (fills the index)", "first"),
                       ("  reference: index filled before", "first_then"),
                       ("the loop's longest wait, first search", "longest"),
                       ("  reference: index filled on the loop", "longest_then")):
        values = figures[key]
        print(f"  {label:38s} min {1000 * min(values):8.1f} ms  median {1000 * statistics.median(values):8.1f} ms")
    for label, key in (("before the first listing", "made"), ("the loop's longest wait", "longest")):
        ratio = statistics.median(figures[key]) / statistics.median(figures[key + "_then"])
        print(f"  ratio of medians, {label}: {ratio:.3f}x")

if __name__ == "__main__":
    main()
