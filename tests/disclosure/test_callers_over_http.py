"""What one caller's session hears and keeps, over streamable HTTP with JWT callers: a catalog
tool it found ends with the right to search its folder; a change to another caller's personal
tools is not told to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.chain_e2e.conftest import BASE_TOML, config_dir, mint, running, signing_key, tokens  # noqa: F401
from tests.disclosure.test_catalog_folders import CONNECTED_MODULE, VAULT_MODULE
from tests.disclosure.test_search_first import listed, names, search
from tests.protocol.test_metrics import samples, value
from tests.reload.conftest import GetStreamSpy, ListChanged, text_of
from toolbay.assembly import assemble
from toolbay.config import Settings, load_settings
from toolbay.protocol.transports import build_http_app, serving_http

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def session_of(url: str, token: str, mode: str = "legacy", event_hooks: Any = None,
                     **options: Any) -> AsyncIterator[tuple[Client, httpx2.AsyncClient]]:
    """The SDK's client on streamable HTTP with ``token`` (on the protocol of ``mode``), and its
    HTTP client, whose bearer token a test may replace mid-session (as a refreshed JWT would);
    ``event_hooks``: its HTTP client's (httpx's), to see each answer's form."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, event_hooks=event_hooks,
                                  timeout=httpx2.Timeout(30, read=60)) as http, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode, **options) as client:
        yield client, http


