"""Answers past 1 MiB on the wire reach the SDK's own client over streamable HTTP.

Its client refuses a server-sent event past 1 MiB ("Server-sent event exceeded the 1048576 byte
limit"): a result within the output limit (1 MiB), escaped as JSON (a newline or a quote takes two
bytes), was lost when its call was answered as an SSE stream, and the audit log said "ok". A
call that sends nothing before its answer is answered with one JSON body instead, which the
client reads whole (an outside check)."""

from __future__ import annotations

import shutil
from pathlib import Path

import mcp_types as types
import pytest

from tests.conftest import FIXTURE_WASM
from tests.jobs_e2e.conftest import http_client, http_server
from toolbay.config import load_settings

pytestmark = pytest.mark.anyio

SAYER = '''
TOOL_TIER = "read"


def get_tool_schemas():
    return [{"name": "quoted_say", "description": "Say n quotes.",
             "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]


def quoted_say(n):
    return '"' * n
'''


async def test_a_result_within_the_output_limit_but_past_a_mebibyte_escaped_reaches_the_sdks_client(
        tmp_path: Path) -> None:
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy2(FIXTURE_WASM / "echo.wasm", extensions / "echo.wasm")
    (extensions / "quoted.py").write_text(SAYER, encoding="utf-8")
    settings = load_settings(None, extensions=[extensions], data_dir=tmp_path / "data")
    lines = "a\n" * 500_000  # 1,000,000 bytes: within the output limit; 1.5 MB escaped
    async with http_server(settings) as (url, _), http_client(url) as client:
        echoed = await client.call_tool("echo", {"stdin": lines})  # its first call: not yet known quick
        quoted = await client.call_tool("quoted_say", {"n": 700_000})  # a Python tool: 1.4 MB escaped
    assert echoed.is_error is False
    assert [block.text for block in echoed.content if isinstance(block, types.TextContent)][0] == lines
    assert quoted.is_error is False
    assert [block.text for block in quoted.content if isinstance(block, types.TextContent)] == ['"' * 700_000]


LINGERER = '''
import time

TOOL_TIER = "write"


def get_tool_schemas():
    return [{"name": "linger_on", "description": "Say it has begun, then take a minute.",
             "input_schema": {"type": "object", "properties": {"mark": {"type": "string"}}, "required": ["mark"]}}]


def linger_on(mark):
    open(mark, "w").close()
    time.sleep(60)
    return "done"
'''


@pytest.mark.parametrize("quick_lane", [True, False])
async def test_a_call_answered_in_one_json_body_is_cancelled_when_its_client_goes(tmp_path: Path,
                                                                                    quick_lane: bool) -> None:
    """An SSE answer's stream, closing, cancels its call; one JSON body has no stream, so the
    call ran on to its end (and on as a job) for a client long gone (a re-check). Its
    connection's end cancels it now, as the audit log says: in the quick lane, which runs it in
    the request's own task, and in the SDK, told as the client would tell it."""
    import json

    import anyio
    import httpx2

    extensions = tmp_path / "extensions"
    extensions.mkdir()
    (extensions / "linger.py").write_text(LINGERER, encoding="utf-8")
    audit = tmp_path / "audit.jsonl"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    settings = load_settings(None, extensions=[extensions], data_dir=tmp_path / "data", workspace=workspace,
                             chain={"audit": {"file": str(audit)}}, jobs={"sync_budget_s": 30},
                             quick_lane=quick_lane)
    mark = workspace / "begun"
    async with http_server(settings) as (url, _):
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx2.AsyncClient(timeout=30) as http:
            opened = await http.post(url, headers=headers, json={
                "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"],
                       "mcp-protocol-version": "2025-06-18"}
            await http.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        host, port = url.removeprefix("http://").split("/")[0].split(":")
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                           "params": {"name": "linger_on", "arguments": {"mark": str(mark)}}}).encode()
        head = "".join(f"{name}: {value}\r\n" for name, value in session.items())
        with anyio.fail_after(60):
            async with await anyio.connect_tcp(host, int(port)) as stream:
                await stream.send(f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n{head}"
                                  f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
                while not mark.exists():  # the tool has begun
                    await anyio.sleep(0.05)
            # The connection is closed: the call is cancelled, not left to run its minute.
            while not audit.exists() or '"linger_on"' not in audit.read_text(encoding="utf-8"):
                await anyio.sleep(0.05)
    [record] = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()
                if '"linger_on"' in line]
    assert record["outcome"] == "cancelled", record
