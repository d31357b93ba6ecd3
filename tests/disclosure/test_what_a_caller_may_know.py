"""No path tells a caller of a tool it may not find: delegations, refresh_tools, the search tool's
own description; a folder named inside a catalog folder; promotions that outlive their file or
the caller's right to find them; notifications for listings that did not change.

Small folders of Python tools (a connected one and a catalog one holding secrets), the SDK's
own client in memory."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.extension import advertise

from tests.disclosure.test_catalog_folders import (
    CONNECTED_MODULE,
    GITHUB_TOKEN,
    STRIPE_KEY,
    VAULT_MODULE,
    WAIT_S,
)
from tests.disclosure.test_search_first import listed, names, search
from tests.reload.conftest import ListChanged
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio

ROLE = """---
name: keeper
description: Looks after what it is given.
tools: [notes_*, vault_*]
---
You keep things.
"""


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(connected, catalog, agents): a notes tool, a vault tool with secrets, a role naming both."""
    connected, catalog, agents = tmp_path / "notes", tmp_path / "vault", tmp_path / "agents"
    for folder in (connected, catalog, agents):
        folder.mkdir()
    (connected / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    (catalog / "vault.py").write_text(VAULT_MODULE, encoding="utf-8")
    (agents / "keeper.md").write_text(ROLE, encoding="utf-8")
    return connected, catalog, agents


@asynccontextmanager
async def serving(folders: tuple[Path, Path, Path], data_dir: Path, *, access: dict[str, Any] | None = None,
                  rate_limits: dict[str, Any] | None = None,
                  **disclosure: Any) -> AsyncIterator[tuple[Toolbay, Client]]:
    connected, catalog, agents = folders
    chain: dict[str, Any] = {"access": access} if access else {}
    if rate_limits:
        chain["rate_limits"] = rate_limits
    settings = load_settings(None, extensions=[connected, catalog], agents=[agents], data_dir=data_dir,
                             disclosure={"catalog": [str(catalog)], **disclosure}, chain=chain)
    changed = ListChanged()
    async with assemble(settings, watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=changed,
                   extensions=[advertise("toolbay/subagents", {"version": 1})]) as client:
        client.list_changed = changed  # type: ignore[attr-defined]
        yield app, client


async def test_a_delegation_is_offered_no_catalog_tool_its_caller_cannot_find_and_no_secret(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    offered: dict[str, list[dict[str, Any]]] = {}
    with anyio.fail_after(WAIT_S):
        for allow in ([], ["vault"]):
            async with serving(folders, tmp_path / "data", catalog_allow=allow) as (_, client):
                result = await client.call_tool("agent_keeper", {"task": "open the vault"})
            assert not result.is_error, result
            offered[json.dumps(allow)] = (result.meta or {})["_subagent"]["tools"]
    assert [tool["name"] for tool in offered["[]"]] == ["notes_add"]
    allowed = offered['["vault"]']
    assert [tool["name"] for tool in allowed] == ["notes_add", "vault_open"]
    envelope = json.dumps(allowed)
    assert GITHUB_TOKEN not in envelope and STRIPE_KEY not in envelope and "[REDACTED]" in envelope


async def test_refresh_tools_names_only_the_changes_the_caller_may_know_of(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    connected, catalog, _ = folders
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=[]) as (_, client):
            (connected / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
            (catalog / "safe.py").write_text(VAULT_MODULE.replace("vault_open", "safe_open"), encoding="utf-8")
            added = await client.call_tool("refresh_tools", {})
            (connected / "memo.py").unlink()
            (catalog / "safe.py").unlink()
            removed = await client.call_tool("refresh_tools", {})
            # Into the catalog folder it may not search, and back: gone for it, then new to it.
            shutil.move(connected / "notes.py", catalog / "notes.py")
            hidden = await client.call_tool("refresh_tools", {})
            shutil.move(catalog / "notes.py", connected / "notes.py")
            back = await client.call_tool("refresh_tools", {})
    assert added.structured_content == {"added": ["memo_add"], "removed": [], "changed": []}
    assert removed.structured_content == {"added": [], "removed": ["memo_add"], "changed": []}
    assert hidden.structured_content == {"added": [], "removed": ["notes_add"], "changed": []}
    assert back.structured_content == {"added": ["notes_add"], "removed": [], "changed": []}
    for result in (added, removed):
        assert "safe_open" not in result.content[0].text  # type: ignore[union-attr]


async def test_a_connected_folder_named_inside_a_catalog_folder_stays_connected(tmp_path: Path) -> None:
    catalog = tmp_path / "cat"
    inner = catalog / "sub"
    inner.mkdir(parents=True)
    (catalog / "vault.py").write_text(VAULT_MODULE, encoding="utf-8")
    (inner / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    settings = load_settings(None, extensions=[catalog, inner], agents=[], data_dir=tmp_path / "data",
                             disclosure={"catalog": [str(catalog)], "catalog_allow": [], "mode": "full"})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            tools = await listed(client)
            found = await search(client, "add a note")
            hidden = await search(client, "open the vault")
    assert "notes_add" in tools and "vault_open" not in tools
    assert names(found) == ["notes_add"] and hidden["no_match"]


async def test_a_promotion_ends_with_the_file_it_was_found_in(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    connected, catalog, _ = folders
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=["vault"], mode="search-first") as (app, client):
            assert names(await search(client, "open the vault")) == ["vault_open"]
            assert "vault_open" in await listed(client)
            shutil.move(catalog / "vault.py", tmp_path / "vault.py")
            await app.rescan()
            assert "vault_open" not in await listed(client)
            shutil.move(tmp_path / "vault.py", catalog / "vault.py")
            await app.rescan()
            back = await listed(client)
            # Moved to a connected folder and back (a change of the tool's file, not a removal).
            assert names(await search(client, "open the vault")) == ["vault_open"]
            shutil.move(catalog / "vault.py", connected / "vault.py")
            await app.rescan()
            shutil.move(connected / "vault.py", catalog / "vault.py")
            await app.rescan()
            moved_back = await listed(client)
    assert "vault_open" not in back  # back in the folder, but not found again by this session
    assert "vault_open" not in moved_back


@pytest.mark.parametrize("allow", [[], ["vault"]])
async def test_an_essential_pattern_lists_a_catalog_tool_only_to_a_caller_that_may_search_its_folder(
        folders: tuple[Path, Path, Path], tmp_path: Path, allow: list[str]) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=allow, essential=["vault_*"],
                           mode="search-first") as (_, client):
            tools = await listed(client)
    assert ("vault_open" in tools) is bool(allow)
    if allow:
        assert "pin" in tools["vault_open"].input_schema["properties"]  # essential: in full


async def test_finding_a_tool_listed_in_full_already_tells_the_session_nothing(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", mode="search-first", essential=["vault_*"],
                           catalog_allow=["vault"]) as (_, client):
            changed: Any = client.list_changed  # type: ignore[attr-defined]
            seen = changed.count
            # A catalog tool named essential, to a caller that may search its folder: in full.
            assert names(await search(client, "vault_open")) == ["vault_open"]
            assert names(await search(client, "refresh_tools")) == ["refresh_tools"]
            assert names(await search(client, "job_list")) == ["job_list"]
            # A connected tool is listed without its schema until found: that is a change.
            assert names(await search(client, "add a note to the notebook")) == ["notes_add"]
            await changed.after(seen)
    # Notifications arrive in the order they were sent: the first three searches sent none.
    assert changed.count == seen + 1


async def test_the_search_tool_names_only_left_out_folders_holding_tools_the_caller_may_use(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    descriptions = {}
    with anyio.fail_after(WAIT_S):
        for deny in ([], ["notes_*"]):
            # A budget no folder fits in: the connected folder is left to the search.
            async with serving(folders, tmp_path / "data", access={"deny": deny}, mode="search-first",
                               connected_budget=1) as (_, client):
                descriptions[bool(deny)] = (await listed(client))["search_tools"].description
    assert "the tools of notes (1 tool)" in descriptions[False]
    assert "notes" not in descriptions[True].split("Not listed")[-1] and "Not listed" not in descriptions[True]



async def test_what_a_caller_may_not_find_moves_neither_its_scores_nor_its_no_match(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A hidden tool's words used to count in every caller's scores: searching "add a note to
    the vault" scored notes_add lower while vault_open existed, and a request only it answered
    was "no match" rather than the best of the rest, telling the caller what it contains."""
    _, catalog, _ = folders
    queries = ["add a note to the vault", "open the vault with a key", "vault", "notebook key pin"]
    answers = []
    with anyio.fail_after(WAIT_S):
        for hidden_tool_there in (True, False):
            if not hidden_tool_there:
                (catalog / "vault.py").unlink()
            async with serving(folders, tmp_path / "data", catalog_allow=[]) as (_, client):
                answers.append([await search(client, query) for query in queries])
    with_hidden, without = answers
    assert with_hidden == without
    assert names(with_hidden[0]) == ["notes_add"]


async def test_a_role_s_secret_is_hidden_in_prompts_as_in_tools(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """prompts/list showed in clear what tools/list showed as [REDACTED] (the agent_ tool's), and
    the role prompt itself went out in clear (prompts/get, the _subagent envelope)."""
    _, _, agents = folders
    (agents / "leaky.md").write_text(
        f"---\nname: leaky\ndescription: Deploys with key {GITHUB_TOKEN}.\narguments:\n"
        f"  - name: target\n    description: defaults to {STRIPE_KEY}\n---\n"
        f"You deploy {{{{target}}}} with the token {GITHUB_TOKEN}.\n", encoding="utf-8")
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data") as (_, client):
            prompts = await client.list_prompts()
            prompt = await client.get_prompt("leaky", {"target": "staging"})
            tools = await listed(client)
            delegated = await client.call_tool("agent_leaky", {"task": "deploy", "target": "staging"})
    envelope = (delegated.meta or {})["_subagent"]
    shown = [next(p for p in prompts.prompts if p.name == "leaky").model_dump_json(), prompt.model_dump_json(),
             tools["agent_leaky"].model_dump_json(), json.dumps(envelope)]
    for text in shown:
        assert GITHUB_TOKEN not in text and STRIPE_KEY not in text
    assert "[REDACTED]" in shown[0] and "[REDACTED]" in shown[1]
    assert "You deploy staging with the token [REDACTED]." in prompt.messages[0].content.text
    assert "You deploy staging with the token [REDACTED]." in envelope["prompt"]


async def test_a_delegation_is_offered_the_caller_s_own_personal_tools(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    import getpass

    people = tmp_path / "people"
    mine = people / getpass.getuser()  # the local caller, as the server names it
    mine.mkdir(parents=True)
    (mine / "notes_mine.py").write_text(CONNECTED_MODULE.replace("notes_add", "notes_mine"), encoding="utf-8")
    connected, catalog, agents = folders
    settings = load_settings(None, extensions=[connected, catalog], agents=[agents], data_dir=tmp_path / "data",
                             python={"personal_dir": f"{people}/{{caller}}"})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy",
                       extensions=[advertise("toolbay/subagents", {"version": 1})]) as client:
            result = await client.call_tool("agent_keeper", {"task": "note it"})
    assert not result.is_error, result
    assert "notes_mine" in [tool["name"] for tool in (result.meta or {})["_subagent"]["tools"]]


async def test_sessions_are_told_of_changes_their_listings_can_show_only(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A tool added to a catalog folder told every session list_changed, though no listing
    shows it: a caller learnt when folders it cannot see change."""
    connected, catalog, _ = folders
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=["vault"]) as (app, client):
            changed: Any = client.list_changed  # type: ignore[attr-defined]
            seen = changed.count
            (catalog / "safe.py").write_text(
                VAULT_MODULE.replace("vault_open", "safe_open").replace("the vault", "the safe"), encoding="utf-8")
            await app.rescan()  # a catalog tool nobody found: nothing to tell
            (connected / "memo.py").write_text(CONNECTED_MODULE.replace("notes_add", "memo_add"), encoding="utf-8")
            await app.rescan()  # a connected tool: every listing shows it
            await changed.after(seen)
            assert changed.count == seen + 1  # in order: the catalog change sent none
            assert names(await search(client, "vault_open")) == ["vault_open"]  # found: told (+1)
            await changed.after(seen + 1)
            (catalog / "vault.py").unlink()
            await app.rescan()  # a tool this session found has gone: told
            await changed.after(seen + 2)
    assert changed.count == seen + 3


LOCKER_MODULE = '''
def get_tool_schemas():
    return [{"name": "vault_open", "description": "Open my own locker",
             "input_schema": {"type": "object", "properties": {}}}]

def dispatch(name, arguments):
    return "my locker is open"
'''


async def test_a_caller_s_own_tool_gives_way_only_to_a_tool_it_may_find(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A personal tool named like a catalog tool outside its owner's allowlist was hidden by it:
    neither listed nor called, and create_tool answered that a tool of that name comes first,
    telling the caller of a tool it may not know. Where the caller may find the catalog tool,
    that one still comes first."""
    import getpass

    connected, catalog, agents = folders
    seen: dict[bool, tuple[Any, ...]] = {}
    for allowed in (False, True):
        people = tmp_path / f"people-{allowed}"
        (people / getpass.getuser()).mkdir(parents=True)  # the local caller, as the server names it
        settings = load_settings(None, extensions=[connected, catalog], agents=[agents],
                                 data_dir=tmp_path / f"data-{allowed}",
                                 python={"personal_dir": f"{people}/{{caller}}", "authoring": True},
                                 disclosure={"catalog": [str(catalog)], "catalog_allow": ["vault"] if allowed else []},
                                 chain={"auth": {"local_scopes": ["tools:exec", "tools:create"]}})
        with anyio.fail_after(WAIT_S):
            async with assemble(settings, watch=False) as app, \
                    Client(build_mcp_server(app, "memory"), mode="legacy") as client:
                created = await client.call_tool("create_tool", {"name": "vault", "source": LOCKER_MODULE})
                called = await client.call_tool("vault_open", {})
                found = await search(client, "open the vault")
                shown = await listed(client)
        seen[allowed] = (created, called, found, shown)

    created, called, found, shown = seen[False]
    assert not created.is_error and "hidden" not in created.content[0].text, created
    assert called.content[0].text == "my locker is open"
    assert [(t["name"], t["description"]) for t in found["results"]] == [("vault_open", "Open my own locker")]
    assert shown["vault_open"].description == "Open my own locker"

    created, called, found, shown = seen[True]
    assert created.is_error and "hidden by a tool of the same name" in created.content[0].text, created
    assert called.content[0].text == "opened"
    assert names(found) == ["vault_open"] and "my own locker" not in json.dumps(found)


MY_NOTES_MODULE = '''
TOOL_TIER = "read"

def get_tool_schemas():
    return [{"name": "notes_add", "description": "Add a note to my own pad",
             "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]

def dispatch(name, arguments):
    return "added to my pad"
'''


async def test_a_caller_s_own_tool_is_served_where_the_shared_one_of_its_name_is_not_for_it(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """The caller may use read-tier tools named notes_* only: the connected notes_add (no tier
    declared) is not for it, its own (read) is. Its own gave way all the same, and it had
    neither: its own hidden, the connected one refused."""
    import getpass

    connected, catalog, agents = folders
    people = tmp_path / "people"
    (people / getpass.getuser()).mkdir(parents=True)
    scopes = {"author": {"tiers": ["exec"], "allow": ["create_tool"]},
              "notes": {"tiers": ["read"], "allow": ["notes_*"]}}
    settings = load_settings(None, extensions=[connected, catalog], agents=[agents], data_dir=tmp_path / "data",
                             python={"personal_dir": f"{people}/{{caller}}", "authoring": True},
                             disclosure={"catalog": [str(catalog)]},
                             chain={"auth": {"local_scopes": ["author", "notes", "tools:create"]},
                                    "access": {"scopes": scopes}})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            created = await client.call_tool("create_tool", {"name": "notes", "source": MY_NOTES_MODULE})
            called = await client.call_tool("notes_add", {"text": "x"})
            shown = await listed(client)
    assert not created.is_error and "hidden" not in created.content[0].text, created
    assert called.content[0].text == "added to my pad", called
    assert shown["notes_add"].description == "Add a note to my own pad"


MAIL_MODULE = '''
def get_tool_schemas():
    return [
        {"name": "mail_send", "description": "Send an email message to a recipient",
         "input_schema": {"type": "object", "properties": {"to": {"type": "string"}}}},
        {"name": "mail_archive", "description": "Archive an old message",
         "input_schema": {"type": "object", "properties": {}}},
    ]

def dispatch(name, arguments):
    return name
'''


async def test_only_a_search_s_strong_hits_join_the_listing_and_the_others_answer_by_name(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """Every result joined the session's listing for good: 90 searches grew a search-first
    listing of 10 tools to 211, most of them weak fourth and fifth hits."""
    _, catalog, _ = folders
    (catalog / "mail.py").write_text(MAIL_MODULE, encoding="utf-8")
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=["vault"]) as (_, client):
            found = await search(client, "send an email message to the team")
            shown = await listed(client)
            weak = await client.call_tool("mail_archive", {})
    scores = {hit["name"]: hit["score"] for hit in found["results"]}
    assert list(scores)[:2] == ["mail_send", "mail_archive"] and scores["mail_archive"] < scores["mail_send"] / 2
    assert "mail_send" in shown and "mail_archive" not in shown
    assert not weak.is_error and weak.content[0].text == "mail_archive"


async def test_the_search_tool_is_never_its_own_answer(folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    # A caller that may use only a few tools was answered search_tools for "translate text", by
    # the words of the search tool's own description ("find tools for a task ...").
    query = "find the tools for a task and return their input schema, best first"
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", access={"deny": ["notes_*"]}) as (_, client):
            answer = await search(client, query)
    assert "search_tools" not in names(answer), answer


async def test_the_rate_limits_count_a_tool_the_caller_may_not_find_as_a_name_no_tool_has(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """Counted apart per tool, and named in the refusal, a hidden catalog's tools were told to
    exist: after three made-up names had used up the count of names no tool has, vault_open
    still answered "unknown tool", then "rate limited on tool 'vault_open'" (an outside probe).
    A catalog tool the caller may call by name, though it may not find it, is a tool: counted
    apart and run (the re-check found it refused as a name no tool has)."""
    limits = {"per_caller_tool": "3/minute"}
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=[], rate_limits=limits,
                           access={"deny": ["vault_*"]}) as (_, client):
            made_up = [await client.call_tool(f"nothing_{n}", {}) for n in range(3)]
            hidden = await client.call_tool("vault_open", {})
            visible = [await client.call_tool("notes_add", {"text": "x"}) for _ in range(3)]
        async with serving(folders, tmp_path / "data2", catalog_allow=[], rate_limits=limits) as (_, client):
            for n in range(3):
                await client.call_tool(f"nothing_{n}", {})
            callable_by_name = await client.call_tool("vault_open", {})
    assert all(r.is_error and "There is no tool named" in r.content[0].text for r in made_up)
    # The fourth name the caller may not know shares the made-up names' count, and their words.
    assert hidden.is_error and "vault" not in hidden.content[0].text, hidden.content[0].text
    assert "names no tool has" in hidden.content[0].text, hidden.content[0].text
    assert not any(r.is_error and "rate" in r.content[0].text.lower() for r in visible)  # a count of its own
    assert not callable_by_name.is_error and callable_by_name.content[0].text == "opened"


async def test_a_name_no_tool_has_is_answered_with_close_names_only_of_tools_the_caller_may_know(
        folders: tuple[Path, Path, Path], tmp_path: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", catalog_allow=[], access={"deny": ["vault_*"]}) as (_, client):
            near_hidden = await client.call_tool("vault_opne", {})
            hidden_itself = await client.call_tool("vault_open", {})
            near_visible = await client.call_tool("notes_ad", {})
    assert "closest names: notes_add" in near_visible.content[0].text, near_visible.content[0].text
    for refused in (near_hidden, hidden_itself):
        assert refused.is_error and "There is no tool named" in refused.content[0].text
        assert "vault" not in refused.content[0].text.replace("'vault_opne'", "").replace("'vault_open'", "")
