"""A server's first listing of its tools is worked out while other requests are answered."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.chain_e2e.conftest import connect, running
from tests.disclosure.conftest import NOUNS, VERBS, python_module
from toolbay.config import load_settings

pytestmark = pytest.mark.anyio

# One tool whose module generates a schema of many properties (as one built from an API's
# description may be): worked out alone, it held the event loop as long as thousands of tools.
# 10,000 are plenty: the loop was held for nearly all of their first listing as for 20,000, and
# that listing is still far longer than a pause of the test process's collector.
ENORMOUS_MODULE = """
def get_tool_schemas():
    return [{"name": "enormous", "description": "One tool of a great many options.",
             "input_schema": {"type": "object", "properties": {
                 f"option_{n}": {"type": "string", "description": f"Option {n} of the run, " * 8}
                 for n in range(10_000)}}}]


def dispatch(name, arguments):
    return "done"
"""
MODULES = {f"{len(VERBS) * len(NOUNS) * 2:,} tools": {name: python_module(name) for name in ("first", "second")},
           "one tool of 10,000 properties": {"enormous": ENORMOUS_MODULE}}


@pytest.mark.parametrize("modules", list(MODULES))
async def test_the_first_listing_leaves_the_event_loop_to_other_requests(tmp_path: Path, modules: str) -> None:
    """Each tool's redacted copy and listed length, worked out once at the first tools/list (and
    for a changed module's tools after it), were worked out on the event loop: at 10,000 tools
    every other request, /healthz too, waited about 6 s, and as long for one tool of a 60 MB
    schema (outside checks). Here the event loop is never held for half the first listing's
    time (before, nearly all of it)."""
    folder = tmp_path / "tools"
    folder.mkdir()
    for module, source in MODULES[modules].items():
        (folder / f"{module}.py").write_text(source, encoding="utf-8")
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data", port=0)
    longest_hold = 0.0
    listed = anyio.Event()

    async def watch_the_loop() -> None:
        nonlocal longest_hold
        before = anyio.current_time()
        while not listed.is_set():
            await anyio.sleep(0)
            now = anyio.current_time()
            longest_hold, before = max(longest_hold, now - before), now

    with anyio.fail_after(120):
        async with running(settings) as url, connect(url, None) as client, anyio.create_task_group() as group:
            group.start_soon(watch_the_loop)
            started = anyio.current_time()
            listing = await client.list_tools()
            took = anyio.current_time() - started
            listed.set()
    assert any(tool.name == "search_tools" for tool in listing.tools)  # the listing is whole
    assert longest_hold < took / 2, (longest_hold, took)
