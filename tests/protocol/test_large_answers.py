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
