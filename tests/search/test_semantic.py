"""``[search] semantic``: the search ranks by meaning too, with the model inside the wordllama
wheel (the real model, read from the installed package: the dev group installs it). Off by
default; on, a request in other words than its tool's finds it, and a tool removed, hidden
or not allowed is never returned, as with words alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import REPO_ROOT
from toolbay.catalog import Catalog, CatalogHolder
from toolbay.cli import app
from toolbay.config import DisclosureSettings, Settings
from toolbay.handlers.base import Handler
from toolbay.protocol.disclosure import Disclosure
from toolbay.search import SearchIndex
from toolbay.search.documents import field_terms
from toolbay.search.tokens import tokenize
from toolbay.words import CallContext, ToolDefinition, ToolResult


def tool(name: str, description: str, **properties: str) -> ToolDefinition:
    schema = {"type": "object", "properties": {key: {"type": "string", "description": text}
                                               for key, text in properties.items()}}
    return ToolDefinition(name=name, description=description, input_schema=schema)


# An assistant's catalog: thirty tools, each described as its author would.
CATALOG = [
    tool("currency_convert", "Convert an amount of money from one currency to another at the latest exchange rate.",
         amount="How much", source="Currency code to convert from", target="Currency code to convert to"),
    tool("weather_forecast", "Get the weather forecast for a city for the next days.", city="City name"),
    tool("calendar_create_event", "Create an event in the calendar.", title="Event title", start="Start time"),
    tool("calendar_delete_event", "Delete an event from the calendar.", event="Meeting to remove"),
    tool("email_send", "Send an email message to one or more recipients.", to="Recipient addresses",
         body="Message text"),
    tool("email_search", "Search the mailbox for messages matching a text.", text="Words to look for"),
    tool("translate_text", "Translate text from one language to another.", text="Text", target="Target language"),
    tool("image_resize", "Resize an image to a given width and height.", width="Width in pixels", height="Height"),
    tool("pdf_merge", "Merge several PDF files into one document.", files="Paths of the PDF files"),
    tool("zip_compress", "Compress files into a zip archive.", files="Files to add", level="Compression level"),
    tool("hash_digest", "Compute the sha256 or md5 digest of a file.", algorithm="Digest algorithm"),
    tool("stock_quote", "Latest share price and daily change of a listed company.", symbol="Ticker symbol"),
    tool("flight_search", "Find flights between two airports on a date.", origin="Departure airport",
         destination="Arrival airport", date="Travel date"),
    tool("hotel_booking", "Book a room in a hotel for given nights.", city="City", nights="Number of nights"),
    tool("restaurant_finder", "Find restaurants near a place, by cuisine and rating.", place="Where",
         cuisine="Kind of food"),
    tool("recipe_lookup", "Look up cooking recipes by ingredient or dish name.", ingredient="Main ingredient"),
    tool("unit_convert", "Convert a measurement between units of length, mass or temperature.", value="Value",
         unit="Unit to convert to"),
    tool("timezone_now", "Current local time in a time zone.", zone="IANA time zone"),
    tool("news_headlines", "Top news headlines for a country or topic.", topic="Topic"),
    tool("wikipedia_summary", "Summary of the Wikipedia article on a subject.", subject="Subject"),
    tool("dictionary_define", "Definition, pronunciation and examples of an English word.", word="The word"),
    tool("qr_code_generate", "Generate a QR code image for a text or URL.", text="What to encode"),
    tool("password_generate", "Generate a random strong password.", length="Number of characters"),
    tool("sql_query", "Run a read-only SQL query against the analytics database.", query="SQL text"),
    tool("git_commit_log", "List the commits of a git repository.", repository="Path of the repository"),
    tool("docker_list_containers", "List the running Docker containers.", all="Include stopped ones"),
    tool("spotify_play", "Play a song, album or playlist on Spotify.", track="What to play"),
    tool("fitness_log_workout", "Record a workout with its duration and calories burned.", kind="Workout type"),
    tool("air_quality_index", "Air quality index and PM2.5 levels for a city.", city="City name"),
    tool("package_tracking", "Track a parcel shipment by its tracking number.", number="Tracking number"),
]
# Requests that share no word with the tool they want (checked below), each of which shares
# one with another tool ("get", "next"): words alone find that one, or nothing better.
IN_OTHER_WORDS = {
    "how many yen would I get for 50 dollars": "currency_convert",
    "what will it cost me to fly to Tokyo next week in yen": "flight_search",
}
# The request the tests below follow a tool's changes with, and the tool it wants.
YEN, CONVERT = next(iter(IN_OTHER_WORDS.items()))


def by_name(name: str) -> ToolDefinition:
    return next(definition for definition in CATALOG if definition.name == name)


def index_of(definitions: list[ToolDefinition] = CATALOG, **options: Any) -> SearchIndex:
    index = SearchIndex(**options)
    index.put_many(definitions)
    return index


def names(index: SearchIndex, query: str, limit: int = 5, **options: Any) -> list[str]:
    return [hit.name for hit in index.search(query, limit, **options).hits]


def test_a_request_in_other_words_than_its_tools_finds_it_first_with_meaning_and_not_without() -> None:
    words, meaning = index_of(), index_of(semantic=True)
    for query, wanted in IN_OTHER_WORDS.items():
        terms = {term for field in field_terms(by_name(wanted)) for term in field}
        assert not terms & set(tokenize(query)), f"{query!r} shares a word with {wanted}"
        assert names(words, query)[:1] != [wanted]
        assert names(meaning, query)[:1] == [wanted]


def test_meaning_is_off_by_default_and_a_request_no_word_of_which_any_tool_has_is_still_no_match() -> None:
    assert Settings().search.semantic is False
    assert not SearchIndex().semantic
    meaning = index_of(semantic=True)
    outcome = meaning.search("is it going to rain in Paris tomorrow", 5)
    assert outcome.no_match and not outcome.hits


def test_a_removed_or_replaced_tool_is_never_returned_by_its_meaning() -> None:
    query, wanted = YEN, CONVERT
    index = index_of(semantic=True)
    assert names(index, query)[:1] == [wanted]
    index.remove(wanted)
    assert wanted not in names(index, query, 20)
    # Put back under the same name with another job: ranked by what it does now, not by what it did.
    index.put(tool(wanted, "Play a song, album or playlist on a speaker.", track="What to play"))
    assert wanted not in names(index, query, 3)
    _put_back_and_found_first(index, query, wanted)


def test_a_tool_removed_while_its_meaning_was_worked_out_elsewhere_is_not_brought_back() -> None:
    # As a server does: the backlog embedded on a worker thread while the catalog changes on the loop.
    query, wanted = YEN, CONVERT
    index = index_of(semantic=True)
    backlog = index.meaning_backlog()
    assert backlog is not None and len(backlog) == len(CATALOG)
    backlog.embed()
    index.remove(wanted)
    index.take_meaning(backlog)
    assert index.meaning_backlog() is None
    assert wanted not in names(index, query, 20)
    _put_back_and_found_first(index, query, wanted)


def _put_back_and_found_first(index: SearchIndex, query: str, wanted: str) -> None:
    index.put(by_name(wanted))
    assert names(index, query)[:1] == [wanted]


def test_tools_the_caller_may_not_use_or_see_are_never_returned_by_their_meaning() -> None:
    query, wanted = YEN, CONVERT
    index = index_of(semantic=True)
    assert wanted not in names(index, query, 20, allowed=lambda key: key != wanted)
    hidden = index_of(semantic=True, group_of=lambda key, definition: "catalog:money" if key == wanted else "")
    assert wanted not in names(hidden, query, 20, groups=[""])
    assert names(hidden, query, groups=["", "catalog:money"])[:1] == [wanted]


class _Served(Handler):
    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text="")


def served(definitions: list[ToolDefinition]) -> Catalog:
    return Catalog.build([_Served(ToolDefinition(name=d.name, description=d.description, input_schema=d.input_schema,
                                                 source="wasm", origin="wasm:"))  # no file to look for
                          for d in definitions])


@pytest.mark.anyio
async def test_the_server_search_follows_the_catalog_by_meaning_too() -> None:
    query, wanted = YEN, CONVERT
    holder = CatalogHolder(served(CATALOG))
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True, semantic=True)
    try:
        found = await disclosure.search(query, 5, CallContext())
        assert [result["name"] for result in found["results"]][:1] == [wanted]
        holder.swap(served([definition for definition in CATALOG if definition.name != wanted]))
        found = await disclosure.search(query, 20, CallContext())
        assert wanted not in [result["name"] for result in found["results"]]
    finally:
        disclosure.close()


def _toolbay(arguments: list[str], tmp_path: Path, *, hide_model: bool = False,
             environment: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``toolbay ARGUMENTS`` in a new process; ``hide_model``: as if wordllama were not installed
    (Python finds no such module: what an install without the extra gives)."""
    hide = "sys.modules['wordllama'] = None; " if hide_model else ""
    code = f"import sys; {hide}sys.argv = ['toolbay', *sys.argv[1:]]; from toolbay.entry import main; main()"
    return subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, **(environment or {})}, timeout=120)


