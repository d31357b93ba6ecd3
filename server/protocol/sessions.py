"""Connected sessions, so a change in the catalog reaches every client.

The SDK keeps no registry of sessions: toolbay registers a session when its client
sends ``notifications/initialized`` and forgets it when sending to it fails or the
session object is collected (a weak set, so a closed session never leaks).
Clients on the 2026-07-28 protocol have no standing session; they hear of changes
through ``subscriptions/listen``, fed by the subscription bus.
"""

from __future__ import annotations

import logging
import weakref

from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, SubscriptionBus, ToolsListChanged

logger = logging.getLogger(__name__)


class SessionRegistry:
    def __init__(self, bus: SubscriptionBus | None = None) -> None:
        self._sessions: weakref.WeakSet[ServerSession] = weakref.WeakSet()
        self.bus: SubscriptionBus = bus or InMemorySubscriptionBus()

    def add(self, session: ServerSession) -> None:
        self._sessions.add(session)

    def discard(self, session: ServerSession) -> None:
        self._sessions.discard(session)

    def __len__(self) -> int:
        return len(self._sessions)

    async def tools_changed(self) -> int:
        """Tells every session and listener that the tool list changed. Returns sessions reached."""
        reached = 0
        for session in list(self._sessions):
            try:
                await session.send_tool_list_changed()
                reached += 1
            except Exception as exc:  # a closed or broken session: forget it
                logger.debug("dropping session after failed notification: %r", exc)
                self._sessions.discard(session)
        try:
            await self.bus.publish(ToolsListChanged())
        except Exception:
            logger.exception("publishing tools list change to subscribers failed")
        return reached
