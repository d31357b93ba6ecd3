"""The disclosure mode and levels over the bundled tools (no large catalog needed)."""

from __future__ import annotations

import json
import shutil
import threading
import unicodedata
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types

from tests.conftest import BUNDLED_EXTENSIONS
from tests.reload.conftest import HASHSUM, TEXTKIT, ListChanged, drop
from toolbay.assembly import assemble
from toolbay.auth.tokens import new_token
from toolbay.catalog import Catalog, CatalogHolder
from toolbay.config import DisclosureSettings, load_settings
from toolbay.handlers.base import Handler, ToolDefinition
from toolbay.handlers.search import MAX_QUERY_CHARS
from toolbay.protocol import disclosure as disclosure_module
from toolbay.protocol.disclosure import Disclosure, Level, one_line
from toolbay.protocol.mcp_server import build_mcp_server
from toolbay.words import CallContext, Principal, ToolResult

pytestmark = pytest.mark.anyio

# Generous: a limit against hanging, not a speed test (the machine may be busy).
WAIT_S = 180


async def schemas(data_dir: Path, **disclosure: Any) -> dict[str, Any]:
    settings = load_settings(None, data_dir=data_dir)
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(update=disclosure)})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app:
            return {d.name: d.input_schema for d in app.listed_definitions(app.local_principal, None)}


async def test_auto_lists_everything_in_full_under_the_token_budget_and_search_first_over_it(
        shared_data_dir: Path) -> None:
    under = await schemas(shared_data_dir, mode="auto", token_budget=1_000_000)
    over = await schemas(shared_data_dir, mode="auto", token_budget=100)
    assert "algorithm" in under["hashsum"]["properties"]
    assert over["hashsum"] == {"type": "object"}
    assert "query" in over["search_tools"]["properties"]
    assert set(under) == set(over)  # the bundled folder is connected: every tool still listed


async def test_auto_weighs_the_listing_as_served_with_its_secrets_redacted(tmp_path: Path) -> None:
    """A description holding long tokens was counted as written, not as listed: a listing that
    fits the budget once redacted was turned into names only."""
    folder = tmp_path / "tools"
    folder.mkdir()
    jwt = "eyJ" + "a" * 60 + "." + "b" * 400 + "." + "c" * 80
    (folder / "deploy.py").write_text(
        "def get_tool_schemas():\n"
        f"    return [{{'name': 'deploy', 'description': 'Deploys with ' + ' '.join(['{jwt}'] * 8),\n"
        "             'input_schema': {'type': 'object', 'properties': {'target': {'type': 'string'}}}}]\n"
        "def dispatch(name, arguments):\n    return 'deployed'\n", encoding="utf-8")

    async def listed(**disclosure: Any) -> list[Any]:
        settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data")
        settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(update=disclosure)})
        with anyio.fail_after(WAIT_S):
            async with assemble(settings, watch=False) as app, \
                    Client(build_mcp_server(app, "memory"), mode="legacy") as client:
                return list((await client.list_tools()).tools)

    full = await listed(mode="full")
    # Tokens as the README counts them: the listing's JSON, four characters a token.
    served = sum(len(json.dumps(tool.model_dump(mode="json", by_alias=True, exclude_none=True))) for tool in full) // 4
    assert jwt not in json.dumps([tool.model_dump(mode="json") for tool in full])
    auto = {tool.name: tool for tool in await listed(mode="auto", token_budget=served + 50)}
    assert "target" in auto["deploy"].input_schema["properties"]  # fits: listed in full


async def test_full_mode_ignores_the_budget_and_essential_patterns_stay_in_full(shared_data_dir: Path) -> None:
    full = await schemas(shared_data_dir, mode="full", token_budget=0)
    first = await schemas(shared_data_dir, mode="search-first", essential=["jsonkit_*"])
    assert "algorithm" in full["hashsum"]["properties"]
    assert "properties" in first["jsonkit_fmt"] and first["textkit_count"] == {"type": "object"}


def test_one_line_is_the_first_line_cut_at_a_word() -> None:
    assert one_line("Pretty-print JSON.\n\nMore text.") == "Pretty-print JSON."
    long = "word " * 40
    cut = one_line(long)
    assert len(cut) <= 101 and cut.endswith("…") and not cut.endswith(" …")


