"""Search-first disclosure seen by the SDK's own client: what is listed, what search finds,
promotion into the session, and that permission is checked again at the call."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import anyio
import pytest
from mcp import Client

from tests.disclosure.conftest import NOUNS, VERBS, python_module
from tests.reload.conftest import ListChanged
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.protocol.mcp_server import build_mcp_server

# One test process builds and describes the 1,000 generated tools (a session fixture), not each.
pytestmark = pytest.mark.anyio

# Generous: a limit against hanging, not a speed test (the machine may be busy).
WAIT_S = 180


@asynccontextmanager
async def serving(folders: tuple[Path, Path], data_dir: Path, **disclosure: Any) -> AsyncIterator[Toolbay]:
    connected, catalog = folders
    chain = disclosure.pop("chain", {})
    settings = load_settings(None, extensions=[connected, catalog], data_dir=data_dir)
    settings = settings.model_copy(update={
        "disclosure": settings.disclosure.model_copy(update={"mode": "search-first", "catalog": [catalog],
                                                            **disclosure}),
        "chain": chain,
    })
    async with assemble(settings, watch=False) as app:
        yield app


async def listed(client: Client) -> dict[str, Any]:
    tools: dict[str, Any] = {}
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.update((tool.name, tool) for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


async def search(client: Client, query: str, limit: int = 5) -> dict[str, Any]:
    result = await client.call_tool("search_tools", {"query": query, "limit": limit})
    assert not result.is_error, result
    assert result.structured_content is not None
    return result.structured_content


def names(found: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in found["results"]]


async def test_a_large_catalog_lists_essentials_in_full_and_connected_tools_by_name_only(
        folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            assert len(app.catalog.current) > 1000
            tools = await listed(client)
    assert tools["search_tools"].input_schema["required"] == ["query"]
    assert "properties" in tools["refresh_tools"].input_schema
    assert tools["textkit_count"].input_schema == {"type": "object"}  # schema deferred
    assert tools["textkit_count"].description and "\n" not in tools["textkit_count"].description
    assert {"jsonkit_fmt", "textkit_grep"} <= set(tools)
    assert "hashsum" not in tools and "convert_invoice" not in tools  # catalog: search only
    assert len(tools) < 40


async def test_search_promotes_into_the_session_which_hears_list_changed_and_the_call_reaches_the_tool(
        folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=changed) as client, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as other:
            seen = changed.count
            found = await search(client, "sha256 digest of a text")
            await changed.after(seen)
            tools = await listed(client)
            others = await listed(other)
            result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "sha256"})
            found_by_name = await search(other, "resize_passport", 3)
    hashsum = found["results"][0]
    assert hashsum["name"] == "hashsum" and hashsum["score"] > 0
    assert "algorithm" in hashsum["inputSchema"]["properties"]
    assert "algorithm" in tools["hashsum"].input_schema["properties"]  # promoted, in full
    assert "hashsum" not in others  # the other session was not changed
    assert "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" in result.content[0].text
    assert names(found_by_name)[0] == "resize_passport"


async def test_a_listing_asks_nothing_of_the_catalog_tools_its_session_did_not_find(
        folders: tuple[Path, Path], shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each listing asked, of every catalog tool, whether the caller may search its folder, to
    list none of them: 60 ms of the event loop a listing over 10,000 catalog tools, for each
    session listing (an outside check). Counted here, not timed: only the tools found are asked of."""
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            asked = mock.Mock(wraps=app.disclosure.may_search_catalog)  # type: ignore[union-attr]
            monkeypatch.setattr(app.disclosure, "may_search_catalog", asked)
            unfound = await listed(client)
            asked_unfound = asked.call_count
            found = names(await search(client, "convert the invoice"))
            asked.reset_mock()
            tools = await listed(client)
    assert "convert_invoice" not in unfound and asked_unfound == 0
    assert found[0] == "convert_invoice" and "properties" in tools["convert_invoice"].input_schema
    assert 0 < asked.call_count <= 20  # the tools found, as many as the listing shows at most


