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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel

from toolbay.auth.principal import changed_token_clients
from toolbay.auth.tokens import RELOAD_CHECK_S
from toolbay.internals.mcp_sdk import connection_of, when_connection_closes
from toolbay.words import Principal

if TYPE_CHECKING:
    from anyio.abc import TaskStatus
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import ServerEvent

logger = logging.getLogger(__name__)

SEND_TIMEOUT_S = 5.0

# The caller of the ``subscriptions/listen`` request being served (``CallerBus.listening_as``).
_listening_caller: ContextVar[Principal | None] = ContextVar("toolbay_listening_caller", default=None)


@dataclass(frozen=True, slots=True)
class Audience:
    """Who is told of a change of the tool list: everyone, or the sessions of these callers
    (``callers``: their ids), of the callers whose jobs these are (``job_owners``:
    ``Principal.job_owner``), these sessions (``connections``: by connection, those that found a
    changed tool) and those whose caller ``admits`` (one that may search a changed tool's folder).
    A session or stream whose caller is unknown hears only what everyone does."""

    everyone: bool = False
    callers: frozenset[str] = frozenset()
    connections: frozenset[Any] = frozenset()
    admits: Callable[[Principal], bool] | None = None
    job_owners: frozenset[str] = frozenset()

    def includes(self, connection: Any, principal: Principal | None) -> bool:
        if self.everyone or (connection is not None and connection in self.connections):
            return True
        if principal is None:
            return False
        return (principal.id in self.callers or principal.job_owner in self.job_owners
                or (self.admits is not None and self.admits(principal)))

    @property
    def anyone(self) -> bool:
        return self.everyone or bool(self.callers or self.connections or self.job_owners) or self.admits is not None


EVERYONE = Audience(everyone=True)


class CallerBus:
    """The SDK's subscription bus (``mcp.server.subscriptions.SubscriptionBus``), in process,
    with the caller of each listener: a listen stream subscribes while its request is served
    inside ``listening_as(caller)``. ``publish(event, audience)`` reaches the streams of the
    audience's callers alone."""

    def __init__(self) -> None:
        # Keyed by a token per subscription: the same callable may subscribe twice.
        self._listeners: dict[object, tuple[Callable[[ServerEvent], None], Principal | None]] = {}

    @staticmethod
    @contextlib.contextmanager
    def listening_as(caller: Principal | None) -> Iterator[None]:
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

    async def publish(self, event: ServerEvent, audience: Audience = EVERYONE) -> None:
        for listener, caller in list(self._listeners.values()):
            # A stream has no standing session (nothing it found is kept): no connection.
            if not audience.includes(None, caller):
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
        # personal tools, a catalog folder's) is told to their sessions alone.
        self._callers: dict[Any, Principal | None] = {}
        self._bus: CallerBus | None = None

    @property
    def bus(self) -> CallerBus:
        """Where ``subscriptions/listen`` listeners hear of changes."""
        if self._bus is None:
            self._bus = CallerBus()
        return self._bus

    def add(self, session: ServerSession, caller: Principal | None = None) -> None:
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

    async def tools_changed(self, audience: Audience = EVERYONE) -> int:
        """Tells the sessions and listeners of ``audience`` (every one by default) that the tool
        list changed. Returns sessions reached.

        Sessions are told concurrently, each within ``SEND_TIMEOUT_S``, so one stalled client
        (a full stream buffer) delays neither the others nor the next rescan.
        """
        if self._nobody_to_tell() or not audience.anyone:
            return 0
        from mcp.server.session import ServerSession
        from mcp.server.subscriptions import ToolsListChanged

        return await self._tell_all(ServerSession.send_tool_list_changed, ToolsListChanged(), audience)

    async def prompts_changed(self, audience: Audience = EVERYONE) -> int:
        """Tells the sessions and listeners of ``audience`` (every one by default) that the prompt
        list changed (role files; a caller's scopes, which decide the roles it may use)."""
        if self._nobody_to_tell() or not audience.anyone:
            return 0
        from mcp.server.session import ServerSession
        from mcp.server.subscriptions import PromptsListChanged

        return await self._tell_all(ServerSession.send_prompt_list_changed, PromptsListChanged(), audience)

    async def result_ready(self, uri: str, owner: str) -> None:
        """Tells the listeners of ``owner`` (a ``Principal.job_owner``) that a job's result, at
        ``uri``, is there now: those subscribed to it (``subscriptions/listen`` with
        ``resourceSubscriptions``) that it changed, and those listening for the resource list
        (``resourcesListChanged``, which a 2026-07-28 server declares whenever it serves
        listening) that its list did: the result is listed from now on. Another caller may
        subscribe to any URI; it hears nothing of what is not its own."""
        if self._nobody_to_tell():
            return
        from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated

        owners = Audience(job_owners=frozenset({owner}))
        try:
            await self.bus.publish(ResourceUpdated(uri=uri), owners)
            await self.bus.publish(ResourcesListChanged(), owners)
        except Exception:
            logger.exception("publishing a resource change to subscribers failed")

    def _nobody_to_tell(self) -> bool:
        """No session has connected and no listener asked for the bus."""
        return not self._sessions and self._bus is None

    async def _tell_all(self, send: Callable[[ServerSession], Awaitable[None]], event: ServerEvent,
                        audience: Audience = EVERYONE) -> int:
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
                if audience.includes(key, self._callers.get(key)):
                    group.start_soon(tell, key, session)
        try:
            await self.bus.publish(event, audience)
        except Exception:
            logger.exception("publishing a list change to subscribers failed")
        return reached


async def tell_callers_whose_tokens_change(verifier: object, sessions: SessionRegistry, *,
                                           task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
    """Tells the sessions of the callers whose tokens file entry changes (scopes raised or
    lowered, a token removed) that their tool and prompt lists changed: the next listing shows
    other tools, and other roles (a role's prompt is listed to whoever may use its tool).
    The file is read when due (once a second at most, as requests read it), here even when no
    request comes; a verifier with no tokens file never has any."""
    task_status.started()
    while True:
        await anyio.sleep(RELOAD_CHECK_S)
        changed = changed_token_clients(verifier)
        if changed:
            owners = frozenset(Principal(id=client, kind="token").job_owner for client in changed)
            await sessions.tools_changed(Audience(job_owners=owners))
            await sessions.prompts_changed(Audience(job_owners=owners))
