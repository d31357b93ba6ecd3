"""Transports: stdio for Claude Code (``toolbay.protocol.stdio_serving``, re-exported here),
and one HTTP app with streamable HTTP and legacy SSE.

The HTTP app serves ``/mcp`` (streamable HTTP), ``/sse`` + ``/messages/`` (SSE) and
``/healthz``; ``--transport http`` and ``--transport sse`` both start it, so one
server answers clients of either kind.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import uvicorn
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import LOGGING_CONFIG

from toolbay.auth import BearerAuthMiddleware, check_bind_safety, is_loopback
from toolbay.auth.bind import host_header_spelling
from toolbay.internals.mcp_sdk import use_event_source_response
from toolbay.internals.sse_starlette_uvicorn import STOP_HOLD, answer_first_event_source_response
from toolbay.internals.uvicorn_server import stop_at_once, when_started, when_stopping
from toolbay.protocol import plain_json
from toolbay.protocol.caller_requests import LEGACY_SESSIONS, CallerRequestCap
from toolbay.protocol.caller_sessions import CallerSessionCap
from toolbay.protocol.connection_guard import GuardLimits, guarded_protocol
from toolbay.protocol.early_answers import CloseAfterEarlyAnswer
from toolbay.protocol.host_header import HostNamesInOneCase
from toolbay.protocol.http_lane import HttpQuickLane
from toolbay.protocol.legacy_sse import OwedAnswers
from toolbay.protocol.listening import bound_socket
from toolbay.protocol.mcp_server import ToolbayMcpServer, build_mcp_server
from toolbay.protocol.parse_errors import AnswerUnparsableMessages
from toolbay.protocol.quick_lane import server_with_lane
from toolbay.protocol.stdio_serving import serve_stdio as serve_stdio  # the transports, all in one place

if TYPE_CHECKING:
    from toolbay.app import Toolbay
    from toolbay.config import Settings

logger = logging.getLogger(__name__)

# Host names a local client may use whatever loopback address is bound.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# How long open requests get to finish when the server is told to stop (a signal), and the
# bound on stopping a server whose serving was cancelled (see _shut_down_cancelled).
GRACEFUL_SHUTDOWN_S = 2
SHUTDOWN_BOUND_S = 5.0


class _SseEndpoint:
    """The GET side of SSE. An ASGI class, because Starlette takes a plain function as a
    request handler that must return a response, which a long-lived stream never does."""

    def __init__(self, transport: SseServerTransport, server: ToolbayMcpServer) -> None:
        self.transport = transport
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused: list[int] = []

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                refused.append(message["status"])
            await send(message)

        # Told to stop, the stream ends once it has sent the answers it owes (its task copies this).
        owed = OwedAnswers()
        hold = STOP_HOLD.set(owed)
        try:
            async with self.transport.connect_sse(scope, receive, noting_send) as (read_stream, write_stream):
                await self.server.run(owed.reading(read_stream), owed.writing(write_stream),
                                      self.server.create_initialization_options())
        except ValueError:
            # The SDK answers a bad Host or Origin (421/403) and then raises; the answer is
            # the whole story, not a traceback per request.
            if not refused:
                raise
            logger.info("refused an SSE connection with %d (Host or Origin not allowed)", refused[0])
        finally:
            STOP_HOLD.reset(hold)


def _say_serving(url: str) -> None:
    logger.info("serving MCP on %s (streamable HTTP) and /sse (SSE)", url)
    if not logger.isEnabledFor(logging.INFO) and sys.stderr.isatty():
        # Someone typed the command with a quieter log level: the address (a port chosen with
        # --port 0) was said nowhere they could see it.
        print(f"toolbay: serving MCP on {url} (streamable HTTP) and /sse (SSE); Ctrl-C stops it", file=sys.stderr)


def _security_for(host: str) -> TransportSecuritySettings | None:
    """Host/Origin checks (DNS rebinding) for every bind that needs no authentication because
    it is loopback: the same rule, ``is_loopback``, decides both."""
    if not is_loopback(host):
        return None
    names = dict.fromkeys((*LOOPBACK_HOSTS, host_header_spelling(host)))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[spelling for name in names for spelling in (name, f"{name}:*")],
        allowed_origins=[f"http://{spelling}" for name in names for spelling in (name, f"{name}:*")],
    )


class _ClientWentAway(logging.Filter):
    """Drops the SDK's error, with its traceback, for a client that went away while it sent a
    request's body (``ClientDisconnect``): nothing failed on the server's side, and any caller
    with a token could fill the log with them, a traceback each."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], ClientDisconnect))


