"""Connected sessions, so a change in the catalog reaches every client.

The SDK keeps no registry of sessions: toolbay registers a session when its client
sends ``notifications/initialized`` and forgets it when its connection closes.

The SDK's ``ServerSession`` is a per-message proxy: a new one is built for every
inbound request and notification, and nothing keeps it once that message is handled.
So the registry holds the proxy of the ``initialized`` notification strongly (its
standalone channel is the connection's, which is what a list-changed notification
travels on), keyed by the connection, and drops it from the connection's exit stack,
which the SDK unwinds when the client goes away, on every transport.
Clients on the 2026-07-28 protocol have no standing session; they hear of changes
through ``subscriptions/listen``, fed by the subscription bus.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from toolbay.internals.mcp_sdk import connection_of, when_connection_closes

if TYPE_CHECKING:
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import ServerEvent, SubscriptionBus

logger = logging.getLogger(__name__)

SEND_TIMEOUT_S = 5.0


class SessionRegistry:
    def __init__(self, bus: SubscriptionBus | None = None) -> None:
        self._sessions: dict[Any, ServerSession] = {}
        # Who each session's client is, when known: a change only some callers can see (their
        # personal tools) is told to their sessions alone.
        self._callers: dict[Any, str | None] = {}
        self._bus = bus

    # The MCP SDK is loaded with the first session or listener (a server's), not with this
    # module: the CLI's commands assemble an app that no client ever connects to.
    @property
    def bus(self) -> SubscriptionBus:
        """Where ``subscriptions/listen`` listeners hear of changes."""
        if self._bus is None:
            from mcp.server.subscriptions import InMemorySubscriptionBus

            self._bus = InMemorySubscriptionBus()
        return self._bus

    def add(self, session: ServerSession, caller: str | None = None) -> None:
        connection = connection_of(session)
        key = connection if connection is not None else session
        if key in self._sessions:
            return
        self._sessions[key] = session
        self._callers[key] = caller
        if not when_connection_closes(session, self._forget, key):
            logger.warning("cannot tell when this session closes; it is kept until a notification to it fails")

    def discard(self, session: ServerSession) -> None:
        connection = connection_of(session)
        self._forget(connection if connection is not None else session)

    def _forget(self, key: Any) -> None:
        self._sessions.pop(key, None)
        self._callers.pop(key, None)

    def __len__(self) -> int:
        return len(self._sessions)

    async def tools_changed(self, only: frozenset[str] | None = None) -> int:
        """Tells every session and listener that the tool list changed, or with ``only`` the
        sessions of those callers alone. Returns sessions reached.

        Sessions are told concurrently, each within ``SEND_TIMEOUT_S``, so one stalled client
        (a full stream buffer) delays neither the others nor the next rescan.
        """
        if self._nobody_to_tell():
            return 0
        from mcp.server.session import ServerSession
        from mcp.server.subscriptions import ToolsListChanged

        return await self._tell_all(ServerSession.send_tool_list_changed, ToolsListChanged(), only)

    async def prompts_changed(self) -> int:
        """Tells every session and listener that the prompt list changed (role files)."""
        if self._nobody_to_tell():
            return 0
        from mcp.server.session import ServerSession
        from mcp.server.subscriptions import PromptsListChanged

        return await self._tell_all(ServerSession.send_prompt_list_changed, PromptsListChanged())

    async def resource_updated(self, uri: str) -> None:
        """Tells listeners subscribed to ``uri`` (``subscriptions/listen`` with
        ``resourceSubscriptions``) that it changed: a job's result, when the job ended."""
        if self._nobody_to_tell():
            return
        from mcp.server.subscriptions import ResourceUpdated

        try:
            await self.bus.publish(ResourceUpdated(uri=uri))
        except Exception:
            logger.exception("publishing a resource change to subscribers failed")

    def _nobody_to_tell(self) -> bool:
        """No session has connected and no listener asked for the bus."""
        return not self._sessions and self._bus is None

    async def _tell_all(self, send: Callable[[ServerSession], Awaitable[None]], event: ServerEvent,
                        only: frozenset[str] | None = None) -> int:
        reached = 0

        async def tell(key: Any, session: ServerSession) -> None:
            nonlocal reached
            try:
                with anyio.fail_after(SEND_TIMEOUT_S):
                    await send(session)
                reached += 1
            except Exception as exc:  # a broken or stalled session: forget it
                logger.debug("dropping session after failed notification: %r", exc)
                self._forget(key)

        async with anyio.create_task_group() as group:
            for key, session in list(self._sessions.items()):
                if only is None or self._callers.get(key) in only:
                    group.start_soon(tell, key, session)
        try:
            await self.bus.publish(event)
        except Exception:
            logger.exception("publishing a list change to subscribers failed")
        return reached