async def test_a_promoted_tool_is_no_permission_its_call_passes_the_whole_chain(
        folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            found = await search(client, "sha256 digest of a text")
            invalid = await client.call_tool("hashsum", {"text": "abc", "algorithm": "rot13"})
            # never found, never promoted, but a connected tool: callable by name as always
            direct = await client.call_tool("textkit_count", {"stdin": "one two\n"})
    assert names(found)[0] == "hashsum"
    assert invalid.is_error and "algorithm" in invalid.content[0].text
    assert not direct.is_error


async def test_a_hidden_tool_is_never_returned_by_search(folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir, chain={"access": {"deny": ["hashsum", "textkit_*"]}}) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            queries = ["sha256 digest of a text", "hashsum", "count lines and words", "textkit_count"]
            found = [await search(client, query, 20) for query in queries]
            tools = await listed(client)
    for result in found:
        assert not {name for name in names(result) if name == "hashsum" or name.startswith("textkit_")}
    assert not {name for name in tools if name == "hashsum" or name.startswith("textkit_")}


async def test_an_empty_catalog_allowlist_hides_catalog_tools_but_never_connected_ones(
        folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir, catalog_allow=[]) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            tools = await listed(client)
            catalog_search = await search(client, "sha256 digest of a text")
            generated = await search(client, "convert the invoice")
            connected_search = await search(client, "count lines words characters")
    assert {"textkit_count", "jsonkit_fmt", "search_tools"} <= set(tools)
    assert "hashsum" not in names(catalog_search)
    assert not any(name.endswith("_invoice") for name in names(generated))
    assert names(connected_search)[0] == "textkit_count"


async def test_a_removed_file_disappears_from_search(folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    connected, catalog = folders
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            before = await search(client, "count lines words characters")
            promoted = await search(client, "sha256 digest of a text")
            (connected / "textkit.wasm").unlink()
            (catalog / "hashsum.wasm").unlink()
            change = await app.rescan()
            after = await search(client, "count lines words characters")
            by_name = await search(client, "hashsum")
            tools = await listed(client)
    assert names(before)[0] == "textkit_count" and names(promoted)[0] == "hashsum"
    assert "textkit_count" in change.removed
    assert not any(name.startswith("textkit_") for name in names(after))
    assert "hashsum" not in names(by_name)
    assert "hashsum" not in tools  # promoted once, gone now


async def test_a_thousand_connected_tools_past_the_budget_are_found_by_search_and_named_in_its_description(
        folders: tuple[Path, Path], shared_data_dir: Path) -> None:
    # Both folders connected: the bundled tools fit the budget and are listed by name and
    # line; the 1,000 generated ones do not, so the listing names their folder instead.
    connected, generated = folders
    with anyio.fail_after(WAIT_S):
        async with serving(folders, shared_data_dir, catalog=[], catalog_allow=[]) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            tools = await listed(client)
            found = await search(client, "convert the invoice")
            result = await client.call_tool("convert_invoice", {"input": "march.txt"})
    assert {"textkit_count", "jsonkit_fmt", "search_tools"} <= set(tools) and "hashsum" not in tools
    assert tools["textkit_count"].input_schema == {"type": "object"}
    assert not any(name.endswith("_invoice") for name in tools) and len(tools) < 40
    # the generated tools and hashsum
    assert f"{generated.name} ({len(VERBS) * len(NOUNS) + 1} tools)" in tools["search_tools"].description
    assert names(found)[0] == "convert_invoice"  # found even with an empty catalog allowlist
    assert "input" in found["results"][0]["inputSchema"]["properties"]
    assert not result.is_error


async def test_python_tools_are_disclosed_by_their_folder_like_any_other(
        tmp_path: Path, shared_data_dir: Path) -> None:
    # A module of 1,000 Python tools in a connected folder past the budget, and a module of
    # one in a catalog folder: neither is listed, search finds both, and a found one runs.
    many, catalog = tmp_path / "many", tmp_path / "catalog"
    many.mkdir()
    catalog.mkdir()
    (many / "paperwork.py").write_text(python_module("paperwork"), encoding="utf-8")
    (catalog / "stargazing.py").write_text(python_module("stargazing", ("chart",), ("constellation",)),
                                           encoding="utf-8")
    with anyio.fail_after(WAIT_S):
        async with serving((many, catalog), shared_data_dir) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            assert len(app.catalog.current) > 1000
            tools = await listed(client)
            found = await search(client, "schedule the podcast")
            stars = await search(client, "chart a constellation")
            result = await client.call_tool("paperwork_schedule_podcast", {"input": "episode 12"})
    assert not {name for name in tools if name.endswith(("_podcast", "_constellation"))}
    assert f"many ({len(VERBS) * len(NOUNS)} tools)" in tools["search_tools"].description
    assert "catalog" not in tools["search_tools"].description  # catalog folders are never named
    assert names(found)[0] == "paperwork_schedule_podcast" and names(stars)[0] == "stargazing_chart_constellation"
    assert result.structured_content == {"tool": "paperwork_schedule_podcast", "input": "episode 12"}
