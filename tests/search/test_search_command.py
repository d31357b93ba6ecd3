"""`toolbay search`: the file contract measured from outside, and a query over the served tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import REPO_ROOT
from toolbay.cli import app
from toolbay.redaction import shown_text

runner = CliRunner()

TOOLS = [
    {"name": "getWeather", "description": "Get the current weather for a city",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}},
    {"name": "convertCurrency", "description": "Convert an amount between two currencies",
     "inputSchema": {"type": "object", "properties": {"amount": {"type": "number"}, "to": {"type": "string"}}}},
    {"name": "translateText", "description": "文章を別の言語に翻訳する", "inputSchema": {"type": "object"}},
]
QUERIES = [
    {"id": "q1", "query": "What's the weather like in Paris?"},
    {"id": "q2", "query": "convert 20 dollars to euros"},
    {"id": "q3", "query": "この文章を翻訳して"},
    {"id": "q4", "query": "book a table at an italian restaurant"},
]


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return path


def test_catalog_and_queries_files_give_one_exact_json_line_per_query_in_order(tmp_path: Path) -> None:
    catalog, queries = write_jsonl(tmp_path / "tools.jsonl", TOOLS), write_jsonl(tmp_path / "q.jsonl", QUERIES)
    # A real process, as the search is measured from outside.
    process = subprocess.run(
        [sys.executable, "-m", "toolbay", "search", "--catalog", str(catalog), "--queries", str(queries),
         "--limit", "2", "--json"], capture_output=True, text=True, cwd=REPO_ROOT, check=False)
    assert process.returncode == 0, process.stderr
    lines = [json.loads(line) for line in process.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2", "q3", "q4"]
    for line in lines:
        assert set(line) == {"id", "results", "no_match"}
        assert all(set(result) == {"name", "score"} for result in line["results"])
        assert len(line["results"]) <= 2
    assert lines[0]["results"][0]["name"] == "getWeather"
    assert lines[1]["results"][0]["name"] == "convertCurrency"
    assert lines[2]["results"][0]["name"] == "translateText"
    assert lines[3] == {"id": "q4", "results": [], "no_match": True}


def test_either_file_may_be_standard_input_but_not_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog, queries = write_jsonl(tmp_path / "tools.jsonl", TOOLS), write_jsonl(tmp_path / "q.jsonl", QUERIES)
    files = {"--catalog": catalog, "--queries": queries}
    answers = []
    for piped in files:
        argv = [item for name, path in files.items() for item in (name, "-" if name == piped else str(path))]
        process = subprocess.run([sys.executable, "-m", "toolbay", "search", *argv, "--limit", "2"],
                                 input=files[piped].read_text(encoding="utf-8"), capture_output=True, text=True,
                                 cwd=REPO_ROOT, check=False)
        assert process.returncode == 0, process.stderr
        answers.append(process.stdout)
    # Standard input is read from its descriptor, so the piped runs are processes; the files need none.
    from_files = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--limit", "2"])
    assert answers == [from_files.stdout] * 2 and from_files.stdout.count("\n") == len(QUERIES)
    both = runner.invoke(app, ["search", "--catalog", "-", "--queries", "-"], input="")
    assert both.exit_code == 2 and "only one of --catalog and --queries can be -" in both.output
    # "./-" is a file of that name, not standard input.
    write_jsonl(tmp_path / "-", QUERIES)
    monkeypatch.chdir(tmp_path)  # as standard input it would be read from a descriptor the runner's input has not
    named = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", "./-", "--limit", "2"], input="")
    assert named.stdout == from_files.stdout, (named.stderr, named.exception)


def test_a_bad_catalog_line_is_named_and_nothing_is_printed(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.jsonl"
    catalog.write_text(json.dumps(TOOLS[0]) + "\n{not json\n", encoding="utf-8")
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES)
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 2
    assert f"{catalog}:2: not JSON" in result.stderr
    assert result.stdout == ""


def test_a_file_whose_read_fails_is_said_in_one_line(tmp_path: Path) -> None:
    # /proc/self/mem opens, and its first read fails (EIO): that was "cannot write the output", exit 1.
    good = write_jsonl(tmp_path / "good.jsonl", [{"id": 1, "query": "x", "name": "t", "description": "d"}])
    for catalog, queries in (("/proc/self/mem", good), (good, "/proc/self/mem")):  # the test process's: EIO too
        result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries)])
        assert (result.exit_code, result.stderr) == (2, "toolbay: cannot read /proc/self/mem: "
                                                        "Input/output error\n"), result.exception


def test_a_tool_without_a_name_is_refused_with_its_line(tmp_path: Path) -> None:
    catalog = write_jsonl(tmp_path / "tools.jsonl", [{"description": "nameless"}])
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES)
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries)])
    assert result.exit_code == 2
    assert "tools.jsonl:1: a tool needs a non-empty string 'name'" in result.stderr


def test_catalog_without_queries_is_a_usage_error(tmp_path: Path) -> None:
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    result = runner.invoke(app, ["search", "--catalog", str(catalog)])
    assert result.exit_code == 2
    assert "--catalog and --queries go together" in result.stderr


@pytest.mark.parametrize("option", [["--config", "nowhere.toml"], ["--extensions", "nowhere"], ["--data-dir", "d"]])
def test_a_batch_refuses_the_options_it_would_ignore(tmp_path: Path, option: list[str]) -> None:
    """A batch searches its catalog file alone: --config, --extensions and --data-dir were
    accepted and ignored, a missing config file too (an outside probe)."""
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    queries = write_jsonl(tmp_path / "queries.jsonl", [{"id": "1", "query": "count words"}])
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), *option])
    assert result.exit_code == 2 and result.stdout == ""
    assert "--catalog reads no folder and no configuration" in result.stderr


def test_an_empty_query_is_a_usage_error_not_a_search(shared_data_dir: Path) -> None:
    for blank in ("", "   "):
        result = runner.invoke(app, ["search", blank, "--data-dir", str(shared_data_dir)])
        assert result.exit_code == 2 and result.stdout == ""
        assert "give a QUERY" in result.stderr


def test_a_query_searches_the_tools_the_server_would_serve(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["search", "sha256 digest of a text", "--limit", "3", "--json",
                                 "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    # The line --catalog prints, exactly: it carried each tool's description too, and its keys
    # in another order (an outside check of the contract).
    assert list(record) == ["id", "results", "no_match"] and record["id"] == "sha256 digest of a text"
    assert record["results"][0]["name"] == "hashsum" and all(list(hit) == ["name", "score"]
                                                               for hit in record["results"])
    assert not record["no_match"]
    table = runner.invoke(app, ["search", "sha256 digest of a text", "--limit", "3",
                                "--data-dir", str(shared_data_dir)])
    assert table.exit_code == 0 and "digest" in table.stdout  # the table shows the descriptions


def test_a_catalog_allow_pattern_that_names_no_catalog_folder_is_warned_of_as_serve_warns(
        shared_data_dir: Path, tmp_path: Path) -> None:
    """The search of the served tools said nothing of a misspelt pattern, which left the catalog
    folder's tools unfindable (serve warns of it at its start)."""
    catalog = tmp_path / "cats"
    catalog.mkdir()
    (catalog / "hashsum.wasm").write_bytes((REPO_ROOT / "extensions" / "hashsum.wasm").read_bytes())
    config = tmp_path / "toolbay.toml"
    config.write_text(f'extensions = ["{catalog}"]\n[disclosure]\ncatalog = ["{catalog}"]\n'
                      'catalog_allow = ["cta", "c*"]\n', encoding="utf-8")
    result = runner.invoke(app, ["search", "sha256 digest of a text", "--json", "--config", str(config),
                                 "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "toolbay: warning: [disclosure] catalog_allow 'cta' names none of the catalog folders (cats)"]
    assert json.loads(result.stdout)["results"][0]["name"] == "hashsum"  # allowed by "c*"


def test_ids_come_back_as_given_and_function_calling_definitions_and_a_byte_order_mark_are_read(
        tmp_path: Path) -> None:
    # Tools as another API writes them: "parameters" for the schema, or wrapped as a function.
    catalog = tmp_path / "tools.jsonl"
    catalog.write_text("\ufeff" + "".join(json.dumps(record) + "\n" for record in [
        {"name": "getWeather", "description": "Current conditions",
         "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City"}}}},
        {"type": "function", "function": {"name": "convertCurrency", "description": "Exchange money",
                                          "parameters": {"type": "object", "properties": {"amount": {}}}}},
    ]), encoding="utf-8")
    queries = write_jsonl(tmp_path / "q.jsonl", [
        {"id": 7, "query": "conditions in the city of Lyon"},
        {"id": "7", "query": "exchange an amount of money"},
        {"id": None, "query": "weather"},
    ])
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == [7, "7", None]
    # The parameter's text is searched: "city" is only in getWeather's parameters.
    assert lines[0]["results"][0]["name"] == "getWeather"
    assert lines[1]["results"][0]["name"] == "convertCurrency"


