"""Module code runs in worker processes: whatever it does, the call ends as a tool error and the
server, and the next call, carry on."""

from __future__ import annotations

import pytest

from tests.pytools.conftest import call
from toolbay.app import Toolbay

pytestmark = pytest.mark.anyio


async def assert_still_serving(app: Toolbay) -> None:
    assert (await call(app, "greet", {"name": "again"})).text == "Hello, again!"
    assert (await call(app, "crashy_raise")).text.startswith("the upstream service said no")


@pytest.mark.parametrize(("tool", "words"), [
    ("crashy_segfault", "killed by SIGSEGV"),
    ("crashy_os_exit", "exited with status 7"),
    ("crashy_exit", "sys.exit(3)"),
    ("crashy_loop", "time limit of 5 s"),
    ("crashy_hog", "ran out of memory"),
])
async def test_a_misbehaving_tool_ends_as_a_clear_error_and_the_server_carries_on(
    pyapp: Toolbay, tool: str, words: str,
) -> None:
    result = await call(pyapp, tool)
    assert result.is_error, result.text
    assert words in result.text
    await assert_still_serving(pyapp)


async def test_a_dead_worker_is_replaced_by_a_new_process(pyapp: Toolbay) -> None:
    first = (await call(pyapp, "crashy_pid")).structured
    assert (await call(pyapp, "crashy_os_exit")).is_error
    second = (await call(pyapp, "crashy_pid")).structured
    assert first is not None and second is not None
    assert first["result"] != second["result"]


async def test_a_warm_worker_serves_the_next_call(pyapp: Toolbay) -> None:
    first = (await call(pyapp, "crashy_pid")).structured
    second = (await call(pyapp, "crashy_pid")).structured
    assert first == second


async def test_printing_never_reaches_the_protocol_and_the_result_stays(pyapp: Toolbay) -> None:
    result = await call(pyapp, "crashy_print")
    assert not result.is_error
    assert result.text == "printed and returned"
    assert "this goes nowhere near the protocol" in result.meta["printed"]


async def test_a_flood_of_output_is_cut_at_the_output_limit_and_says_so(pyapp: Toolbay) -> None:
    result = await call(pyapp, "crashy_flood")
    assert not result.is_error
    assert len(result.text) < 300 * 1024
    assert result.text.endswith("[output truncated: only the first 262144 characters are shown]")
    assert result.meta["truncated"] is True