def _quiet_clients_that_went_away() -> None:
    sdk = logging.getLogger("mcp.server.streamable_http")  # where the SDK logs a POST it could not read
    if not any(isinstance(existing, _ClientWentAway) for existing in sdk.filters):
        sdk.addFilter(_ClientWentAway())


class _CancelledByTheStop(logging.Filter):
    """Drops uvicorn's "Exception in ASGI application", with a traceback, for a request it cancelled
    itself once the stop's grace (``GRACEFUL_SHUTDOWN_S``) ran out: a stop asked for, which uvicorn has
    said in one line already ("Cancel 1 running task(s), timeout graceful shutdown exceeded")."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def _quiet_requests_the_stop_cancelled() -> None:
    uvicorn_errors = logging.getLogger("uvicorn.error")  # where uvicorn logs what a request raised
    if not any(isinstance(existing, _CancelledByTheStop) for existing in uvicorn_errors.filters):
        uvicorn_errors.addFilter(_CancelledByTheStop())


def build_http_app(app: Toolbay, **auth: Any) -> Starlette:
    """The Starlette app. ``auth`` is passed to the SDK (``auth=``, ``token_verifier=``)."""
    _quiet_clients_that_went_away()
    _quiet_requests_the_stop_cancelled()
    host = app.settings.host
    security = _security_for(host)
    sse_server = build_mcp_server(app, "sse")
    sse = SseServerTransport("/messages/", security_settings=security)

    async def healthz(request: Request) -> JSONResponse:
        # What a load balancer needs and nothing more, on any Host (it may probe by address).
        return JSONResponse({"status": "ok"})

    extra_routes: list[Any] = [
        Route("/sse", endpoint=_SseEndpoint(sse, sse_server), methods=["GET"]),
        Mount("/messages/", app=AnswerUnparsableMessages(sse.handle_post_message)),
        Route("/healthz", endpoint=healthz, methods=["GET"]),
    ]
    metrics = app.metrics
    if metrics is not None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        from toolbay.metrics import CONTENT_TYPE
        from toolbay.words import METRICS_SCOPE

        rebinding = TransportSecurityMiddleware(security) if security is not None else None

        async def scrape(request: Request) -> Response:
            # Without authentication (loopback), the same Host/Origin checks as /mcp: a page
            # that rebinds its name to 127.0.0.1 read which tools its visitor had called.
            if rebinding is not None and (refused := await rebinding.validate_request(request)) is not None:
                return refused
            # Behind authentication, the metrics name every tool called (a catalog folder's
            # that the caller may not search, say): a token for them says so by a scope of its own.
            granted = request.scope.get("auth")
            if granted is not None and METRICS_SCOPE not in granted.scopes:
                return JSONResponse({"error": "insufficient_scope",
                                     "error_description": f"reading /metrics needs a token with the scope "
                                                          f"{METRICS_SCOPE}"}, status_code=403)
            return Response(metrics.exposition(), media_type=CONTENT_TYPE)

        extra_routes.append(Route("/metrics", endpoint=scrape, methods=["GET"]))
    # Replicas behind a load balancer: any request may reach any replica, so none keeps a
    # session (list changes reach clients through subscriptions/listen, fed on every replica).
    stateless = app.settings.cluster.redis is not None
    lane = HttpQuickLane(app, stateless=stateless, security=security) if app.settings.quick_lane else None
    http_server = server_with_lane(app, "http", lane)
    starlette_app = http_server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=stateless,
        max_sessions=app.settings.http.max_sessions,
        session_idle_timeout=app.settings.http.session_idle_s,
        host=host,
        transport_security=security,
        custom_starlette_routes=extra_routes,
        **auth,
    )
    starlette_app.state.quick_lane = lane  # for tests and benchmarks: how many calls it took
    # Quick calls are answered with plain JSON instead of an SSE stream (see plain_json).
    plain_json.install()
    # An answer under way when the server is told to stop (a job_wait it ends) is sent before its stream ends.
    use_event_source_response(answer_first_event_source_response())
    starlette_app.add_middleware(plain_json.PlainJsonForQuickRequests, needs_no_stream=app.needs_no_stream,
                                 proven_quick=app.proven_quick, lane=lane, stateless=stateless,
                                 on_listed=app.listing_answered)
    policies = app.policies
    if policies.verifier is not None and not stateless:
        # After authentication (added later, so run first): it counts sessions by their caller.
        starlette_app.add_middleware(CallerSessionCap, cap=app.settings.http.max_sessions_per_caller)
    if policies.verifier is not None:
        starlette_app.add_middleware(CallerRequestCap, cap=app.settings.http.max_requests_per_caller)
        starlette_app.add_middleware(CallerRequestCap, cap=app.settings.http.max_sessions_per_caller,
                                     **LEGACY_SESSIONS)
    if policies.verifier is not None:
        # One guard for /mcp, /sse and /messages/; the chain checks the token again per call.
        starlette_app.add_middleware(
            BearerAuthMiddleware,
            protected_paths=("/mcp", "/sse", "/messages", "/metrics"),
            verifier=policies.verifier,
            resource_url=policies.resource_url,
            authorization_servers=policies.authorization_servers,
        )
    # Outermost: every check below reads the Host and Origin headers as it leaves them.
    starlette_app.add_middleware(HostNamesInOneCase)
    starlette_app.add_middleware(CloseAfterEarlyAnswer)
    return starlette_app


def _guard_limits(settings: Settings) -> GuardLimits:
    # Leave room under the open-files limit for the data folder, the tools and the log.
    files_soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = files_soft - 128 if files_soft != resource.RLIM_INFINITY else settings.http.max_connections
    return GuardLimits(
        header_timeout_s=settings.http.header_timeout_s,
        body_timeout_s=settings.http.body_timeout_s,
        max_connections=max(1, min(settings.http.max_connections, room)),
        max_per_peer=settings.http.max_connections_per_peer,
        max_head_bytes=settings.http.max_head_kb * 1024,
    )


async def serve_http(
    app: Toolbay,
    starlette_app: ASGIApp,
    *,
    on_ready: Callable[[str, int], Awaitable[None] | None] | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Serves until cancelled. ``on_ready(host, port)`` runs once the socket listens
    (the port is the real one when 0 was asked for). ``sock``: the socket bound already
    (``toolbay.protocol.listening``), which is then closed here; else one is bound. Raises
    ``ConfigError`` before listening beyond loopback when nobody is authenticated (see
    ``check_bind_safety``)."""
    settings = app.settings
    configured = app.policies.authenticator.configured
    try:
        check_bind_safety(settings.host, configured, settings.http.allow_insecure)
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    if sock is None:
        sock = bound_socket(settings.host, settings.port)
    # Decided again from the address the name actually bound to, in case it resolved
    # differently from when the app was built.
    try:
        check_bind_safety(sock.getsockname()[0], configured, settings.http.allow_insecure)
    except BaseException:
        sock.close()
        raise
    sock.listen(2048)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        starlette_app,
        http=guarded_protocol(_guard_limits(settings)),
        log_level=settings.log_level if settings.log_level != "info" else "warning",
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        # JSON logs: uvicorn configures no logging of its own, so its records go through the
        # root logger's JSON lines too.
        log_config=None if settings.log_format == "json" else LOGGING_CONFIG,
    )
    server = uvicorn.Server(config)
    host_text = f"[{settings.host}]" if ":" in settings.host else settings.host
    # Said once it serves (its lifespan entered): said before, a stop sent on seeing it could
    # land in the middle of the startup, which uvicorn then reports with a traceback.
    when_started(server, partial(_say_serving, f"http://{host_text}:{port}/mcp"))
    # Told to stop (SIGTERM), a job_wait answers at once, within the grace open requests get.
    when_stopping(server, app.jobs.stop_waiting)
    if on_ready is not None:
        maybe = on_ready(settings.host, port)
        if maybe is not None:
            await maybe
    try:
        await server.serve(sockets=[sock])
    finally:
        if server.started and not server.should_exit:
            await _shut_down_cancelled(server, sock)
        sock.close()


