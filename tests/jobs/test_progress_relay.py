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
