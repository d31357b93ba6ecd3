"""Over stdio, through the real command and the SDK's client: a module that prints, even from
C to file descriptor 1, never reaches the protocol, and one that crashes leaves the server serving."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.chain_e2e.conftest import text_of
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.anyio


async def test_printing_and_crashing_modules_leave_the_stdio_wire_clean(python_dir: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(python_dir), "--data-dir", str(tmp_path / "data")],
        cwd=str(REPO_ROOT), env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    with anyio.fail_after(120):
        async with Client(params, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"greet", "crashy_print", "mathx_add"} <= names
            printed = await client.call_tool("crashy_print", {})
            assert text_of(printed) == "printed and returned"
            crashed = await client.call_tool("crashy_segfault", {})
            assert crashed.is_error and "SIGSEGV" in text_of(crashed)
            again = await client.call_tool("greet", {"name": "wire"})
            assert text_of(again) == "Hello, wire!"
