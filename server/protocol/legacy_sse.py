"""What a legacy SSE connection owes its client when the server is told to stop.

On ``/sse`` every answer travels on the connection's one GET stream (a POST to ``/messages/``
is only accepted), and sse_starlette ends that stream as soon as it hears of the stop. A
``job_wait`` the stop itself ends is answered just after: on a server not run for half a second
as it was told to stop (a busy machine), its client had "Connection closed" instead of the
answer. ``OwedAnswers`` counts, for one connection, the requests read and not yet answered and
the messages handed to its stream and not yet sent; the stream, told to stop, ends once both
are none (``toolbay.internals.sse_starlette_uvicorn.STOP_HOLD``), or when uvicorn's grace ends.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage


class OwedAnswers:
    """One connection's requests not yet answered and messages not yet sent (see above)."""

    def __init__(self) -> None:
        self._requests: set[types.RequestId] = set()
        # Items its stream must send: the transport's own first one (where to POST), then each
        # message handed to it.
        self._handed = 1
        self._sent = 0
        self._waiting: anyio.Event | None = None

    def _settled(self) -> bool:
        return not self._requests and self._sent >= self._handed

    def _changed(self) -> None:
        if self._waiting is not None and self._settled():
            self._waiting.set()

    def read(self, item: SessionMessage | Exception) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, types.JSONRPCRequest):
            self._requests.add(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            # A cancelled request is not answered (the specification says so).
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, str | int):  # anything else names no request
                self._requests.discard(cancelled)
                self._changed()

    def handed(self, item: SessionMessage) -> None:
        if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError) and item.message.id is not None:
            self._requests.discard(item.message.id)
        self._handed += 1

    def not_handed(self) -> None:
        self._handed -= 1
        self._changed()

    def item_sent(self) -> None:
        self._sent += 1
        self._changed()

    async def all_sent(self) -> None:
        if not self._settled():
            self._waiting = anyio.Event()
            await self._waiting.wait()

    def reading(self, stream: Any) -> OwedReading:
        return OwedReading(stream, self)

    def writing(self, stream: Any) -> OwedWriting:
        return OwedWriting(stream, self)


class _Wrapped:
    """One of the connection's streams, closed as the stream it wraps."""

    def __init__(self, stream: Any, owed: OwedAnswers) -> None:
        self._stream = stream
        self._owed = owed

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None:
        await self.aclose()
        return None


class OwedReading(_Wrapped):
    """The connection's read stream (the SDK's ``ReadStream``), noting each request read."""

    @property
    def last_context(self) -> Any:  # the SDK runs each message's handler in its sender's context
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        item: SessionMessage | Exception = await self._stream.receive()
        self._owed.read(item)
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class OwedWriting(_Wrapped):
    """The connection's write stream (the SDK's ``WriteStream``), noting each message handed."""

    async def send(self, item: SessionMessage, /) -> None:
        self._owed.handed(item)
        try:
            await self._stream.send(item)
        except BaseException:
            self._owed.not_handed()
            raise