def test_one_line_of_a_first_line_with_few_spaces_keeps_near_a_line_of_it() -> None:
    """A first line written without spaces between words (Japanese, Chinese) but for a word or two
    was cut at its last space, "GitHub…" of 120 characters; a long URL early in the line too."""
    japanese = ("GitHub のリポジトリにある課題を一覧表示し、ラベル、担当者、マイルストーン、状態で絞り込み、"
                "作成日または更新日で並べ替えて、指定した件数だけ返します。大きなリポジトリでもページ単位で取得します。"
                "結果には各課題の番号と題名が含まれます。")
    cut = one_line(japanese)
    assert len(cut) >= 50 and cut.endswith("…") and japanese.startswith(cut[:-1])
    assert cut[-2] in "、。"  # at a break of its own script, near the line's length
    url = one_line("Fetch https://example.com/" + "a" * 120 + " and print it")
    assert 50 <= len(url) <= 101 and url.startswith("Fetch https://example.com/aaa") and url.endswith("…")
    accented = "x" + "e\u0301" * 80
    marks = one_line(accented)  # not cut between a letter and its accent
    assert marks.endswith("…") and not unicodedata.combining(accented[len(marks) - 1])


def test_catalog_folders_are_searchable_by_configuration_or_by_a_callers_scope() -> None:
    settings = DisclosureSettings(catalog=[Path("/srv/shared-tools"), Path("/srv/finance")], catalog_allow=[])
    disclosure = Disclosure(settings, CatalogHolder(), lambda principal, definition: True)
    nobody = Principal(id="a", scopes=frozenset({"tools:exec"}))
    finance = Principal(id="b", scopes=frozenset({"tools:read", "catalog:fin*"}))
    assert not disclosure.may_search_catalog(nobody, "finance")
    assert disclosure.may_search_catalog(finance, "finance")
    assert not disclosure.may_search_catalog(finance, "shared-tools")
    opened = Disclosure(settings.model_copy(update={"catalog_allow": ["shared-*"]}), CatalogHolder(),
                        lambda principal, definition: True)
    assert opened.may_search_catalog(nobody, "shared-tools")
    tool = ToolDefinition(name="t", description="", input_schema={}, origin="wasm:/srv/finance/t.wasm", source="wasm")
    assert opened.level_of(tool) is Level.CATALOG
    assert opened.level_of(replace(tool, origin="wasm:/srv/other/t.wasm")) is Level.CONNECTED
    # A Python module's tools belong to its folder just the same.
    assert opened.level_of(replace(tool, origin="python:/srv/finance/t.py", source="python")) is Level.CATALOG


async def test_search_tools_answers_clients_of_the_sessionless_protocol_too(shared_data_dir: Path) -> None:
    settings = load_settings(None, data_dir=shared_data_dir)
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(
        update={"mode": "search-first"})})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="2026-07-28") as client:
            found = await client.call_tool("search_tools", {"query": "sha256 digest"})
            called = await client.call_tool("hashsum", {"text": "abc", "algorithm": "md5"})
    assert found.structured_content is not None
    assert found.structured_content["results"][0]["name"] == "hashsum"
    assert "900150983cd24fb0d6963f7d28e17f72" in called.content[0].text  # type: ignore[union-attr]


async def test_search_tools_refuses_a_query_longer_than_its_limit_and_goes_on_searching(shared_data_dir: Path) -> None:
    settings = load_settings(None, data_dir=shared_data_dir)
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            too_long = await client.call_tool("search_tools", {"query": "sha256 digest " * 1000})
            longest = await client.call_tool("search_tools", {"query": ("sha256 digest " * 200)[:MAX_QUERY_CHARS]})
    assert too_long.is_error
    assert "$.query: expected at most 2000 characters, got 14000" in too_long.content[0].text  # type: ignore[union-attr]
    assert not longest.is_error and longest.structured_content is not None
    assert longest.structured_content["results"][0]["name"] == "hashsum"


