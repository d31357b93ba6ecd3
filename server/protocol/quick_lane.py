"""The quick lane: a ``tools/call`` on stdio that the app answers at once skips the SDK's
per-request machinery.

For each request the SDK's dispatcher passes the message through a memory stream, spawns a
task in a cancel scope, builds a request context, runs two middlewares, validates the
parameters twice and the result once, and hands the answer back through a second stream.
For a small tool that is more work than the sandboxed run itself (about a quarter of a
stdio server's processor time at one call in flight, ``bench/profile_calls.py``). The lane
answers such a call from the transport instead: the same request check
(``validate_client_request``), the same app call (authenticate → rate-limit → authorize →
validate → dispatch), the same result conversion and wire shaping
(``serialize_server_result``), written through the same outgoing stream.

It takes a request only when nothing of the SDK's per-request context is needed:

- the client has finished the handshake (``notifications/initialized`` has been handled,
  which hands the lane its session) on a protocol version before 2026-07-28 (those results
  carry no ``resultType`` or server stamp);
- no progress token (progress needs the request's own session proxy) and no task
  augmentation (the Tasks middleware answers those);
- the app says the tool will be answered at once with nothing asked of the client first
  (``Toolbay.answers_at_once``: no approval, no job, a quick handler);
- the SDK's request tracing is off (its middleware would otherwise make the span);
- no cache hint is configured for ``tools/call``.

Anything else, and anything the lane's check refuses, goes to the SDK as before, so every
error is still the SDK's own. A call in the lane runs in a task of its own, so reading goes
on; ``notifications/cancelled`` for it cancels that task (and still reaches the SDK, which
knows nothing of the id and ignores it). ``tests/protocol/test_quick_lane.py`` holds the two
paths to the same answers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.message import SessionMessage
from mcp_types.methods import serialize_server_result, validate_client_request
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from toolbay.protocol import results
from toolbay.protocol.mcp_server import ToolbayMcpServer, build_mcp_server, tool_call_of
from toolbay.words import Transport

try:  # the SDK depends on the OpenTelemetry API and traces every request through it
    from opentelemetry import trace as _otel_trace
except ImportError:  # pragma: no cover - only if the SDK drops the dependency
    _otel_trace = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from toolbay.app import Toolbay

logger = logging.getLogger(__name__)

_METHOD = "tools/call"

Send = Callable[[SessionMessage], Coroutine[Any, Any, None]]
Answer = types.JSONRPCResponse | types.JSONRPCError


def sdk_tracing_on() -> bool:
    """True once a tracer provider is installed: the SDK's middleware then records a span per
    request, which a call in the lane would not have."""
    if _otel_trace is None:
        return False
    return not isinstance(_otel_trace.get_tracer_provider(), _otel_trace.ProxyTracerProvider)


class QuickCalls:
    """Decides whether a ``tools/call`` can be answered in a lane, and answers it: what the stdio
    lane and the HTTP lane (``toolbay.protocol.http_lane``) share."""

    def __init__(self, app: Toolbay, transport: Transport, *, traced: Callable[[], bool]) -> None:
        self.app = app
        self.transport = transport
        self.server: ToolbayMcpServer | None = None
        self._traced = traced
        self.taken = 0  # calls answered in the lane, for tests and benchmarks

    def attach(self, server: ToolbayMcpServer) -> None:
        """The SDK server whose requests the lane may take (built after the lane, which it
        tells of sessions)."""
        self.server = server

    def prepare(self, request: types.JSONRPCRequest, session: ServerSession | None, version: str,
                credential: str | None) -> Callable[[], Coroutine[Any, Any, Answer]] | None:
        """How to answer ``request``, made in ``session`` (None: a stateless HTTP request) on
        protocol ``version``, or None to leave it to the SDK."""
        if request.method != _METHOD or self.server is None:
            return None
        params = request.params
        if not isinstance(params, Mapping) or "task" in params:
            return None
        meta = params.get("_meta")
        if meta is not None and (not isinstance(meta, Mapping) or "progressToken" in meta):
            return None
        if version in MODERN_PROTOCOL_VERSIONS or self.server.cache_hints.get(_METHOD) is not None:
            return None
        name = params.get("name")
        if not isinstance(name, str) or not self.app.answers_at_once(name) or self._traced():
            return None
        try:
            validate_client_request(_METHOD, version, params)
        except (ValueError, KeyError):  # ValidationError is a ValueError
            return None  # the SDK answers it (toolbay.protocol.invalid_params says which field)
        arguments = dict(params.get("arguments") or {})

        async def answer() -> Answer:
            try:
                return await self._answer(request.id, name, arguments, session, version, credential)
            except Exception:  # the app never raises for a call; if it did, answer as the SDK would
                logger.exception("the quick lane failed on a call of %r", name)
                return types.JSONRPCError(jsonrpc="2.0", id=request.id, error=types.ErrorData(
                    code=types.INTERNAL_ERROR, message="Internal error"))

        return answer

    async def _answer(self, request_id: types.RequestId, name: str, arguments: dict[str, Any],
                      session: ServerSession | None, version: str, credential: str | None) -> Answer:
        self.taken += 1
        call = tool_call_of(self.app, self.transport, request_id, name, arguments, session, credential=credential)
        outcome = await self.app.call(call)
        dumped = results.tool_result_to_mcp(outcome).model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            wire = serialize_server_result(_METHOD, version, dumped)
        except ValidationError:
            # As the SDK answers a handler's invalid result: the detail stays in the log.
            logger.exception("the result of %r is not a valid tools/call result", name)
            return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
                code=types.INTERNAL_ERROR, message="Handler returned an invalid result"))
        return types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=dict(wire))


class RunningCalls:
    """The lane's calls in flight by request id, so ``notifications/cancelled`` can stop them."""

    def __init__(self) -> None:
        self._running: dict[Any, anyio.CancelScope] = {}

    async def run(self, key: Any, answer: Callable[[], Coroutine[Any, Any, Answer]]) -> Answer | None:
        """``answer()``, or None when the client cancelled it (a cancelled request gets no answer)."""
        scope = anyio.CancelScope()
        self._running[key] = scope
        try:
            with scope:
                return await answer()
            return None
        finally:
            self._running.pop(key, None)

    def cancel(self, key: Any) -> None:
        scope = self._running.get(key)
        if scope is not None:
            scope.cancel()


