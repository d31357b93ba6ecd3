"""Catalog folders in every mode, secrets in what disclosure shows, and the words a caller gets
for a name it cannot see: small folders of Python tools, the SDK's own client in memory."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import Result
from mcp import Client
from typer.testing import CliRunner

from tests.disclosure.test_search_first import listed, names, search
from tests.reload.conftest import ListChanged
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.cli import app as cli_app
from toolbay.config import Settings, load_settings
from toolbay.errors import ConfigError
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio

WAIT_S = 180
GITHUB_TOKEN = "ghp_" + "A" * 28 + "1234"
STRIPE_KEY = "sk-live-" + "Z" * 20 + "9999"
runner = CliRunner()

CONNECTED_MODULE = '''
def get_tool_schemas():
    return [{"name": "notes_add", "description": "Add a note to the notebook",
             "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]

def dispatch(name, arguments):
    return "added"
'''

VAULT_MODULE = f'''
def get_tool_schemas():
    return [{{"name": "vault_open", "description": "Open the vault with key {GITHUB_TOKEN}",
              "input_schema": {{"type": "object", "properties": {{
                  "pin": {{"type": "string", "description": "defaults to {STRIPE_KEY}"}}}}}}}}]

def dispatch(name, arguments):
    return "opened"
'''


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """(connected, catalog) folders of one Python tool each; the catalog's holds secrets."""
    connected, catalog = tmp_path / "notes", tmp_path / "vault"
    connected.mkdir()
    catalog.mkdir()
    (connected / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    (catalog / "vault.py").write_text(VAULT_MODULE, encoding="utf-8")
    return connected, catalog


@asynccontextmanager
async def serving(folders: tuple[Path, Path], data_dir: Path, **disclosure: Any) -> AsyncIterator[Toolbay]:
    connected, catalog = folders
    settings = load_settings(None, extensions=[connected, catalog], agents=[], data_dir=data_dir)
    settings = settings.model_copy(update={
        "disclosure": settings.disclosure.model_copy(update={"catalog": [catalog], **disclosure})})
    async with assemble(settings, watch=False) as app:
        yield app


@pytest.mark.parametrize("mode", ["full", "auto"])
async def test_a_catalog_folder_is_never_listed_until_found_whatever_the_mode(
        folders: tuple[Path, Path], tmp_path: Path, mode: str) -> None:
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", mode=mode) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=changed) as client:
            before = await listed(client)
            seen = changed.count
            found = await search(client, "open the vault")
            await changed.after(seen)  # the catalog tool joins this session's listing
            after = await listed(client)
    assert "notes_add" in before and "properties" in before["notes_add"].input_schema  # connected: in full
    assert "vault_open" not in before
    assert names(found) == ["vault_open"]
    assert "pin" in after["vault_open"].input_schema["properties"]


async def test_what_disclosure_shows_of_a_tool_carries_no_secret_and_a_secret_finds_nothing(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", mode="search-first") as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            by_secret = await search(client, "Z" * 20 + "9999")
            by_other_secret = await search(client, "A" * 28 + "1234")
            found = await search(client, "open the vault")
            promoted = await listed(client)
    assert "vault_open" not in names(by_secret) and "vault_open" not in names(by_other_secret)
    shown = [json.dumps(found["results"][0]), promoted["vault_open"].model_dump_json()]
    for text in shown:
        assert "vault" in text and "[REDACTED]" in text
        assert GITHUB_TOKEN not in text and STRIPE_KEY not in text


async def test_an_unknown_name_sends_a_search_first_caller_to_the_search(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", mode="search-first") as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            unknown = await client.call_tool("vault_opne", {})
    assert unknown.is_error
    text = unknown.content[0].text  # type: ignore[union-attr]
    assert "There is no tool named 'vault_opne'" in text and "call search_tools to find" in text
    assert "vault_open" in text  # a close spelling of a tool it may find


async def test_an_unknown_name_is_never_answered_with_a_catalog_tool_the_caller_may_not_search(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    """search_tools answers no match for it, and the close spellings named it (an outside
    re-check's finding: `slack_updat` answered "closest names: slack_update")."""
    with anyio.fail_after(WAIT_S):
        async with serving(folders, tmp_path / "data", mode="search-first", catalog_allow=[]) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            unknown = await client.call_tool("vault_opne", {})
            near_connected = await client.call_tool("notes_ad", {})
    assert unknown.is_error and "vault_open" not in unknown.content[0].text  # type: ignore[union-attr]
    assert "notes_add" in near_connected.content[0].text  # type: ignore[union-attr]


def test_a_catalog_folder_that_is_not_an_extension_folder_is_refused_by_name(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    connected, catalog = folders
    with pytest.raises(ConfigError, match=r"\[disclosure\] catalog: .*vaultt is not one of the extension folders"):
        load_settings(None, extensions=[connected, catalog], data_dir=tmp_path / "data",
                      disclosure={"catalog": [str(catalog) + "t"]})


def toolbay_in(folder: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> Result:
    """``toolbay ARGV`` run from ``folder``, whose toolbay.toml it reads: typer's command, as
    ``python -m toolbay ARGV`` runs it, here in this process (what these tests check is what the
    command prints, not how a process of its own starts or ends: each was ~0.5 s of CPU)."""
    monkeypatch.chdir(folder)
    return runner.invoke(cli_app, list(argv), env={"COLUMNS": "200"})


def test_toolbay_search_answers_as_search_tools_does_allowlist_and_redaction_included(
        folders: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    connected, catalog = folders

    def toolbay_search(*allow: str, as_json: bool = True) -> Any:
        (tmp_path / "toolbay.toml").write_text(
            f'extensions = ["{connected}", "{catalog}"]\nagents = []\ndata_dir = "data"\n'
            f'[disclosure]\ncatalog = ["{catalog}"]\ncatalog_allow = {json.dumps(list(allow))}\n', encoding="utf-8")
        done = toolbay_in(tmp_path, monkeypatch, "search", "open the vault", *(["--json"] if as_json else []))
        assert done.exit_code == 0, done.output
        return json.loads(done.stdout) if as_json else done.stdout

    hidden, allowed = toolbay_search(), toolbay_search("vault")
    assert hidden["no_match"] and hidden["results"] == []
    assert [result["name"] for result in allowed["results"]] == ["vault_open"]
    # The table shows the description, as redacted as search_tools shows it (the --json line
    # carries names and scores only).
    assert "Open the vault with key [REDACTED]" in toolbay_search("vault", as_json=False)


async def test_a_keyword_that_looks_like_a_secret_is_neither_shown_nor_searched(tmp_path: Path) -> None:
    from tests.disclosure.conftest import help_module

    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "kwtool.wasm").write_bytes(help_module(
        "Usage: kwtool [OPTIONS] <FILE>\nCompress the archive with the zanzibar codec.\n"
        f"Keywords: zanzibar, {GITHUB_TOKEN}\n\nOptions:\n  -l, --level <N>  Compression level [default: 3]\n"))
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data")
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(update={"mode": "full"})})
    async with assemble(settings, watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        listed_tools = await listed(client)
        by_secret = await search(client, GITHUB_TOKEN)
        by_word = await search(client, "zanzibar")
    shown = listed_tools["kwtool"].model_dump_json()
    assert "zanzibar" in shown and GITHUB_TOKEN not in shown
    assert "kwtool" not in names(by_secret) and names(by_word) == ["kwtool"]


async def test_a_tool_found_in_one_file_is_not_listed_when_another_file_serves_its_name(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    connected, catalog = folders
    async with serving(folders, tmp_path / "data", mode="search-first") as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        assert names(await search(client, "add a note to the notebook")) == ["notes_add"]
        assert "properties" in (await listed(client))["notes_add"].input_schema  # found: in full
        (connected / "notes.py").unlink()
        (catalog / "notes.py").write_text(CONNECTED_MODULE.replace("Add a note", "Internal: add a note"),
                                          encoding="utf-8")
        await app.rescan()
        after = await listed(client)
    assert "notes_add" not in after  # a catalog tool of that name, which this session never found


def test_toolbay_call_of_a_misspelt_name_names_no_catalog_tool_the_local_caller_may_not_search(
        folders: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # It suggested every described tool; served over MCP the same caller is told none of them.
    connected, catalog = folders

    def toolbay_call(name: str, *allow: str) -> str:
        (tmp_path / "toolbay.toml").write_text(
            f'extensions = ["{connected}", "{catalog}"]\nagents = []\ndata_dir = "data"\n'
            f'[disclosure]\ncatalog = ["{catalog}"]\ncatalog_allow = {json.dumps(list(allow))}\n', encoding="utf-8")
        done = toolbay_in(tmp_path, monkeypatch, "call", name)
        assert done.exit_code == 2, done.output
        return done.stderr

    assert "vault_open" not in toolbay_call("vault_opn")
    assert "closest names: vault_open" in toolbay_call("vault_opn", "vault")


async def test_a_catalog_tool_never_hides_the_connected_tool_of_its_name_whatever_the_folders_order(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    # With the catalog folder named first, its tool took the name: a caller who may not search
    # that folder (an empty allowlist) lost the connected tool, and calling it ran the catalog's.
    connected, catalog = folders
    (catalog / "notes.py").write_text(
        CONNECTED_MODULE.replace("Add a note", "Internal: add a note").replace('"added"', '"added internally"'),
        encoding="utf-8")
    settings = load_settings(None, extensions=[catalog, connected], agents=[], data_dir=tmp_path / "data")
    settings = settings.model_copy(update={"disclosure": settings.disclosure.model_copy(
        update={"catalog": [catalog], "catalog_allow": [], "mode": "full"})})
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            shown = await listed(client)
            called = await client.call_tool("notes_add", {"text": "x"})
            kept = app.catalog.current.get("notes_add")
    assert shown["notes_add"].description == "Add a note to the notebook"
    assert not called.is_error and called.content[0].text == "added"  # type: ignore[union-attr]
    assert kept is not None and kept.definition.origin.endswith(str(connected / "notes.py"))
    assert any("keeping the one from" in note and str(connected / "notes.py") in note
               for note in app.catalog.current.diagnostics)


def test_two_catalog_folders_of_one_name_are_refused_naming_both(tmp_path: Path) -> None:
    """The allowlist and catalog:PATTERN scopes name a catalog folder by its name: with x/tools
    and y/tools both catalog folders, allowing "tools" opened both, and nothing said so."""
    first, second = tmp_path / "x" / "tools", tmp_path / "y" / "tools"
    for folder in (first, second):
        folder.mkdir(parents=True)
    with pytest.raises(ConfigError, match=rf"catalog: {first} and {second} are both named 'tools'"):
        load_settings(None, extensions=[first, second], data_dir=tmp_path / "data",
                      disclosure={"catalog": [str(first), str(second)], "catalog_allow": ["tools"]})
    # The same folder named twice, or two connected folders of one name, are no clash.
    load_settings(None, extensions=[first, second], data_dir=tmp_path / "data",
                  disclosure={"catalog": [str(first), str(first)]})
    load_settings(None, extensions=[first, second], data_dir=tmp_path / "data")


CREDENTIAL_MODULE = '''
def get_tool_schemas():
    return [{"name": "walrus_ping", "description": "Pings the walrus service (it logs in with moonbeam42)",
             "input_schema": {"type": "object", "properties": {
                 "user": {"type": "string", "description": "who logs in; the default moonbeam42 is kept"}}}},
            # Joined to words by "_" or camelCase, or in capitals, as search reads them apart.
            {"name": "walrus_env", "description": "Reads MOONBEAM42, moonbeam42_prod and staging_moonbeam42Key"}]

def dispatch(name, arguments):
    return "pong"
'''


async def test_a_configured_credentials_value_is_blotted_out_of_listings_and_search(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit log blotted out [credentials] values, but a tool's description or schema that
    held one was listed, found and shown as written, and a search for the value found it."""
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "walrus.py").write_text(CREDENTIAL_MODULE, encoding="utf-8")
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data",
                             credentials={"walrus": {"tools": ["walrus_*"], "api_key": "moonbeam42"}},
                             disclosure={"mode": "full"})
    async with assemble(settings, watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        shown = (await listed(client))["walrus_ping"].model_dump_json()
        joined = (await listed(client))["walrus_env"].model_dump_json()
        by_value = [await search(client, value) for value in ("moonbeam42", "MOONBEAM42")]
        by_words = await search(client, "ping the walrus service")
    assert "moonbeam42" not in shown and shown.count("[credential redacted]") == 2, shown
    assert "moonbeam42" not in joined.lower() and joined.count("[credential redacted]") == 3, joined
    assert all(not {"walrus_ping", "walrus_env"} & set(names(found)) for found in by_value), by_value
    assert names(by_words)[0] == "walrus_ping" and "moonbeam42" not in json.dumps(by_words, default=str)
    (tmp_path / "toolbay.toml").write_text(
        f'extensions = ["{folder}"]\nagents = []\ndata_dir = "data"\n'
        '[credentials.walrus]\ntools = ["walrus_*"]\napi_key = "moonbeam42"\n', encoding="utf-8")
    # toolbay search's table shows the descriptions (its --json line carries names and scores only).
    for command in (["list", "--json"], ["search", "walrus service"]):
        # In a thread: the command runs an event loop of its own, as it does in its own process.
        done = await anyio.to_thread.run_sync(toolbay_in, tmp_path, monkeypatch, *command)
        assert done.exit_code == 0 and "walrus_ping" in done.stdout, done.output
        assert "moonbeam42" not in done.stdout and "[credential redacted]" in done.stdout, done.stdout


async def test_a_file_or_tool_named_like_a_secret_is_not_served(tmp_path: Path) -> None:
    """A property so named was refused, since a name is shown to every client and cannot be
    hidden; a tool so named was served, listed and found by the secret itself."""
    folder = tmp_path / "tools"
    folder.mkdir()
    tool = '''
def get_tool_schemas():
    return [{"name": NAME, "description": "Heron tool"}, {"name": MODULE + "_ok", "description": "Egret tool"}]

def dispatch(name, arguments):
    return "x"
'''
    (folder / f"{GITHUB_TOKEN}.py").write_text(f"NAME = {GITHUB_TOKEN!r}\nMODULE = {GITHUB_TOKEN!r}\n" + tool)
    (folder / "heron.py").write_text(f"NAME = 'heron_{GITHUB_TOKEN}'\nMODULE = 'heron'\n" + tool)
    # Words after a token's prefix are a name (a re-check: these were refused too)
    (folder / "tb.py").write_text("NAME = 'tb_database_migrate_v2'\nMODULE = 'tb'\n" + tool)
    (folder / "xoxb.py").write_text("NAME = 'xoxb_SlackMessagePoster'\nMODULE = 'xoxb'\n" + tool)  # camelCase: words
    (folder / "AKIAJXQZRWPLMNBVCTYU.py").write_text("NAME = MODULE = 'AKIAJXQZRWPLMNBVCTYU'\n" + tool)  # no digit
    (folder / "sk-learn-classifier.py").write_text("NAME = 'sk-learn-classifier'\nMODULE = 'sk-learn-classifier'\n"
                                                   + tool)
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data")
    async with assemble(settings, watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        served = set(await listed(client))
        found = names(await search(client, GITHUB_TOKEN))
        skipped = {Path(s.path).name: s.reason for s in app.keeper.skipped_files}
        notes = " ".join(app.keeper.notes())
    assert "heron_ok" in served and not [name for name in served if GITHUB_TOKEN in name]
    assert {"tb_database_migrate_v2", "tb_ok", "sk-learn-classifier", "sk-learn-classifier_ok",
            "xoxb_SlackMessagePoster"} <= served
    assert found == []
    assert "looks like a secret" in skipped[f"{GITHUB_TOKEN}.py"] and GITHUB_TOKEN not in skipped[f"{GITHUB_TOKEN}.py"]
    assert "looks like a secret" in skipped["AKIAJXQZRWPLMNBVCTYU.py"]
    assert "'heron_[REDACTED]' looks like a secret itself" in notes and GITHUB_TOKEN not in notes


SHAPE_MODULE = '''
def get_tool_schemas():
    return [{"name": "walrus_go", "description": "Give the user as a string; jsonkit style. On branch main. "
                                                 "Log in with token=moonbeam42 or pin=moonbeam42.",
             "input_schema": {"type": "object", "required": ["user"], "properties": {
                 "user": {"type": "string", "description": "the user, a string", "examples": ["user", "bob"]},
                 "mode": {"type": "string", "enum": ["fast", "user"]},
                 "account": {"type": "string", "default": "moonbeam42", "x-note": "moonbeam42 is ours",
                             "examples": [{"as": "moonbeam42"}]}}}},
            {"name": "walrus_region", "description": "Says the region; the usual one is northpole77."}]

def dispatch(name, arguments):
    from toolbay_tools import get_credential

    if name == "walrus_region":
        return "region is " + get_credential("walrus", key="region", env_var="WX_REGION")
    return "hello " + arguments["user"]
'''

ROLE = '''---
name: walrus-helper
description: Helps with the walrus service; logs in as moonbeam42 by default.
arguments:
  - name: account
    description: Account to use (default moonbeam42).
tools: [walrus_go]
---
Use the account {{account}}, or moonbeam42.
'''


async def test_a_credentials_value_is_blotted_out_of_prose_alone_and_only_as_a_word_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values equal to a type ("string"), a property's name or an enum value ("user") made the
    schema one no call could satisfy; "json" took the start of "jsonkit"; every WALRUS_* variable
    was taken for one (GITHUB_REF_TYPE=branch on a CI runner); prompts showed them; a value read
    from a variable at the call stayed shown. (A re-check of this session's blotting.)"""
    folder, roles = tmp_path / "tools", tmp_path / "agents"
    folder.mkdir()
    roles.mkdir()
    (folder / "walrus.py").write_text(SHAPE_MODULE, encoding="utf-8")
    (roles / "walrus-helper.md").write_text(ROLE, encoding="utf-8")
    monkeypatch.setenv("WALRUS_REF_TYPE", "branch")  # a WALRUS_ variable no key of it names
    monkeypatch.setenv("WX_REGION", "northpole77")  # read by the tool, at its call, by this name
    settings = load_settings(None, extensions=[folder], agents=[roles], data_dir=tmp_path / "data",
                             credentials={"walrus": {"tools": ["walrus_*"], "api_key": "string", "token": "user",
                                                     "other": "json", "pin": "moonbeam42"}},
                             disclosure={"mode": "full"})
    async with assemble(settings, watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        tools = await listed(client)
        called = await client.call_tool("walrus_go", {"user": "bob", "mode": "user"})
        prompt = (await client.list_prompts()).prompts[0]
        got = await client.get_prompt("walrus-helper", {"account": "moonbeam42"})
        delegated = await client.call_tool("agent_walrus_helper", {"task": "check the service", "account": "y"})
        before = tools["walrus_region"].description
        found_before = names(await search(client, "northpole77"))
        read = await client.call_tool("walrus_region", {})
        after = (await listed(client))["walrus_region"].description
        found_after = names(await search(client, "northpole77"))
    schema = tools["walrus_go"].input_schema
    assert schema["required"] == ["user"] and list(schema["properties"]) == ["user", "mode", "account"]
    assert schema["properties"]["user"]["type"] == "string" and schema["properties"]["mode"]["enum"] == ["fast", "user"]
    assert schema["properties"]["user"]["description"] == "the [credential redacted], a [credential redacted]"
    assert schema["properties"]["user"]["examples"] == ["[credential redacted]", "bob"]
    assert tools["walrus_go"].description == ("Give the [credential redacted] as a [credential redacted]; jsonkit "
                                              "style. On branch main. Log in with token=[REDACTED] or "
                                              "pin=[credential redacted].")
    # What describes a value, not what a call must match: every string in it
    assert "moonbeam42" not in json.dumps(schema["properties"]["account"])
    assert not called.is_error, called
    assert "moonbeam42" not in prompt.model_dump_json() and "[credential redacted]" in prompt.description
    # The caller's own argument is kept as given; the role's own text is blotted, delegated too
    assert got.messages[0].content.text.startswith("Use the account moonbeam42, or [credential redacted].")
    delegated_text = json.dumps([block.model_dump() for block in delegated.content] + [delegated.structured_content])
    assert not delegated.is_error and "Use the account y, or [credential redacted]." in delegated_text
    assert "moonbeam42" not in delegated_text
    assert "northpole77" in before and found_before == ["walrus_region"]  # no key names it until it is read
    assert not read.is_error and "northpole77" not in after and found_after == []


def test_the_blot_leaves_what_a_call_must_match_and_a_roles_placeholders_alone() -> None:
    """A value equal to a name still changed what the schema asks (dependentRequired's names,
    an enum's objects), and one equal to a role argument's name blotted its placeholder and the
    caller's value with it (a third re-check)."""
    from toolbay.redaction import credential_blot, redacted
    from toolbay.subagents.roles import parse_role
    from toolbay.words import ToolDefinition

    schema = {"type": "object", "properties": {"user": {"type": "string"}, "x-user-id": {"type": "string"}},
              "dependentRequired": {"x-user-id": ["user"]}, "dependencies": {"default": ["user"]},
              "anyOf": [{"enum": [{"title": "user"}]}, {"const": {"description": "moonbeam42"}}]}
    shown = redacted(ToolDefinition(name="w", description="the user moonbeam42", input_schema=schema),
                     {"user", "moonbeam42"})
    assert shown.input_schema == schema
    assert shown.description == "the [credential redacted] [credential redacted]"
    role = parse_role("r.md", ROLE.replace("Use the account {{account}}",
                                           "Use the account {{ account }} and {{account}}"))
    rendered = role.render({"account": "y"}, credential_blot({"account", "moonbeam42"}))
    assert rendered.startswith("Use the [credential redacted] y and y, or [credential redacted].")


def test_the_blot_finds_a_value_written_as_search_reads_it_and_keeps_defaults_callable() -> None:
    """A value with an invisible character inside, in full-width letters, with its accents apart
    or in capitals before a capitalised word was shown, yet search found it; a default blotted no
    longer fitted its own enum or pattern (a re-check)."""
    from toolbay.redaction import credential_blot, redacted
    from toolbay.words import ToolDefinition

    blot = credential_blot({"moonbeam42", "MOONBEAM", "passwörd77"})
    wide = "\uff2d\uff2f\uff2f\uff2e\uff22\uff25\uff21\uff2d\uff14\uff12"  # MOONBEAM42 in full-width letters
    hidden = "[credential redacted]"
    assert blot(f"moon\u200bbeam42, moon\u00adbeam42 and {wide}") == f"{hidden}, {hidden} and {hidden}"
    assert blot("passwo\u0308rd77 in café; MOONBEAMServer") == f"{hidden} in café; {hidden}Server"
    assert blot("moonbeamish and jsonkit") == "moonbeamish and jsonkit"
    assert blot("STRASSE99 and Strasse99") == "STRASSE99 and Strasse99"
    assert credential_blot({"Straße99"})("STRASSE99 and Strasse99") == f"{hidden} and {hidden}"  # as search reads them
    # Each form is read by search as the value itself, and is blotted.
    from toolbay.search.tokens import tokenize

    for value, form in [("moonbeam42", "moon\u200bbeam42"), ("moonbeam42", wide), ("passwörd77", "passwo\u0308rd77"),
                        ("Straße99", "Strasse99"), ("Łódź77x", "lodz77x"), ("Œuvre12", "oeuvre12")]:
        assert tokenize(form) == tokenize(value), (value, form)
        assert credential_blot({value})(form) == hidden, (value, form)
    schema = {"type": "object", "properties": {
        "mode": {"type": "string", "enum": ["moonbeam42_prod", "dev"], "default": "moonbeam42_prod"},
        "name": {"type": "string", "pattern": "^[a-z0-9_]+$", "default": "moonbeam42_fast"},
        "note": {"type": "string", "default": "uses moonbeam42"}}}
    shown = redacted(ToolDefinition(name="w", description="d", input_schema=schema), {"moonbeam42"}).input_schema
    assert shown["properties"]["mode"] == schema["properties"]["mode"]  # the enum shows it anyway
    assert "default" not in shown["properties"]["name"]
    assert shown["properties"]["note"]["default"] == "uses [credential redacted]"


async def _catalog_searched_not_listed(settings: Settings) -> None:
    """The catalog folder's vault_open is found by search and not listed; the connected notes_add is listed."""
    with anyio.fail_after(WAIT_S):
        async with assemble(settings, watch=False) as app, \
                Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            shown = set(await listed(client))
            found = names(await search(client, "open the vault"))
    assert "notes_add" in shown and "vault_open" not in shown
    assert "vault_open" in found


@pytest.mark.parametrize("linked", ["extensions", "catalog"])
async def test_a_catalog_folder_named_through_a_link_where_extensions_name_it_otherwise_stays_hidden(
        folders: tuple[Path, Path], tmp_path: Path, linked: str) -> None:
    """The names of a TOML file are kept as written (a link in them followed when re-pointed):
    `extensions = ["current"]` and `catalog = ["releases/8"]`, one folder, no longer met, and
    the server refused to start (a re-check). One folder it is, its tools searched, not listed."""
    connected, catalog = folders
    link = tmp_path / "current"
    link.symlink_to(catalog)
    named_in_extensions, named_in_catalog = (link, catalog) if linked == "extensions" else (catalog, link)
    config = tmp_path / "toolbay.toml"
    config.write_text(f'extensions = ["{connected}", "{named_in_extensions}"]\nagents = []\ndata_dir = "data"\n'
                      f'[disclosure]\nmode = "full"\ncatalog = ["{named_in_catalog}"]\ncatalog_allow = ["*"]\n',
                      encoding="utf-8")
    settings = load_settings(config)
    assert [str(folder) for folder in settings.disclosure.catalog] == [str(named_in_extensions)]
    await _catalog_searched_not_listed(settings)


@pytest.mark.parametrize("catalog_named", ["by its own path", "through the link"])
async def test_a_catalog_folder_the_extensions_name_both_through_a_link_and_by_its_path_stays_hidden(
        folders: tuple[Path, Path], tmp_path: Path, catalog_named: str) -> None:
    """`extensions = ["current", "releases/8"]` with `current -> releases/8` and `catalog =
    ["releases/8"]`: the scan took the folder by its first name, which is no catalog's, and its
    tools were listed (a re-check). Taken by the catalog's name, they are searched, not listed."""
    connected, catalog = folders
    link = tmp_path / "current"
    link.symlink_to(catalog)
    hidden = catalog if catalog_named == "by its own path" else link
    config = tmp_path / "toolbay.toml"
    config.write_text(f'extensions = ["{connected}", "{link}", "{catalog}"]\nagents = []\ndata_dir = "data"\n'
                      f'[disclosure]\nmode = "full"\ncatalog = ["{hidden}"]\ncatalog_allow = ["*"]\n',
                      encoding="utf-8")
    settings = load_settings(config)
    await _catalog_searched_not_listed(settings)