def _files(tmp_path: Path) -> list[str]:
    catalog, queries = tmp_path / "tools.jsonl", tmp_path / "queries.jsonl"
    catalog.write_text("".join(json.dumps({"name": d.name, "description": d.description,
                                           "inputSchema": dict(d.input_schema)}) + "\n" for d in CATALOG))
    queries.write_text("".join(json.dumps({"id": i, "query": q}) + "\n" for i, q in enumerate(IN_OTHER_WORDS)))
    return ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"]


def test_the_search_command_ranks_by_words_unless_asked_for_meaning(tmp_path: Path) -> None:
    # Typer's command in the test process, the one python -m toolbay runs: what it prints is checked, not a start.
    arguments = _files(tmp_path)
    words = CliRunner().invoke(app, arguments)
    assert words.exit_code == 0, (words.stderr, words.exception)
    index = index_of()
    assert [json.loads(line) for line in words.stdout.splitlines()] == [
        {"id": i, "no_match": outcome.no_match,
         "results": [{"name": hit.name, "score": round(hit.score, 4)} for hit in outcome.hits]}
        for i, outcome in enumerate(index.search(query, 10) for query in IN_OTHER_WORDS)]
    meaning = CliRunner().invoke(app, [*arguments, "--semantic"])
    assert meaning.exit_code == 0, (meaning.stderr, meaning.exception)
    records = [json.loads(line) for line in meaning.stdout.splitlines()]
    assert [list(record) for record in records] == [["id", "results", "no_match"]] * len(IN_OTHER_WORDS)
    assert [record["results"][0]["name"] for record in records] == list(IN_OTHER_WORDS.values())


