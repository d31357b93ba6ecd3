"""What a credential's value first handed to a tool costs a server of 10,000 tools.

    python bench/bench_credential_value.py [--seal DIR] [--tools 10000] [--rounds 5]

The catalog: ``bench_search_speed``'s (the Seal-Tools tools, then renamed copies up to
``--tools``), one of them described with the value. Each round makes the server's
``Disclosure`` in ``auto`` mode, searches once (which fills the index), lists and weighs the
listing (what ``auto`` does at each listing); then the value becomes one to hide (a tool read it
from its variable at a call), and the next search and listing are measured: CPU time of the
process, and the event loop's longest wait during that search (a task ticks every millisecond).
Reference: the first search, which fills the whole index, in the same round.
Every round is printed, then the minimum and median of each.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_disclosure_start import LoopWaits, arguments, served  # noqa: E402
from bench_search_speed import catalog_of  # noqa: E402

from toolbay.catalog import Catalog, CatalogHolder  # noqa: E402
from toolbay.config import DisclosureSettings  # noqa: E402
from toolbay.protocol.disclosure import Disclosure  # noqa: E402
from toolbay.words import CallContext, Principal  # noqa: E402

VALUE = "moonbeam42xq"


async def one_round(catalog: Catalog) -> dict[str, float]:
    holder = CatalogHolder(catalog)
    hidden: set[str] = set()
    disclosure = Disclosure(DisclosureSettings(mode="auto"), holder, lambda principal, definition: True,
                            hidden=lambda: hidden)
    principal = Principal.anonymous()
    definitions = holder.current.definitions()
    waits = LoopWaits()
    started = time.process_time()
    await disclosure.search("send an email with an attachment", 5, CallContext())
    first = time.process_time() - started
    disclosure.listed(principal, definitions, None)
    hidden.add(VALUE)
    async with anyio.create_task_group() as group:
        group.start_soon(waits.tick)
        await anyio.sleep(0.01)
        started = time.process_time()
        answer = await disclosure.search(VALUE, 5, CallContext())
        search = time.process_time() - started
        waits.done.set()
    assert answer["no_match"], answer
    started = time.process_time()
    listing = disclosure.listed(principal, definitions, None)
    listed = time.process_time() - started
    assert VALUE not in str(listing)
    disclosure.close()
    return {"first": first, "search": search, "longest": waits.longest, "listed": listed}


def main() -> None:
    args = arguments(__doc__)
    definitions = catalog_of(args.tools, args.seal)
    definitions[0] = replace(definitions[0], description=f"{definitions[0].description} (key {VALUE})")
    catalog = served(definitions)
    figures: dict[str, list[float]] = {}
    for round_number in range(1, args.rounds + 1):
        measured = anyio.run(lambda: one_round(catalog))
        for label, value in measured.items():
            figures.setdefault(label, []).append(value)
        print(f"round {round_number}: search after the value {1000 * measured['search']:7.1f} ms CPU, the loop "
              f"waited at most {1000 * measured['longest']:6.1f} ms; the listing after it "
              f"{1000 * measured['listed']:7.1f} ms CPU | reference, the first search: "
              f"{1000 * measured['first']:7.1f} ms CPU")
    print(f"over {args.rounds} rounds, {len(catalog)} tools:")
    for label, key in (("search after the value, CPU", "search"), ("  the loop's longest wait", "longest"),
                       ("listing after the value, CPU", "listed"), ("reference: first search, CPU", "first")):
        values = figures[key]
        print(f"  {label:32s} min {1000 * min(values):8.1f} ms  median {1000 * statistics.median(values):8.1f} ms")


if __name__ == "__main__":
    main()
