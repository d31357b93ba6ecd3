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
through ``subscriptions/listen``, fed by the subscription bus (``CallerBus``), which knows
each stream's caller as the registry knows each session's: a change only some callers can see
reaches their streams alone.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel

from toolbay.internals.mcp_sdk import connection_of, when_connection_closes

if TYPE_CHECKING:
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import ServerEvent

logger = logging.getLogger(__name__)

SEND_TIMEOUT_S = 5.0

# The caller of the ``subscriptions/listen`` request being served (``CallerBus.listening_as``).
_listening_caller: ContextVar[str | None] = ContextVar("toolbay_listening_caller", default=None)


class CallerBus:
    """The SDK's subscription bus (``mcp.server.subscriptions.SubscriptionBus``), in process,
    with the caller of each listener: a listen stream subscribes while its request is served
    inside ``listening_as(caller)``. ``publish(event, only)`` reaches the streams of those
    callers alone; an unknown caller's stream hears only what every caller may."""

    def __init__(self) -> None:
        # Keyed by a token per subscription: the same callable may subscribe twice.
        self._listeners: dict[object, tuple[Callable[[ServerEvent], None], str | None]] = {}

    @staticmethod
    @contextlib.contextmanager
    def listening_as(caller: str | None) -> Iterator[None]:
        token = _listening_caller.set(caller)
        try:
            yield
        finally:
            _listening_caller.reset(token)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        self._listeners[token] = (listener, _listening_caller.get())

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    async def publish(self, event: ServerEvent, only: frozenset[str] | None = None) -> None:
        for listener, caller in list(self._listeners.values()):
            if only is not None and caller not in only:
                continue
            try:
                listener(event)
            except Exception:  # one bad listener must not starve the others
                logger.exception("subscription listener raised; continuing")
        # Lets the streams drain between the events of a burst (as the SDK's own bus does).
        await anyio.lowlevel.checkpoint()


class SessionRegistry:
    def __init__(self) -> None:
        self._sessions: dict[Any, ServerSession] = {}
        # Who each session's client is, when known: a change only some callers can see (their
        # personal tools) is told to their sessions alone.
        self._callers: dict[Any, str | None] = {}
        self._bus: CallerBus | None = None

    @property
    def bus(self) -> CallerBus:
        """Where ``subscriptions/listen`` listeners hear of changes."""
        if self._bus is None:
            self._bus = CallerBus()
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
            await self.bus.publish(event, only)
        except Exception:
            logger.exception("publishing a list change to subscribers failed")
        return reached
