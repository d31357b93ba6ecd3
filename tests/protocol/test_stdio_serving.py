"""A stdio server (Claude Code's) loads none of toolbay's HTTP serving: those imports ran
beside a first start's describing of its tools, on the same two cores."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

HTTP_ONLY = ("toolbay.protocol.transports", "toolbay.protocol.plain_json", "toolbay.protocol.http_lane",
             "toolbay.protocol.connection_guard", "toolbay.protocol.early_answers", "toolbay.protocol.host_header",
             "toolbay.protocol.caller_requests", "toolbay.protocol.caller_sessions")


def test_serving_over_stdio_loads_none_of_the_http_transports() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, toolbay.commands, toolbay.protocol.stdio_serving\n"
         f"print(' '.join(m for m in {HTTP_ONLY!r} if m in sys.modules))"],
        capture_output=True, text=True, timeout=120, check=True)
    assert loaded.stdout.split() == []
    # and naming the module that is (as serve does) picks the stdio one for stdio alone
    from toolbay.config import load_settings
    from toolbay.serve_command import protocol_module

    assert protocol_module(load_settings(None)) == "toolbay.protocol.stdio_serving"
    assert protocol_module(load_settings(None, transport="http")) == "toolbay.protocol.transports"


@pytest.mark.anyio
async def test_requests_are_counted_in_flight_from_start_to_answer_even_when_they_fail() -> None:
    """What, with the job manager's count, tells a quiet server from one amid a burst whose
    requests are still being checked (memory was collected mid-burst: a re-check)."""
    from toolbay.protocol.in_flight import CountedRequests, requests_in_flight

    started, release = anyio.Event(), anyio.Event()

    async def answer(ctx: object) -> dict:
        started.set()
        await release.wait()
        raise ValueError("refused")

    counted = CountedRequests()
    before = requests_in_flight()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            async def run() -> None:
                with pytest.raises(ValueError):
                    await counted(object(), answer)  # type: ignore[arg-type]

            group.start_soon(run)
            await started.wait()
            assert requests_in_flight() == before + 1
            release.set()
    assert requests_in_flight() == before
