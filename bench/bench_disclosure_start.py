"""What a server of 10,000 tools does for search before its first listing, and at the first search.

    python bench/bench_disclosure_start.py [--seal DIR] [--tools 10000] [--rounds 5]

The catalog: ``bench_search_speed``'s (the Seal-Tools tools, then renamed copies up to
``--tools``). Each round makes the server's ``Disclosure`` over it, which a server does once
its catalog is described and before it answers anything, and then runs one search. The
reference, measured in the same round: the same with the index filled as the disclosure is
made (what every start did before the index was filled by the first search). CPU time of this
thread; every round is printed, then the minimum and median and the ratio of medians.
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
from toolbay.words import CallContext, ToolDefinition, ToolResult  # noqa: E402


class _Served(Handler):
    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text="")


def served(definitions: list[ToolDefinition]) -> Catalog:
    return Catalog.build([_Served(ToolDefinition(
        name=d.name, description=d.description, input_schema=d.input_schema, source="wasm",
        origin=f"wasm:/tools/{d.name}.wasm")) for d in definitions])


async def one_start(catalog: Catalog, *, fill_up_front: bool) -> tuple[float, float]:
    """(CPU seconds to make the disclosure, CPU seconds of the first search)."""
    holder = CatalogHolder(catalog)
    started = time.thread_time()
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True)
    if fill_up_front:
        disclosure._indexed(holder.current)  # the reference: as a start did before
    made = time.thread_time()
    await disclosure.search("send an email with an attachment", 5, CallContext())
    searched = time.thread_time()
    disclosure.close()
    return made - started, searched - made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seal", type=Path, default=DEFAULT_SEAL)
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    catalog = served(catalog_of(args.tools, args.seal))
    now_made, now_search, before_made, before_search = [], [], [], []
    for round_number in range(1, args.rounds + 1):
        made, search = anyio.run(lambda: one_start(catalog, fill_up_front=False))
        made_before, search_before = anyio.run(lambda: one_start(catalog, fill_up_front=True))
        now_made.append(made)
        now_search.append(search)
        before_made.append(made_before)
        before_search.append(search_before)
        print(f"round {round_number}: before the first listing {1000 * made:8.1f} ms (reference, index filled "
              f"then: {1000 * made_before:8.1f} ms, ratio {made / made_before:.3f}x) | first search "
              f"{1000 * search:7.1f} ms (reference {1000 * search_before:6.1f} ms)")
    print(f"over {args.rounds} rounds, {len(catalog)} tools, CPU time:")
    for label, values in (("before the first listing", now_made), ("  reference: index filled then", before_made),
                          ("first search (fills the index)", now_search), ("  reference: first search", before_search)):
        print(f"  {label:32s} min {1000 * min(values):8.1f} ms  median {1000 * statistics.median(values):8.1f} ms")
    print(f"  ratio of medians before the first listing: "
          f"{statistics.median(now_made) / statistics.median(before_made):.3f}x")


if __name__ == "__main__":
    main()