def _notes_and_vault(folder: Path, notes: Path, vault: Path, data_dir: Path, more: str = "") -> Settings:
    """Settings (their file in ``folder``, ``more`` ending its [disclosure]) of a connected folder
    (``notes``) and a catalog folder (``vault``) nobody may search but by a catalog:vault scope."""
    for made in (notes, vault):
        made.mkdir()
    (notes / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    (vault / "vault.py").write_text(VAULT_MODULE, encoding="utf-8")
    config = folder / "toolbay.toml"
    config.write_text(BASE_TOML + f'\n[disclosure]\nmode = "search-first"\ncatalog = ["{vault}"]\ncatalog_allow = []\n'
                      + more, encoding="utf-8")
    return load_settings(config, extensions=[notes, vault], agents=[], data_dir=data_dir, port=0)


async def test_a_found_catalog_tool_ends_with_the_right_to_search_its_folder(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    settings = _notes_and_vault(config_dir, notes, vault, tmp_path / "data")
    may_search = mint("bob", scope="tools:exec catalog:vault")
    may_not = mint("bob", scope="tools:exec")
    with anyio.fail_after(60):
        async with running(settings) as url, session_of(url, may_search) as (client, http):
            assert names(await search(client, "open the vault")) == ["vault_open"]
            found = await listed(client)
            http.headers["Authorization"] = f"Bearer {may_not}"
            without_the_right = await listed(client)
            http.headers["Authorization"] = f"Bearer {may_search}"
            with_it_again = await listed(client)
    assert "pin" in found["vault_open"].input_schema["properties"]
    assert "vault_open" not in without_the_right
    assert "vault_open" not in with_it_again  # to be found again, not brought back


async def test_a_tool_the_caller_may_neither_find_nor_call_is_answered_in_the_form_of_a_name_no_tool_has(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """The words were the same, but the answer's form was not: a call of a tool that exists came as
    one JSON body (the transport expected a quick answer), a name no tool has as an SSE stream, so
    a caller could tell the tools of a catalog folder it may not search by the Content-Type alone
    (an outside check)."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    settings = _notes_and_vault(config_dir, notes, vault, tmp_path / "data")
    answers: list[str] = []

    async def note_form(response: httpx2.Response) -> None:
        if response.request.method == "POST" and b"tools/call" in response.request.content:
            answers.append(response.headers.get("content-type", "").split(";")[0])

    forms = {}
    with anyio.fail_after(60):
        async with running(settings) as url, \
                session_of(url, mint("bob", scope="tool:notes_*"), event_hooks={"response": [note_form]}) as (bob, _):
            for name in ("vault_open", "vault_shut", "notes_add"):
                answers.clear()
                text_of(await bob.call_tool(name, {}))
                forms[name] = answers[:]
    assert forms["vault_open"] == forms["vault_shut"]
    assert forms["notes_add"] == ["application/json"]  # a tool it may use: answered at once, as before


def _personal_folders(folder: Path, notes: Path, people: Path, data_dir: Path, **more: Any) -> Settings:
    """Settings (their file in ``folder``) of a connected folder (``notes``) and personal
    folders under ``people`` (bob's made)."""
    notes.mkdir()
    (people / "bob").mkdir(parents=True)
    (notes / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    config = folder / "toolbay.toml"
    config.write_text(BASE_TOML + f'\n[python]\npersonal_dir = "{people}/{{caller}}"\n', encoding="utf-8")
    return load_settings(config, extensions=[notes], agents=[], data_dir=data_dir, port=0, **more)


@asynccontextmanager
async def _two_sessions(folder: Path, tmp_path: Path, one: str, other: str) -> AsyncIterator[tuple[Client, Client]]:
    """A server of ``_notes_and_vault`` (its settings in ``folder``, its folders in ``tmp_path``),
    and a session for each of two tokens."""
    settings = _notes_and_vault(folder, tmp_path / "notes", tmp_path / "vault", tmp_path / "data")
    async with running(settings) as url, session_of(url, one) as (first, _), session_of(url, other) as (second, _):
        yield first, second


async def test_a_catalog_tool_the_caller_may_neither_find_nor_use_is_refused_as_no_tool_at_all(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """"Your scopes do not include the tool 'vault_open'" told a caller that may not search the
    vault folder that it holds vault_open, where a name no tool has is "There is no tool named"."""
    with anyio.fail_after(60):
        async with _two_sessions(config_dir, tmp_path, mint("bob", scope="tool:notes_*"),
                                 mint("alice", scope="tool:notes_* catalog:vault")) as (bob, alice):
            hidden = text_of(await bob.call_tool("vault_open", {}))
            missing = text_of(await bob.call_tool("vault_shut", {}))
            findable = text_of(await alice.call_tool("vault_open", {}))
    assert hidden == missing.replace("vault_shut", "vault_open")
    assert "do not include the tool 'vault_open'" in findable  # she may find it: told why she may not call it


async def test_a_change_to_a_caller_s_personal_tools_is_told_to_that_caller_alone(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """Every session heard list_changed when anyone's personal folder changed: a caller learnt
    when another one's tools did."""
    notes, people = tmp_path / "notes", tmp_path / "people"
    settings = _personal_folders(config_dir, notes, people, tmp_path / "data")
    heard = {"alice": ListChanged(), "bob": ListChanged()}
    with anyio.fail_after(60):
        async with assemble(settings, watch=False) as app, \
                serving_http(app, streams := GetStreamSpy(build_http_app(app))) as url, \
                session_of(url, mint("alice", scope="tools:exec"), message_handler=heard["alice"]) as (alice, _), \
                session_of(url, mint("bob", scope="tools:exec"), message_handler=heard["bob"]) as (bob, _):
            # A notification sent before a client's standing GET stream is open is lost.
            await streams.after(1)
            await listed(alice)
            await listed(bob)
            (people / "bob" / "diary.py").write_text(CONNECTED_MODULE.replace("notes_add", "diary"), encoding="utf-8")
            await app.rescan()
            await heard["bob"].after(0)  # bob's own tool: told
            (notes / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
            await app.rescan()
            await heard["alice"].after(0)  # a connected tool: told to everyone
            await heard["bob"].after(1)
            bobs = await listed(bob)
    assert heard["alice"].count == 1  # in order: bob's tool was not told to alice
    assert "diary" in bobs


class Streams:
    """What each caller's ``subscriptions/listen`` stream heard, and a way to wait for it."""

    def __init__(self, *callers: str) -> None:
        self.heard: dict[str, list[object]] = {caller: [] for caller in callers}
        self._arrived = anyio.Condition()

    async def hear(self, who: str, stream: Any) -> None:
        async for event in stream:
            self.heard[who].append(event)
            async with self._arrived:
                self._arrived.notify_all()

    async def until(self, condition: Callable[[], bool]) -> None:
        async with self._arrived:
            while not condition():
                await self._arrived.wait()


async def test_a_listen_stream_hears_of_another_caller_s_personal_tools_no_more_than_a_session(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """Clients on the 2026-07-28 protocol hear of changes through subscriptions/listen, whose
    streams heard every change, another caller's personal tools included."""
    notes, people = tmp_path / "notes", tmp_path / "people"
    settings = _personal_folders(config_dir, notes, people, tmp_path / "data")
    streams = Streams("alice", "bob")
    heard, hear, until = streams.heard, streams.hear, streams.until

    with anyio.fail_after(60):
        async with assemble(settings, watch=False) as app, serving_http(app, build_http_app(app)) as url, \
                session_of(url, mint("alice", scope="tools:exec"), mode="2026-07-28") as (alice, _), \
                session_of(url, mint("bob", scope="tools:exec"), mode="2026-07-28") as (bob, _), \
                alice.listen(tools_list_changed=True) as alices, bob.listen(tools_list_changed=True) as bobs, \
                anyio.create_task_group() as group:
            group.start_soon(hear, "alice", alices)
            group.start_soon(hear, "bob", bobs)
            (people / "bob" / "diary.py").write_text(CONNECTED_MODULE.replace("notes_add", "diary"), encoding="utf-8")
            await app.rescan()
            await until(lambda: len(heard["bob"]) == 1)  # bob's own tool: told
            (notes / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
            await app.rescan()
            await until(lambda: len(heard["alice"]) >= 1 and len(heard["bob"]) == 2)  # told to everyone
            bob_listing = await listed(bob)
            group.cancel_scope.cancel()
    assert len(heard["alice"]) == 1  # in order on her stream: bob's tool was not told to her
    assert "diary" in bob_listing


async def test_a_catalog_folder_s_change_is_told_to_the_sessions_that_found_or_list_its_tools_alone(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """One session that had found a catalog tool made a change to it be told to every session,
    callers that may not search the folder included; and a catalog tool that ``essential`` lists
    in full to the callers who may search its folder came and went without a word to them."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    settings = _notes_and_vault(config_dir, notes, vault, tmp_path / "data", 'essential = ["vault_e*"]\n')
    heard = {"alice": ListChanged(), "bob": ListChanged()}
    with anyio.fail_after(60):
        async with assemble(settings, watch=False) as app, \
                serving_http(app, streams := GetStreamSpy(build_http_app(app))) as url, \
                session_of(url, mint("alice", scope="tools:exec catalog:vault"),
                           message_handler=heard["alice"]) as (alice, _), \
                session_of(url, mint("bob", scope="tools:exec"), message_handler=heard["bob"]) as (bob, _):
            await streams.after(1)  # a notification sent before a client's GET stream is open is lost
            assert names(await search(alice, "open the vault")) == ["vault_open"]
            await heard["alice"].after(0)  # found: promoted into her listing
            (vault / "vault.py").write_text(VAULT_MODULE.replace("Open the vault", "Open the safe"), encoding="utf-8")
            await app.rescan()
            await heard["alice"].after(1)  # the tool she found changed
            (vault / "vault_eject.py").write_text(VAULT_MODULE.replace("vault_open", "vault_eject"), encoding="utf-8")
            await app.rescan()
            await heard["alice"].after(2)  # an essential tool of a folder she may search came
            alices = await listed(alice)
            (notes / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
            await app.rescan()
            await heard["bob"].after(0)  # a connected tool: told to everyone
            await heard["alice"].after(3)
            bobs = await listed(bob)
    assert heard["bob"].count == 1  # in order: the vault folder's changes were not told to him
    assert "pin" in alices["vault_eject"].input_schema["properties"] and "vault_open" in alices
    assert "vault_eject" not in bobs and "memo_add" in bobs


async def test_metrics_name_no_personal_tool_and_need_a_scope_of_their_own(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """Any token read /metrics, which named every tool called: another caller's personal tools,
    catalog tools the reader may not search."""
    notes, people = tmp_path / "notes", tmp_path / "people"
    settings = _personal_folders(config_dir, notes, people, tmp_path / "data", transport="http")
    (people / "bob" / "diary.py").write_text(CONNECTED_MODULE.replace("notes_add", "diary"), encoding="utf-8")
    with anyio.fail_after(60):
        async with running(settings) as url, session_of(url, mint("bob", scope="tools:exec")) as (bob, _):
            assert not (await bob.call_tool("diary", {"text": "dear diary"})).is_error
            scrapes = {}
            for scope in ("tools:exec", "metrics:read"):
                async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {mint('ops', scope=scope)}"}) as http:
                    scrapes[scope] = await http.get(f"{url}/metrics")
    refused, read = scrapes["tools:exec"], scrapes["metrics:read"]
    assert refused.status_code == 403 and "metrics:read" in refused.json()["error_description"]
    assert read.status_code == 200
    assert value(samples(read.text), "toolbay_calls_total", tool="(personal)", outcome="ok") == 1
    assert "diary" not in read.text


async def test_auto_mode_decides_by_the_listing_of_the_tools_the_caller_may_use(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """auto counted the whole server's tools: a caller allowed a handful of them was given
    names without schemas because other callers have two hundred."""
    from tests.disclosure.conftest import NOUNS, VERBS, python_module

    notes, bulk = tmp_path / "notes", tmp_path / "bulk"
    for folder in (notes, bulk):
        folder.mkdir()
    (notes / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    (bulk / "bulk.py").write_text(python_module("bulk", VERBS[:10], NOUNS[:20]), encoding="utf-8")  # 200 tools
    config = config_dir / "toolbay.toml"
    config.write_text(BASE_TOML + '\n[disclosure]\nmode = "auto"\ntoken_budget = 5000\n', encoding="utf-8")
    settings = load_settings(config, extensions=[notes, bulk], agents=[], data_dir=tmp_path / "data", port=0)
    listings, told = {}, {}
    with anyio.fail_after(120):
        async with running(settings) as url:
            for caller, scope in (("alice", "tools:exec"), ("bob", "tool:notes_*")):
                async with session_of(url, mint(caller, scope=scope)) as (client, _):
                    listings[caller] = await listed(client)
                    unknown = await client.call_tool("notes_ad", {})
                    told[caller] = " ".join(block.text for block in unknown.content if block.type == "text")
    assert "properties" not in listings["alice"]["notes_add"].input_schema  # 200 tools: names only
    assert "properties" in listings["bob"]["notes_add"].input_schema  # a handful: in full
    assert not any(name.startswith("bulk_") for name in listings["bob"])
    # An unknown name: only the caller whose listing is partial is told to search (bob was
    # told his listing showed only some tools, as the whole server's would have).
    assert "notes_add" in told["alice"] and "notes_add" in told["bob"]
    assert "shows only some tools" in told["alice"] and "shows only some tools" not in told["bob"]


WAITING_MODULE = '''
import time

def get_tool_schemas():
    return [{"name": "waiting_long", "description": "Waits a long time",
             "input_schema": {"type": "object", "properties": {}}}]

def dispatch(name, arguments):
    time.sleep(600)
    return "waited"
'''


async def test_a_job_s_end_is_told_to_its_owner_s_listen_streams_alone(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """A job result's subscription (subscriptions/listen) was never told of the job's end on a
    server of its own, and on replicas (Redis) any caller subscribed to another's job heard it.
    Its list of resources changes then too (the result is listed): a 2026-07-28 server declares
    resources' listChanged, and a stream asking for it heard nothing (an outside check)."""
    notes, people = tmp_path / "notes", tmp_path / "people"
    settings = _personal_folders(config_dir, notes, people, tmp_path / "data", jobs={"sync_budget_s": 0})
    (notes / "waiting.py").write_text(WAITING_MODULE, encoding="utf-8")
    streams = Streams("alice", "mallory")
    heard, hear, until = streams.heard, streams.hear, streams.until

    with anyio.fail_after(60):
        async with assemble(settings, watch=False) as app, serving_http(app, build_http_app(app)) as url, \
                session_of(url, mint("alice", scope="tools:exec"), mode="2026-07-28") as (alice, _), \
                session_of(url, mint("mallory", scope="tools:exec"), mode="2026-07-28") as (mallory, _):
            started = await alice.call_tool("waiting_long", {})
            job_id = (started.structured_content or {}).get("job_id")
            assert job_id is not None, text_of(started)
            uri = f"toolbay://jobs/{job_id}/result"
            async with alice.listen(resource_subscriptions=[uri], resources_list_changed=True) as alices, \
                    mallory.listen(resource_subscriptions=[uri], tools_list_changed=True,
                                   resources_list_changed=True) as mallorys, \
                    anyio.create_task_group() as group:
                group.start_soon(hear, "alice", alices)
                group.start_soon(hear, "mallory", mallorys)
                await alice.call_tool("job_cancel", {"job_id": job_id})
                await until(lambda: len(heard["alice"]) == 2)
                (notes / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
                await app.rescan()
                await until(lambda: len(heard["mallory"]) >= 1)  # told to everyone
                group.cancel_scope.cancel()
    assert [(type(event).__name__, getattr(event, "uri", None)) for event in heard["alice"]] == [
        ("ResourceUpdated", uri), ("ResourcesListChanged", None)]
    assert [type(event).__name__ for event in heard["mallory"]] == ["ToolsListChanged"]  # the tool list alone


async def test_refresh_tools_tells_each_session_what_changed_since_it_last_looked(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    """refresh_tools said what its own rescan changed: once another caller's refresh (or the
    watcher) had taken a change in, a session whose client ignores list_changed, the clients the
    tool is there for, was told "No change" of a tool added to its folder, or of the catalog tool
    it had found and that changed; a session that has listed since is told nothing again."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    with anyio.fail_after(60):
        async with _two_sessions(config_dir, tmp_path, mint("alice", scope="tools:exec catalog:vault"),
                                 mint("bob", scope="tools:exec catalog:vault")) as (alice, bob):
            assert names(await search(alice, "open the vault")) == ["vault_open"]
            await listed(alice)
            await listed(bob)
            (notes / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
            (vault / "vault.py").write_text(VAULT_MODULE.replace("Open the vault", "Open the safe"), encoding="utf-8")
            bobs = await bob.call_tool("refresh_tools", {})
            alices = await alice.call_tool("refresh_tools", {})
            alices_again = await alice.call_tool("refresh_tools", {})
            await listed(bob)
            bobs_after_listing = await bob.call_tool("refresh_tools", {})
    assert bobs.structured_content == {"added": ["memo_add"], "removed": [], "changed": ["vault_open"]}
    assert alices.structured_content == {"added": ["memo_add"], "removed": [], "changed": ["vault_open"]}
    assert "No change" in text_of(alices_again) and "No change" in text_of(bobs_after_listing)
