"""The stdio wire: messages read and written on the event loop over pipes, the SDK's
transport where stdout is not a pipe, and nothing but protocol lines on stdout."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from functools import partial
from pathlib import Path
from typing import IO, Any, cast

import anyio
import mcp.types as types
import pytest
from mcp.shared.message import SessionMessage

from tests.conftest import REPO_ROOT, patient_start
from toolbay.protocol.quick_lane import QuickLane, Send
from toolbay.protocol.stdio import LANE_IN_FLIGHT, loop_streams

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "wire-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Pipes:
    """Two pipes: the test writes what the server reads, and reads what it writes."""

    def __init__(self) -> None:
        self.server_in, self.client_out = os.pipe()
        self.client_in, self.server_out = os.pipe()

    def send(self, data: bytes) -> None:
        os.write(self.client_out, data)

    def close_client_side(self) -> None:
        os.close(self.client_out)

    def received(self) -> bytes:
        os.set_blocking(self.client_in, False)
        chunks = []
        while True:
            try:
                chunk = os.read(self.client_in, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        for fd in (self.server_in, self.client_in, self.server_out):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def pipes() -> Iterator[Pipes]:
    made = Pipes()
    yield made
    made.close()


async def test_messages_are_read_one_per_line_and_a_bad_line_does_not_stop_the_rest(pipes: Pipes) -> None:
    pipes.send(json.dumps(INITIALIZE).encode() + b"\n" + b"this is not json\n\n")
    pipes.send(json.dumps(INITIALIZED).encode())  # the last line may come without its newline
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, outgoing):
            items = []
            async for item in incoming:
                items.append(item)
                if isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCRequest):
                    await outgoing.send(SessionMessage(types.JSONRPCResponse(
                        jsonrpc="2.0", id=item.message.id, result={})))
    answers = sorted((json.loads(line) for line in pipes.received().splitlines()), key=lambda a: str(a["id"]))
    assert answers == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        # The bad line is answered by the transport (JSON-RPC's parse error), not passed on.
        {"jsonrpc": "2.0", "id": None,
         "error": {"code": -32700, "message": "Parse error: expected ident at line 1 column 2"}},
    ]
    assert len(items) == 2
    first, last = items
    assert isinstance(first, SessionMessage) and isinstance(first.message, types.JSONRPCRequest)
    assert first.message.method == "initialize"
    assert isinstance(last, SessionMessage) and isinstance(last.message, types.JSONRPCNotification)


async def test_a_request_whose_id_is_no_string_or_integer_is_answered_and_not_passed_on(pipes: Pipes) -> None:
    """The SDK reads {"id": {...}, "method": ...} as a notification: passed on, it was answered
    by nobody, and its sender waited for ever."""
    from tests.protocol.test_http_transports import BAD_IDS

    pipes.send(b"".join(body.encode() + b"\n" for body in BAD_IDS) + json.dumps(INITIALIZED).encode() + b"\n")
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, _):
            items = [item async for item in incoming]
    answers = [json.loads(line) for line in pipes.received().splitlines()]
    assert answers == [{"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": f"Invalid request: a request's id must be a string or an integer, {said}"}}
        for said in BAD_IDS.values()]
    assert len(items) == 1 and isinstance(items[0], SessionMessage)  # the notification alone
    assert isinstance(items[0].message, types.JSONRPCNotification)


async def test_a_clients_answer_that_is_no_valid_response_fails_the_request_it_answers_unanswered(
        pipes: Pipes) -> None:
    """A sampling request answered with {"result": "hello"} (or null, or an error whose code is no
    integer) was refused as no JSON-RPC message, with a null id: the request stayed pending, and
    the agent tool waited to its time limit (minutes) to fail (an outside probe)."""
    answers = [{"jsonrpc": "2.0", "id": "toolbay-sampling-1", "result": "hello"},
               {"jsonrpc": "2.0", "id": "toolbay-sampling-2", "result": None},
               {"jsonrpc": "2.0", "id": 7, "error": {"code": "x", "message": "bad"}},
               # Neither a result nor an error, under the id of a request of the server's (a re-check).
               {"jsonrpc": "2.0", "id": "toolbay-sampling-3"}]
    # A result that is an object whose text holds a lone surrogate is said to be that (an outside
    # check: it was said to be "not what JSON-RPC allows: an object").
    cut = (b'{"jsonrpc": "2.0", "id": 8, "result": {"role": "assistant", '
           b'"content": {"type": "text", "text": "\\ud83d"}}}')
    pipes.send(b"".join(json.dumps(answer).encode() + b"\n" for answer in answers) + cut + b"\n")
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, _):
            items = [item async for item in incoming]
    assert pipes.received() == b""  # a response is never answered
    failed = [item.message for item in items if isinstance(item, SessionMessage)]
    assert [(type(m), m.id) for m in failed] == [(types.JSONRPCError, a["id"]) for a in [*answers, {"id": 8}]]
    said = [m.error.message for m in failed if isinstance(m, types.JSONRPCError)]
    assert all("no valid JSON-RPC response" in message for message in said)
    assert "its result is not what JSON-RPC allows" in said[1] and "lone UTF-16 surrogate" in said[4]
    assert "it holds neither a result nor an error" in said[3]


async def test_a_request_of_the_servers_left_unanswered_when_input_ends_fails_at_once(pipes: Pipes) -> None:
    """An agent tool's sampling request, asked just before the client closed its input, was
    left pending: the call was held to the sync budget, became a job, and failed later, the
    server exiting 5 s after the client had gone (an outside probe)."""
    pipes.send(json.dumps(INITIALIZE).encode() + b"\n")
    with anyio.fail_after(10):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, outgoing):
            first = await incoming.receive()
            assert isinstance(first, SessionMessage) and isinstance(first.message, types.JSONRPCRequest)
            await outgoing.send(SessionMessage(types.JSONRPCRequest(
                jsonrpc="2.0", id="toolbay-sampling-1", method="sampling/createMessage", params={})))
            while b"sampling/createMessage" not in pipes.received():  # written to the client
                await anyio.sleep(0.01)
            pipes.close_client_side()
            failed = await incoming.receive()
            # What the server still owes is answered: the initialize, now its sampling failed.
            await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
            rest = [item async for item in incoming]
    assert isinstance(failed, SessionMessage) and isinstance(failed.message, types.JSONRPCError)
    assert failed.message.id == "toolbay-sampling-1" and "closed its input" in failed.message.error.message
    assert rest == []


async def test_an_invalid_request_whose_id_can_be_read_is_answered_under_that_id(pipes: Pipes) -> None:
    """{"jsonrpc": "2.0", "id": 3} and a request without "jsonrpc" were answered with a null id:
    their sender waits for an answer to its own id (an outside probe)."""
    pipes.send(b'{"jsonrpc": "2.0", "id": 3}\n{"id": 4, "method": "tools/list"}\n{"jsonrpc": "1.0"}\n')
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, _):
            items = [item async for item in incoming]
    answers = [json.loads(line) for line in pipes.received().splitlines()]
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(3, -32600), (4, -32600), (None, -32600)]
    assert items == []


async def test_a_request_whose_params_is_no_object_is_told_so_under_its_own_id(pipes: Pipes) -> None:
    """{"params": [1]} was answered as a batch, with a null id (an outside probe)."""
    from tests.protocol.test_http_transports import PARAMS_NOT_OBJECTS

    lines = [json.dumps(body).encode() for body, _ in PARAMS_NOT_OBJECTS] + [b'[{"jsonrpc": "2.0"}]']
    pipes.send(b"".join(line + b"\n" for line in lines))
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, _):
            items = [item async for item in incoming]
    answers = [json.loads(line) for line in pipes.received().splitlines()]
    assert answers[:-1] == [{"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32602, "message": said}}
                            for body, said in PARAMS_NOT_OBJECTS]
    assert "a batch" in answers[-1]["error"]["message"]  # a real one still is
    assert items == []


async def test_a_notification_whose_params_is_no_object_is_dropped_unanswered(
        pipes: Pipes, caplog: pytest.LogCaptureFixture) -> None:
    """It was answered with an error and a null id; JSON-RPC answers no notification (an outside probe)."""
    pipes.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]}\n')
    pipes.send(json.dumps(INITIALIZED).encode() + b"\n")
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, _):
            items = [item async for item in incoming]
    assert pipes.received() == b""
    assert len(items) == 1 and isinstance(items[0], SessionMessage)  # the next message still arrives
    assert "dropped a notification: Invalid notifications/cancelled parameters: params must be an object" in caplog.text


async def test_an_overlong_line_is_dropped_with_an_error_and_the_next_message_still_arrives(pipes: Pipes) -> None:
    pipes.send(b'{"jsonrpc": "2.0", "id": 5, "method": "x", "params": {"pad": "' + b"a" * 5000 + b'"}}\n')
    pipes.send(json.dumps(INITIALIZED).encode() + b"\n")
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out, max_line_bytes=1024) as (incoming, _outgoing):
            items = [item async for item in incoming]
    # Answered on the wire (its id unread, so null), not left for the caller to wait on.
    assert [json.loads(line) for line in pipes.received().splitlines()] == [{
        "jsonrpc": "2.0", "id": None,
        "error": {"code": -32600, "message": "a message longer than 1024 bytes was dropped"}}]
    assert len(items) == 1
    assert isinstance(items[0], SessionMessage) and isinstance(items[0].message, types.JSONRPCNotification)


async def test_at_end_of_input_the_requests_already_read_are_answered_before_the_stream_ends(
    pipes: Pipes,
) -> None:
    pipes.send(json.dumps(INITIALIZE).encode() + b"\n")
    pipes.close_client_side()
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (incoming, outgoing):
            request = await incoming.receive()
            assert isinstance(request, SessionMessage)
            with anyio.move_on_after(0.2):  # the input has ended, but the request is not answered
                await incoming.receive()
                pytest.fail("the stream ended before the request was answered")
            await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
            with pytest.raises(anyio.EndOfStream):
                await incoming.receive()


async def test_the_first_listing_is_told_once_its_answer_has_been_written_and_only_then(pipes: Pipes) -> None:
    """``serve`` caches a first start's compiled code once told (``Toolbay.listing_answered``):
    not on the answer to another request, not before the listing's answer is on the wire, and
    once."""
    told: list[bytes] = []
    listed = anyio.Event()

    def on_listed() -> None:
        told.append(pipes.received())  # what the client could read at that moment
        listed.set()

    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    pipes.send(b"".join(json.dumps(m).encode() + b"\n" for m in (INITIALIZE, listing, {**listing, "id": 3})))
    with anyio.fail_after(10):
        async with loop_streams(pipes.server_in, pipes.server_out, on_listed=on_listed) as (incoming, outgoing):
            for _ in range(3):
                await incoming.receive()
            await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
            written = await anyio.to_thread.run_sync(os.read, pipes.client_in, 1 << 16)  # waits for it
            assert [json.loads(line)["id"] for line in written.splitlines()] == [1]
            assert told == []
            await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=2, result={"tools": []})))
            await listed.wait()
            await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=3, result={"tools": []})))
    assert [[json.loads(line)["id"] for line in seen.splitlines()] for seen in told] == [[2]]
    assert [json.loads(line)["id"] for line in pipes.received().splitlines()] == [3]


class _HeldLane:
    """A quick lane whose every call waits for ``release``, then answers."""

    def __init__(self, *, shielded: bool = False) -> None:
        self.started = 0
        self.release = anyio.Event()
        self.full = anyio.Event()
        self.shielded = shielded  # as a call that writes its job's end before it may be stopped

    def take(self, request: types.JSONRPCRequest) -> Callable[[Send], Coroutine[Any, Any, None]]:
        async def answer(send: Send) -> None:
            self.started += 1
            if self.started == LANE_IN_FLIGHT:
                self.full.set()
            with anyio.CancelScope(shield=self.shielded):
                await self.release.wait()
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result={})))

        return answer

    def cancel(self, notification: types.JSONRPCNotification) -> None:
        pass


async def test_a_burst_of_calls_is_read_no_faster_than_the_lane_answers_them(pipes: Pipes) -> None:
    """A client's burst of quick calls was read whole, each call a task at once: 30,000 held some
    60 MB (an outside check). The reader now waits while LANE_IN_FLIGHT calls are unanswered,
    leaving the rest in the client's pipe; every call is still answered."""
    calls = 3 * LANE_IN_FLIGHT
    burst = b"".join(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                 "params": {"name": "t", "arguments": {}}}).encode() + b"\n"
                     for n in range(calls))

    def send_all() -> None:  # more than a pipe holds: written as the server reads
        os.set_blocking(pipes.client_out, True)
        os.write(pipes.client_out, burst)
        pipes.close_client_side()

    lane = _HeldLane()
    answered: list[bytes] = []

    def read_all() -> None:
        os.set_blocking(pipes.client_in, True)
        while chunk := os.read(pipes.client_in, 1 << 16):
            answered.append(chunk)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            for work in (send_all, read_all):  # left behind should the test fail
                group.start_soon(partial(anyio.to_thread.run_sync, work, abandon_on_cancel=True))
            async with loop_streams(pipes.server_in, pipes.server_out,
                                    lane=cast(QuickLane, lane)) as (incoming, _outgoing):
                await lane.full.wait()
                with anyio.move_on_after(0.3):  # more would be taken by now, were the reader not waiting
                    while lane.started == LANE_IN_FLIGHT:
                        await anyio.sleep(0.01)
                assert lane.started == LANE_IN_FLIGHT
                lane.release.set()
                with pytest.raises(anyio.EndOfStream):  # once every call read is answered
                    await incoming.receive()
            os.close(pipes.server_out)  # the reader's end of input
            pipes.server_out = -1
    assert lane.started == calls
    assert sorted(json.loads(line)["id"] for line in b"".join(answered).splitlines()) == list(range(calls))


