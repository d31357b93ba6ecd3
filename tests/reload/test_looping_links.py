"""A link that loops ("self.wasm -> self.wasm") in a tool folder: reading it raised "Too many
levels of symbolic links" out of the folder's scan, so ``serve`` died at start with a traceback,
and a running server's rescans all failed, its other changes never served. The link is
skipped, said once, and the rest of the folder is served and reloaded."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import FIXTURE_WASM, REPO_ROOT
from tests.reload.conftest import ListChanged

pytestmark = pytest.mark.anyio


async def test_a_looping_link_is_skipped_at_start_and_while_served(reload_dir: Path, tmp_path: Path) -> None:
    shutil.copy(FIXTURE_WASM / "echo.wasm", reload_dir / "echo.wasm")
    (reload_dir / "self.wasm").symlink_to("self.wasm")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(reload_dir), "--data-dir", str(tmp_path / "data")],
        cwd=str(REPO_ROOT),
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    changed = ListChanged()
    with anyio.fail_after(120):
        async with Client(params, mode="legacy", message_handler=changed) as client:
            first = {tool.name for tool in (await client.list_tools()).tools}
            (reload_dir / "loop").symlink_to("loop")
            seen = changed.count
            shutil.copy(FIXTURE_WASM / "echo.wasm", reload_dir / "later.wasm")
            await changed.after(seen)
            later = {tool.name for tool in (await client.list_tools()).tools}
    assert "echo" in first and "self" not in first
    assert "later" in later