def test_a_numeric_id_comes_back_written_as_it_was_given(tmp_path: Path) -> None:
    """An outside re-check's id 1E2 came back as 100.0: the same number, not what it wrote."""
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": 1E2, "query": "weather"}\n{"id": 1.50, "query": "weather"}\n'
                       '{"id": -0.0, "query": "zzz"}\n{"id": 12, "query": "weather"}\n', encoding="ascii")
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split(",", 1)[0] for line in lines] == ['{"id": 1E2', '{"id": 1.50', '{"id": -0.0', '{"id": 12']
    records = [json.loads(line) for line in lines]  # still JSON, with the same keys
    assert [set(record) for record in records] == [{"id", "results", "no_match"}] * 4
    assert records[0]["results"] == records[1]["results"] and records[2]["no_match"]


def test_files_that_are_not_utf8_json_or_finite_are_refused_in_one_line_with_their_line(tmp_path: Path) -> None:
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES)
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(b'{"id": 1, "query": "weather"}\n{"id": 2, "query": "caf\xe9"}\n')
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="ascii")
    not_finite = tmp_path / "nan.jsonl"
    not_finite.write_text('{"id": NaN, "query": "weather"}\n', encoding="ascii")
    latin1_tools = tmp_path / "latin1-tools.jsonl"
    latin1_tools.write_bytes(b'{"name": "a"}\n{"name": "caf\xe9"}\n')
    cases = [((catalog, latin1), "latin1.jsonl:2: not UTF-8 text (byte 0xe9)"),
             ((latin1_tools, queries), "latin1-tools.jsonl:2: not UTF-8 text"),
             ((deep, queries), "deep.jsonl:1: nested too deeply"),
             ((catalog, not_finite), "nan.jsonl:1: NaN is not a JSON value")]
    for (tools, asked), said in cases:  # in the test process: what is said, not how a process ends
        result = runner.invoke(app, ["search", "--catalog", str(tools), "--queries", str(asked), "--json"])
        assert (result.exit_code, result.stdout) == (2, ""), (result.stderr, result.exception)
        assert said in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_odd_definitions_are_refused_and_a_name_given_twice_is_said(tmp_path: Path) -> None:
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES[:1])
    for bad, said in (({"name": "   "}, "non-empty string 'name'"),
                      ({"name": "x", "inputSchema": []}, "'inputSchema' must be an object"),
                      ({"name": "x", "inputSchema": ""}, "'inputSchema' must be an object"),
                      ({"name": "x", "description": 0}, "'description' must be a string")):
        catalog = write_jsonl(tmp_path / "tools.jsonl", [TOOLS[0], bad])
        result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
        assert result.exit_code == 2 and said in result.output and "tools.jsonl:2" in result.output, result.output
    twice = write_jsonl(tmp_path / "tools.jsonl", [TOOLS[0], TOOLS[1], {**TOOLS[0], "description": "Weather"}])
    result = runner.invoke(app, ["search", "--catalog", str(twice), "--queries", str(queries), "--json"])
    assert result.exit_code == 0
    assert "defined again on a later line" in result.stderr and "lines 1 and 3" in result.stderr


