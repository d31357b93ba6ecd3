"""Slow and idle clients cannot starve the HTTP server (slowloris and its kin).

uvicorn bounds only the pause between two requests on a kept-alive connection
(``timeout_keep_alive``); a client that sends one header line a second, or a body one byte at
a time, holds its connection for ever, and enough of them (about 21,000 from two small
processes) leave no room for anyone, valid tokens included, before authentication ever runs.
uvicorn offers no header timeout and no per-peer cap, so this module adds them to its
httptools protocol, the one toolbay serves with:

- the request head (request line and headers) must arrive within ``header_timeout_s`` of
  the connection opening, or of the first byte of the next request on a kept-alive one;
- while a body is read, ``body_timeout_s`` may pass at most between two pieces of it;
- the request head is at most ``max_head_bytes``: past it the request is answered 431 and the
  connection closed (httptools gathers a header's value by joining its pieces, so one endless
  header line cost time growing with its square: four such connections held the server's
  loop for seconds at a time, and its memory grew by hundreds of MiB);
- one peer (IP address) holds at most ``max_per_peer`` connections: more are closed at once;
- at ``max_connections`` in all, a new connection pushes out one still waiting for its
  request head of the peer holding the most connections, if the newcomer's peer holds
  fewer; otherwise it is closed.

Deadlines are kept in two insertion-ordered dicts and checked by one timer a few times a
second, so a request costs a dict insert and delete, not a timer of its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

logger = logging.getLogger(__name__)

# How often deadlines are checked: a slow client lives at most this much past its deadline.
_SWEEP_INTERVAL_S = 0.25
_HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                   b"content-length: 33\r\nconnection: close\r\n\r\nrequest line and headers too long")
# How long a connection answered 431 is kept, so that the answer is read, and how much more
# of its input is read and dropped meanwhile (more would cost the server as much as the head).
_LINGER_S = 2.0
_DISCARD_BYTES = 1 << 20
# Refusals are logged at most this often (an attack would otherwise flood the log).
_LOG_INTERVAL_S = 60.0


@dataclass(frozen=True)
class GuardLimits:
    header_timeout_s: float
    body_timeout_s: float
    max_connections: int
    max_per_peer: int
    max_head_bytes: int = 64 * 1024


class ConnectionGuard:
    """Admits, times and evicts the connections of one HTTP server."""

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        self.per_peer: Counter[str] = Counter()
        self.open: set[GuardedHttpToolsProtocol] = set()
        # Connection -> deadline, oldest first (insertion order is deadline order).
        self.awaiting_head: dict[GuardedHttpToolsProtocol, float] = {}
        self.awaiting_body: dict[GuardedHttpToolsProtocol, float] = {}
        self.closed_slow = 0
        self.refused = 0
        self._sweeper: asyncio.TimerHandle | None = None
        self._previous_sweep = 0.0
        self._last_log = 0.0

    def admit(self, connection: GuardedHttpToolsProtocol) -> bool:
        """Counts a new connection in, or says it must be closed."""
        peer = connection.peer
        if self.per_peer[peer] >= self.limits.max_per_peer:
            self._refused(f"{peer} already holds {self.limits.max_per_peer} connections")
            return False
        if len(self.open) >= self.limits.max_connections:
            oldest = self._evictable(peer)
            if oldest is None:
                self._refused(f"{self.limits.max_connections} connections are open")
                return False
            self._close_slow(oldest)
        self.open.add(connection)
        self.per_peer[peer] += 1
        self.head_started(connection)
        return True

    def _evictable(self, newcomer: str) -> GuardedHttpToolsProtocol | None:
        """Whom a newcomer may push out when all places are taken: a connection still waiting
        for its request head that belongs to the peer holding the most connections, when the
        newcomer's peer holds fewer (so a client with a few connections gets in past a crowd).
        None: the newcomer is refused."""
        if not self.awaiting_head:
            return None
        crowd, held = self.per_peer.most_common(1)[0]
        if self.per_peer[newcomer] + 1 >= held:
            return None
        for waiting in self.awaiting_head:
            if waiting.peer == crowd:
                return waiting
        return None

    def release(self, connection: GuardedHttpToolsProtocol) -> None:
        if connection not in self.open:
            return
        self.open.discard(connection)
        self.awaiting_head.pop(connection, None)
        self.awaiting_body.pop(connection, None)
        self.per_peer[connection.peer] -= 1
        if self.per_peer[connection.peer] <= 0:
            del self.per_peer[connection.peer]

    def head_started(self, connection: GuardedHttpToolsProtocol) -> None:
        if connection not in self.awaiting_head:
            self.awaiting_head[connection] = time.monotonic() + self.limits.header_timeout_s
            self._sweep_soon(connection.loop)

    def head_done(self, connection: GuardedHttpToolsProtocol) -> None:
        self.awaiting_head.pop(connection, None)
        self.awaiting_body[connection] = time.monotonic() + self.limits.body_timeout_s

    def body_progress(self, connection: GuardedHttpToolsProtocol) -> None:
        # Re-inserted, so that the dict stays in deadline order.
        if self.awaiting_body.pop(connection, None) is not None:
            self.awaiting_body[connection] = time.monotonic() + self.limits.body_timeout_s

    def body_done(self, connection: GuardedHttpToolsProtocol) -> None:
        self.awaiting_body.pop(connection, None)

    def _sweep_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._sweeper is None:
            self._sweeper = loop.call_later(_SWEEP_INTERVAL_S, self._sweep, loop)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self._sweeper = None
        # Only deadlines that had passed at the previous sweep: since then the loop has polled
        # the sockets at least once, so a client whose bytes were waiting while the loop lagged
        # (a busy machine) has had them read and is not taken for slow.
        cutoff, self._previous_sweep = self._previous_sweep, time.monotonic()
        for waiting in (self.awaiting_head, self.awaiting_body):
            while waiting:
                connection, deadline = next(iter(waiting.items()))
                if deadline > cutoff:
                    break
                self._close_slow(connection)
        if self.awaiting_head or self.awaiting_body:
            self._sweep_soon(loop)

    def head_too_large(self, connection: GuardedHttpToolsProtocol) -> None:
        self.refused += 1
        connection.transport.write(_HEAD_TOO_LARGE)
        self._end_after_answer(connection)
        self._log_now("refused %d requests so far; latest because its head passed %d KiB ([http] max_head_kb)",
                      self.refused, self.limits.max_head_bytes // 1024)

    def answered_early(self, connection: GuardedHttpToolsProtocol) -> None:
        """Ends a connection whose request was answered before its body had all come."""
        self._end_after_answer(connection)

    def _end_after_answer(self, connection: GuardedHttpToolsProtocol) -> None:
        """Closes a connection once what it was sent has gone, in place of its others'."""
        self.release(connection)
        transport = connection.transport
        # Closed at once with the client's bytes unread, the socket would be reset and the
        # answer lost: what else it sends is read and dropped for a moment, after the answer
        # and the end of what the server sends.
        connection.discarding = True
        if transport.can_write_eof():
            transport.write_eof()
        connection.loop.call_later(_LINGER_S, transport.close)

    def _close_slow(self, connection: GuardedHttpToolsProtocol) -> None:
        self.closed_slow += 1
        self.release(connection)
        connection.transport.close()
        self._log_now("closed %d connections that sent their request too slowly (limits: head %gs, body pause %gs)",
                      self.closed_slow, self.limits.header_timeout_s, self.limits.body_timeout_s)

    def _refused(self, why: str) -> None:
        self.refused += 1
        self._log_now("refused %d connections so far; latest because %s", self.refused, why)

    def _log_now(self, message: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self._last_log >= _LOG_INTERVAL_S:
            self._last_log = now
            logger.warning(message, *args)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, reporting to a ``ConnectionGuard`` (set by ``guarded_protocol``)."""

    guard: ConnectionGuard
    peer: str = ""
    head_bytes = 0  # of the request head being read, while it is not whole
    head_parsed = 0  # of the request line and headers the parser has given, whole or in pieces
    requests_completed = 0  # requests whose whole message was read
    discarding = False  # answered 431: what the client still sends is dropped

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peername = transport.get_extra_info("peername")
        self.peer = str(peername[0]) if isinstance(peername, tuple) and peername else ""
        self.transport = transport
        if not self.guard.admit(self):
            # Before uvicorn counts it in: a refusal costs as little as it can.
            self.parser = None  # type: ignore[assignment]
            transport.abort()
            return
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.parser is None:
            return  # refused in connection_made: uvicorn never knew of it
        self.guard.release(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.discarding:
            self.head_bytes += len(data)
            if self.head_bytes > _DISCARD_BYTES:  # enough to be polite: the sender waits now
                self.transport.pause_reading()
            return
        if self.parser is None:
            return
        # Only a read that went wholly to a head still incomplete is counted as head: one that
        # ended a request (its body) and began the next (pipelined) holds more than the head,
        # and a 100 KB body followed by 20 bytes of the next request was answered 431. The
        # parser's own count (``_head_past_limit``) bounds every head whose lines end.
        continuing = self in self.guard.awaiting_head
        completed = self.requests_completed
        super().data_received(data)
        if continuing and self.requests_completed == completed and self in self.guard.awaiting_head:
            self.head_bytes += len(data)
            if self.head_bytes > self.guard.limits.max_head_bytes and not self.transport.is_closing():
                self.guard.head_too_large(self)

    def on_message_begin(self) -> None:
        self.guard.head_started(self)
        self.head_parsed = 0
        super().on_message_begin()

    # A head that came whole in one read is parsed in that read, and never counted above: what
    # the parser gives of it is counted as it goes ([http] max_head_kb = 1 let 125 KB through).
    def on_url(self, url: bytes) -> None:
        if not self._head_past_limit(len(url)):
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._head_past_limit(len(name) + len(value) + 4):  # ": " and CRLF
            super().on_header(name, value)

    def _head_past_limit(self, size: int) -> bool:
        """Counts ``size`` more of the head; past the limit, answers 431 (once) and says so."""
        if self.discarding:
            return True
        self.head_parsed += size
        if self.head_parsed <= self.guard.limits.max_head_bytes:
            return False
        if not self.transport.is_closing():
            self.guard.head_too_large(self)
        return True

    def on_headers_complete(self) -> None:
        if self.discarding:
            return  # answered 431 while its head was read: no app runs for it
        self.guard.head_done(self)
        self.head_bytes = 0
        super().on_headers_complete()
        if self.cycle is not None:
            self.cycle.transport = _ClosedAfterWhatIsSent(self.transport, self)  # type: ignore[assignment]

    def on_body(self, body: bytes) -> None:
        if self.discarding:
            return
        self.guard.body_progress(self)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self.requests_completed += 1
        if self.discarding:
            return
        self.guard.body_done(self)
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self in self.guard.awaiting_body and not self.transport.is_closing():
            # Answered before its body was read (401 to a request with no token, 413, 400): the
            # rest of the body is wanted by no one. uvicorn read it on and kept the connection,
            # whose deadline each piece renewed: one byte a second held it for ever, and enough of
            # them, with no token, took every place. It is closed as a 431 is.
            self.guard.answered_early(self)


class _ClosedAfterWhatIsSent:
    """The transport as a request's cycle sees it. uvicorn closes the connection at the end of
    an answer that says ``Connection: close`` (``toolbay.protocol.early_answers`` says it of an
    answer given before the body was read): closed at once with the client's bytes unread, the
    socket was reset, and a client still sending its body lost the answer. Such a close is the
    guard's lingering one; any other is the transport's own."""

    def __init__(self, transport: asyncio.Transport, connection: GuardedHttpToolsProtocol) -> None:
        self._transport = transport
        self._connection = connection
        # What the cycle calls for every answer, bound once rather than looked up by __getattr__.
        self.write = transport.write
        self.is_closing = transport.is_closing

    def close(self) -> None:
        connection = self._connection
        if connection in connection.guard.awaiting_body and not self._transport.is_closing():
            connection.guard.answered_early(connection)
        else:
            self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def guarded_protocol(limits: GuardLimits) -> type[GuardedHttpToolsProtocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` whose connections share one guard."""
    shared = ConnectionGuard(limits)

    class Guarded(GuardedHttpToolsProtocol):
        guard = shared

    return Guarded
