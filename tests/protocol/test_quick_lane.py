"""The quick lane answers exactly what the SDK's path answers, and takes only what it may.

The real app (bundled tools), the real SDK server and the real stdio transport over pipes: the
same requests are sent once with the lane and once without it, and the answers compared.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from toolbay.app import Toolbay
from toolbay.config import Settings, load_settings
from toolbay.protocol.quick_lane import QuickLane, stdio_server
from toolbay.protocol.stdio import loop_streams
from toolbay.wasm import quick

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _runs_count_as_quick_however_busy_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which calls the lane takes depends on the tool being judged quick, and on a busy machine
    a small run's processor time can pass the limit twice in a row (the judging is tested in
    tests/wasm/test_quick_runs.py). Here every run counts as quick, so the counts are exact."""
    monkeypatch.setattr(quick, "QUICK_CPU_S", 60.0)
    monkeypatch.setattr(quick, "QUICK_OWN_S", 60.0)


@pytest.fixture
def settings(extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> Settings:
    """The longest quick budget a server takes (1 s): a run past the default 20 ms is stopped and
    its tool sent to workers, which on a machine running two test suites at once took two of the
    six calls the lane counts away from it (a run's processor time there is now and then many
    times its usual)."""
    return load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                         sandbox={"quick_budget_ms": 1000.0})

LEGACY = "2025-06-18"


def _call(number: int, name: str, arguments: Any, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, **extra}}


# Each a request a client may send, with what it shows: answered (or refused) the same either way.
REQUESTS: list[dict[str, Any]] = [
    _call(10, "hashsum", {"stdin": "hello", "algorithm": "md5"}),           # a result
    _call(11, "textkit_count", {"stdin": "a b\nc\n"}),                       # a result from another tool
    _call(12, "hashsum", {"stdin": "x", "algorithm": "nope"}),              # refused by validation (a choice)
    _call(13, "textkit_count", {"stdin": 42}),                               # refused by validation (a type)
    _call(14, "no_such_tool", {}),                                           # an unknown tool
    _call(15, "jsonkit_fmt", {"stdin": "{not json"}),                        # the tool fails (exit status)
    _call(16, "hashsum", "not an object"),                                   # malformed params: the SDK's error
    _call(17, "hashsum", {"stdin": "p"}, _meta={"progressToken": "t-17"}),  # progress asked for: the SDK's way
    _call(18, "hashsum", {"stdin": "m"}, _meta={"client/trace": "x"}),      # other _meta: still quick
]
TAKEN_BY_THE_LANE = {10, 11, 12, 13, 15, 18}
# A tool's module is loaded by its first call (on a worker, the SDK's way): the lane takes the
# calls after that.
WARM_UP = [_call(1, "hashsum", {"stdin": ""}), _call(2, "textkit_count", {"stdin": ""}),
           _call(3, "jsonkit_fmt", {"stdin": "{}"})]


class Wire:
    """The client's ends of the two pipes."""

    def __init__(self) -> None:
        self.server_in, self.client_out = os.pipe()
        self.client_in, self.server_out = os.pipe()
        self.pending = b""

    def send(self, *messages: dict[str, Any]) -> None:
        os.write(self.client_out, b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    async def answers(self, ids: set[int]) -> dict[int, dict[str, Any]]:
        """Reads until every id in ``ids`` has its answer (notifications are skipped)."""
        found: dict[int, dict[str, Any]] = {}
        while not ids <= found.keys():
            while b"\n" not in self.pending:
                chunk = await anyio.to_thread.run_sync(os.read, self.client_in, 65536)
                assert chunk, "the server closed its output"
                self.pending += chunk
            line, _, self.pending = self.pending.partition(b"\n")
            message = json.loads(line)
            if "id" in message:
                found[message["id"]] = message
        return found

    def close(self) -> None:
        for fd in (self.server_in, self.client_out, self.client_in, self.server_out):
            with contextlib.suppress(OSError):
                os.close(fd)


@asynccontextmanager
async def serving(app: Toolbay, with_lane: bool, *,
                  handshake_ended: bool = True) -> AsyncIterator[tuple[Wire, QuickLane | None]]:
    """A stdio server of ``app`` over pipes, initialised; unless ``handshake_ended`` is False,
    told ``notifications/initialized`` and its tools warmed up."""
    wire = Wire()
    server, lane = stdio_server(app, with_lane=with_lane, traced=lambda: False)
    try:
        async with anyio.create_task_group() as group:
            async def serve() -> None:
                async with loop_streams(wire.server_in, wire.server_out, lane=lane) as (incoming, outgoing):
                    await server.run(incoming, outgoing, server.create_initialization_options())

            group.start_soon(serve)
            wire.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": LEGACY, "capabilities": {},
                                  "clientInfo": {"name": "lane-test", "version": "1"}}})
            await wire.answers({0})
            if handshake_ended:
                await _end_handshake(wire, lane)
            yield wire, lane
            os.close(wire.client_out)  # end of input: the server ends
            wire.client_out = -1
    finally:
        wire.close()


