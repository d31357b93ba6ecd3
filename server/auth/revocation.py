"""Requests that outlive their token are ended.

A token is checked as a request arrives. A request that stays open (legacy SSE's ``GET /sse``
stream, a streamable HTTP listening stream, a ``job_wait`` that waits) went on serving its
caller after the token was removed from the tokens file or expired: a revoked SSE client's
stream stayed open, and the SDK's client, whose posts were refused, waited on it for ever.
``HeldRequests`` keeps each open request under its token, and while any is open one task
checks those tokens again every ``RECHECK_S``. A request whose token no longer holds is told
its client has gone (``Held.receive``: a stream ends as it does when its client leaves, its
resources let go), and cancelled if it is still open ``GRACE_S`` later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator

import anyio
from mcp.server.auth.provider import TokenVerifier
from starlette.types import Message, Receive

logger = logging.getLogger(__name__)

# How often the tokens of open requests are checked again (the tokens file itself is read
# again at most once a second: ``toolbay.auth.tokens.RELOAD_CHECK_S``).
RECHECK_S = 1.0
# How long a request told its client has gone may take to end before it is cancelled.
GRACE_S = 2.0
_GONE: Message = {"type": "http.disconnect"}


class Held:
    """One open request: ``receive`` says its client has gone once its token no longer holds."""

    __slots__ = ("scope", "revoked", "_receive")

    def __init__(self, receive: Receive) -> None:
        self.scope = anyio.CancelScope()
        self.revoked = anyio.Event()
        self._receive = receive

    async def receive(self) -> Message:
        """The request's next message, or a disconnect once the token is revoked (a stream
        waits in ``receive`` for its client to leave: this ends that wait too)."""
        if self.revoked.is_set():
            return _GONE
        message: Message | None = None
        async with anyio.create_task_group() as group:

            async def take() -> None:
                nonlocal message
                message = await self._receive()
                group.cancel_scope.cancel()

            async def watch() -> None:
                await self.revoked.wait()
                group.cancel_scope.cancel()

            group.start_soon(take)
            group.start_soon(watch)
        return message if message is not None else _GONE


class HeldRequests:
    """The open requests of each token, and the task that checks those tokens again."""

    def __init__(self, verifier: TokenVerifier) -> None:
        self._verifier = verifier
        self._open: dict[str, set[Held]] = {}
        self._watcher: asyncio.Task[None] | None = None

    @contextlib.contextmanager
    def held(self, token: str, receive: Receive) -> Iterator[Held]:
        """One request made with ``token``, told (and then cancelled) once the token no longer
        holds; what it receives is to be read through ``Held.receive`` for that."""
        held = Held(receive)
        with held.scope:
            self._open.setdefault(token, set()).add(held)
            if self._watcher is None or self._watcher.done():
                self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="toolbay-token-recheck")
            try:
                yield held
            finally:
                requests = self._open.get(token)
                if requests is not None:
                    requests.discard(held)
                    if not requests:
                        del self._open[token]

    async def _watch(self) -> None:
        while self._open:
            await asyncio.sleep(RECHECK_S)
            for token in list(self._open):
                try:
                    access = await self._verifier.verify_token(token)
                except Exception:  # a verifier that fails now keeps what it let in; the next check tries again
                    logger.exception("checking the token of an open request again failed")
                    continue
                if access is None or (access.expires_at is not None and access.expires_at < time.time()):
                    requests = self._open.pop(token, set())
                    logger.info("ending %d open request(s) whose token was revoked or has expired", len(requests))
                    for held in requests:
                        held.revoked.set()
                    asyncio.get_running_loop().call_later(GRACE_S, _cancel_the_rest, requests)


def _cancel_the_rest(requests: set[Held]) -> None:
    """Cancels the requests told their token no longer holds that have not ended since (a call
    that waits without reading from its client). Cancelling one that has ended does nothing."""
    for held in requests:
        held.scope.cancel()
