"""Streamable HTTP answers quick requests with one JSON body and keeps the SSE stream for
requests that may need it (a progress token, a tool that is not quick, a big body)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client

from toolbay.app import Toolbay
from toolbay.protocol.transports import serving_http

pytestmark = pytest.mark.anyio

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2025-06-18"}


@pytest.fixture
async def session(toolbay: Toolbay) -> AsyncIterator[tuple[httpx2.AsyncClient, str, dict[str, str]]]:
    toolbay.settings.port = 0
    async with serving_http(toolbay) as url, httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(f"{url}/mcp", headers=HEADERS, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "plain-json-test", "version": "1"}}})
        headers = {**HEADERS, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        await http.post(f"{url}/mcp", headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield http, f"{url}/mcp", headers


def answer(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer from either kind of body."""
    if response.headers["content-type"].startswith("application/json"):
        return json.loads(response.content)  # type: ignore[no-any-return]
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    answers = [json.loads(item) for item in data if item and "id" in json.loads(item)]
    return answers[-1]  # type: ignore[no-any-return]


def call(number: int, tool: str, arguments: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, **params}}


async def test_a_quick_call_and_tools_list_are_answered_with_one_json_body(
    session: tuple[httpx2.AsyncClient, str, dict[str, str]],
) -> None:
    http, url, headers = session
    with anyio.fail_after(30):
        first = await http.post(url, headers=headers, json=call(1, "hashsum", {"text": "abc"}))
        second = await http.post(url, headers=headers, json=call(2, "hashsum", {"text": "abc"}))
        listed = await http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    # The first call loads the module on a worker (a stream); from then on the tool is quick.
    assert second.headers["content-type"] == "application/json"
    assert listed.headers["content-type"] == "application/json"
    assert answer(first)["result"]["content"] == answer(second)["result"]["content"]
    assert "ba7816bf" in answer(second)["result"]["content"][0]["text"]
    assert "hashsum" in {tool["name"] for tool in answer(listed)["result"]["tools"]}


async def test_a_call_with_a_progress_token_keeps_the_stream(
    session: tuple[httpx2.AsyncClient, str, dict[str, str]],
) -> None:
    http, url, headers = session
    with anyio.fail_after(30):
        await http.post(url, headers=headers, json=call(1, "hashsum", {"text": "abc"}))
        streamed = await http.post(url, headers=headers, json=call(2, "hashsum", {"text": "abc"},
                                                                   _meta={"progressToken": "p1"}))
    assert streamed.headers["content-type"].startswith("text/event-stream")
    assert "ba7816bf" in answer(streamed)["result"]["content"][0]["text"]


async def test_a_big_request_is_read_and_answered_with_one_json_body(
    session: tuple[httpx2.AsyncClient, str, dict[str, str]],
) -> None:
    # A call sending a large document is as likely to be answered with one, which the SDK's
    # client refused as an SSE event past 1 MiB (tests/protocol/test_large_answers.py).
    http, url, headers = session
    text = "x" * 3_000_000
    with anyio.fail_after(30):
        await http.post(url, headers=headers, json=call(1, "hashsum", {"text": "abc"}))
        big = await http.post(url, headers=headers, json=call(2, "hashsum", {"stdin": text}))
    assert big.headers["content-type"].startswith("application/json")
    assert answer(big)["result"]["isError"] is False


async def test_the_sdk_client_reads_plain_json_answers(toolbay: Toolbay) -> None:
    # Progress and approval after a plain-JSON initialize are covered over HTTP in
    # tests/jobs_e2e and tests/chain_e2e: the session's own tasks must keep streaming.
    toolbay.settings.port = 0
    async with serving_http(toolbay) as url:
        with anyio.fail_after(30):
            async with Client(f"{url}/mcp", mode="legacy") as client:
                results = [await client.call_tool("hashsum", {"text": "abc"}) for _ in range(3)]
                listed = await client.list_tools()
    assert all(not result.is_error and "ba7816bf" in result.content[0].text for result in results)  # type: ignore[union-attr]
    assert "hashsum" in {tool.name for tool in listed.tools}


async def test_a_tools_list_answered_lets_a_first_starts_compiled_code_be_cached_and_a_call_does_not(
    session: tuple[httpx2.AsyncClient, str, dict[str, str]], toolbay: Toolbay, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``serve`` holds the baseline code's cache write until a listing has been answered
    (``Toolbay.listing_answered``), over HTTP as over stdio."""
    http, url, headers = session
    released = anyio.Event()
    monkeypatch.setattr(toolbay.keeper.runtime, "release_background_work", released.set)
    with anyio.fail_after(30):
        await http.post(url, headers=headers, json=call(1, "hashsum", {"text": "abc"}))
        assert not released.is_set()
        listed = await http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert "hashsum" in {tool["name"] for tool in answer(listed)["result"]["tools"]}
        await released.wait()
