"""stdio on the event loop: the MCP wire read and written without worker threads.

The SDK's ``stdio_server`` reads and writes through ``anyio.wrap_file``, which costs a
worker-thread round trip for every line read, every write and every flush: three hops
per tool call, more than the sandboxed run of a small tool. When standard input and
output are pipes or sockets (as every MCP client starts a server) they can be served
by the event loop directly, which is what this module does. Anything else (a terminal,
a regular file, output shared with standard error) is read by a daemon thread of its own
and written from worker threads (``thread_streams``), as making such a descriptor
non-blocking would change it for other processes too: a read waiting for a line nobody will
send never holds up Ctrl-C or SIGTERM (the SDK's transport reads on a thread that cannot be
abandoned). Both answer the requests already read when input ends, and a line that is no
message with a parse error (``_Inbox``).

Like the SDK, while serving fd 0 reads the null device and fd 1 goes to standard error,
so a stray ``print`` or a child process never writes onto the wire; both are restored
on exit.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import IO

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from toolbay.null_device import null_descriptor
from toolbay.protocol.parse_errors import (
    error_for,
    error_message,
    failed_answer,
    id_before_nesting,
    id_refusal,
    long_integer_refusal,
    params_refusal,
    read_json,
    request_id_of,
    surrogate_refusal,
)
from toolbay.protocol.quick_lane import QuickLane, Send, cancelled_request_id
from toolbay.protocol.standard_fds import can_serve_on_loop, input_readable
from toolbay.protocol.wire_json import message_json

logger = logging.getLogger(__name__)

# A line longer than this is refused (and reported to the server) rather than buffered
# without bound; 64 MiB is far above any message a client sends a tool.
MAX_LINE_BYTES = 64 * 1024 * 1024

# Messages written but not yet taken by the client before the writer waits for it.
_WRITE_HIGH_WATER = 1024 * 1024

# Messages the server may queue for the writer before it waits.
_OUTGOING_QUEUE = 64

# Calls the quick lane may answer at once before the reader waits for one to end: without a
# bound a client's burst was read whole, a task a call at once (30,000 held some 60 MB). A
# client's calls in the lane end within a moment or go on as jobs (past [jobs] sync_budget_s),
# so only a flood waits here, in its own pipe.
LANE_IN_FLIGHT = 512

# At end of input, requests already read are answered before the server is told the client
# is gone (``printf '...' | toolbay serve`` gets its answers), waiting at most this long.
EOF_GRACE_S = 30.0

# After end of input, a client that takes none of its answers for this long is not reading
# them: what is pending is dropped (and logged), so the server ends instead of waiting for
# ever on a full pipe.
UNREAD_AFTER_EOF_S = 5.0

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


@asynccontextmanager
async def stdio_streams(lane: QuickLane | None = None,
                        on_listed: Callable[[], None] | None = None) -> AsyncIterator[Streams]:
    """The server's read and write streams over this process's stdin and stdout. ``lane``
    answers the calls it takes (on pipes and sockets only) before the SDK sees them;
    ``on_listed`` is told once, when the answer to the first ``tools/list`` has been written."""
    if sys.stdin.isatty() or not can_serve_on_loop() or not input_readable():
        # Unreadable, its reader's first read fails, and the session ends as at end of input.
        async with thread_streams(on_listed=on_listed) as streams:
            yield streams
        return
    wire_in, wire_out = _claim_standard_fds()
    try:
        async with loop_streams(wire_in, wire_out, lane=lane, on_listed=on_listed) as streams:
            yield streams
    finally:
        _restore_standard_fds(wire_in, wire_out)


@asynccontextmanager
async def thread_streams(max_line_bytes: int = MAX_LINE_BYTES,
                         on_listed: Callable[[], None] | None = None) -> AsyncIterator[Streams]:
    """The streams when standard input or output is no pipe of its own (a terminal, a file,
    output shared with standard error). A daemon thread reads fd 0 and is left behind when
    the server stops (the SDK's reader, a worker thread, kept a stopped server waiting for a
    line nobody would send); answers are written to the wire from worker threads."""
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](_OUTGOING_QUEUE)
    inbox = _Inbox(incoming_send, outgoing, on_listed=on_listed)
    token = anyio.lowlevel.current_token()
    # Only the output is claimed: the reader thread, which may outlive this, keeps fd 0.
    wire_out = os.dup(1)
    os.dup2(2, 1)
    os.set_inheritable(wire_out, False)

    def deliver(item: SessionMessage | Exception) -> None:
        anyio.from_thread.run(inbox.deliver, item, token=token)

    def read_chunk() -> bytes:
        try:
            return os.read(0, 65536)
        except OSError as exc:
            # Open for writing only (``serve 0>file``), a terminal hung up (EIO): the reader
            # ended without a word and the server waited for ever. It ends as at end of input.
            logger.info("cannot read from the client (%s); ending the session", exc.strerror or exc)
            return b""

    def read_lines() -> None:
        # os.read, not sys.stdin: a daemon thread left inside a buffered reader holds its lock,
        # and the interpreter aborts at exit when it cannot take it.
        line = bytearray()
        skipping = False  # inside a line that was too long, until its newline
        try:
            while chunk := read_chunk():
                start = 0
                while (end := chunk.find(b"\n", start)) != -1:
                    if not skipping:
                        line += chunk[start:end]
                        if len(line) > max_line_bytes:
                            deliver(_overlong(max_line_bytes))
                        elif line.strip():
                            deliver(_parse(bytes(line)))
                    skipping = False
                    line.clear()
                    start = end + 1
                if not skipping:
                    line += chunk[start:]
                    if len(line) > max_line_bytes:  # refused, not buffered without bound
                        deliver(_overlong(max_line_bytes))
                        line.clear()
                        skipping = True
            if line.strip() and not skipping:
                deliver(_parse(bytes(line)))
            anyio.from_thread.run(inbox.end_of_input, token=token)
        except Exception:  # the server has stopped (the loop is gone) or stdin was closed
            return

    async def write_messages() -> None:
        async with outgoing_receive:
            async for message in outgoing_receive:
                data = inbox.encode(message)
                try:
                    # A shared pipe may be full: the loop goes on meanwhile.
                    await anyio.to_thread.run_sync(_write_whole, wire_out, data, abandon_on_cancel=True)
                except OSError as exc:  # the client has gone: what it is still told is lost
                    logger.info("cannot write to the client (%s); ending the session", exc)
                    incoming_send.close()
                    return
                inbox.written()

    threading.Thread(target=read_lines, name="toolbay-stdin", daemon=True).start()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(write_messages)
            yield incoming, outgoing
            outgoing.close()
    finally:
        for stream in (incoming_send, incoming, outgoing, outgoing_receive):
            stream.close()
        with suppress(OSError):
            os.dup2(wire_out, 1)
        with suppress(OSError):
            os.close(wire_out)


def _write_whole(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _claim_standard_fds() -> tuple[int, int]:
    """Private duplicates of fd 0 and 1 carry the wire; fd 0 then reads the null device and
    fd 1 writes to standard error."""
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    null = null_descriptor(os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    os.dup2(2, 1)
    os.set_inheritable(wire_in, False)
    os.set_inheritable(wire_out, False)
    return wire_in, wire_out


def _restore_standard_fds(wire_in: int, wire_out: int) -> None:
    for wire, fd in ((wire_in, 0), (wire_out, 1)):
        with suppress(OSError):
            os.set_blocking(wire, True)
            os.dup2(wire, fd)
        with suppress(OSError):
            os.close(wire)


def _pipe_for_transport(loop: asyncio.AbstractEventLoop, fd: int, mode: str) -> IO[bytes]:
    """A duplicate of ``fd`` for a pipe transport to own and close, exactly once whatever the
    loop: uvloop's transports close the descriptor they were given themselves (libuv does),
    asyncio's close the file object. Given ``fd`` itself, uvloop closed it and the caller then
    closed that number again, by then perhaps a file another thread had just opened (seen
    under strace: a compiled-module cache write lost its descriptor as a server stopped)."""
    closes_the_descriptor = not isinstance(loop, asyncio.BaseEventLoop)  # uvloop's Loop is not one
    return os.fdopen(os.dup(fd), mode, buffering=0, closefd=not closes_the_descriptor)


@asynccontextmanager
async def loop_streams(wire_in: int, wire_out: int, max_line_bytes: int = MAX_LINE_BYTES,
                       lane: QuickLane | None = None,
                       on_listed: Callable[[], None] | None = None) -> AsyncIterator[Streams]:
    """The streams over two pipe (or socket) descriptors, which stay open for the caller to
    close afterwards. ``on_listed``: see ``stdio_streams``."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=max_line_bytes)
    read_protocol = _ReadProtocol(reader)
    read_transport, _ = await loop.connect_read_pipe(lambda: read_protocol, _pipe_for_transport(loop, wire_in, "rb"))
    write_transport, write_protocol = await loop.connect_write_pipe(
        _WriteProtocol, _pipe_for_transport(loop, wire_out, "wb"))
    write_transport.set_write_buffer_limits(high=_WRITE_HIGH_WATER)
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)

    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    # A few answers may wait for the writer, so answers finished together go out in one write.
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](_OUTGOING_QUEUE)

    reading = anyio.CancelScope()
    input_ended = anyio.Event()
    dropped = _Dropped()

    in_lane = 0
    lane_room = anyio.Event()

    async def answer_in_lane(answer: Callable[[Send], Awaitable[None]]) -> None:
        nonlocal in_lane
        try:
            await answer(outgoing.send)
        finally:
            in_lane -= 1
            lane_room.set()

    def take(message: types.JSONRPCRequest) -> bool:
        nonlocal in_lane
        answer = lane.take(message) if lane is not None else None
        if answer is None:
            return False
        in_lane += 1
        lane_calls.start_soon(answer_in_lane, answer)
        return True

    async def room_in_lane() -> None:
        nonlocal lane_room
        while in_lane >= LANE_IN_FLIGHT:
            lane_room = anyio.Event()
            await lane_room.wait()

    inbox = _Inbox(incoming_send, outgoing, take=take, on_notification=lane.cancel if lane is not None else None,
                   on_listed=on_listed)

    async def read_lines() -> None:
        skipping = False  # inside a line that was too long, until its newline
        with reading:
            async with incoming_send:
                while True:
                    try:
                        line = await reader.readuntil(b"\n")
                    except asyncio.IncompleteReadError as end:  # EOF; the last line may lack its newline
                        if end.partial.strip() and not skipping:
                            await inbox.deliver(_parse(end.partial))
                        input_ended.set()
                        await inbox.end_of_input()
                        return
                    except asyncio.LimitOverrunError as overrun:
                        await reader.readexactly(overrun.consumed)
                        if not skipping:
                            skipping = True
                            await inbox.deliver(_overlong(max_line_bytes))
                        continue
                    if skipping:
                        skipping = False
                    elif line.strip():
                        await room_in_lane()
                        if reading.cancel_called:  # lines already buffered are read without a pause
                            break
                        await inbox.deliver(_parse(line))

    def client_gone(why: str = "the client closed its end of standard output") -> None:
        """The client stopped reading: nobody can hear the server, so it stops listening too
        (which ends the session quietly); what it still says is dropped."""
        if not reading.cancel_called:
            logger.info("%s; ending the session", why)
            reading.cancel()

    async def drain() -> None:
        """Waits while the client is a megabyte behind (returns at once otherwise). Once its
        input has ended, a client that takes nothing for UNREAD_AFTER_EOF_S is not reading:
        what is pending is dropped and the transport aborted."""
        while True:
            pending = write_transport.get_write_buffer_size()
            if not pending and not write_transport.is_closing():
                return  # all written already (the usual case): no timer, no wait
            with anyio.move_on_after(UNREAD_AFTER_EOF_S):
                await writer.drain()
                return
            if input_ended.is_set() and write_transport.get_write_buffer_size() >= pending:
                dropped.bytes += write_transport.get_write_buffer_size()
                write_transport.abort()
                client_gone(f"the client closed its input and read nothing for {UNREAD_AFTER_EOF_S:g} s")
                return

    async def write_messages() -> None:
        async with outgoing_receive:
            async for message in outgoing_receive:
                batch = [inbox.encode(message)]
                while True:  # whatever else is already waiting: one system call for all
                    try:
                        batch.append(inbox.encode(outgoing_receive.receive_nowait()))
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                if write_transport.is_closing():
                    dropped.add(batch)
                    client_gone()
                    continue
                try:
                    writer.write(b"".join(batch))
                    await drain()
                except (ConnectionError, RuntimeError):  # RuntimeError: uvloop's closed handle
                    client_gone()
                    continue
                inbox.written()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_lines)
            group.start_soon(write_messages)
            async with anyio.create_task_group() as lane_calls:
                try:
                    yield incoming, outgoing
                finally:
                    # Stopped (Ctrl-C cancels the server, not the reader, another task) or done:
                    # no more calls are taken from what the client sent. Read on, a burst in the
                    # pipe was run call by call while those begun ended, 10 to 28 s for 30,000.
                    reading.cancel()
                # The SDK has stopped: the reader already gave calls in flight their grace.
                lane_calls.cancel_scope.cancel()
            # The writer ends once it has written what it was given; the reader may be
            # waiting for a line that will never come.
            outgoing.close()
            reading.cancel()
    finally:
        for stream in (incoming_send, incoming, outgoing, outgoing_receive):
            stream.close()
        read_transport.close()
        with suppress(Exception):
            if not write_transport.is_closing():
                with anyio.move_on_after(5, shield=True):
                    await writer.drain()
        if write_transport.get_write_buffer_size():
            dropped.bytes += write_transport.get_write_buffer_size()
            write_transport.abort()
        write_transport.close()
        # The caller closes its descriptors once both transports have let go of their
        # duplicates (uvloop closes its handles a loop turn later).
        with anyio.move_on_after(5, shield=True):
            await read_protocol.closed.wait()
            await write_protocol.closed.wait()
        if dropped.bytes or dropped.messages:
            logger.warning("the client did not read its last answers: dropped %d messages and %d bytes",
                           dropped.messages, dropped.bytes)