async def test_a_connected_folder_past_the_budget_is_named_by_search_tools_and_promoted_tools_still_list(
        shared_data_dir: Path) -> None:
    settings = load_settings(None, data_dir=shared_data_dir)
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(
        update={"mode": "search-first", "connected_budget": 0})})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            before = {tool.name: tool for tool in (await client.list_tools()).tools}
            await client.call_tool("search_tools", {"query": "sha256 digest"})
            after = {tool.name: tool for tool in (await client.list_tools()).tools}
            bundled = sum(1 for d in app.catalog.current.definitions() if d.origin.startswith(("wasm:", "python:")))
    assert "hashsum" not in before and "textkit_count" not in before and "refresh_tools" in before
    assert f"extensions ({bundled} tools)" in before["search_tools"].description
    assert "algorithm" in after["hashsum"].input_schema["properties"]  # found, so listed in full


@asynccontextmanager
async def search_first(data_dir: Path, changed: ListChanged | None, **disclosure: Any) -> AsyncIterator[Client]:
    """The SDK's client of a search-first server of the bundled tools (``changed`` hears it)."""
    settings = load_settings(None, data_dir=data_dir)
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(
        update={"mode": "search-first", **disclosure})})
    async with assemble(settings, watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=changed) as client:
        yield client


async def test_in_auto_mode_a_tool_found_under_the_budget_stays_in_full_once_the_catalog_grows_past_it(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """Found while the caller's listing was full, a connected tool was not remembered: a file
    dropped in took the listing past the budget, and the tool found was listed by one line as if
    never found, where search-first mode lists it in full."""
    folder = tmp_path / "tools"
    folder.mkdir()
    shutil.copyfile(TEXTKIT, folder / TEXTKIT.name)
    shutil.copyfile(HASHSUM, folder / HASHSUM.name)
    (tmp_path / "workspace").mkdir()
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=shared_data_dir,
                             workspace=tmp_path / "workspace")
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app:
            budget = app.disclosure.full_listing_tokens() + 20  # these two files fit; jsonkit's do not
        settings.disclosure = settings.disclosure.model_copy(update={"mode": "auto", "token_budget": budget})
        async with assemble(settings) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=changed) as client:
            under = {tool.name: tool for tool in (await client.list_tools()).tools}
            found = await client.call_tool("search_tools", {"query": "sha256 digest of a text", "limit": 1})
            seen = changed.count
            drop(BUNDLED_EXTENSIONS / "jsonkit.wasm", folder)
            await changed.after(seen)
            over = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert "algorithm" in under["hashsum"].input_schema["properties"]  # under the budget: all in full
    assert found.structured_content is not None and found.structured_content["results"][0]["name"] == "hashsum"
    assert over["textkit_count"].input_schema == {"type": "object"}  # past it: by one line
    assert "algorithm" in over["hashsum"].input_schema["properties"]  # but the tool found, in full


async def test_a_session_lists_at_most_promoted_max_found_tools_the_one_found_longest_ago_leaving_first(
        shared_data_dir: Path) -> None:
    """Each search's strong hits joined the listing for good: 200 searches listed 500 tools in
    full, the size search-first is there to spare (an outside check's figures)."""
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with search_first(shared_data_dir, changed, promoted_max=2) as client:

            async def found_then_listed(query: str) -> tuple[str, set[str]]:
                seen = changed.count
                answer = await client.call_tool("search_tools", {"query": query, "limit": 1})
                await changed.after(seen)
                tools = (await client.list_tools()).tools
                listed = {tool.name for tool in tools if tool.input_schema.get("properties")}  # in full
                assert answer.structured_content is not None, answer
                return answer.structured_content["results"][0]["name"], listed

            first, _ = await found_then_listed("sha256 digest of a text")
            second, _ = await found_then_listed("merge two JSON documents")
            third, listed = await found_then_listed("count the lines and words")
    assert len({first, second, third}) == 3
    assert {second, third} <= listed and first not in listed


