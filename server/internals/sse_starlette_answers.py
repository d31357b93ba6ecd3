"""Reaching past sse_starlette's public API (the MCP SDK depends on it; its version is locked): an
answer under way on an event stream when uvicorn is told to stop.

sse_starlette ends every event stream of the process once it hears that uvicorn was told to
exit (it wraps ``Server.handle_exit``, and looks for the exit every half second): the long-lived
GET streams, which would otherwise hold uvicorn's shutdown for the whole of its grace, but also
the stream a POST's answer travels on. A ``job_wait`` that the stop itself ends
(``JobManager.stop_waiting``, once uvicorn begins its shutdown) had its answer sent only if that
came before sse_starlette's next look, 0.1 to 0.3 s later here; a server that was not run for
half a second as it was told to stop (a busy machine) lost it every time, and its client had
"SSE stream ended without a response".

``AnswerFirstEventSourceResponse`` gives the stream of a POST the grace sse_starlette offers
(``shutdown_grace_period``, which the SDK leaves at none), without a bound of its own: the stream
ends once it has sent its answer, or when uvicorn's grace for open requests
(``timeout_graceful_shutdown``) runs out and uvicorn cancels it. The SDK builds every stream
alike, so the grace is set per response from the request's method, on the attribute the
constructor keeps it in; ``tests/internals/test_sse_starlette_answers.py`` fails if that changes.
"""

from __future__ import annotations

import math

from sse_starlette.sse import EventSourceResponse
from starlette.types import Receive, Scope, Send


class AnswerFirstEventSourceResponse(EventSourceResponse):
    """sse_starlette's response; a POST's stream (one request's answer) is not ended by the stop
    of the server before it has sent that answer. A GET's stream (the server's own messages,
    with no end of its own) still ends at once."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            self._shutdown_grace_period = math.inf  # uvicorn's grace bounds it
        await super().__call__(scope, receive, send)