class _ReadProtocol(asyncio.StreamReaderProtocol):
    """Says when the transport has let go of its descriptor."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        super().__init__(reader)
        self.closed = anyio.Event()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.closed.set()


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """Flow control for the writer; says when the transport has let go of its descriptor."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = anyio.Event()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.closed.set()


class _Dropped:
    """What was said to a client that no longer listened."""

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    def add(self, batch: list[bytes]) -> None:
        self.messages += len(batch)
        self.bytes += sum(len(line) for line in batch)


class _Inbox:
    """What the transports do with what the client sends, before the server sees it: a line
    that is no message is answered with a parse error (the SDK's session drops it without a
    word, where JSON-RPC asks for one, with a null id as the id could not be read); a request
    is kept until answered, so that when input ends the requests already read are answered
    (for up to ``EOF_GRACE_S``) before the server is told the client is gone. ``take``: the
    quick lane, True when it answers a request itself; ``on_notification``: the lane hears of
    cancellations; ``on_listed``: told once, by ``written``, when the answer to a ``tools/list``
    has been written to the client (``serve`` then lets the compiled code be cached)."""

    def __init__(self, incoming_send: MemoryObjectSendStream[SessionMessage | Exception],
                 outgoing: MemoryObjectSendStream[SessionMessage],
                 take: Callable[[types.JSONRPCRequest], bool] | None = None,
                 on_notification: Callable[[types.JSONRPCNotification], None] | None = None,
                 on_listed: Callable[[], None] | None = None) -> None:
        self.incoming_send = incoming_send
        self.outgoing = outgoing
        self.unanswered = _Unanswered()
        self.take = take
        self.on_notification = on_notification
        # The server's own requests (sampling, elicitation) the client has not answered, and,
        # once input has ended, a wake-up for each new one (none can be answered any more) and
        # for the last request read being answered.
        self.asked: set[types.RequestId] = set()
        self.input_ended = False
        self.woken: anyio.Event | None = None
        # Until ``on_listed`` is told: the ids of the tools/list requests read, and whether an
        # answer to one is in what the writer has in hand.
        self.on_listed = on_listed
        self._listings: set[types.RequestId] = set()
        self._listing_answered = False

    async def deliver(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, _Unparsable) and not item.answer:
            logger.warning("dropped a notification: %s", item)
            return
        if isinstance(item, _Unparsable):
            logger.info("answered an error to a line that is not a JSON-RPC message: %s", item)
            await self.outgoing.send(SessionMessage(error_message(item.error, item.request_id)))
            return
        if isinstance(item, SessionMessage):
            message = item.message
            if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                self.asked.discard(message.id)
            if isinstance(message, types.JSONRPCRequest):
                self.unanswered.add(message.id)
                if self.on_listed is not None and message.method == "tools/list":
                    self._listings.add(message.id)
                if self.take is not None and self.take(message):
                    return
            elif isinstance(message, types.JSONRPCNotification):
                cancelled = cancelled_request_id(message)
                if cancelled is not None:
                    # This protocol answers no cancelled request: waiting for its answer when the
                    # client leaves held the server past the client's patience, which then killed
                    # it before its running jobs could go on without the client.
                    self.unanswered.answered(cancelled)
                if self.on_notification is not None:
                    self.on_notification(message)
        await self.incoming_send.send(item)

    async def end_of_input(self) -> None:
        """Input has ended: waits for the requests already read to be answered (or the grace),
        then tells the server the client is gone. The server's own requests to the client fail
        at once, so that a call waiting on one (an agent tool's sampling) is answered rather
        than held to the grace and beyond, as a job that then failed."""
        self.input_ended = True
        with anyio.move_on_after(EOF_GRACE_S):
            while True:
                for request_id in list(self.asked):
                    self.asked.discard(request_id)
                    await self.incoming_send.send(SessionMessage(error_message(types.ErrorData(
                        code=types.CONNECTION_CLOSED,
                        message="the client closed its input: it will answer no request"), request_id)))
                # One wake-up for either end of the wait: the last request read answered, or the
                # server asking the client more (answered above, next time round). Not a task
                # for each: a stop that came before their first step left their coroutines
                # never awaited, a warning on stderr as the process ended.
                self.woken = anyio.Event()
                if self.asked:
                    continue  # asked while the others were answered, before this wake-up was made
                if self.unanswered.wake_when_all_answered(self.woken):
                    await self.woken.wait()
                if not self.asked:
                    break
        self.incoming_send.close()

    def encode(self, message: SessionMessage) -> bytes:
        if isinstance(message.message, types.JSONRPCResponse | types.JSONRPCError):
            self.unanswered.answered(message.message.id)
            if message.message.id in self._listings:
                self._listing_answered = True
        elif isinstance(message.message, types.JSONRPCRequest):
            self.asked.add(message.message.id)
            if self.woken is not None:
                self.woken.set()
        return message_json(message.message).encode() + b"\n"

    def written(self) -> None:
        """What ``encode`` gave has been written to the client: ``on_listed`` is told, once,
        if it held the answer to a ``tools/list``."""
        if self._listing_answered and self.on_listed is not None:
            told, self.on_listed = self.on_listed, None
            self._listings.clear()
            told()


