"""A watched folder replaced while serving: renamed over by a new one (a deploy's ``mv ext.new
ext``), or deleted and made again at once (``rm -rf ext && cp -r snap ext``).

The OS watch follows the folder it was given, not its path: it went on watching the old folder
(renamed away, or deleted), the new one's tools were never listed, nothing was logged, and hot
reload had stopped for good.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client

from tests.reload.conftest import GREET_V1, HASHSUM, TEXTKIT, WAIT_S, ListChanged, drop
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio


def _role(name: str) -> str:
    return f"---\nname: {name}\ndescription: Role {name}.\ntools: [hashsum]\n---\nYou hash.\n"


async def _tools(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def _prompts(client: Client) -> set[str]:
    return {prompt.name for prompt in (await client.list_prompts()).prompts}


async def _until_listed(client: Client, changed: ListChanged, wanted: set[str], *, prompts: bool = False) -> set[str]:
    """The listing once it holds ``wanted``, read at each notification (a change may come in
    more than one)."""
    while True:
        seen = changed.count
        names = await (_prompts(client) if prompts else _tools(client))
        if wanted <= names:
            return names
        await changed.after(seen)


async def test_a_tool_folder_renamed_over_by_a_new_one_is_read_and_watched_in_its_place(
        reload_app: Toolbay, reload_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolbay.watcher")
    changed = ListChanged()
    with anyio.fail_after(WAIT_S * 4):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            drop(HASHSUM, reload_dir)
            await _until_listed(client, changed, {"hashsum"})
            new, old = tmp_path / "extensions.new", tmp_path / "extensions.old"
            shutil.copytree(reload_dir, new)
            drop(HASHSUM, new, "viaswap.wasm")
            os.rename(reload_dir, old)
            os.rename(new, reload_dir)
            swapped = await _until_listed(client, changed, {"viaswap"})
            drop(HASHSUM, old, "intoold.wasm")  # the folder moved away is served no more
            drop(HASHSUM, reload_dir, "afterswap.wasm")
            after = await _until_listed(client, changed, {"afterswap"})
            result = await client.call_tool("afterswap", {"text": "abc", "algorithm": "md5"})
    assert {"hashsum", "viaswap"} <= swapped
    assert "intoold" not in after
    assert "900150983cd24fb0d6963f7d28e17f72" in "".join(getattr(b, "text", "") for b in result.content)
    said = [record.getMessage() for record in caplog.records]
    assert any(f"folder {reload_dir} was replaced" in line for line in said), said


async def test_a_tool_folder_deleted_and_made_again_at_once_stays_watched(
        reload_app: Toolbay, reload_dir: Path, tmp_path: Path) -> None:
    """The new folder may be given the old one's inode number, so looks the same as it."""
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    drop(HASHSUM, snapshot)
    drop(TEXTKIT, snapshot)
    changed = ListChanged()
    with anyio.fail_after(WAIT_S * 4):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            drop(HASHSUM, reload_dir)
            await _until_listed(client, changed, {"hashsum"})
            shutil.rmtree(reload_dir)
            shutil.copytree(snapshot, reload_dir)
            await _until_listed(client, changed, {"hashsum", "textkit_count"})
            drop(GREET_V1, reload_dir, "greet.wasm")  # went unnoticed: the watch was on the deleted folder
            names = await _until_listed(client, changed, {"greet"})
    assert {"hashsum", "textkit_count", "greet"} <= names


async def test_an_agents_folder_renamed_over_by_a_new_one_is_read_and_watched_in_its_place(
        reload_dir: Path, tmp_path: Path, shared_data_dir: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "first.md").write_text(_role("first"), encoding="utf-8")
    drop(HASHSUM, reload_dir)
    settings = load_settings(None, extensions=[reload_dir], agents=[agents], data_dir=shared_data_dir)
    changed = ListChanged(types.PromptListChangedNotification)
    with anyio.fail_after(WAIT_S * 4):
        async with assemble(settings) as app, Client(
                build_mcp_server(app, "memory"), mode="legacy", message_handler=changed) as client:
            (agents / "second.md").write_text(_role("second"), encoding="utf-8")
            await _until_listed(client, changed, {"second"}, prompts=True)  # the folder is watched
            new = tmp_path / "agents.new"
            shutil.copytree(agents, new)
            (new / "viaswap.md").write_text(_role("viaswap"), encoding="utf-8")
            os.rename(agents, tmp_path / "agents.old")
            os.rename(new, agents)
            swapped = await _until_listed(client, changed, {"viaswap"}, prompts=True)
            (agents / "later.md").write_text(_role("later"), encoding="utf-8")
            later = await _until_listed(client, changed, {"later"}, prompts=True)
            tools = await _tools(client)
    assert {"first", "second", "viaswap"} <= swapped
    assert {"first", "second", "viaswap", "later"} <= later
    assert {"agent_viaswap", "agent_later"} <= tools
