"""Streamable HTTP at /mcp and legacy SSE at /sse, served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.sse import sse_client

from toolbay.app import Toolbay
from toolbay.protocol.transports import serving_http

pytestmark = pytest.mark.anyio


@pytest.fixture
async def base_url(toolbay: Toolbay) -> AsyncIterator[str]:
    toolbay.settings.port = 0
    async with serving_http(toolbay) as url:
        yield url


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_streamable_http_lists_and_calls_tools(base_url: str, mode: str) -> None:
    with anyio.fail_after(30):
        async with Client(f"{base_url}/mcp", mode=mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "sha1"})
    assert "textkit_count" in names
    assert hashlib.sha1(b"abc").hexdigest() in result.content[0].text


async def test_sse_lists_and_calls_tools(base_url: str) -> None:
    with anyio.fail_after(30):
        async with Client(sse_client(f"{base_url}/sse"), mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("hashsum", {"text": "abc"})
            unknown = await client.call_tool("nope", {})
    assert "hashsum" in names
    assert hashlib.sha256(b"abc").hexdigest() in result.content[0].text
    assert unknown.is_error is True


async def test_health_endpoint_reports_the_tool_count(base_url: str, toolbay: Toolbay) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.get(f"{base_url}/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "tools": len(toolbay.catalog.current)}