def test_ids_no_utf8_output_can_carry_come_back_escaped(tmp_path: Path) -> None:
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "\\udce9", "query": "weather"}\n', encoding="ascii")
    process = subprocess.run(
        [sys.executable, "-m", "toolbay", "search", "--catalog", str(catalog), "--queries", str(queries), "--json"],
        capture_output=True, cwd=REPO_ROOT, check=False)
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout.decode("utf-8"))["id"] == "\udce9"


def test_numbers_too_large_and_schemas_that_are_no_objects_under_any_name_are_refused(tmp_path: Path) -> None:
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    huge = tmp_path / "huge.jsonl"
    huge.write_text('{"id": 1e999, "query": "weather"}\n', encoding="ascii")
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(huge), "--json"])
    assert result.exit_code == 2 and "huge.jsonl:1: 1e999 is too large a number" in result.output
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES[:1])
    for bad in ({"name": "a", "parameters": []}, {"type": "function", "function": {"name": "a", "parameters": "zz"}},
                {"name": "a", "inputSchema": []}):
        tools = write_jsonl(tmp_path / "bad.jsonl", [bad])
        refused = runner.invoke(app, ["search", "--catalog", str(tools), "--queries", str(queries), "--json"])
        assert refused.exit_code == 2 and "'inputSchema' must be an object" in refused.output, bad


