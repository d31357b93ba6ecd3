"""Requests in flight per caller, capped (``[http] max_requests_per_caller``).

A request on ``/mcp`` holds a connection until it is answered, and some are answered late on
purpose (``job_wait`` waits up to its timeout). One token holder sending hundreds at once held
every connection the server allows its address: behind a load balancer, whose address is every
caller's, the other callers and the balancer's own health checks were refused, and the
balancer took every replica for dead. ``CallerRequestCap`` counts the POSTs on ``/mcp`` each
authenticated caller has in flight (from arrival to the end of the answer, a stream's too) and
answers one past the cap 429 at once, with ``Retry-After``. The count is this server's own: a
replica counts what it serves.

A GET (a session's listening stream) is not counted: the sessions per caller are capped apart.
The legacy SSE transport's sessions are its ``GET /sse`` streams, which the same class counts
against ``[http] max_sessions_per_caller`` (made with ``LEGACY_SESSIONS``): one caller held 4,000.
Without authentication every caller is the same one, and nothing is counted.
"""

from __future__ import annotations

from collections import Counter

from starlette.types import ASGIApp, Receive, Scope, Send

from toolbay.protocol.caller_sessions import Caller, RefusalLog, caller_of, send_too_many
from toolbay.protocol.parse_errors import request_id_in
from toolbay.protocol.request_body import read_small_body

RETRY_AFTER_S = 1
# The arguments that make the cap count the legacy SSE transport's sessions instead.
LEGACY_SESSIONS = {"path": "/sse", "method": "GET", "setting": "max_sessions_per_caller"}


class CallerRequestCap:
    """ASGI middleware for one method on one path (after authentication); see above."""

    def __init__(self, app: ASGIApp, cap: int, path: str = "/mcp", method: str = "POST",
                 setting: str = "max_requests_per_caller") -> None:
        self.app = app
        self.cap = cap
        self.path = path
        self.method = method
        self.setting = setting
        self.in_flight: Counter[Caller] = Counter()
        self._refusals = RefusalLog("a request", "requests", f"{method} {path} of its own open", setting)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        counted = (scope["type"] == "http" and scope["method"] == self.method
                   and scope["path"].rstrip("/") == self.path)
        caller = caller_of(scope) if counted else None
        if caller is None:
            await self.app(scope, receive, send)
            return
        if self.in_flight[caller] >= self.cap:
            self._refusals.refused(caller, self.in_flight[caller])
            _, body = await read_small_body(receive)  # for the id of the request refused
            await _refuse(send, self.cap, self.setting, request_id_in(body))
            return
        self.in_flight[caller] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            # The app returns when its answer has been sent, a streamed one to its end.
            self.in_flight[caller] -= 1
            if self.in_flight[caller] <= 0:
                del self.in_flight[caller]


async def _refuse(send: Send, cap: int, setting: str, request_id: str | int | None) -> None:
    said = (f"Too many requests in flight for this caller ({cap}, [http] {setting}): wait for an answer, then "
            "send the next" if setting == "max_requests_per_caller" else
            f"Too many open sessions for this caller ({cap}, [http] {setting}): close one, then open another")
    await send_too_many(send, request_id, said, RETRY_AFTER_S)
