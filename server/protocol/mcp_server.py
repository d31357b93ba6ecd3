"""The SDK's low-level ``Server`` wired to toolbay.

``tools/list`` shows the current catalog snapshot as the caller may see it, paged.
``tools/call`` builds a ``ToolCall`` and hands it to the app's pipeline (the chain,
then dispatch); every outcome leaves through ``toolbay.protocol.results``.
Sessions register themselves on ``notifications/initialized`` so that catalog
changes reach them; 2026-07-28 clients hear of them through ``subscriptions/listen``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.subscriptions import ListenHandler

from toolbay.auth.http import bearer_credential
from toolbay.chain.call import ToolCall
from toolbay.errors import Unauthenticated
from toolbay.handlers.base import Handler
from toolbay.protocol import results
from toolbay.protocol.in_flight import CountedRequests
from toolbay.protocol.invalid_params import InvalidParamsMiddleware
from toolbay.protocol.listing import page
from toolbay.protocol.prompts import prompt_handlers
from toolbay.protocol.stateless_capabilities import NoListChangesWithoutSessions
from toolbay.protocol.store_outage import StoreOutageMiddleware
from toolbay.protocol.subagents import attach_host
from toolbay.protocol.tasks import TASK_EXECUTION, tasks_capability
from toolbay.words import LOCAL_TRANSPORTS, CallContext, Principal, ProgressCallback, ToolDefinition, Transport

if TYPE_CHECKING:
    from toolbay.app import Toolbay

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "toolbay serves command-line programs as tools. Each tool's parameters come from the "
    "program's own help. A call that runs long returns a job id: poll it with job_wait or "
    "job_status and fetch the output with job_result."
)


class ToolbayMcpServer(Server[Any]):
    """Advertises list-changed notifications, which the SDK leaves off by default, and MCP
    Tasks, which the app's job manager serves."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(*args, **kwargs)
        capabilities.tasks = tasks_capability()
        return capabilities

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True, prompts_changed=True),
            experimental_capabilities,
            extensions,
        )


def _progress_reporter(ctx: ServerRequestContext[Any]) -> ProgressCallback:
    """Progress for this request; the SDK drops it when the client sent no progress token."""

    async def report(done: float, total: float | None, message: str | None) -> None:
        try:
            await ctx.session.report_progress(done, total, message)
        except Exception:  # progress is best effort; a gone client must not fail the call
            logger.debug("progress notification failed", exc_info=True)

    return report


async def _no_progress(done: float, total: float | None, message: str | None) -> None:
    """For a request that sent no progress token: there is nobody to tell."""


def tool_call_of(app: Toolbay, transport: Transport, request_id: types.RequestId | None, name: str,
                 arguments: dict[str, Any], session: ServerSession | None, *, credential: str | None,
                 report_progress: ProgressCallback = _no_progress) -> ToolCall:
    """The app's ``ToolCall`` for one MCP ``tools/call`` (the SDK's handler and the quick lane)."""
    context = CallContext(
        request_id=str(request_id) if request_id is not None else None,
        report_progress=report_progress,
    )
    call = ToolCall(name=name, arguments=arguments, context=context, transport=transport, session=session,
                    credential=credential)
    attach_host(app, call, request_id)
    return call


def build_mcp_server(app: Toolbay, transport: Transport,
                     on_session: Callable[[ServerSession, str | None], None] | None = None) -> ToolbayMcpServer:
    """One SDK server per transport, all sharing the app's catalog, chain and jobs.
    ``on_session(session, session_id)`` hears of each session once its client has finished the
    handshake; ``session_id`` is the streamable HTTP session's id, None on other transports."""

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        principal = await app.principal_for(transport, bearer_credential(ctx.request))
        await app.ready_to_list()
        visible = app.listed_definitions(principal, ctx.session)
        tools = app.catalog.current.tools

        def execution(definition: ToolDefinition) -> types.ToolExecution | None:
            # A built-in answers at once, never as a job: it is not offered as a task (forbidden,
            # by default), and a task-augmented call of one is refused before it runs.
            entry = tools.get(definition.name)
            return None if isinstance(entry, Handler) and entry.runs_inline else TASK_EXECUTION

        return page(visible, params.cursor if params else None, app.settings.http.page_size, execution)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        call = tool_call_of(app, transport, ctx.request_id, params.name, dict(params.arguments or {}), ctx.session,
                            credential=bearer_credential(ctx.request), report_progress=_progress_reporter(ctx))
        outcome = await app.call(call)
        return results.tool_result_to_mcp(outcome)

    async def on_initialized(ctx: ServerRequestContext[Any], params: types.NotificationParams) -> None:
        try:
            caller: Principal | None = await app.principal_for(transport, bearer_credential(ctx.request))
        except Unauthenticated:
            caller = None  # its requests are refused; it hears of changes every caller can see
        except Exception:  # a verifier's own trouble must not leave the session unregistered
            logger.warning("could not tell who a new session's caller is", exc_info=True)
            caller = None
        app.sessions.add(ctx.session, caller)
        if on_session is not None:
            headers = getattr(ctx.request, "headers", None)
            on_session(ctx.session, headers.get(MCP_SESSION_ID_HEADER) if headers is not None else None)

    listen = ListenHandler(app.sessions.bus)

    async def on_subscriptions_listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        # The stream subscribes as its caller: it hears of changes that caller's listing can
        # show (another caller's personal tools are not told to it), as a standing session does.
        principal = await app.principal_for(transport, bearer_credential(ctx.request))
        with app.sessions.bus.listening_as(principal):
            return await listen(ctx, params)

    server = ToolbayMcpServer(
        "toolbay",
        version=app.version,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_subscriptions_listen=on_subscriptions_listen,
        **prompt_handlers(app, transport),
    )
    server.add_notification_handler("notifications/initialized", types.NotificationParams, on_initialized)
    server.middleware.append(CountedRequests())
    server.middleware.append(InvalidParamsMiddleware())
    remote = transport not in LOCAL_TRANSPORTS
    server.middleware.append(StoreOutageMiddleware(str(app.settings.data_dir) if remote else None))
    if transport == "http" and app.settings.cluster.redis is not None:  # stateless: no sessions
        server.middleware.append(NoListChangesWithoutSessions())
    for hook in app.server_hooks:
        hook(server, transport)
    return server
