"""Reaching past sse_starlette's public API (the MCP SDK depends on it; its version is locked).

``sse_starlette.sse`` imports uvicorn as it loads, only to wrap uvicorn's ``Server.handle_exit``
so that its event streams end when uvicorn is told to stop; where uvicorn is not installed it
catches the ``ImportError`` and goes without. The MCP SDK's low-level server imports it with
its streamable HTTP transport, so a stdio server loaded uvicorn, and click with it, for an HTTP
server it never runs: 30 to 50 ms of processor time on the way to a first start's listing.
``load_without_uvicorn`` loads it as where uvicorn is not installed, for a process that serves
no HTTP (``serve`` over stdio): there is then no uvicorn server whose exit it could hear.

An answer under way on an event stream when uvicorn is told to stop: sse_starlette ends every
event stream of the process once it hears that uvicorn was told to exit (it wraps
``Server.handle_exit``, and looks for the exit every half second): the long-lived GET streams,
which would otherwise hold uvicorn's shutdown for the whole of its grace, but also the stream a
POST's answer travels on. A ``job_wait`` that the stop itself ends (``JobManager.stop_waiting``,
once uvicorn begins its shutdown) had its answer sent only if that came before sse_starlette's
next look, 0.1 to 0.3 s later here; a server that was not run for half a second as it was told
to stop (a busy machine) lost it every time, and its client had "SSE stream ended without a
response".

``answer_first_event_source_response()`` gives the stream of a POST the grace sse_starlette offers
(``shutdown_grace_period``, which the SDK leaves at none), without a bound of its own: the stream
ends once it has sent its answer, or when uvicorn's grace for open requests
(``timeout_graceful_shutdown``) runs out and uvicorn cancels it. The SDK builds every stream
alike, so the grace is set per response from the request's method, on the attribute the
constructor keeps it in; ``tests/internals/test_sse_starlette_answers.py`` fails if that changes.

The legacy SSE transport sends every answer on its GET stream (a POST to ``/messages/`` is only
accepted), so the same stop lost a ``job_wait``'s answer there. A GET stream made while
``STOP_HOLD`` holds a ``StopHold`` (``toolbay.protocol.legacy_sse``) is told of each item it has
sent, and once the server is told to stop ends when ``all_sent()`` returns, rather than at
once; uvicorn's grace still bounds it. That overrides ``_listen_for_exit_signal_with_grace``, the
method that waits for the stop and then gives the grace (the same test fails if it goes).
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import AsyncIterable, AsyncIterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # not at import: ``load_without_uvicorn`` must be the first to load sse_starlette.sse
    from sse_starlette.sse import EventSourceResponse


class StopHold(Protocol):
    """What a GET stream owes its client when the server is told to stop."""

    def item_sent(self) -> None:
        """One more item of the stream's content has been sent to the client."""

    async def all_sent(self) -> None:
        """Returns once the stream has sent all it owes (an answer to every request it read)."""


# Set while a GET stream's response is made (its task copies it): see the module's docstring.
STOP_HOLD: ContextVar[StopHold | None] = ContextVar("toolbay_sse_stop_hold", default=None)


async def _told_as_sent(items: AsyncIterable[Any], hold: StopHold) -> AsyncIterator[Any]:
    async for item in items:
        yield item
        hold.item_sent()  # resumed for the next item only once this one has been sent


def load_without_uvicorn() -> None:
    """Imports ``sse_starlette.sse`` as if uvicorn were not installed, unless one of them is
    loaded already. uvicorn can still be imported afterwards (without sse_starlette's wrapper:
    only for a process that serves no HTTP)."""
    if "sse_starlette.sse" in sys.modules or "uvicorn" in sys.modules:
        return
    # A None entry makes ``from uvicorn.main import Server`` raise ImportError at once, before
    # uvicorn's own package (its config, logging.config) is loaded.
    sys.modules["uvicorn"] = None  # type: ignore[assignment]
    try:
        import sse_starlette.sse  # noqa: F401
    finally:
        if "uvicorn" in sys.modules and sys.modules["uvicorn"] is None:
            del sys.modules["uvicorn"]


@functools.cache
def answer_first_event_source_response() -> type[EventSourceResponse]:
    """sse_starlette's response, whose stream of a POST (one request's answer) the stop of the
    server does not end before it has sent that answer; a GET's stream (the server's own
    messages, with no end of its own) still ends at once, unless made under a ``STOP_HOLD``
    (a legacy SSE connection's, which carries the answers). Made when first asked for (HTTP only)."""
    from sse_starlette.sse import EventSourceResponse
    from starlette.types import Receive, Scope, Send

    class AnswerFirstEventSourceResponse(EventSourceResponse):
        _hold: StopHold | None = None

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                self._shutdown_grace_period = math.inf  # uvicorn's grace bounds it
            elif (hold := STOP_HOLD.get()) is not None:
                self._hold = hold
                self.body_iterator = _told_as_sent(self.body_iterator, hold)
            await super().__call__(scope, receive, send)

        async def _listen_for_exit_signal_with_grace(self) -> None:
            if self._hold is None:
                await super()._listen_for_exit_signal_with_grace()
                return
            await self._listen_for_exit_signal()
            if self._shutdown_event is not None:  # as sse_starlette's own does, once it heard the stop
                self._shutdown_event.set()
            await self._hold.all_sent()  # uvicorn's grace bounds it

    return AnswerFirstEventSourceResponse
