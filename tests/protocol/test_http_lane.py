"""The HTTP quick lane answers exactly what the SDK's path answers, and takes only what it may.

The real app (bundled tools), the real SDK server behind the real HTTP app and uvicorn: the same
requests, headers included, are POSTed once with the lane and once without it, and the answers
(status, media type, body) compared.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest

from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import Settings
from toolbay.protocol.http_lane import HttpQuickLane
from toolbay.protocol.transports import build_http_app, serving_http
from toolbay.wasm import quick

pytestmark = pytest.mark.anyio

LEGACY = "2025-06-18"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": LEGACY}


@pytest.fixture(autouse=True)
def _runs_count_as_quick_however_busy_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in test_quick_lane: every run counts as quick, so which calls the lane takes is exact."""
    monkeypatch.setattr(quick, "QUICK_CPU_S", 60.0)
    monkeypatch.setattr(quick, "QUICK_OWN_S", 60.0)


def tools_call(number: Any, name: str, arguments: Any, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, **extra}}


def _nested(depth: int) -> list[Any]:
    """Arrays ``depth`` deep."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


# (request body, headers to change) pairs: each answered (or refused) the same either way.
REQUESTS: list[tuple[dict[str, Any], dict[str, str]]] = [
    (tools_call(10, "hashsum", {"stdin": "hello", "algorithm": "md5"}), {}),           # a result
    (tools_call(11, "textkit_count", {"stdin": "a b\nc\n"}), {}),                       # another tool
    (tools_call(12, "hashsum", {"stdin": "x", "algorithm": "nope"}), {}),              # refused by validation
    (tools_call(13, "textkit_count", {"stdin": 42}), {}),                               # refused: a type
    (tools_call(14, "no_such_tool", {}), {}),                                           # an unknown tool
    (tools_call(15, "jsonkit_fmt", {"stdin": "{not json"}), {}),                        # the tool fails
    (tools_call(16, "hashsum", "not an object"), {}),                                   # malformed params
    (tools_call(17, "hashsum", {"stdin": "p"}, _meta={"progressToken": "t-17"}), {}),  # progress: a stream
    (tools_call(18, "hashsum", {"stdin": "m"}, _meta={"client/trace": "x"}), {}),      # other _meta: quick
    (tools_call(19, "hashsum", {"stdin": "j"}), {"Accept": "application/json"}),       # JSON alone is enough
    (tools_call(20, "hashsum", {"stdin": "s"}), {"Accept": "text/event-stream"}),      # 406 Not Acceptable
    (tools_call(21, "hashsum", {"stdin": "v"}), {"MCP-Protocol-Version": "2025-03-26"}),  # not the session's
    (tools_call(22, "hashsum", {"stdin": "h"}), {"Host": "evil.example"}),             # DNS rebinding: 421
    (tools_call(23, "hashsum", {"stdin": "o"}), {"Origin": "http://evil.example"}),    # a foreign page: 403
    (tools_call(24, "hashsum", {"stdin": "c"}), {"Content-Type": "text/plain"}),       # 400
    (tools_call(25, "hashsum", {"stdin": "i"}), {"Mcp-Session-Id": "0" * 32}),          # unknown session: 404
    (tools_call(26, "hashsum", {"stdin": "m"}), {"Mcp-Session-Id": ""}),                # missing session id
    (tools_call(None, "hashsum", {"stdin": "n"}), {}),                                  # a null id
    (tools_call(True, "hashsum", {"stdin": "b"}), {}),                                  # a boolean id
    ({**tools_call(29, "hashsum", {"stdin": "r"}), "jsonrpc": "1.0"}, {}),              # not JSON-RPC 2.0
    (tools_call(30, "hashsum", {"stdin": "w"}), {"MCP-Protocol-Version": ""}),           # no version: the default
    (tools_call(31, "hashsum", {"stdin": "\ud800"}), {}),                              # half a UTF-16 pair
    (tools_call(32, "hashsum", {"stdin": "a\udfffb"}), {}),                            # another, inside
    (tools_call(33, "hashsum", {"stdin": "d", "zz": _nested(300)}), {}),               # past pydantic's depth
    (tools_call(34, "hashsum", {"stdin": "e", "zz": _nested(150)}), {}),               # within it: refused
]
TAKEN_BY_THE_LANE = {10, 11, 12, 13, 15, 18, 19, 30, 34}
WARM_UP = [tools_call(1, "hashsum", {"stdin": ""}), tools_call(2, "textkit_count", {"stdin": ""}),
           tools_call(3, "jsonkit_fmt", {"stdin": "{}"})]


@asynccontextmanager
async def session(app: Toolbay, with_lane: bool, base: dict[str, str] | None = None,
                  ) -> AsyncIterator[tuple[httpx2.AsyncClient, str, dict[str, str], HttpQuickLane | None]]:
    """The HTTP app of ``app`` served, one session opened, its handshake ended, tools warmed up.
    A stateless server (``[cluster]``) gives no session id; then none is sent. ``base``: headers
    sent with every request (a bearer token)."""
    app.settings.port = 0
    app.settings.quick_lane = with_lane
    asgi = build_http_app(app)
    lane: HttpQuickLane | None = asgi.state.quick_lane
    async with serving_http(app, asgi) as url, httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(f"{url}/mcp", headers={**HEADERS, **(base or {})}, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": "http-lane-test", "version": "1"}}})
        session_id = opened.headers.get("mcp-session-id")
        headers = {**HEADERS, **(base or {}), **({"Mcp-Session-Id": session_id} if session_id else {})}
        done = await http.post(f"{url}/mcp", headers=headers,
                               json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert done.status_code == 202
        if lane is not None and not lane.stateless:
            with anyio.fail_after(10):  # the handshake reaches the lane through the SDK's handler
                while lane.sessions == 0:
                    await anyio.sleep(0.01)
        for request in WARM_UP:
            await http.post(f"{url}/mcp", headers=headers, json=request)
        if lane is not None:
            lane.calls.taken = 0
        yield http, f"{url}/mcp", headers, lane


def _comparable(response: httpx2.Response) -> tuple[int, str, Any]:
    """Status, media type and body, without what differs between two runs (timings)."""
    media = response.headers.get("content-type", "")
    if not media.startswith(("application/json", "text/event-stream")):
        return response.status_code, media, response.text
    if media.startswith("application/json"):
        body: Any = json.loads(response.content) if response.content else None
    else:
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        body = [json.loads(item) for item in data if item]
    return response.status_code, media, json.loads(json.dumps(body), object_hook=_without_durations)


def _without_durations(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if "duration" not in k}


async def answers(app: Toolbay, with_lane: bool,
                  requests: list[tuple[dict[str, Any], dict[str, str]]] = REQUESTS, base: dict[str, str] | None = None,
                  ) -> tuple[dict[int, tuple[int, str, Any]], int]:
    """Each of ``requests`` answered (status, media type, body), and how many the lane took. A
    header changed to "" is not sent."""
    found: dict[int, tuple[int, str, Any]] = {}
    with anyio.fail_after(90):
        async with session(app, with_lane, base) as (http, url, headers, lane):
            for number, (request, changed) in enumerate(requests):  # one at a time
                sent = {k: v for k, v in {**headers, **changed}.items() if v}
                # As JSON's escapes (half a UTF-16 pair has no UTF-8 for the client to encode).
                body = json.dumps(request).encode()
                found[number] = _comparable(await http.post(url, headers=sent, content=body))
            return found, lane.taken if lane is not None else 0


async def answered_alike(settings: Settings, requests: list[tuple[dict[str, Any], dict[str, str]]] = REQUESTS,
                         base: dict[str, str] | None = None) -> tuple[dict[Any, tuple[int, str, Any]], int]:
    """Each of ``requests`` answered by an app of ``settings`` with the lane and by another
    without it (an app serves HTTP once); asserts that each is answered alike. Returns the
    answers by request id, and how many the lane took."""
    async with assemble(settings) as app:
        through_lane, taken = await answers(app, with_lane=True, requests=requests, base=base)
    async with assemble(settings) as other:
        through_sdk, _ = await answers(other, with_lane=False, requests=requests, base=base)
    for number, (request, changed) in enumerate(requests):
        assert through_lane[number] == through_sdk[number], (request, changed)
    return {request["id"]: through_lane[n] for n, (request, _) in enumerate(requests)}, taken


def assert_answers_a_client_expects(by_id: dict[Any, Any]) -> None:
    """Not merely equal with and without the lane: a result, a tool error, and the SDK's
    refusals of a wrong Accept, Host, Origin and Content-Type."""
    status, media, body = by_id[10]
    assert (status, media) == (200, "application/json")
    assert body["result"]["content"][0]["text"].startswith("5d41402abc4b2a76b9719d911017c592")
    assert by_id[12][2]["result"]["isError"] is True and "nope" in json.dumps(by_id[12][2])
    assert [by_id[n][0] for n in (20, 22, 23, 24)] == [406, 421, 403, 400]


async def test_the_lane_answers_as_the_sdk_does_and_takes_only_plain_quick_calls(settings: Settings) -> None:
    by_id, taken = await answered_alike(settings)
    assert taken == len(TAKEN_BY_THE_LANE)
    assert_answers_a_client_expects(by_id)
    assert by_id[15][2]["result"]["isError"] is True
    assert [by_id[n][0] for n in (25, 26)] == [404, 400]  # an unknown session, an empty session id


async def test_calls_in_flight_together_are_each_answered_once(toolbay: Toolbay) -> None:
    texts = [f"word {n} " * (n % 5 + 1) for n in range(40)]
    async with session(toolbay, with_lane=True) as (http, url, headers, lane):
        answers: dict[int, dict[str, Any]] = {}

        async def one(number: int, text: str) -> None:
            request = tools_call(100 + number, "textkit_count", {"stdin": text})
            response = await http.post(url, headers=headers, json=request)
            answers[number] = json.loads(response.content)

        with anyio.fail_after(90):
            async with anyio.create_task_group() as group:
                for number, text in enumerate(texts):
                    group.start_soon(one, number, text)
        assert lane is not None and lane.taken == len(texts)
    for number, text in enumerate(texts):
        assert answers[number]["id"] == 100 + number
        assert str(len(text.split())) in answers[number]["result"]["content"][0]["text"]


async def test_an_ended_session_leaves_the_lane_and_is_refused(toolbay: Toolbay) -> None:
    async with session(toolbay, with_lane=True) as (http, url, headers, lane):
        assert lane is not None and lane.sessions == 1
        with anyio.fail_after(30):
            ended = await http.delete(url, headers=headers)
            assert ended.status_code == 200
            while lane.sessions:  # the SDK unwinds the session's connection in its own task
                await anyio.sleep(0.01)
            after = await http.post(url, headers=headers, json=tools_call(5, "hashsum", {"stdin": "late"}))
    assert after.status_code == 404
    assert lane.taken == 0
