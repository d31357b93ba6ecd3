"""How much ``tools/list`` shows at 1,000 tools, search-first against full.

    python bench/bench_disclosure.py [--rounds 3]

The catalog: the bundled tools plus 1,000 small generated tools (``tests/disclosure``'s,
each a real WASI command printing its own help, or as many tools of one real Python tool
module), described once into a temporary data folder. Sizes are the JSON of every page of
the listing, as a client receives it, and a model's tokens counted roughly (characters / 4).
Three layouts, each against its own full listing (the reference, measured in the same round):

- catalog: the 1,000 WASI tools in a ``[disclosure] catalog`` folder (found only by
  search), the bundled tools connected;
- connected: all of them connected (the 1,000 do not fit ``connected_budget``);
- python: the bundled tools and the 1,000 Python tools, all connected.

Each round also takes the CPU time of building one whole listing in each mode. Goal
(issue 16): search-first at most 5 % of full.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.disclosure.conftest import NOUNS, VERBS, help_module, help_text, python_module  # noqa: E402
from toolbay.app import Toolbay  # noqa: E402
from toolbay.assembly import assemble  # noqa: E402
from toolbay.config import BUNDLED_EXTENSIONS, Settings, load_settings  # noqa: E402
from toolbay.protocol.listing import definition_to_tool  # noqa: E402


def listing_size(app: Toolbay) -> tuple[int, int, float]:
    """(tools, characters of the listing's JSON, CPU ms to build it) for the local caller."""
    started = time.process_time()
    tools = [definition_to_tool(d) for d in app.listed_definitions(app.local_principal, None)]
    text = json.dumps({"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]})
    return len(tools), len(text), (time.process_time() - started) * 1000


async def measure(settings: Settings, mode: str, catalog: list[Path]) -> tuple[int, int, float]:
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(
        update={"mode": mode, "catalog": catalog})})
    # The first listing after a change weighs each connected folder once; a round measures
    # the listing a session gets after that.
    async with assemble(settings, watch=False) as app:
        listing_size(app)
        return listing_size(app)


async def measure_cold(settings: Settings, mode: str, catalog: list[Path]) -> tuple[int, int, float]:
    """The same, the first listing of a fresh server (what weighing the folders costs)."""
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(
        update={"mode": mode, "catalog": catalog})})
    async with assemble(settings, watch=False) as app:
        return listing_size(app)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        generated = Path(temporary) / "generated"
        generated.mkdir()
        for verb in VERBS:
            for noun in NOUNS:
                (generated / f"{verb}_{noun}.wasm").write_bytes(help_module(help_text(verb, noun)))
        python = Path(temporary) / "python"
        python.mkdir()
        (python / "paperwork.py").write_text(python_module("paperwork"), encoding="utf-8")
        data = Path(temporary) / "data"
        wasm_settings = load_settings(None, extensions=[BUNDLED_EXTENSIONS, generated], data_dir=data)
        python_settings = load_settings(None, extensions=[BUNDLED_EXTENSIONS, python], data_dir=data)
        layouts = {"catalog": (wasm_settings, [generated]), "connected": (wasm_settings, []),
                   "python": (python_settings, [])}
        for settings in (wasm_settings, python_settings):
            anyio.run(measure, settings, "full", [])  # describes the 1,000 tools once
        ratios: dict[str, list[float]] = {layout: [] for layout in layouts}
        cold_ms: dict[str, list[float]] = {layout: [] for layout in layouts}
        for round_number in range(1, args.rounds + 1):
            line = f"round {round_number}:"
            for layout, (settings, catalog) in layouts.items():
                full = anyio.run(measure, settings, "full", [])
                first = anyio.run(measure, settings, "search-first", catalog)
                cold = anyio.run(measure_cold, settings, "search-first", catalog)
                ratios[layout].append(100 * first[1] / full[1])
                cold_ms[layout].append(cold[2])
                line += (f" | {layout}: full {full[0]} tools {full[1]:,} chars (~{full[1] // 4:,} tokens), "
                         f"search-first {first[0]} tools {first[1]:,} chars (~{first[1] // 4:,} tokens) = "
                         f"{ratios[layout][-1]:.2f}% of full; built in {first[2]:.1f} ms CPU "
                         f"(full {full[2]:.1f}, first after a change {cold[2]:.1f})")
            print(line, flush=True)
        for layout, values in ratios.items():
            print(f"search-first / full, {layout:<9} min {min(values):.2f}%   median {statistics.median(values):.2f}%"
                  f"   (goal <= 5%); first listing after a change: min {min(cold_ms[layout]):.1f} ms   "
                  f"median {statistics.median(cold_ms[layout]):.1f} ms CPU")


if __name__ == "__main__":
    main()