async def _shut_down_cancelled(server: uvicorn.Server, sock: socket.socket) -> None:
    """Stops a server whose ``serve`` was cancelled rather than told to exit. Left as uvicorn
    leaves it, its listener stays registered with the event loop after the socket closes, and
    the next listening socket of this process, given the same descriptor number, is never
    polled (the event loop's selector takes it for the one it has): a second server in one
    process accepted no connection, and the first one's session manager never ended.
    Shielded from the cancellation that got here, and bounded."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_BOUND_S):
        await stop_at_once(server, sock)  # closes the listener before its first await


@asynccontextmanager
async def serving_http(app: Toolbay, asgi: ASGIApp | None = None) -> AsyncIterator[str]:
    """Serves ``asgi`` (default: ``build_http_app(app)``) in the background for the length of
    the block and yields its base URL, with the real port when ``settings.port`` is 0.
    For tests, benchmarks and programs that embed toolbay."""
    ready = anyio.Event()
    address: list[str] = []

    def on_ready(host: str, port: int) -> None:
        address.append(f"http://{f'[{host}]' if ':' in host else host}:{port}")
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(partial(serve_http, app, asgi or build_http_app(app), on_ready=on_ready))
        with anyio.fail_after(30):
            await ready.wait()
        try:
            yield address[0]
        finally:
            group.cancel_scope.cancel()
