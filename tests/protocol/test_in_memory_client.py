"""The SDK's own client, in process, in both protocol eras, against the bundled tools."""

from __future__ import annotations

import hashlib
from typing import Any

import anyio
import pytest
from mcp import Client

from toolbay.app import Toolbay
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def _all_tools(client: Client) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


@pytest.mark.parametrize("mode", MODES)
async def test_every_leaf_subcommand_of_the_bundled_tools_is_listed(toolbay: Toolbay, mode: str) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode=mode) as client:
            names = {tool.name for tool in await _all_tools(client)}
    assert "hashsum" in names
    assert {"textkit_count", "textkit_grep"} <= names
    assert any(name.startswith("jsonkit_") for name in names)
    assert "refresh_tools" in names


async def test_listed_tools_carry_schemas_and_tier_hints(toolbay: Toolbay) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            tools = {tool.name: tool for tool in await _all_tools(client)}
    hashsum = tools["hashsum"]
    assert hashsum.input_schema["type"] == "object"
    assert "algorithm" in hashsum.input_schema["properties"]
    algorithm = hashsum.input_schema["properties"]["algorithm"]
    assert algorithm["default"] == "sha256" and "md5" in algorithm["description"]
    assert "help" not in hashsum.input_schema["properties"]
    count = tools["textkit_count"]
    assert count.annotations is not None and count.annotations.read_only_hint is True


@pytest.mark.parametrize("mode", MODES)
async def test_calling_a_tool_runs_the_program_and_returns_its_output(toolbay: Toolbay, mode: str) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode=mode) as client:
            result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "sha256"})
    assert result.is_error is False
    assert hashlib.sha256(b"abc").hexdigest() in _text(result)


async def test_a_program_that_fails_gives_an_error_result_with_its_stderr(toolbay: Toolbay) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            result = await client.call_tool("textkit_count", {"file": ["does-not-exist.txt"]})
    assert result.is_error is True
    assert "does-not-exist.txt" in _text(result)


async def test_an_unknown_tool_is_a_readable_error_not_a_crash(toolbay: Toolbay) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            result = await client.call_tool("no_such_tool", {})
            misspelt = await client.call_tool("hashsun", {"text": "x"})
            shortened = await client.call_tool("grep", {"pattern": "x"})
            still_alive = await client.call_tool("hashsum", {"text": "x"})
    assert result.is_error is True
    assert "no tool named 'no_such_tool'" in _text(result)
    # The closest names of those the caller may use, as `toolbay call` names them.
    assert "no tool named 'hashsun'" in _text(misspelt) and "The closest names: hashsum." in _text(misspelt)
    assert "The closest names: textkit_grep." in _text(shortened), _text(shortened)
    assert still_alive.is_error is False


async def test_a_tool_printing_json_returns_structured_content(toolbay: Toolbay) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            result = await client.call_tool("jsonkit_get", {"path": "a.b", "input": '{"a": {"b": [1, 2]}}'})
    assert result.is_error is False, _text(result)
    assert result.structured_content == {"result": [1, 2]}


async def test_a_small_page_size_still_lists_every_tool_once(toolbay: Toolbay) -> None:
    toolbay.settings.http.page_size = 2
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            first = await client.list_tools()
            tools = await _all_tools(client)
    assert len(first.tools) == 2 and first.next_cursor is not None
    names = [tool.name for tool in tools]
    assert len(names) == len(set(names)) == len(toolbay.catalog.current)


async def test_a_forged_cursor_is_a_protocol_error(toolbay: Toolbay) -> None:
    from mcp.shared.exceptions import MCPError

    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            with pytest.raises(MCPError) as raised:
                await client.list_tools(cursor="not-a-cursor")
    assert raised.value.error.code == -32602


async def test_the_server_advertises_tool_list_changes(toolbay: Toolbay) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            capabilities = client.server_capabilities
    assert capabilities.tools is not None and capabilities.tools.list_changed is True


