"""The quick lane over streamable HTTP: a ``tools/call`` the app answers at once, in a session
that has finished its handshake, is answered by the session's own transport instead of
passing through the SDK's message loop.

The SDK's transport hands every POSTed request to the session's message loop through two
memory streams, where a dispatcher task builds the request context and runs the middlewares,
then waits for the answer on a third stream; at 8 connections that is about a third of the
server's processor time for a small tool (``bench/profile_calls.py --transport http``). The
lane answers from inside the transport's POST handling (``plain_json.PerRequestJsonTransport``),
so everything the SDK checks before that still runs first and answers in its own words: the
body size limit, the session lookup and its owner's credential, the protocol-version routing,
Host, Origin and Content-Type (DNS rebinding), a terminated session, the idle countdown. The
lane then checks what the SDK would check next (Accept, the session id, the JSON-RPC envelope
and the ``tools/call`` parameters) and takes the call only when all of it passes; anything
else falls through to the SDK unchanged. What it takes, it answers with the same chain and
conversion as the stdio lane (``quick_lane.QuickCalls``) and the same JSON body the SDK
sends in JSON-response mode.

A stateless server (``[cluster]``) keeps no session; there the lane answers in front of the
SDK's session manager instead (``answer_stateless``).
``notifications/cancelled`` for a call in the lane stops it; the call is then answered with
the SDK's ``Request cancelled`` error, as this protocol era asks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.session import ServerSession
from mcp.server.streamable_http import (
    MCP_PROTOCOL_VERSION_HEADER,
    MCP_SESSION_ID_HEADER,
    REQUEST_CANCELLED,
    check_accept_headers,
)
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp_types import DEFAULT_NEGOTIATED_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from toolbay.auth.http import bearer_credential
from toolbay.internals.mcp_sdk import when_connection_closes
from toolbay.protocol.quick_lane import Answer, QuickCalls, RunningCalls, cancelled_request_id, sdk_tracing_on
from toolbay.protocol.wire_json import message_json

if TYPE_CHECKING:
    from toolbay.app import Toolbay
    from toolbay.protocol.mcp_server import ToolbayMcpServer

logger = logging.getLogger(__name__)

_JSON = "application/json"


class HttpQuickLane:
    """One per HTTP app: the sessions that finished their handshake, by session id."""

    def __init__(self, app: Toolbay, *, stateless: bool = False, security: TransportSecuritySettings | None = None,
                 traced: Callable[[], bool] = sdk_tracing_on) -> None:
        """``stateless``: the server keeps no sessions, so the lane answers before the SDK's
        session manager (``answer_stateless``), with the Host/Origin rules in ``security``."""
        self.calls = QuickCalls(app, "http", traced=traced)
        self.security = TransportSecurityMiddleware(security) if stateless else None
        self._sessions: dict[str, ServerSession] = {}
        self._running = RunningCalls()

    @property
    def taken(self) -> int:
        return self.calls.taken

    @property
    def stateless(self) -> bool:
        return self.security is not None

    @property
    def sessions(self) -> int:
        """Sessions the lane may answer in (handshake done, not ended)."""
        return len(self._sessions)

    def attach(self, server: ToolbayMcpServer) -> None:
        self.calls.attach(server)

    def session_ready(self, session: ServerSession, session_id: str | None) -> None:
        """``notifications/initialized`` of the session ``session_id`` was handled."""
        if session_id is None:
            return  # a stateless request: nothing outlives it
        # With no way to hear of its end, its calls stay with the SDK rather than keep it forever.
        if when_connection_closes(session, self._sessions.pop, session_id, None):
            self._sessions[session_id] = session

    async def answer(self, session_id: str | None, request: Request, message: Any) -> Response | None:
        """The answer to ``message`` (the parsed body of ``request``, POSTed to the transport of
        ``session_id``), or None to leave the request to the SDK."""
        if session_id is None or request.headers.get(MCP_SESSION_ID_HEADER) != session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None:
            return None
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if version is not None and version != session.protocol_version:
            return None
        if not check_accept_headers(request)[0]:
            return None  # the SDK answers 406
        try:
            call = types.JSONRPCRequest.model_validate(message)
        except ValidationError:
            return None  # the SDK answers it with its validation error
        return await self._answer(call, session, session.protocol_version, request, session_id)

    async def answer_stateless(self, request: Request, message: Any) -> Response | None:
        """On a stateless server (no sessions: replicas behind a load balancer), the answer to
        ``message``, the parsed body of ``request``, or None to leave it to the SDK.

        Asked before the SDK's session manager, which would otherwise start a message loop for
        this one request and end it again. So it makes the checks the manager and a new
        transport would make before the call is handed on, with the SDK's own pieces where it
        has public ones: the protocol version's route (a version outside the handshake era goes
        to the SDK's 2026-07-28 entry), Host, Origin and Content-Type
        (``TransportSecurityMiddleware``), and Accept. The body is within the SDK's size limit,
        as the middleware buffers only bodies far smaller."""
        if self.security is None:
            return None
        hint = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if hint is not None and hint not in HANDSHAKE_PROTOCOL_VERSIONS:
            return None
        if await self.security.validate_request(request, is_post=True) is not None:
            return None  # the SDK answers 400, 403 or 421 in its own words
        if not check_accept_headers(request)[0]:
            return None
        try:
            call = types.JSONRPCRequest.model_validate(message)
        except ValidationError:
            return None
        version = hint if hint is not None else DEFAULT_NEGOTIATED_VERSION
        return await self._answer(call, None, version, request, None)

    async def _answer(self, call: types.JSONRPCRequest, session: ServerSession | None, version: str,
                      request: Request, session_id: str | None) -> Response | None:
        answer = self.calls.prepare(call, session, version, bearer_credential(request))
        if answer is None:
            return None
        if session_id is None:
            # Stateless: no later request can name this one (ids are the client's own and
            # another client may use the same), so nothing may cancel it, as on the SDK's path.
            result: Answer | None = await answer()
        else:
            result = await self._running.run((session_id, call.id), answer)
        if result is None:
            result = types.JSONRPCError(jsonrpc="2.0", id=call.id, error=types.ErrorData(
                code=REQUEST_CANCELLED, message="Request cancelled"))
        headers = {"Content-Type": _JSON}
        if session_id is not None:
            headers[MCP_SESSION_ID_HEADER] = session_id
        return Response(message_json(result), status_code=200, headers=headers)

    def notified(self, session_id: str | None, message: Any) -> None:
        """A notification POSTed in ``session_id``: ``notifications/cancelled`` stops a call in
        the lane (it still reaches the SDK too, which knows nothing of the id and ignores it)."""
        if session_id is None or not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
            return
        try:
            notification = types.JSONRPCNotification.model_validate(message)
        except ValidationError:
            return
        request_id = cancelled_request_id(notification)
        if request_id is not None:
            self._running.cancel((session_id, request_id))