class _Stopped(Exception):
    """The server stopping (Ctrl-C cancels it) while calls run in the lane."""


async def test_a_server_that_stops_takes_no_more_calls_from_what_the_client_sent(pipes: Pipes) -> None:
    """Stopped (Ctrl-C) under a burst of calls, a server went on reading the calls still in the
    pipe and running each while those in flight ended, 10 to 28 s for 30,000 (an outside check).
    Once stopped it takes no more: only the calls it had begun end."""
    calls = 3 * LANE_IN_FLIGHT
    burst = b"".join(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                 "params": {"name": "t", "arguments": {}}}).encode() + b"\n"
                     for n in range(calls))

    def send_all() -> None:
        os.set_blocking(pipes.client_out, True)
        with contextlib.suppress(BrokenPipeError):  # the server stopped reading
            os.write(pipes.client_out, burst)

    def read_all() -> None:
        os.set_blocking(pipes.client_in, True)
        while os.read(pipes.client_in, 1 << 16):
            pass

    lane = _HeldLane(shielded=True)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            for work in (send_all, read_all):  # left behind once the test has its answer
                group.start_soon(partial(anyio.to_thread.run_sync, work, abandon_on_cancel=True))
            # Raised where the server runs, as Ctrl-C's cancellation is: the reader is another task.
            try:
                async with loop_streams(pipes.server_in, pipes.server_out, lane=cast(QuickLane, lane)):
                    await lane.full.wait()
                    lane.release.set()  # those begun end as the server stops
                    raise _Stopped
            except* _Stopped:
                pass
            group.cancel_scope.cancel()
    assert lane.started == LANE_IN_FLIGHT


