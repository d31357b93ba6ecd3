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
from typing import Any

import anyio
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourceUpdated,
    ServerEvent,
    SubscriptionBus,
    ToolsListChanged,
)

from toolbay.internals.mcp_sdk import connection_of

logger = logging.getLogger(__name__)

SEND_TIMEOUT_S = 5.0


class SessionRegistry:
    def __init__(self, bus: SubscriptionBus | None = None) -> None:
        self._sessions: dict[Any, ServerSession] = {}
        self.bus: SubscriptionBus = bus or InMemorySubscriptionBus()

    def add(self, session: ServerSession) -> None:
        connection = connection_of(session)
        key = connection if connection is not None else session
        if key in self._sessions:
            return
        self._sessions[key] = session
        exit_stack = getattr(connection, "exit_stack", None)
        if exit_stack is not None:
            exit_stack.callback(self._forget, key)
        else:
            logger.warning("cannot tell when this session closes; it is kept until a notification to it fails")

    def discard(self, session: ServerSession) -> None:
        connection = connection_of(session)
        self._forget(connection if connection is not None else session)

    def _forget(self, key: Any) -> None:
        self._sessions.pop(key, None)

    def __len__(self) -> int:
        return len(self._sessions)

    async def tools_changed(self) -> int:
        """Tells every session and listener that the tool list changed. Returns sessions reached.

        Sessions are told concurrently, each within ``SEND_TIMEOUT_S``, so one stalled client
        (a full stream buffer) delays neither the others nor the next rescan.
        """
        return await self._tell_all(ServerSession.send_tool_list_changed, ToolsListChanged())

    async def prompts_changed(self) -> int:
        """Tells every session and listener that the prompt list changed (role files)."""
        return await self._tell_all(ServerSession.send_prompt_list_changed, PromptsListChanged())

    async def resource_updated(self, uri: str) -> None:
        """Tells listeners subscribed to ``uri`` (``subscriptions/listen`` with
        ``resourceSubscriptions``) that it changed: a job's result, when the job ended."""
        try:
            await self.bus.publish(ResourceUpdated(uri=uri))
        except Exception:
            logger.exception("publishing a resource change to subscribers failed")

    async def _tell_all(self, send: Callable[[ServerSession], Awaitable[None]], event: ServerEvent) -> int:
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
                group.start_soon(tell, key, session)
        try:
            await self.bus.publish(event)
        except Exception:
            logger.exception("publishing a list change to subscribers failed")
        return reached
