"""A file whose name is not UTF-8 (bytes Python keeps as lone surrogates) dropped into a watched
folder: watchfiles gives up on it, the skipped ``.py`` is named in answers that JSON cannot
write as such. The stdio server died of both (its watch task, then its writer); it now goes on
watching and answering, and says why the file is not served."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO_ROOT
from tests.reload.conftest import ListChanged, text_of

pytestmark = pytest.mark.anyio

_MODULE = '''TOOL_TIER = "read"


def get_tool_schemas():
    return [{"name": "{name}", "description": "d", "input_schema": {"type": "object"}}]


def {name}():
    return "{name} ok"
'''


def _module(folder: Path, name: bytes, tool: str) -> None:
    with open(os.fsencode(folder) + b"/" + name, "w") as handle:
        handle.write(_MODULE.replace("{name}", tool))


async def test_files_named_in_other_bytes_than_utf8_leave_the_server_watching_and_answering(
    reload_dir: Path, tmp_path: Path,
) -> None:
    _module(reload_dir, b"good.py", "good")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(reload_dir), "--data-dir", str(tmp_path / "data")],
        cwd=str(REPO_ROOT),
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    changed = ListChanged()
    with anyio.fail_after(120):
        async with Client(params, mode="legacy", message_handler=changed) as client:
            await client.list_tools()
            (reload_dir / os.fsdecode(b"notes\xff.txt")).write_text("not a tool")
            _module(reload_dir, b"bad\xff.py", "bad")
            seen = changed.count
            _module(reload_dir, b"later.py", "later")  # heard by the watch begun again
            await changed.after(seen)
            names = {tool.name for tool in (await client.list_tools()).tools}
            later = await client.call_tool("later", {})
            refreshed = text_of(await client.call_tool("refresh_tools", {}))
    assert {"good", "later"} <= names and "bad" not in names
    assert text_of(later) == "later ok"
    assert "bad\ufffd.py: its path is not valid UTF-8" in refreshed
