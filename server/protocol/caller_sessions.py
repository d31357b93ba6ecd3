"""Open MCP sessions per caller, capped (``[http] max_sessions_per_caller``).

The SDK caps the sessions of a whole server (``[http] max_sessions``, 1,000) but not one
caller's share: one token holder whose client opens a session for every request (or a
hostile one) took them all, and every other caller was answered 503 until they idled out
(30 minutes). ``CallerSessionCap`` counts the sessions each authenticated caller opened (by
the principal the SDK ties a session to: client id, issuer, subject) and answers a caller at
its cap 429 before the SDK opens another. A request that may open a session counts from its
arrival, not from its answer: initializes sent at once all passed a count of answered ones (50
opened against a cap of 3). A session leaves the count when its transport ends
(``session_ended``: closed by the client, idled out, or refused at its opening), and a request
that opened none when its answer starts.
Without authentication every caller is the same one, and only the server's cap applies.
"""

from __future__ import annotations

import json
import logging
import time
import weakref
from collections import Counter
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolbay.auth.http import header_of
from toolbay.protocol.parse_errors import request_id_in
from toolbay.protocol.request_body import read_small_body

logger = logging.getLogger(__name__)

Caller = tuple[str | None, str | None, str | None]

# Every cap in the process, told when a session ends (the SDK's transports are not per server).
_caps: weakref.WeakSet[CallerSessionCap] = weakref.WeakSet()
# A caller refused again and again is said once in this long, with how many were refused: a
# client in a loop wrote a warning line per request.
_REFUSALS_LOGGED_EVERY_S = 10.0
_REFUSALS_REMEMBERED = 1024


def session_ended(session_id: str | None) -> None:
    """A session's transport has ended: it no longer counts towards its caller's cap."""
    if session_id is not None:
        for cap in list(_caps):
            cap.ended(session_id)


def caller_of(scope: Scope) -> Caller | None:
    """The authenticated caller of a request, as the SDK ties a session to it; None without one."""
    user = scope.get("user")
    if not isinstance(user, AuthenticatedUser):
        return None
    context = authorization_context(user)
    return context["client_id"], context["issuer"], context["subject"]


class CallerSessionCap:
    """ASGI middleware for the streamable HTTP endpoint (after authentication); see above."""

    def __init__(self, app: ASGIApp, cap: int, path: str = "/mcp") -> None:
        self.app = app
        self.cap = cap
        self.path = path
        self._caller_of: dict[str, Caller] = {}
        self._open: Counter[Caller] = Counter()
        # Requests that may open a session, not yet answered.
        self._arriving: Counter[Caller] = Counter()
        self._refusals = RefusalLog("a new session", "new sessions", "sessions of its own are open or opening",
                                    "max_sessions_per_caller")
        _caps.add(self)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Only a request that opens a session counts; the caller is read for it alone.
        opening = (scope["type"] == "http" and scope["method"] == "POST" and scope["path"].rstrip("/") == self.path
                   and header_of(scope, b"mcp-session-id") is None)
        caller = caller_of(scope) if opening else None
        if caller is None:
            await self.app(scope, receive, send)
            return
        if self._open[caller] + self._arriving[caller] >= self.cap:
            self._refusals.refused(caller, self._open[caller] + self._arriving[caller])
            _, body = await read_small_body(receive)  # for the id of the request refused
            await _refuse(send, self.cap, request_id_in(body))
            return
        self._arriving[caller] += 1
        arriving = True

        def arrived() -> None:
            nonlocal arriving
            if arriving:
                arriving = False
                self._arriving[caller] -= 1
                if self._arriving[caller] <= 0:
                    del self._arriving[caller]

        async def counting(message: Message) -> None:
            if message["type"] == "http.response.start":
                arrived()
                opened = _session_id_in(message) if message["status"] < 400 else None
                if opened is not None and opened not in self._caller_of:
                    self._caller_of[opened] = caller
                    self._open[caller] += 1
            await send(message)

        try:
            await self.app(scope, receive, counting)
        finally:
            arrived()

    def ended(self, session_id: str) -> None:
        caller = self._caller_of.pop(session_id, None)
        if caller is not None:
            self._open[caller] -= 1
            if self._open[caller] <= 0:
                del self._open[caller]


class RefusalLog:
    """Says a caller's refusals once in ``_REFUSALS_LOGGED_EVERY_S``, with how many: a client in
    a loop wrote a warning line per request."""

    def __init__(self, one: str, many: str, state: str, setting: str) -> None:
        self.one, self.many, self.state, self.setting = one, many, state, setting
        # Per caller: when its refusals were last logged, and how many since.
        self._refusals: dict[Caller, tuple[float, int]] = {}

    def refused(self, caller: Caller, held: int) -> None:
        now = time.monotonic()
        logged_at, unsaid = self._refusals.get(caller, (-_REFUSALS_LOGGED_EVERY_S, 0))
        unsaid += 1
        if now - logged_at < _REFUSALS_LOGGED_EVERY_S:
            self._refusals[caller] = (logged_at, unsaid)
            return
        if len(self._refusals) > _REFUSALS_REMEMBERED:  # callers refused long ago are forgotten
            self._refusals = {known: entry for known, entry in self._refusals.items()
                              if now - entry[0] < _REFUSALS_LOGGED_EVERY_S}
        self._refusals[caller] = (now, 0)
        logger.warning("refused %s to %s: %d %s ([http] %s)", self.one if unsaid == 1 else f"{unsaid} {self.many}",
                       caller[0], held, self.state, self.setting)


def _session_id_in(message: Message) -> str | None:
    for name, value in message.get("headers", []):
        if name.lower() == b"mcp-session-id":
            return str(value.decode("latin-1"))
    return None


async def _refuse(send: Send, cap: int, request_id: str | int | None) -> None:
    await send_too_many(send, request_id, f"Too many open sessions for this caller ({cap}, [http] "
                        "max_sessions_per_caller): end one (DELETE with its mcp-session-id) or let one idle out, "
                        "then open another")


async def send_too_many(send: Send, request_id: str | int | None, said: str,
                        retry_after_s: int | None = None) -> None:
    """The 429 answer to a caller past one of its shares: a JSON-RPC error under the refused
    request's id (-32600), with ``Retry-After`` when it says when to try again."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600, "message": said}}
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if retry_after_s is not None:
        headers.append((b"retry-after", str(retry_after_s).encode()))
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": data})