async def test_every_message_sent_is_written_as_one_line_before_the_streams_close(pipes: Pipes) -> None:
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (_incoming, outgoing):
            for number in range(200):
                response = types.JSONRPCResponse(jsonrpc="2.0", id=number, result={"n": number})
                await outgoing.send(SessionMessage(response))
    lines = pipes.received().splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(range(200))


@pytest.mark.parametrize("anyio_backend", [("asyncio", {"use_uvloop": False}), ("asyncio", {"use_uvloop": True})],
                         ids=["asyncio", "uvloop"])
async def test_the_descriptors_served_stay_the_callers_to_close_once(pipes: Pipes) -> None:
    """The server closes its wire descriptors itself, after restoring fd 0 and 1. uvloop used
    to close them first, so the server's close hit the same numbers a second time: by then
    maybe a file another thread had just opened. Nothing of the wire may stay open either,
    or the client would not see the server's end."""
    with anyio.fail_after(5):
        async with loop_streams(pipes.server_in, pipes.server_out) as (_incoming, outgoing):
            await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
    for fd in (pipes.server_in, pipes.server_out):
        os.fstat(fd)  # still open: raises EBADF where the loop closed it
    os.close(pipes.server_out)
    pipes.server_out = -1  # closed here, not again by the fixture
    assert json.loads(pipes.received())["id"] == 1
    assert os.read(pipes.client_in, 1) == b""  # the end: no copy of the wire is left open