async def test_a_file_tool_without_a_workspace_tells_the_model_what_to_do_instead(settings: Any) -> None:
    from toolbay.assembly import assemble

    settings.workspace = None
    async with assemble(settings, watch=False) as app:
        with anyio.fail_after(30):
            async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:
                result = await client.call_tool("hashsum", {"file": "notes.txt"})
                piped = await client.call_tool("hashsum", {"stdin": "alpha\n"})
                not_json = await client.call_tool("jsonkit_validate", {"stdin": "{not json"})
                both = await client.call_tool("jsonkit_merge", {"stdin": "{}", "patch_file": "patch.json"})
                # The caller's own words echoed in an error are not the tool's words about a file.
                echoed_key = await client.call_tool("jsonkit_get", {"stdin": '{"a": 1}', "path": "no such file"})
                echoed_pattern = await client.call_tool("textkit_grep", {"stdin": "x", "pattern": "cannot open ("})
    assert result.is_error is True
    assert "given no workspace folder" in _text(result) and "'stdin'" in _text(result)
    assert hashlib.sha256(b"alpha\n").hexdigest() in _text(piped)
    # An error that is not about a file gets no hint about files.
    assert not_json.is_error is True and "workspace" not in _text(not_json)
    assert echoed_key.is_error is True and '"no such file"' in _text(echoed_key), _text(echoed_key)
    assert "workspace" not in _text(echoed_key)
    assert echoed_pattern.is_error is True and "workspace" not in _text(echoed_pattern), _text(echoed_pattern)
    # A call whose stdin holds the document already is not told to put the file there too.
    assert both.is_error is True and "cannot see any file" in _text(both)
    assert "pass the file's content" not in _text(both)


async def test_a_read_tool_reads_workspace_files_by_relative_path(toolbay: Toolbay) -> None:
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            result = await client.call_tool("hashsum", {"file": "notes.txt"})
    assert result.is_error is False, _text(result)
    assert hashlib.sha256(b"alpha\nbeta\ngamma\n").hexdigest() in _text(result)


async def test_every_bundled_language_reads_a_relative_path_in_a_subfolder_of_the_workspace(
        settings: Any) -> None:
    # textkit is Rust, jsonkit Go, hashsum C: each resolves a relative path in its own way.
    from toolbay.assembly import assemble

    folder = settings.workspace / "data"
    folder.mkdir()
    (folder / "doc.json").write_text('{"name": "toolbay", "tools": 3}\n', encoding="utf-8")
    async with assemble(settings, watch=False) as app:
        with anyio.fail_after(60):
            async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:
                counted = await client.call_tool("textkit_count", {"lines": True, "file": ["data/doc.json"]})
                name = await client.call_tool("jsonkit_get", {"path": "name", "file": "data/doc.json"})
                digest = await client.call_tool("hashsum", {"file": "data/doc.json"})
    assert counted.is_error is False and _text(counted).split()[0] == "1"
    assert name.is_error is False and "toolbay" in _text(name)
    assert digest.is_error is False
    assert hashlib.sha256((folder / "doc.json").read_bytes()).hexdigest() in _text(digest)

async def test_a_nul_character_in_an_argument_is_refused_naming_the_field_and_nothing_runs(toolbay: Toolbay) -> None:
    # textkit_grep's pattern becomes an argument: "a\0b" would reach the program as "a".
    with anyio.fail_after(30):
        async with Client(build_mcp_server(toolbay, "memory"), mode="legacy") as client:
            refused = await client.call_tool("textkit_grep", {"pattern": "a\u0000b", "stdin": "a\nab\n"})
            in_stdin = await client.call_tool("textkit_grep", {"pattern": "b", "stdin": "a\u0000b\nc\n"})
    assert refused.is_error is True
    assert "$.pattern: contains a NUL character" in _text(refused)
    assert in_stdin.is_error is False  # standard input is data to the program, where NUL is allowed