class _Unanswered:
    """Ids of requests read from the client and not yet answered."""

    def __init__(self) -> None:
        self._ids: set[types.RequestId | None] = set()
        self._empty: anyio.Event | None = None

    def add(self, request_id: types.RequestId) -> None:
        self._ids.add(request_id)

    def answered(self, request_id: types.RequestId | None) -> None:
        self._ids.discard(request_id)
        if not self._ids and self._empty is not None:
            self._empty.set()

    def wake_when_all_answered(self, event: anyio.Event) -> bool:
        """True when requests are waiting for their answers: ``event`` is set once the last is."""
        if not self._ids:
            return False
        self._empty = event
        return True


class _Unparsable(ValueError):
    """A line that is not a JSON-RPC message, with the error to answer it with (and the id of
    the request it was meant to be, when that could be read), or to log for a notification."""

    def __init__(self, error: types.ErrorData, request_id: types.RequestId | None = None, *,
                 answer: bool = True) -> None:
        super().__init__(error.message)
        self.error = error
        self.request_id = request_id
        self.answer = answer  # False for a notification: said in the log only


def _overlong(max_line_bytes: int) -> _Unparsable:
    """What a line longer than ``max_line_bytes`` is answered with. Its id cannot be read: the
    caller is told with a null id, as for any message that cannot be parsed, rather than left
    waiting."""
    logger.warning("dropped a message longer than %d bytes", max_line_bytes)
    return _Unparsable(types.ErrorData(code=types.INVALID_REQUEST,
                                       message=f"a message longer than {max_line_bytes} bytes was dropped"))


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:  # answered with an error; the stream goes on
        try:
            parsed = read_json(line)
        except (ValueError, RecursionError):
            parsed = None
        if (failed := failed_answer(line, parsed)) is not None:
            return SessionMessage(failed)  # the request it answers fails now, rather than waiting
        bad = long_integer_refusal(parsed) or params_refusal(parsed) or surrogate_refusal(line, parsed)
        if bad is None:
            # Under the id it was sent with, when one can be read: its sender waits for that id.
            return _Unparsable(error_for(exc), request_id_of(parsed) if parsed is not None else id_before_nesting(line))
        # A notification is never answered (JSON-RPC), not even to say it was wrong.
        return _Unparsable(bad[1], bad[0], answer="id" in parsed)
    except Exception as exc:
        return exc
    refusal = id_refusal(message, line)
    return SessionMessage(message) if refusal is None else _Unparsable(refusal)