async def _end_handshake(wire: Wire, lane: QuickLane | None) -> None:
    wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if lane is not None:
        with anyio.fail_after(10):  # the handshake reaches the lane through the SDK's handler
            while lane.session is None:
                await anyio.sleep(0.01)
    for request in WARM_UP:
        wire.send(request)
        await wire.answers({request["id"]})
    if lane is not None:
        lane.calls.taken = 0


def _comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without what differs between two runs of the same call (its timings)."""
    result = answer.get("result")
    if isinstance(result, dict) and isinstance(result.get("_meta"), dict):
        meta = {k: v for k, v in result["_meta"].items() if "duration" not in k}
        answer = {**answer, "result": {**result, "_meta": meta}}
    return answer


async def _answers(app: Toolbay, with_lane: bool) -> tuple[dict[int, dict[str, Any]], int]:
    with anyio.fail_after(60):
        async with serving(app, with_lane) as (wire, lane):
            found: dict[int, dict[str, Any]] = {}
            for request in REQUESTS:  # one at a time: each answer on its own
                wire.send(request)
                found.update(await wire.answers({request["id"]}))
            return found, lane.taken if lane is not None else 0


async def test_the_lane_answers_as_the_sdk_does_and_takes_only_plain_quick_calls(toolbay: Toolbay) -> None:
    through_sdk, _ = await _answers(toolbay, with_lane=False)
    through_lane, taken = await _answers(toolbay, with_lane=True)
    assert taken == len(TAKEN_BY_THE_LANE)
    for request in REQUESTS:
        number = request["id"]
        assert _comparable(through_lane[number]) == _comparable(through_sdk[number]), request
    # The answers are what a client expects, not merely equal.
    assert through_lane[10]["result"]["content"][0]["text"].startswith("5d41402abc4b2a76b9719d911017c592")
    assert through_lane[10]["result"]["isError"] is False
    assert through_lane[12]["result"]["isError"] is True and "nope" in json.dumps(through_lane[12])
    assert through_lane[15]["result"]["isError"] is True
    assert "error" in through_lane[16]


async def test_pipelined_calls_in_the_lane_are_each_answered_once(toolbay: Toolbay) -> None:
    texts = [f"line {n}" for n in range(40)]
    with anyio.fail_after(60):
        async with serving(toolbay, with_lane=True) as (wire, lane):
            wire.send(*(_call(100 + n, "textkit_count", {"stdin": text}) for n, text in enumerate(texts)))
            found = await wire.answers({100 + n for n in range(len(texts))})
            assert lane is not None and lane.taken == len(texts)
    for n, text in enumerate(texts):
        result = found[100 + n]["result"]
        assert result["isError"] is False
        assert str(len(text.split())) in result["content"][0]["text"]


async def test_a_call_before_the_handshake_has_ended_is_left_to_the_sdk(toolbay: Toolbay) -> None:
    with anyio.fail_after(60):
        async with serving(toolbay, with_lane=True, handshake_ended=False) as (wire, lane):
            wire.send(_call(5, "hashsum", {"stdin": "early"}))  # no notifications/initialized yet
            found = await wire.answers({5})
    assert lane is not None and lane.taken == 0 and lane.session is None
    assert "result" in found[5] or "error" in found[5]
