"""Open MCP sessions per caller, capped (``[http] max_sessions_per_caller``).

The SDK caps the sessions of a whole server (``[http] max_sessions``, 1,000) but not one
caller's share: one token holder whose client opens a session for every request (or a
hostile one) took them all, and every other caller was answered 503 until they idled out
(30 minutes). ``CallerSessionCap`` counts the sessions each authenticated caller opened (by
the principal the SDK ties a session to: client id, issuer, subject) and answers a caller at
its cap 429 before the SDK opens another. A session leaves the count when its transport
ends (``session_ended``: closed by the client, idled out, or refused at its opening).
Without authentication every caller is the same one, and only the server's cap applies.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections import Counter
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolbay.auth.http import header_of

logger = logging.getLogger(__name__)

Caller = tuple[str | None, str | None, str | None]

# Every cap in the process, told when a session ends (the SDK's transports are not per server).
_caps: weakref.WeakSet[CallerSessionCap] = weakref.WeakSet()


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
        _caps.add(self)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Only a request that opens a session counts; the caller is read for it alone.
        opening = (scope["type"] == "http" and scope["method"] == "POST" and scope["path"].rstrip("/") == self.path
                   and header_of(scope, b"mcp-session-id") is None)
        caller = caller_of(scope) if opening else None
        if caller is None:
            await self.app(scope, receive, send)
            return
        if self._open[caller] >= self.cap:
            logger.warning("refused a new session to %s: %d sessions of its own are open ([http] "
                           "max_sessions_per_caller)", caller[0], self._open[caller])
            await _refuse(send, self.cap)
            return

        async def counting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = _session_id_in(message)
                if opened is not None and opened not in self._caller_of:
                    self._caller_of[opened] = caller
                    self._open[caller] += 1
            await send(message)

        await self.app(scope, receive, counting)

    def ended(self, session_id: str) -> None:
        caller = self._caller_of.pop(session_id, None)
        if caller is not None:
            self._open[caller] -= 1
            if self._open[caller] <= 0:
                del self._open[caller]


def _session_id_in(message: Message) -> str | None:
    for name, value in message.get("headers", []):
        if name.lower() == b"mcp-session-id":
            return str(value.decode("latin-1"))
    return None


async def _refuse(send: Send, cap: int) -> None:
    said = (f"Too many open sessions for this caller ({cap}, [http] max_sessions_per_caller): end one "
            "(DELETE with its mcp-session-id) or let one idle out, then open another")
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": said}}
    data = json.dumps(body, separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})
