"""What toolbay reaches into in sse_starlette (``toolbay.internals.sse_starlette_uvicorn``): once the
server is told to stop, a POST's event stream still sends its answer, and a GET's ends at once.
These fail when an sse_starlette upgrade changes how a response's grace is kept; the behaviour
built on it (a job_wait answered as the server stops) is tested in
tests/jobs_e2e/test_outlive_session.py."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from sse_starlette.sse import AppStatus
from starlette.types import Message

from toolbay.internals.sse_starlette_uvicorn import STOP_HOLD, answer_first_event_source_response

pytestmark = pytest.mark.anyio


async def streamed(method: str, answer_after_the_stop: bool, close_after_the_answer: bool = True) -> list[Message]:
    """What a response to a request of ``method`` sends when the server was told to stop before
    it began (and, if asked, with its answer given to it only once it has heard of the stop)."""
    sent: list[Message] = []
    heard = anyio.Event()
    writer, reader = anyio.create_memory_object_stream[dict[str, Any]](1)
    response = answer_first_event_source_response()(reader, shutdown_event=heard)

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        await anyio.sleep_forever()  # the client stays
        raise AssertionError

    with anyio.fail_after(30):  # against a hang only
        async with writer, reader, anyio.create_task_group() as group:
            group.start_soon(response, {"type": "http", "method": method, "headers": []}, receive, send)
            await heard.wait()
            if answer_after_the_stop:
                await writer.send({"data": "the answer"})
                if close_after_the_answer:
                    await writer.aclose()  # the answer is all: the stream ends after it
    return sent


async def test_told_to_stop_a_posts_stream_sends_its_answer_and_a_gets_ends_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AppStatus, "should_exit", True)  # as uvicorn's handle_exit, wrapped, sets it
    posted = await streamed("POST", answer_after_the_stop=True)
    assert b"data: the answer" in b"".join(m.get("body", b"") for m in posted), posted
    assert posted[-1] == {"type": "http.response.body", "body": b"", "more_body": False}

    got = await streamed("GET", answer_after_the_stop=False)  # ended without its content ending
    assert [m["type"] for m in got] == ["http.response.start", "http.response.body"], got
    assert got[-1]["more_body"] is False


class OneAnswerOwed:
    """A legacy SSE connection's hold that owes one item, sent once the server was told to stop."""

    def __init__(self) -> None:
        self.sent = 0
        self.all_out = anyio.Event()

    def item_sent(self) -> None:
        self.sent += 1
        self.all_out.set()

    async def all_sent(self) -> None:
        await self.all_out.wait()


async def test_told_to_stop_a_gets_stream_made_under_a_hold_sends_what_it_owes_then_ends(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AppStatus, "should_exit", True)
    hold = OneAnswerOwed()
    token = STOP_HOLD.set(hold)
    try:  # the stream's content never ends by itself: the hold ends it
        got = await streamed("GET", answer_after_the_stop=True, close_after_the_answer=False)
    finally:
        STOP_HOLD.reset(token)
    assert b"data: the answer" in b"".join(m.get("body", b"") for m in got), got
    assert hold.sent == 1
    assert got[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