def cancelled_request_id(notification: types.JSONRPCNotification) -> types.RequestId | None:
    """The request a ``notifications/cancelled`` names, or None for any other notification."""
    if notification.method != "notifications/cancelled" or not isinstance(notification.params, Mapping):
        return None
    request_id = notification.params.get("requestId")
    return request_id if isinstance(request_id, (str, int)) else None


class QuickLane:
    """The stdio lane, one per connection. ``take`` is asked about every request read from the wire."""

    def __init__(self, app: Toolbay, transport: Transport, *, traced: Callable[[], bool]) -> None:
        self.calls = QuickCalls(app, transport, traced=traced)
        self.session: ServerSession | None = None
        self._running = RunningCalls()

    @property
    def taken(self) -> int:
        return self.calls.taken

    def attach(self, server: ToolbayMcpServer) -> None:
        self.calls.attach(server)

    def session_ready(self, session: ServerSession, session_id: str | None = None) -> None:
        """The handshake is done; ``session`` is the connection's standing session."""
        self.session = session

    def take(self, request: types.JSONRPCRequest) -> Callable[[Send], Coroutine[Any, Any, None]] | None:
        """How to answer ``request`` in the lane, or None to leave it to the SDK."""
        if self.session is None:
            return None
        answer = self.calls.prepare(request, self.session, self.session.protocol_version, credential=None)
        if answer is None:
            return None

        async def answer_and_send(send: Send) -> None:
            message = await self._running.run(request.id, answer)
            if message is None:
                return
            try:
                await send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                logger.debug("the answer to %r was dropped: the connection is closing", request.id)

        return answer_and_send

    def cancel(self, notification: types.JSONRPCNotification) -> None:
        """``notifications/cancelled`` for a request in the lane stops it."""
        request_id = cancelled_request_id(notification)
        if request_id is not None:
            self._running.cancel(request_id)


class Lane(Protocol):
    """What a lane (stdio's ``QuickLane``, HTTP's ``HttpQuickLane``) needs of its SDK server."""

    def attach(self, server: ToolbayMcpServer) -> None: ...

    def session_ready(self, session: ServerSession, session_id: str | None) -> None: ...


def server_with_lane(app: Toolbay, transport: Transport, lane: Lane | None) -> ToolbayMcpServer:
    """The SDK server for ``transport`` and the lane in front of it, wired both ways: the server
    tells the lane of each session once its handshake is done, the lane asks the server's settings."""
    server = build_mcp_server(app, transport, on_session=lane.session_ready if lane is not None else None)
    if lane is not None:
        lane.attach(server)
    return server


def stdio_server(app: Toolbay, *, with_lane: bool,
                 traced: Callable[[], bool] = sdk_tracing_on) -> tuple[ToolbayMcpServer, QuickLane | None]:
    """The SDK server for stdio and, ``with_lane``, the lane in front of it."""
    lane = QuickLane(app, "stdio", traced=traced) if with_lane else None
    return server_with_lane(app, "stdio", lane), lane