def test_a_function_definition_with_null_parameters_takes_none(tmp_path: Path) -> None:
    """OpenAI's SDK writes a function without arguments as ``"parameters": null`` when its model
    is dumped whole (its ``description`` and ``strict`` null too): the whole run stopped there,
    exit 2, for a function its authors read as taking no arguments."""
    dumped = {"type": "function", "function": {"name": "get_time", "description": "Get the current time.",
                                               "parameters": None, "strict": None}}
    tools = write_jsonl(tmp_path / "tools.jsonl", [dumped, {"name": "send_mail", "description": "Send mail.",
                                                            "parameters": None}])
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": "current time"}, {"id": 2, "query": "mail"}])
    result = runner.invoke(app, ["search", "--catalog", str(tools), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["results"][0]["name"] for line in lines] == ["get_time", "send_mail"]


def test_a_null_input_schema_is_a_tool_without_arguments_as_null_parameters_are(tmp_path: Path) -> None:
    """A converted catalog writes a tool without arguments as ``"inputSchema": null``: the whole run
    stopped there, exit 2 and nothing printed, where ``"parameters": null`` was read as none."""
    tools = write_jsonl(tmp_path / "tools.jsonl", [
        {"name": "get_time", "description": "Get the current time.", "inputSchema": None},
        {"name": "send_mail", "description": "Send mail.", "input_schema": None}, TOOLS[0]])
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": "current time"}, {"id": 2, "query": "mail"}])
    result = runner.invoke(app, ["search", "--catalog", str(tools), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["results"][0]["name"] for line in lines] == ["get_time", "send_mail"]


def test_a_query_search_tools_would_refuse_is_refused(shared_data_dir: Path) -> None:
    for argv, said in ((["x" * 2001], "a QUERY has at most 2000 characters, as for search_tools (this one has 2001)"),
                       (["hash", "--limit", "21"], "--limit is at most 20 for a QUERY")):
        result = runner.invoke(app, ["search", *argv, "--data-dir", str(shared_data_dir)])
        assert result.exit_code == 2 and said in result.output


def test_files_whose_lines_end_in_a_lone_carriage_return_are_read_line_by_line(tmp_path: Path) -> None:
    """An old Mac's line ends (CR alone) were read as one line: "not JSON (Extra data)"."""
    catalog, queries = tmp_path / "tools.jsonl", tmp_path / "q.jsonl"
    catalog.write_bytes(b"".join(json.dumps(tool).encode() + b"\r" for tool in TOOLS))
    queries.write_bytes(b"".join(json.dumps(query).encode() + ending
                                 for query, ending in zip(QUERIES[:2], (b"\r", b"\r\n"), strict=True)))
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(line["id"], line["results"][0]["name"]) for line in lines] == [("q1", "getWeather"),
                                                                          ("q2", "convertCurrency")]
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(json.dumps(QUERIES[0]).encode() + b"\r{not json\r")
    refused = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(broken), "--json"])
    assert refused.exit_code == 2 and f"{broken}:2: not JSON" in refused.stderr


@pytest.mark.parametrize("said", [
    "uses {} to sync",
    # A secret said in words or given to an option was left in the index: the audit log's rules
    # hid only "name=value" forms.
    "sync, with password: {}", "sync (run it as: sync --api-key {} --all)", "sync。パスワード password：{} です",
])
def test_a_token_in_a_catalog_is_found_no_more_than_the_server_finds_it(tmp_path: Path, said: str) -> None:
    """The server's index holds descriptions redacted; the file mode ranked them in clear, so a
    search for a pasted token found its tool there and nowhere else."""
    token = "ghp_" + "FAKEghpTOKEN0123456789abcdefXYZ" if said == "uses {} to sync" else "Tr0ub4dor9x"
    tools = [*TOOLS, {"name": "leak_tool", "description": said.format(token), "inputSchema": {"type": "object"}}]
    by_token, by_word = _searched_for_a_secret(tmp_path, tools, token, "sync")
    assert by_token == {"id": 1, "results": [], "no_match": True}
    assert [hit["name"] for hit in by_word["results"]] == ["leak_tool"]