def _server(extensions: Path, data_dir: Path, stdout: int | IO[bytes]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", str(data_dir)],
        cwd=REPO_ROOT, env=patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)}),
        stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.DEVNULL,
    )


def _wait_for_lines(path: Path, count: int, timeout: float = 60) -> list[dict[str, object]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = path.read_bytes().splitlines()
        if len(lines) >= count:
            return [json.loads(line) for line in lines]
        time.sleep(0.05)
    raise AssertionError(f"expected {count} lines in {path}, got {path.read_bytes()!r}")


@contextlib.contextmanager
def _serving_into(out: Path, extensions: Path, data_dir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A server whose standard output is the file ``out``; killed if it still runs at the end."""
    with out.open("wb") as sink:
        process = _server(extensions, data_dir, sink)
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stdin is not None:
                process.stdin.close()


def _send(process: subprocess.Popen[bytes], *messages: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))
    process.stdin.flush()


def test_a_server_whose_stdout_is_a_file_answers_on_it(
    extensions_dir: Path, shared_data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "wire.jsonl"
    with _serving_into(out, extensions_dir, shared_data_dir) as process:
        _send(process, INITIALIZE)
        _wait_for_lines(out, 1)
        _send(process, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        answers = _wait_for_lines(out, 2)
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    assert answers[0]["id"] == 1 and "result" in answers[0]
    assert answers[1]["id"] == 2
    assert "hashsum" in {tool["name"] for tool in answers[1]["result"]["tools"]}  # type: ignore[index]


def test_with_stdout_a_file_the_requests_read_before_input_ends_are_answered_and_sigterm_stops_it(
    extensions_dir: Path, shared_data_dir: Path, tmp_path: Path
) -> None:
    """Output to a file (or shared with stderr) went through the SDK's transport: a call read
    just before input ended was answered "Connection closed" and a ping not at all, and with
    input left open SIGTERM and Ctrl-C were held up for ever by its reader thread."""
    requests = [{"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                 "params": {"name": "hashsum", "arguments": {"text": "x", "algorithm": "md5"}}},
                {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 6, "method": "ping"}]
    out = tmp_path / "wire.jsonl"
    with _serving_into(out, extensions_dir, shared_data_dir) as process:
        _send(process, INITIALIZE, INITIALIZED)
        _wait_for_lines(out, 1)
        _send(process, *requests)
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    answers = {message["id"]: message for message in _wait_for_lines(out, 4)}
    assert set(answers) == {1, 4, 5, 6}
    assert "9dd4e461268c8034f5c8564e155c67a6" in answers[5]["result"]["content"][0]["text"]  # type: ignore[index]

    with _serving_into(tmp_path / "wire2.jsonl", extensions_dir, shared_data_dir) as process:
        _send(process, INITIALIZE)
        _wait_for_lines(tmp_path / "wire2.jsonl", 1)  # serving, its input still open
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0


@pytest.mark.parametrize("stdin", ["a file open for writing", "a pipe's writing end"])
def test_a_server_whose_standard_input_cannot_be_read_ends_saying_so(
    stdin: str, extensions_dir: Path, shared_data_dir: Path, tmp_path: Path
) -> None:
    """``serve 0>file`` or ``serve 0>&1 | ...``: no request can ever come. The reader thread (a file)
    ended without a word, and the event loop (pipes) waited for the pipe to be readable: either
    way the server waited for ever."""
    unread_end, writing_end = os.pipe()
    answers_read, answers_written = os.pipe()
    try:
        with (tmp_path / "file").open("wb") as file:
            process = subprocess.Popen(
                [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions_dir),
                 "--data-dir", str(shared_data_dir)], cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
                stdin=file if stdin == "a file open for writing" else writing_end, stdout=answers_written,
                stderr=subprocess.PIPE)
        os.close(answers_written)
        try:
            _, log = process.communicate(timeout=120)  # a guard: it ends at once, or never
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        assert os.read(answers_read, 100) == b""  # nothing written on the wire
    finally:
        for fd in (unread_end, writing_end, answers_read):
            os.close(fd)
    assert process.returncode == 0, log
    assert b"cannot read from the client (Bad file descriptor); ending the session" in log, log


def test_over_pipes_only_protocol_lines_reach_stdout_and_the_server_ends_at_eof(
    extensions_dir: Path, shared_data_dir: Path
) -> None:
    process = _server(extensions_dir, shared_data_dir, subprocess.PIPE)
    try:
        requests = [{"jsonrpc": "2.0", "id": 0, "method": "tools/list"}, INITIALIZE, INITIALIZED,
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "hashsum", "arguments": {"text": "hello", "algorithm": "md5"}}},
                    {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
                    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "hashsum", "arguments": []}}]
        payload = b"".join(json.dumps(request).encode() + b"\n" for request in requests)
        # The requests arrive at once; the server answers both calls before it sees EOF.
        out, _ = process.communicate(payload, timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    answers = {message["id"]: message for message in map(json.loads, out.splitlines())}
    assert process.returncode == 0
    assert set(answers) == {0, 1, 2, 3, 4}
    # Before the handshake: the SDK said "Invalid request parameters", naming no reason.
    assert answers[0]["error"]["message"] == ("tools/list came before the session was initialized "
                                              "(send initialize, then notifications/initialized)")
    assert "5d41402abc4b2a76b9719d911017c592" in answers[2]["result"]["content"][0]["text"]
    # A call the protocol refuses says which field is wrong (the SDK said "Invalid request parameters").
    assert answers[4]["error"]["message"] == (
        "Invalid tools/call parameters: arguments: Input should be a valid dictionary")


def test_a_client_that_stops_reading_ends_the_session_quietly(extensions_dir: Path, shared_data_dir: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions_dir), "--data-dir",
         str(shared_data_dir)],
        cwd=REPO_ROOT, env=patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)}),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            process.stdin.flush()
            assert b'"result"' in process.stdout.readline()
            process.stdout.close()  # the client goes away without closing standard input
            try:
                for number in range(2, 5):
                    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/list"}).encode()
                                        + b"\n")
                    process.stdin.flush()
            except BrokenPipeError:  # the server ended (as it should) before the last of these reached it
                with contextlib.suppress(BrokenPipeError):
                    process.stdin.close()  # what could not be written is dropped with it
            assert process.wait(timeout=30) == 0
            stderr = process.stderr.read().decode()
        finally:
            if process.poll() is None:
                process.kill()
    assert "Traceback" not in stderr
    assert "closed its end of standard output" in stderr


THREAD_STREAMS_SCRIPT = """
import sys

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage

from toolbay.protocol.stdio import thread_streams


async def main() -> None:
    async with thread_streams(max_line_bytes=1000) as (incoming, outgoing):
        async for item in incoming:
            message = getattr(item, "message", None)
            print(type(item).__name__, getattr(message, "method", ""), file=sys.stderr)
            if isinstance(message, types.JSONRPCRequest):  # answered, as a server would
                await outgoing.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result={})))
        outgoing.close()


anyio.run(main)
"""


def test_with_stdout_a_file_an_overlong_line_is_refused_and_the_next_message_still_arrives(tmp_path: Path) -> None:
    """The thread transport (output no pipe of its own) buffered a line without bound, copying
    it whole at every read."""
    out = tmp_path / "wire.jsonl"
    ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
    with out.open("wb") as sink:
        done = subprocess.run([sys.executable, "-c", THREAD_STREAMS_SCRIPT],
                              input=b"x" * 5000 + b"\n" + json.dumps(ping).encode() + b"\n", stdout=sink,
                              stderr=subprocess.PIPE, cwd=REPO_ROOT, timeout=60, check=False,
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert done.returncode == 0, done.stderr
    refusal, answer = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert refusal["id"] is None and "longer than 1000 bytes" in refusal["error"]["message"]
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": {}}
    assert done.stderr.decode().splitlines()[-1] == "SessionMessage ping"
