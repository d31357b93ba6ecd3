"""A client's answer to a sampling request that is no valid JSON-RPC response, over streamable
HTTP and SSE: the agent tool's call ends at once, saying why, as on stdio.

An outside check answered an agent tool's ``sampling/createMessage`` with ``"result": null``
(or a text holding a lone surrogate): on stdio the call ended at once with ``sampling_failed``,
over HTTP and SSE the answer's POST was refused (400, with a null id) and the call waited to
the role's time limit (minutes by default). The clients here speak raw HTTP, as no SDK client
sends such an answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import httpx2
import pytest

from tests.agents.conftest import WAIT_S, served
from toolbay.config import Settings
from toolbay.protocol.transports import serving_http

pytestmark = pytest.mark.anyio

VERSION = "2025-11-25"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {"sampling": {"tools": {}}},
    "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
# The counter role (tests/agents/conftest.py) may run for 600 s; the sync budget keeps the call
# from becoming a job on a busy machine, so that its answer is the tool's result.
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "agent_counter", "arguments": {"task": "count", "unit": "words"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _null_result(request_id: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": None}).encode()


def _lone_surrogate(request_id: Any) -> bytes:
    return (b'{"jsonrpc": "2.0", "id": %s, "result": {"role": "assistant", "model": "m", '
            b'"content": {"type": "text", "text": "cut \\ud83d"}}}' % json.dumps(request_id).encode())


def _neither(request_id: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id}).encode()


ANSWERS = {"a result that is null": (_null_result, "its result is not what JSON-RPC allows"),
           "a lone surrogate": (_lone_surrogate, "lone UTF-16 surrogate"),
           "neither a result nor an error": (_neither, "it holds neither a result nor an error")}


async def _events(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """The JSON-RPC messages of an SSE stream's lines."""
    async for line in lines:
        if line.startswith("data:") and line[5:].strip().startswith("{"):
            yield json.loads(line[5:])


async def _the_calls_result(messages: AsyncIterator[dict[str, Any]],
                            answer: Callable[[Any], Awaitable[httpx2.Response]]) -> dict[str, Any]:
    """Answers the sampling requests among ``messages`` with ``answer(request_id)``; the result
    of ``CALL``."""
    async for message in messages:
        if message.get("method") == "sampling/createMessage":
            answered = await answer(message["id"])
            assert answered.status_code == 202, answered.text  # as any response is taken
        elif message.get("id") == CALL["id"]:
            return message["result"]  # type: ignore[no-any-return]
    raise AssertionError("the stream ended before the call's answer")


@pytest.fixture
async def base_url(make_settings: Callable[..., Settings]) -> AsyncIterator[str]:
    settings = make_settings("[jobs]\nsync_budget_s = 300\n", port=0)
    async with served(settings) as app, serving_http(app) as url:
        yield url


def _said(result: dict[str, Any]) -> tuple[str, str]:
    structured = result["structuredContent"]
    return structured["stop_reason"], json.dumps(result)


@pytest.mark.parametrize("answer", list(ANSWERS))
async def test_over_streamable_http(base_url: str, answer: str) -> None:
    make, reason = ANSWERS[answer]
    async with httpx2.AsyncClient(timeout=WAIT_S) as http:
        with anyio.fail_after(WAIT_S):  # the role's limit is 600 s
            opened = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=HEADERS)
            headers = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": VERSION}
            await http.post(f"{base_url}/mcp", json=INITIALIZED, headers=headers)
            async with http.stream("POST", f"{base_url}/mcp", json=CALL, headers=headers) as response:
                result = await _the_calls_result(_events(response.aiter_lines()), lambda request_id: http.post(
                    f"{base_url}/mcp", content=make(request_id), headers=headers))
    stop_reason, said = _said(result)
    assert stop_reason == "sampling_failed", said
    assert "no valid JSON-RPC response" in said and reason in said


@pytest.mark.parametrize("answer", list(ANSWERS))
async def test_over_sse(base_url: str, answer: str) -> None:
    make, reason = ANSWERS[answer]
    async with httpx2.AsyncClient(timeout=WAIT_S) as http:
        with anyio.fail_after(WAIT_S):  # the role's limit is 600 s
            async with http.stream("GET", f"{base_url}/sse") as stream:
                lines = stream.aiter_lines()
                endpoint = None
                async for line in lines:
                    if line.startswith("data:") and endpoint is None:
                        endpoint = base_url + line[5:].strip()
                        break
                assert endpoint is not None
                await http.post(endpoint, json=INITIALIZE, headers=HEADERS)
                await http.post(endpoint, json=INITIALIZED, headers=HEADERS)
                await http.post(endpoint, json=CALL, headers=HEADERS)
                result = await _the_calls_result(_events(lines), lambda request_id: http.post(
                    endpoint, content=make(request_id), headers=HEADERS))
    stop_reason, said = _said(result)
    assert stop_reason == "sampling_failed", said
    assert "no valid JSON-RPC response" in said and reason in said