@pytest.mark.parametrize("token", ["A1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2x",
                                   "Ａ１ｂＣ２ｄＥ３ｆＧ４ｈＩ５ｊＫ６ｌＭ７ｎＯ８ｐＱ９ｒＳ０ｔＵ１ｖＷ２ｘ"],
                         ids=["ascii", "full-width"])
def test_a_request_of_one_random_token_is_no_match_not_tools_sharing_its_letters(tmp_path: Path, token: str) -> None:
    """Split where its case and digits change, the token was two dozen letters and pairs, and a
    tool whose text has "x" or "p" was offered for it (an outside check); so it was still when
    written in full-width letters (a second outside check)."""
    plot = {"name": "plotXY", "description": "Plot x against y, with p values and a trend line",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "array"}, "y": {"type": "array"}}}}
    catalog = write_jsonl(tmp_path / "tools.jsonl", [*TOOLS, plot])
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": token}])
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"id": 1, "results": [], "no_match": True}


@pytest.mark.parametrize("invisible", ["\u200b", "\u034f", "\ufe0f", "\U000e0041", "\U000e0101", "\u3164"],
                         ids=["zero-width space", "grapheme joiner", "variation selector", "tag",
                              "ideographic variation", "hangul filler"])
def test_a_token_split_by_an_invisible_character_is_hidden_as_search_reads_it(tmp_path: Path, invisible: str) -> None:
    """Search takes invisible characters out of what it indexes: a key written with a zero-width
    space inside it was shown whole, and found by searching for the key (an outside check), and
    so it was with the other characters that show nothing (a re-check)."""
    token = "sk_live_" + "A1b2C3d4E5f6G7h8J9k0"
    said = f"uses {token[:12]}{invisible}{token[12:]} to sync"
    tools = [*TOOLS, {"name": "leak_tool", "description": said, "inputSchema": {"type": "object"}}]
    by_token, by_word = _searched_for_a_secret(tmp_path, tools, token, "sync")
    assert by_token == {"id": 1, "results": [], "no_match": True}
    assert [hit["name"] for hit in by_word["results"]] == ["leak_tool"]
    assert shown_text(())(said) == "uses [REDACTED] to sync"


def test_a_key_split_by_a_zero_width_non_joiner_is_hidden_where_persian_words_with_it_are_kept() -> None:
    """Search reads the non-joiner as a break (Persian writes it between a word and its suffix),
    but a model reads "sk_live_A1b2\u200cC3d4..." as the key: it was shown whole (a re-check).
    Beside a key hidden, the text's other such characters stay as written: Persian's words and an
    emoji's variation selector lost theirs, and the words were no longer found (a second re-check)."""
    shown = shown_text(())
    assert shown("uses sk_live_A1b2\u200cC3d4E5f6G7h8J9k0 to sync") == "uses [REDACTED] to sync"
    assert shown("فایل\u200cها را بخوان") == "فایل\u200cها را بخوان"
    assert shown("پرونده\u200cها ❤\ufe0f sk_live_A1b2\u200bC3d4E5f6G7h8J9k0") == "پرونده\u200cها ❤\ufe0f [REDACTED]"
    for split in ("\u180b", "\u2800", "\U0001d173", "\U0001bca0", "\U00013430", "\u0600", "\u070f"):
        assert shown(f"uses sk_live_A1b2{split}C3d4E5f6G7h8J9k0 to sync") == "uses [REDACTED] to sync", repr(split)


