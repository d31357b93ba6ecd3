"""Core, shared and personal tools over streamable HTTP, with two callers holding their own tokens:
each sees and calls its own personal tools only, a core name always wins, shared wins over
personal, and create_tool / share_tool work only with their own scopes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.chain_e2e.conftest import (  # noqa: F401  (fixtures)
    config_dir,
    connect,
    running,
    signing_key,
    text_of,
    tokens,
)
from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.config import Settings, load_settings

pytestmark = pytest.mark.anyio

def module(name: str, tools: dict[str, str]) -> str:
    """A read-tier module whose tools answer fixed words."""
    schemas = ", ".join(f'{{"name": "{tool}", "description": "Says {word}.", "input_schema": {{"type": "object"}}}}'
                        for tool, word in tools.items())
    functions = "\n".join(f"def {tool}():\n    return {word!r}\n" for tool, word in tools.items())
    return f'TOOL_TIER = "read"\n\n\ndef get_tool_schemas():\n    return [{schemas}]\n\n\n{functions}'


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    shared, people = tmp_path / "shared", tmp_path / "people"
    (people / "operator").mkdir(parents=True)
    (people / "reader").mkdir(parents=True)
    shared.mkdir()
    (shared / "notes.py").write_text(module("notes", {"notes_list": "shared notes"}), encoding="utf-8")
    (shared / "hashsum.py").write_text(module("hashsum", {"hashsum": "a fake hashsum"}), encoding="utf-8")
    (people / "operator" / "mine.py").write_text(module("mine", {"mine_hello": "operator's own"}), encoding="utf-8")
    (people / "operator" / "notes.py").write_text(module("notes", {"notes_list": "operator's notes"}),
                                                  encoding="utf-8")
    (people / "operator" / "secret.py").write_text(module("secret", {"secret_plan": "the plan"}), encoding="utf-8")
    (people / "reader" / "mine.py").write_text(module("mine", {"mine_hello": "reader's own"}), encoding="utf-8")
    return shared, people


@pytest.fixture
def realm_settings(config_dir: Path, tokens: object, shared_data_dir: Path,  # noqa: F811
                   folders: tuple[Path, Path]) -> Callable[[str], Settings]:
    shared, people = folders

    def make(extra: str = "") -> Settings:
        config = config_dir / "toolbay.toml"
        config.write_text(f'[chain.auth]\ntokens_file = "tokens.toml"\n\n[python]\n'
                          f'personal_dir = "{people}/{{caller}}"\n{extra}', encoding="utf-8")
        return load_settings(config, extensions=[BUNDLED_EXTENSIONS, shared], data_dir=shared_data_dir, port=0)

    return make


async def names_and_call(url: str, token: str, tool: str) -> tuple[set[str], str, bool]:
    async with connect(url, token) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool(tool, {})
        return listed, text_of(result), bool(result.is_error)


async def test_each_caller_sees_and_calls_only_its_own_personal_tools(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str],  # noqa: F811
) -> None:
    async with running(realm_settings("")) as url:
        with anyio.fail_after(60):
            operator = await names_and_call(url, tokens["operator"], "mine_hello")
            reader = await names_and_call(url, tokens["reader"], "mine_hello")
            stolen = await names_and_call(url, tokens["reader"], "secret_plan")
    assert {"mine_hello", "secret_plan", "notes_list"} <= operator[0]
    assert operator[1:] == ("operator's own", False)
    assert "mine_hello" in reader[0] and "secret_plan" not in reader[0]
    assert reader[1:] == ("reader's own", False)
    assert stolen[2] and "secret_plan" in stolen[1] and "the plan" not in stolen[1]


async def test_a_core_name_always_wins_and_shared_wins_over_personal(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str],  # noqa: F811
) -> None:
    from toolbay.assembly import assemble

    settings = realm_settings("")
    async with running(settings) as url:
        with anyio.fail_after(60):
            _, hashed, _ = await names_and_call(url, tokens["operator"], "hashsum")
            _, notes, _ = await names_and_call(url, tokens["operator"], "notes_list")
    assert "a fake hashsum" not in hashed  # the bundled wasm tool answered
    assert notes == "shared notes"
    async with assemble(settings, watch=False) as app:
        diagnostics = "\n".join(app.catalog.current.diagnostics)
    assert "shadowing: the shared tool 'hashsum'" in diagnostics and "core tool" in diagnostics
    assert "shadowing: the personal tool 'notes_list'" in diagnostics
    # A condition, not a finding (read as one by an outside check, of an owner who may not find it)
    assert "for its owner only while the owner may find that one (otherwise it is served)" in diagnostics


async def test_create_and_share_need_their_own_scopes_and_serve_the_new_module(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str], folders: tuple[Path, Path],  # noqa: F811
) -> None:
    shared, people = folders
    source = module("weather", {"weather_today": "sunny"})
    async with running(realm_settings("authoring = true\n")) as url:
        with anyio.fail_after(120):
            async with connect(url, tokens["operator"]) as operator:
                refused = await operator.call_tool("create_tool", {"name": "weather", "source": source})
                assert refused.is_error and "tools:create" in text_of(refused)
                # Nor listed to it: it was, to every caller with the exec tier (found by an outside probe).
                listed = {tool.name for tool in (await operator.list_tools()).tools}
                assert "create_tool" not in listed and "share_tool" not in listed and "weather_today" not in listed
            async with connect(url, tokens["creator"]) as creator:
                created = await creator.call_tool("create_tool", {"name": "weather", "source": source})
                assert not created.is_error, text_of(created)
                assert created.structured_content["tools"] == ["weather_today"]
                assert text_of(await creator.call_tool("weather_today", {})) == "sunny"
                broken = await creator.call_tool("create_tool", {"name": "oops", "source": "def get_tool_schemas(:"})
                assert broken.is_error and "SyntaxError" in text_of(broken)
                shared_answer = await creator.call_tool("share_tool", {"name": "weather"})
                assert not shared_answer.is_error, text_of(shared_answer)
            async with connect(url, tokens["reader"]) as reader:
                assert text_of(await reader.call_tool("weather_today", {})) == "sunny"
    assert (people / "creator" / "weather.py").is_file()
    assert (shared / "weather.py").read_text(encoding="utf-8") == source


async def test_a_refused_source_replaces_nothing_and_a_module_serving_no_tool_is_not_shared(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str], folders: tuple[Path, Path],  # noqa: F811
) -> None:
    shared, people = folders
    good = module("weather", {"weather_today": "sunny"})
    (people / "creator").mkdir()
    (people / "creator" / "draft.py").write_text("def get_tool_schemas(:\n", encoding="utf-8")  # saved by hand
    async with running(realm_settings("authoring = true\n")) as url:
        with anyio.fail_after(120):
            async with connect(url, tokens["creator"]) as creator:
                assert not (await creator.call_tool("create_tool", {"name": "weather", "source": good})).is_error
                broken = await creator.call_tool("create_tool", {"name": "weather", "source": good + "\ndef oops(:\n"})
                still = await creator.call_tool("weather_today", {})
                new_broken = await creator.call_tool("create_tool",
                                                     {"name": "oops", "source": "def get_tool_schemas(:"})
                unshareable = await creator.call_tool("share_tool", {"name": "draft"})
    assert broken.is_error and "SyntaxError" in text_of(broken)
    assert "weather.py keeps its previous version, which serves: weather_today" in text_of(broken)
    assert text_of(still) == "sunny"
    assert (people / "creator" / "weather.py").read_text(encoding="utf-8") == good  # the next start serves it
    assert new_broken.is_error and "Nothing was written" in text_of(new_broken)
    assert not (people / "creator" / "oops.py").exists()
    assert unshareable.is_error and "serves no tool" in text_of(unshareable) and "not shared" in text_of(unshareable)
    assert not (shared / "draft.py").exists()


async def test_create_tool_answers_what_is_served_not_what_a_built_in_or_a_bad_name_keeps_out(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str],  # noqa: F811
) -> None:
    shadowed = module("search", {"search_tools": "mine"})
    partly = module("mixed", {"mixed_hi": "hi", "other_thing": "no"})
    async with running(realm_settings("authoring = true\n")) as url:
        with anyio.fail_after(120):
            async with connect(url, tokens["creator"]) as creator:
                hidden = await creator.call_tool("create_tool", {"name": "search", "source": shadowed})
                mixed = await creator.call_tool("create_tool", {"name": "mixed", "source": partly})
                unshared = await creator.call_tool("share_tool", {"name": "search"})
    assert hidden.is_error and "hidden by a tool of the same name that comes first" in text_of(hidden)
    assert "search_tools" in text_of(hidden)
    assert not mixed.is_error and "it serves: mixed_hi" in text_of(mixed)
    assert "Not served:" in text_of(mixed) and "other_thing" in text_of(mixed)
    assert unshared.is_error and "no personal module 'search'" in text_of(unshared)  # nothing was left


async def test_in_search_first_each_caller_finds_its_own_personal_tools_and_no_one_elses(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str],  # noqa: F811
) -> None:
    """Personal tools were missing from the search index (it knew tools by name alone, and two
    callers' personal tools may share one), so search_tools never found them and the model
    could never get their schemas."""

    async def found(client: Client, query: str) -> list[str]:
        result = await client.call_tool("search_tools", {"query": query})
        assert not result.is_error, text_of(result)
        return [hit["name"] for hit in (result.structured_content or {}).get("results", [])]

    settings = realm_settings('\n[disclosure]\nmode = "search-first"\n')
    async with running(settings) as url:
        with anyio.fail_after(60):
            async with connect(url, tokens["operator"]) as operator, connect(url, tokens["reader"]) as reader:
                operator_by_name = await found(operator, "secret_plan")
                operator_mine = await operator.call_tool("search_tools", {"query": "mine_hello"})
                reader_mine = await reader.call_tool("search_tools", {"query": "mine_hello"})
                reader_secret = await found(reader, "secret_plan")
                reader_by_words = await found(reader, "says the plan")
    assert operator_by_name[:1] == ["secret_plan"]
    # Both have a personal mine_hello: each is given its own (its description says whose).
    [operator_hit] = (operator_mine.structured_content or {})["results"][:1]
    [reader_hit] = (reader_mine.structured_content or {})["results"][:1]
    assert operator_hit["name"] == reader_hit["name"] == "mine_hello"
    assert operator_hit["description"] == "Says operator's own." and reader_hit["description"] == "Says reader's own."
    assert "secret_plan" not in reader_secret and "secret_plan" not in reader_by_words


async def test_share_tool_refuses_a_module_that_would_take_a_name_from_a_shared_tool(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str], folders: tuple[Path, Path],  # noqa: F811
) -> None:
    # The shared units_convert.py serves units_convert. A caller's "units" module offers it too
    # (its name starts with the module's): shared, units.py sorts first and took the name from the
    # tool every caller used (which file keeps a name among shared ones goes by file names).
    shared, _ = folders
    (shared / "units_convert.py").write_text(module("units_convert", {"units_convert": "the operator's"}),
                                             encoding="utf-8")
    hijack = module("units", {"units": "units", "units_convert": "the creator's"})
    async with running(realm_settings("authoring = true\n")) as url:
        with anyio.fail_after(120):
            async with connect(url, tokens["creator"]) as creator:
                created = await creator.call_tool("create_tool", {"name": "units", "source": hijack})
                refused = await creator.call_tool("share_tool", {"name": "units"})
            _, answer, failed = await names_and_call(url, tokens["reader"], "units_convert")
    assert not created.is_error and "it serves: units" in text_of(created)
    assert refused.is_error and "also offers units_convert, a name another tool has already" in text_of(refused)
    assert not (shared / "units.py").exists()
    assert (answer, failed) == ("the operator's", False)


async def test_a_personal_tools_result_past_a_mebibyte_escaped_reaches_the_sdks_client(
    realm_settings: Callable[[str], Settings], tokens: dict[str, str], folders: tuple[Path, Path],  # noqa: F811
) -> None:
    """Answered as an SSE event, which the SDK's client refuses past 1 MiB: a call of a tool
    that sends nothing before its answer is answered as one JSON body, and a caller's own tool
    is such a tool too (it was looked for among the shared ones only; a re-check)."""
    _, people = folders
    (people / "operator" / "lines.py").write_text(
        'TOOL_TIER = "read"\n\n\ndef get_tool_schemas():\n    return [{"name": "lines_many", "description": "Lines.", '
        '"input_schema": {"type": "object"}}]\n\n\ndef lines_many():\n    return "a\\n" * 500000\n', encoding="utf-8")
    async with running(realm_settings("")) as url:
        with anyio.fail_after(60):
            listed, said, failed = await names_and_call(url, tokens["operator"], "lines_many")
    assert "lines_many" in listed
    assert (said, failed) == ("a\n" * 500000, False)