async def test_an_essential_tool_found_takes_no_place_among_the_tools_found(shared_data_dir: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with search_first(shared_data_dir, None, promoted_max=1, essential=["hashsum"]) as client:
            found = [(await client.call_tool("search_tools", {"query": query, "limit": 1})).structured_content
                     for query in ("merge two JSON documents", "sha256 digest of a text")]
            tools = (await client.list_tools()).tools
    assert [answer["results"][0]["name"] for answer in found if answer] == ["jsonkit_merge", "hashsum"]
    # The essential hashsum, found second, did not push jsonkit_merge out of the one place.
    assert {"jsonkit_merge", "hashsum"} <= {tool.name for tool in tools if tool.input_schema.get("properties")}


async def test_built_in_tools_found_take_no_place_among_the_tools_found_and_change_no_listing(
        shared_data_dir: Path) -> None:
    """They are listed in full anyway: "list the jobs" found the job tools, which pushed the
    session's two found tools out of its listing, and told it so (an outside re-check's finding)."""
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with search_first(shared_data_dir, changed, promoted_max=2) as client:
            for query in ("merge two JSON documents", "count the lines and words"):
                seen = changed.count
                await client.call_tool("search_tools", {"query": query, "limit": 1})
                await changed.after(seen)
            seen = changed.count
            jobs = (await client.call_tool("search_tools", {"query": "list the jobs", "limit": 3})).structured_content
            tools = (await client.list_tools()).tools
    assert jobs is not None and {hit["name"] for hit in jobs["results"]} <= {"job_list", "job_cancel", "job_result",
                                                                             "job_status", "job_wait"}
    assert {"jsonkit_merge", "textkit_count"} <= {tool.name for tool in tools if tool.input_schema.get("properties")}
    assert changed.count == seen


class _Tool(Handler):
    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text="")


def _served(*described: tuple[str, str], folder: Path | None = None) -> Catalog:
    """A catalog of the tools ``described``; from files in ``folder`` (which need not exist: the
    disclosure levels go by their paths), else from no file (search looks for a tool's file)."""
    def origin(name: str) -> str:
        return f"wasm:{folder / name}.wasm" if folder else "wasm:"

    return Catalog.build([_Tool(ToolDefinition(name=name, description=text, input_schema={"type": "object"},
                                               source="wasm", origin=origin(name)))
                          for name, text in described])


async def test_search_finds_what_the_catalog_holds_when_asked_whether_it_changed_before_the_first_search_or_after(
        ) -> None:
    """The index is filled by the first search, not when the server starts (10,000 tools cost
    a second and more before the first listing), and follows the catalog from then on."""
    holder = CatalogHolder(_served(("wav_to_mp3", "Convert a WAV recording to MP3"),
                                   ("send_fax", "Send a fax to a number")))
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True)
    try:
        # Changed before anyone searched: a tool added, one removed.
        holder.swap(_served(("wav_to_mp3", "Convert a WAV recording to MP3"),
                            ("resize_photo", "Resize a JPEG or PNG photo")))
        found = [await disclosure.search(query, 3, CallContext()) for query in ("resize a photo", "send a fax")]
        assert [r["name"] for r in found[0]["results"]][:1] == ["resize_photo"]
        assert "send_fax" not in [r["name"] for r in found[1]["results"]]
        # Changed after: followed one tool at a time.
        holder.swap(_served(("resize_photo", "Resize a JPEG or PNG photo"), ("send_fax", "Send a fax to a number")))
        found = [await disclosure.search(query, 3, CallContext()) for query in ("send a fax", "convert wav to mp3")]
        assert [r["name"] for r in found[0]["results"]][:1] == ["send_fax"]
        assert "wav_to_mp3" not in [r["name"] for r in found[1]["results"]]
    finally:
        disclosure.close()


async def test_a_change_while_the_first_search_fills_the_index_is_in_its_answer() -> None:
    """The index is filled on a worker thread (10,000 tools would hold the event loop for over a
    second): a catalog changed meanwhile is taken in before the search answers."""
    holder = CatalogHolder(_served(("wav_to_mp3", "Convert a WAV recording to MP3"),
                                   ("send_fax", "Send a fax to a number"), ("print_label", "Print a shipping label")))
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True)
    fill = disclosure.index.put_many

    def fill_then_change(definitions: Any, **options: Any) -> None:
        fill(definitions, **options)
        # While the worker thread fills: a tool added, one removed, one described anew.
        anyio.from_thread.run_sync(holder.swap, _served(
            ("wav_to_mp3", "Convert a WAV recording to MP3"), ("print_label", "Print a barcode sticker"),
            ("resize_photo", "Resize a JPEG or PNG photo")))

    disclosure.index.put_many = fill_then_change  # type: ignore[method-assign]
    try:
        found = {query: [r["name"] for r in (await disclosure.search(query, 3, CallContext()))["results"]]
                 for query in ("resize a photo", "send a fax", "print a barcode sticker", "shipping")}
    finally:
        disclosure.close()
    assert found["resize a photo"][:1] == ["resize_photo"]
    assert "send_fax" not in found["send a fax"]
    assert found["print a barcode sticker"][:1] == ["print_label"]
    assert "print_label" not in found["shipping"]