@pytest.mark.parametrize(("written", "token"), [
    ("ｓｋ－ｐｒｏｊ－Ａ１ｂ２Ｃ３ｄ４Ｅ５ｆ６Ｇ７ｈ８Ｊ９ｋ０", "sk-proj-A1b2C3d4E5f6G7h8J9k0"),
    ("ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ", "AKIAIOSFODNN7EXAMPLE"),
    ("ghp_A1b2C3d4\u0301E5f6G7h8J9k0L1m2N3", "ghp_A1b2C3d4E5f6G7h8J9k0L1m2N3"),
    ("ｇｈｐ＿Ａ１ｂ２Ｃ３ｄ４\u0301Ｅ５ｆ６Ｇ７ｈ８Ｊ９ｋ０Ｌ１", "ghp_A1b2C3d4E5f6G7h8J9k0L1"),
], ids=["full-width", "full-width capitals", "an accent apart inside", "both"])
def test_a_key_in_full_width_letters_or_split_by_an_accent_is_hidden_and_the_rest_kept_as_written(
        tmp_path: Path, written: str, token: str) -> None:
    """A key written in full-width letters or with a combining accent inside reads as the key: it
    was shown whole, and a search for it as written, not read as one key, was split into its
    letters and digits and answered with the tools holding them: its own, and one that has "x"
    and "p" (an outside check). Only the key is hidden: the CJK words and full-width punctuation
    around it are shown as they were written."""
    said = f"同步（ｓｙｎｃ）：uses {written} to sync，完成。"
    plot = {"name": "plotXY", "description": "Plot x against y, with p values and a trend line",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "array"}, "y": {"type": "array"}}}}
    tools = [*TOOLS, plot, {"name": "leak_tool", "description": said, "inputSchema": {"type": "object"}}]
    for query in (written, token):
        by_token, by_word = _searched_for_a_secret(tmp_path, tools, query, "sync")
        assert by_token == {"id": 1, "results": [], "no_match": True}
        assert [hit["name"] for hit in by_word["results"]] == ["leak_tool"]
    assert shown_text(())(said) == "同步（ｓｙｎｃ）：uses [REDACTED] to sync，完成。"


def test_a_raw_carriage_return_between_the_tokens_of_a_line_is_white_space_and_minus_zero_comes_back(
        tmp_path: Path) -> None:
    """JSON takes a raw CR between tokens as white space: such a line was cut in two at it ("not
    JSON", exit 2). An id written -0 came back as 0, against "each id as it was given"."""
    catalog = write_jsonl(tmp_path / "tools.jsonl", TOOLS)
    queries = tmp_path / "q.jsonl"
    queries.write_bytes(b'{"id": -0,\r"query": "weather in Paris"}\n{"id": "b", "query": "convert currency"}\n')
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()
    assert first.startswith('{"id": -0, ') and json.loads(first)["results"][0]["name"] == "getWeather"
    assert json.loads(second)["id"] == "b"


def test_a_property_named_with_a_secret_in_a_catalog_file_is_not_found_by_searching_for_it(tmp_path: Path) -> None:
    """Every text of a schema was redacted before indexing but its properties' names: a search
    for the secret a property was named with found the tool."""
    secret = "sk-live-" + "abcdEFGH1234567890abcdEFGH"
    tools = [*TOOLS, {"name": "t_nine", "description": "Sync the ledger.",
                      "inputSchema": {"type": "object", "properties": {secret: {"type": "string"}}}}]
    by_secret, by_words = _searched_for_a_secret(tmp_path, tools, secret, "sync the ledger")
    assert by_secret == {"id": 1, "results": [], "no_match": True}
    assert by_words["results"][0]["name"] == "t_nine"


def test_a_tool_named_like_a_secret_is_left_out_of_a_catalog_search_and_said(tmp_path: Path) -> None:
    """The server serves no tool so named, but --catalog searched it and printed its name in
    results meant to be shared (an outside check)."""
    secret = "ghp_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789ab"
    catalog = write_jsonl(tmp_path / "tools.jsonl", [{"name": secret, "description": "Weather now"},
                                                     {"name": "weather_now", "description": "Weather now"}])
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": "weather"}, {"id": 2, "query": secret}])
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    assert secret not in result.stdout
    by_words, by_secret = map(json.loads, result.stdout.splitlines())
    assert [hit["name"] for hit in by_words["results"]] == ["weather_now"]
    assert by_secret["no_match"]
    assert result.stderr.strip() == (f"toolbay: {catalog}: 1 tool is named like a secret (a token's prefix and a run "
                                     "of letters and digits) and left out, as the server serves none so named (line 1)")


def test_an_empty_catalog_is_said_on_stderr_and_every_query_is_no_match(tmp_path: Path) -> None:
    catalog, queries = tmp_path / "tools.jsonl", write_jsonl(tmp_path / "q.jsonl", QUERIES[:1])
    catalog.write_text("\n", encoding="utf-8")
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["no_match"]
    assert result.stderr.strip() == f"toolbay: {catalog}: no tool definitions in it; every query is answered no match"