@pytest.mark.parametrize("how", ["flag", "setting"])
def test_meaning_asked_for_without_the_model_installed_stops_at_start_in_one_line(tmp_path: Path, how: str) -> None:
    if how == "flag":
        result = _toolbay([*_files(tmp_path), "--semantic"], tmp_path, hide_model=True)
    else:  # the served tools' search, as the server's start would say it
        result = _toolbay(["search", "sha256 digest of a text", "--data-dir", str(tmp_path / "data"),
                           "--extensions", str(REPO_ROOT / "extensions")], tmp_path, hide_model=True,
                          environment={"TOOLBAY_SEARCH__SEMANTIC": "true"})
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "toolbay: search by meaning ([search] semantic = true, or --semantic) needs the wordllama package, "
        "whose wheel holds the model (nothing is downloaded): uv sync --extra semantic in a checkout (or uv run "
        "--extra semantic toolbay ...); from a wheel, uvx --from 'toolbay-<version>-py3-none-any.whl[semantic]' "
        "toolbay ..., or pip install of the same where it was installed with pip"]


def test_a_server_with_meaning_on_and_no_model_does_not_start(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("[search]\nsemantic = true\n")
    result = _toolbay(["serve", "--config", str(config), "--data-dir", str(tmp_path / "data")], tmp_path,
                      hide_model=True)
    assert result.returncode == 2
    assert "uv sync --extra semantic in a checkout" in result.stderr and len(result.stderr.splitlines()) == 1


def test_search_tools_tells_the_model_how_it_ranks() -> None:
    """Its description said "words are matched, not meanings" with meaning on too."""
    from toolbay.handlers.search import SearchToolsHandler

    async def search(query: str, limit: int, context: CallContext) -> dict[str, Any]:
        return {"results": [], "no_match": True}

    by_words, by_meaning = SearchToolsHandler(search), SearchToolsHandler(search, semantic=True)
    assert "not meanings" in by_words.definition.description
    assert "ranked by meaning too" in by_meaning.definition.description
    assert by_meaning.definition.input_schema == by_words.definition.input_schema


@pytest.mark.anyio
async def test_a_search_that_embeds_while_the_index_is_filled_again_waits_for_the_fill() -> None:
    """A search ranking by meaning awaits the embedding of new tools after the index is filled;
    the index filled again meanwhile (a credential's value first handed to a tool), it searched
    the index the worker thread was changing, and found a tool by that value."""
    import threading

    import anyio
    import anyio.from_thread

    holder = CatalogHolder(served([*CATALOG, tool("weather_now", "Current weather, asked with the key moonbeam42")]))
    hidden: set[str] = set()
    disclosure = Disclosure(DisclosureSettings(), holder, lambda principal, definition: True, semantic=True,
                            hidden=lambda: hidden)
    embed, fill = disclosure._embed_off_loop, disclosure.index.put_many
    embedding, go_on_embedding = anyio.Event(), anyio.Event()
    filling, go_on_filling = anyio.Event(), threading.Event()

    async def held_embed() -> None:
        embedding.set()
        await go_on_embedding.wait()
        await embed()

    def held_fill(definitions: Any, **options: Any) -> None:
        anyio.from_thread.run_sync(filling.set)
        go_on_filling.wait(120)
        fill(definitions, **options)

    answers: dict[str, dict[str, Any]] = {}

    async def search(label: str, query: str) -> None:
        answers[label] = await disclosure.search(query, 3, CallContext())

    try:
        await search("before", "moonbeam42")  # filled and embedded, the value not yet a credential's
        disclosure._embed_off_loop = held_embed  # type: ignore[method-assign]
        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(search, "embedding", "moonbeam42")
                await embedding.wait()
                disclosure._embed_off_loop = embed  # type: ignore[method-assign]
                hidden.add("moonbeam42")
                disclosure.index.put_many = held_fill  # type: ignore[method-assign]
                group.start_soon(search, "filling", "current weather")
                await filling.wait()
                go_on_embedding.set()
                await anyio.sleep(0.2)
                go_on_filling.set()
    finally:
        go_on_filling.set()
        disclosure.close()
    assert [result["name"] for result in answers["before"]["results"]][:1] == ["weather_now"]
    assert "weather_now" not in [result["name"] for result in answers["embedding"]["results"]]
    assert "moonbeam42" not in json.dumps(answers["embedding"])