def test_a_catalog_allow_pattern_that_names_no_catalog_folder_is_warned_of_at_start(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    catalog = tmp_path / "cat"
    catalog.mkdir()
    # Not essential: the tools it names may be described after the start (a slow module).
    settings = DisclosureSettings(catalog=[catalog], catalog_allow=["cta", "c*"], essential=["send_fxa"])
    holder = CatalogHolder(_served(("wav_to_mp3", "Convert a WAV recording to MP3"), ("send_fax", "Send a fax")))
    with caplog.at_level("WARNING", logger="toolbay.protocol.disclosure"):
        Disclosure(settings, holder, lambda principal, definition: True).close()
    warned = [record.getMessage() for record in caplog.records]
    assert warned == ["[disclosure] catalog_allow 'cta' names none of the catalog folders (cat)"]


async def test_a_catalog_scope_that_names_no_catalog_folder_is_warned_of_at_start(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """"catalog:CAT2" for the folder "cat2" let its holder search nothing, with nothing said (an
    outside check), where a misspelt catalog_allow was warned of."""
    catalog = tmp_path / "cat2"
    catalog.mkdir()
    _, digest = new_token()
    tokens = tmp_path / "tokens.toml"
    entry = f'[[tokens]]\nclient_id = "ann"\nsha256 = "{digest}"\n' \
        'scopes = ["tools:read", "catalog:CAT2", "catalog:cat*", "catalog:cat2/"]\n'
    tokens.write_text(entry + entry.replace(digest, new_token()[1]))  # a second token of hers: said once
    settings = load_settings(None, extensions=[tmp_path / "tools", catalog], agents=[], data_dir=tmp_path / "d",
                             chain={"auth": {"tokens_file": str(tokens),
                                             "local_scopes": ["tools:exec", "catalog:cat3"]}},
                             disclosure={"catalog": [str(catalog)]})
    (tmp_path / "tools").mkdir()
    with caplog.at_level("WARNING", logger="toolbay.assembly"):
        async with assemble(settings, watch=False):
            pass
    warned = [record.getMessage() for record in caplog.records if record.name == "toolbay.assembly"]
    assert warned == [
        "[disclosure] the local caller has the scope 'catalog:cat3', which names none of the catalog folders (cat2)",
        "[disclosure] the token of 'ann' has the scope 'catalog:CAT2', which names none of the catalog folders (cat2)",
        "[disclosure] the token of 'ann' has the scope 'catalog:cat2/', which names none of the catalog folders "
        "(cat2)"]


async def test_search_tools_is_found_by_its_exact_name_and_by_nothing_else(shared_data_dir: Path) -> None:
    # Its name found refresh_tools, by "tools", with no_match false; every other built-in is
    # found first by its name. Its own words still find it nothing.
    with anyio.fail_after(WAIT_S):
        async with search_first(shared_data_dir, None) as client:
            named = (await client.call_tool("search_tools", {"query": "search_tools"})).structured_content
            worded = (await client.call_tool("search_tools", {"query": "search the tools for one"})).structured_content
    assert named is not None and named["results"][0]["name"] == "search_tools"
    assert worded is not None and "search_tools" not in {hit["name"] for hit in worded["results"]}


def test_a_connected_folder_is_listed_to_a_caller_whose_own_tools_in_it_fit_the_budget() -> None:
    """The budget was measured on the folder's every tool: a caller who may use 2 of its 40
    had none listed, though their two lines fit (an outside check: 20 of 300 tools, about 600
    tokens, under a budget of 3,000)."""
    holder = CatalogHolder(_served(*((f"stock_tool_{n:02d}", f"Fetch the stock figure number {n} for a market")
                                     for n in range(40)), folder=Path("/tools")))
    few = {"stock_tool_03", "stock_tool_07"}
    may_use = {"all": lambda definition: True, "few": lambda definition: definition.name in few}
    disclosure = Disclosure(DisclosureSettings(mode="search-first", connected_budget=200), holder,
                            lambda principal, definition: may_use[principal.id](definition), connected=[Path("/tools")])
    try:
        shown = {}
        for caller in ("all", "few"):
            principal = Principal(id=caller)
            visible = [d for d in holder.current.definitions() if may_use[caller](d)]
            shown[caller] = {d.name for d in disclosure.listed(principal, visible, None)}
    finally:
        disclosure.close()
    assert shown == {"all": set(), "few": few}


async def test_a_long_request_is_said_back_in_part(shared_data_dir: Path) -> None:
    """A request of 2,000 characters that matched nothing was said back whole (an outside check)."""
    request = "qzxv wplk " * 199
    async with search_first(shared_data_dir, None) as client:
        answer = await client.call_tool("search_tools", {"query": request})
    [content] = answer.content
    assert isinstance(content, types.TextContent)
    assert content.text.startswith("No tool matches 'qzxv wplk") and len(content.text) < 200, content.text


async def test_a_search_while_the_index_is_filled_again_for_a_new_credential_waits_for_it() -> None:
    """A credential's value first handed to a tool at a call fills the index again, whole, on a
    worker thread; a search meanwhile went on with the index as it was (while the thread changed
    it): the tool was found by that value, and its description shown with it."""
    holder = CatalogHolder(_served(("weather_now", "Current weather, asked with the key moonbeam42 of the service"),
                                   ("send_fax", "Send a fax to a number")))
    hidden: set[str] = set()
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True,
                            hidden=lambda: hidden)
    fill = disclosure.index.put_many
    filling, go_on = anyio.Event(), threading.Event()

    def held_fill(definitions: Any, **options: Any) -> None:
        anyio.from_thread.run_sync(filling.set)
        go_on.wait(WAIT_S)
        fill(definitions, **options)

    answers: dict[str, dict[str, Any]] = {}

    async def search(label: str, query: str) -> None:
        answers[label] = await disclosure.search(query, 3, CallContext())

    try:
        await search("before", "current weather")  # filled, the value not yet a credential's
        hidden.add("moonbeam42")
        disclosure.index.put_many = held_fill  # type: ignore[method-assign]
        with anyio.fail_after(WAIT_S):
            async with anyio.create_task_group() as group:
                group.start_soon(search, "filling", "current weather")
                await filling.wait()
                group.start_soon(search, "meanwhile", "moonbeam42")
                await anyio.sleep(0.2)
                go_on.set()
    finally:
        go_on.set()
        disclosure.close()
    assert "moonbeam42" in answers["before"]["results"][0]["description"]
    assert answers["meanwhile"]["no_match"] and "moonbeam42" not in json.dumps(answers["meanwhile"])
    assert "moonbeam42" not in json.dumps(answers["filling"])


async def test_a_credential_s_new_value_makes_again_only_the_tools_that_may_hold_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A value first handed to a tool at a call filled the whole index again (1.3 s of CPU at
    10,000 tools) and redacted every definition again for the next listing, to hide it from the
    one tool that held it."""
    tools = [(f"tool_{number}", f"Convert record {number} to another format") for number in range(300)]
    holder = CatalogHolder(_served(("weather_now", "Current weather, asked with the key MoonBeam42 of the service"),
                                   ("weather_later", "Tomorrow's weather, with the key ｍｏｏｎｂｅａｍ４２ too"),
                                   *tools))
    hidden: set[str] = set()
    disclosure = Disclosure(DisclosureSettings(mode="search-first"), holder, lambda principal, definition: True,
                            hidden=lambda: hidden)
    put = disclosure.index.put_many
    indexed: list[str] = []

    def counted_put(definitions: Any, **options: Any) -> None:
        definitions = list(definitions)
        indexed.extend(key for key, _ in definitions)
        put(definitions, **options)

    made: list[str] = []
    redacted = disclosure_module.redacted

    def counted_redacted(definition: ToolDefinition, values: Any = ()) -> ToolDefinition:
        made.append(definition.name)
        return redacted(definition, values)

    measured: list[str] = []
    listed_characters = disclosure_module._listed_characters

    def counted_characters(definition: ToolDefinition) -> int:
        measured.append(definition.name)
        return listed_characters(definition)

    definitions = holder.current.definitions()
    try:
        await disclosure.search("current weather", 3, CallContext())
        disclosure.listed(Principal.anonymous(), definitions, None)
        disclosure._listing_tokens(definitions)  # what auto mode weighs at each listing
        hidden.add("moonbeam42")
        disclosure.index.put_many = counted_put  # type: ignore[method-assign]
        monkeypatch.setattr(disclosure_module, "redacted", counted_redacted)
        monkeypatch.setattr(disclosure_module, "_listed_characters", counted_characters)
        found = await disclosure.search("moonbeam42", 3, CallContext())
        weather = await disclosure.search("current weather", 3, CallContext())
        listing = {d.name: d for d in disclosure.listed(Principal.anonymous(), definitions, None)}
        tokens = disclosure._listing_tokens(definitions)
    finally:
        disclosure.close()
    assert sorted(indexed) == ["weather_later", "weather_now"]  # filled again: the tools holding it alone
    assert set(made) == {"weather_later", "weather_now"}  # their copies alone made again (index, listing)
    assert found["no_match"] and weather["results"][0]["name"] == "weather_now"
    assert "MoonBeam42" not in json.dumps(weather) and "MoonBeam42" not in listing["weather_now"].description
    assert "ｍｏｏｎｂｅａｍ４２" not in listing["weather_later"].description
    assert tokens > 0 and sorted(measured) == ["weather_later", "weather_now"]  # their lengths alone weighed again


async def test_a_credential_s_new_value_is_hidden_from_a_schema_that_writes_its_quote_another_way() -> None:
    """A value with a quote and a backslash in it, written in a schema's description with its
    quote full-width: the description reads as the value (and is blotted so), but the schema as
    JSON writes it ('\\\\' for the backslash) held neither the value nor the value as JSON writes
    it ('\\\\"' for the quote), so the tool kept the copy listed before the value was handed to a
    tool, the value in it, and was found by it."""
    value = 'Tr0ub"4\\dor9'
    schema = {"type": "object", "properties": {"key": {
        "type": "string", "description": "signed with Tr0ub\uff024\\dor9 at the service"}}}
    holder = CatalogHolder(Catalog.build([_Tool(ToolDefinition(
        name="weather_sign", description="Sign a weather request", input_schema=schema,
        source="wasm", origin="wasm:"))]))
    hidden: set[str] = set()
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True,
                            hidden=lambda: hidden)
    definitions = holder.current.definitions()
    try:
        await disclosure.search("sign a weather request", 3, CallContext())
        disclosure.listed(Principal.anonymous(), definitions, None)
        hidden.add(value)
        found = await disclosure.search("tr0ub 4 dor9", 3, CallContext())
        listing = disclosure.listed(Principal.anonymous(), definitions, None)
    finally:
        disclosure.close()
    shown = listing[0].input_schema["properties"]["key"]["description"]
    assert "dor9" not in shown and "[credential redacted]" in shown
    assert "dor9" not in json.dumps(found)


async def test_a_credential_s_new_value_of_marks_search_takes_out_is_hidden_as_written() -> None:
    """A value of accents written apart alone (search reads it as nothing) is still blotted where
    it stands as written, but was looked for nowhere once handed to a tool: the tool holding it
    kept the copy listed before, the value in it."""
    value = "\u0301\u0302\u0303\u0304"
    holder = CatalogHolder(_served(("weather_mark", f"Marks the request with {value} at the end")))
    hidden: set[str] = set()
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True,
                            hidden=lambda: hidden)
    definitions = holder.current.definitions()
    try:
        disclosure.listed(Principal.anonymous(), definitions, None)
        hidden.add(value)
        [listed] = disclosure.listed(Principal.anonymous(), definitions, None)
    finally:
        disclosure.close()
    assert value not in listed.description and "[credential redacted]" in listed.description
