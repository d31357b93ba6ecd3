"""The progress values one request hears only ever increase, and a job's steps never swallow
the tool's own next report."""

from __future__ import annotations

import pytest

from toolbay.jobs.progress import ProgressRelay

pytestmark = pytest.mark.anyio


async def test_a_step_between_two_reports_of_a_tool_keeps_both_reports() -> None:
    heard: list[tuple[float, float | None, str | None]] = []

    async def send(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    relay = ProgressRelay(send)
    await relay.tool(1, 3, "step 1")
    await relay.step("goes on in the background")
    await relay.tool(2, 3, "step 2")
    await relay.tool(2, 3, "again")  # not forward: dropped
    await relay.step("ended", final=True)
    assert [message for _, _, message in heard] == ["step 1", "goes on in the background", "step 2", "ended"]
    values = [done for done, _, _ in heard]
    assert values == sorted(set(values)) and values[-1] == 3


@pytest.mark.parametrize(("last", "total", "step_value"), [(16, 25, 16.001), (0.1, 1, 0.101), (2.0005, 3, 2.001),
                                                           (2**60, 2**61, float(2**60 + 256))])
async def test_a_step_after_a_tools_report_moves_on_by_a_value_a_client_shows_as_it_is(
        last: float, total: float, step_value: float) -> None:
    """A step after 16 of 25 was sent as 16.000000000000004 (the least float above 16)."""
    heard: list[float] = []

    async def send(done: float, total: float | None, message: str | None) -> None:
        heard.append(done)

    relay = ProgressRelay(send)
    await relay.tool(last, total, "working")
    await relay.step("goes on in the background")
    assert heard == [last, step_value]
