"""The process boundary: `python -m server serve` over stdio, driven by the SDK's client,
as Claude Code starts it from `.mcp.json`."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO_ROOT, patient_start

pytestmark = pytest.mark.anyio


def _server_params(extensions: Path, data_dir: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", str(data_dir), *extra],
        cwd=str(REPO_ROOT),
        env=patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)}),
    )


async def test_a_stdio_client_lists_and_calls_the_bundled_tools(extensions_dir: Path, shared_data_dir: Path) -> None:
    with anyio.fail_after(60):
        async with Client(_server_params(extensions_dir, shared_data_dir), mode="legacy") as client:
            tools = await client.list_tools()
            result = await client.call_tool("hashsum", {"text": "hello", "algorithm": "md5"})
    assert "hashsum" in {tool.name for tool in tools.tools}
    assert result.is_error is False
    assert hashlib.md5(b"hello").hexdigest() in result.content[0].text


async def test_the_mcp_json_at_the_root_starts_toolbay_over_stdio() -> None:
    config = json.loads((REPO_ROOT / ".mcp.json").read_text())
    entry = config["mcpServers"]["toolbay"]
    params = StdioServerParameters(
        command=sys.executable if entry["command"].startswith("python") else entry["command"],
        args=entry["args"],
        cwd=str(REPO_ROOT),
        env=patient_start({**os.environ, **entry.get("env", {})}),
    )
    with anyio.fail_after(60):
        async with Client(params, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            counted = await client.call_tool("textkit_count", {"lines": True, "file": ["README.md"]})
    assert {"hashsum", "textkit_count"} <= names
    # With no --data-dir, the server keeps its data under $XDG_DATA_HOME/toolbay: during tests
    # the session's temporary home (tests/conftest.py), never the user's.
    data_dir = Path(os.environ["XDG_DATA_HOME"]) / "toolbay"
    assert Path(os.environ["HOME"]).name.startswith("toolbay-tests-home-")
    assert data_dir.is_relative_to(os.environ["HOME"]) and any((data_dir / "modules").iterdir())
    # The project folder is the workspace, so read tools see the project's files.
    readme_lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert counted.is_error is False
    assert counted.content[0].text.split()[0] == str(readme_lines)