def _searched_for_a_secret(tmp_path: Path, tools: list[dict[str, Any]], secret: str,
                           words: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The records of ``toolbay search --catalog`` over ``tools`` for ``secret`` (id 1), then
    for ``words`` (id 2)."""
    catalog = write_jsonl(tmp_path / "tools.jsonl", tools)
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": secret}, {"id": 2, "query": words}])
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    return first, second


def test_a_catalog_file_ranks_a_long_description_as_the_server_ranks_the_same_tool(
        tmp_path: Path, shared_data_dir: Path) -> None:
    # The server cuts a description at 8,000 characters; a word past the cut was found here
    # and not there, though a catalog file is to rank as the server ranks the same tools.
    description = "Reads records. " + "Padding words here. " * 450 + "zanzibarquux appears only at the end."
    folder = tmp_path / "longcat"
    folder.mkdir()
    (folder / "longd.py").write_text(
        f"def get_tool_schemas():\n    return [{{'name': 'longd_tool', 'description': {description!r}}}]\n"
        "def longd_tool():\n    return 'x'\n", encoding="utf-8")
    catalog = write_jsonl(tmp_path / "tools.jsonl", [{"name": "longd_tool", "description": description}])
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": "far", "query": "zanzibarquux"},
                                                 {"id": "near", "query": "reads records"}])
    batch = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert batch.exit_code == 0, batch.output
    from_file = {line["id"]: line for line in map(json.loads, batch.stdout.splitlines())}
    for query_id, query in (("far", "zanzibarquux"), ("near", "reads records")):
        served = runner.invoke(app, ["search", query, "--json", "--data-dir", str(shared_data_dir),
                                     "--extensions", str(folder)])
        assert served.exit_code == 0, served.output
        on_server = json.loads(served.stdout)
        assert (from_file[query_id]["no_match"], [hit["name"] for hit in from_file[query_id]["results"]]) == \
            (on_server["no_match"], [hit["name"] for hit in on_server["results"] if hit["name"] == "longd_tool"])
    assert from_file["far"]["no_match"] and not from_file["near"]["no_match"]


def test_a_line_longer_than_any_tool_is_refused_in_one_line_before_it_is_read_whole(tmp_path: Path) -> None:
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as out:
        out.write(b'{"name": "a", "description": "')
        out.write(b"x" * (16 * 2**20))
        out.write(b'"}\n')
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES[:1])
    result = runner.invoke(app, ["search", "--catalog", str(huge), "--queries", str(queries), "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "huge.jsonl:1: a line longer than 16 MiB" in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_file_of_lines_ending_in_lone_carriage_returns_is_read_past_the_line_limit(tmp_path: Path) -> None:
    # Read by LF, such a file is one line as long as the file: past 16 MiB it was refused as a
    # line too long (a re-check).
    padding = "x" * (15 * 2**20)
    catalog = tmp_path / "tools.jsonl"
    catalog.write_bytes("\r".join(json.dumps(tool) for tool in [
        {"name": "padded", "description": "Holds a long field no tool reads.", "padding": padding},
        {"name": "weather", "description": "Get the current weather for a city."},
        {"name": "also_padded", "description": "Another long field.", "padding": padding}]).encode() + b"\r")
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": "weather in a city"}])
    result = runner.invoke(app, ["search", "--catalog", str(catalog), "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["name"] == "weather"


def test_a_description_that_reorders_the_line_shows_its_controls_as_escapes(tmp_path: Path,
                                                                           shared_data_dir: Path) -> None:
    # A right-to-left override showed "\u202etxt.exe" on a terminal as "exe.txt": the table said
    # other than the description (Trojan Source's trick); an isolate does so too.
    folder = tmp_path / "extensions"
    folder.mkdir()
    (folder / "spoof.py").write_text(
        "def get_tool_schemas():\n"
        "    return [{'name': 'spoof_files', 'description': 'Delete the files \\u202etxt.exe\\u202c safely, "
        "\\u2066kept\\u2069 here', 'input_schema': {'type': 'object', 'properties': {}}}]\n\n\n"
        "def spoof_files():\n    return 'ok'\n", encoding="utf-8")
    result = runner.invoke(app, ["search", "delete the files", "--extensions", str(folder),
                                 "--data-dir", str(shared_data_dir)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "spoof_files" in result.stdout
    assert not set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") & set(result.stdout)
    assert "\\u202etxt.exe\\u202c safely, \\u2066kept\\u2069" in result.stdout
