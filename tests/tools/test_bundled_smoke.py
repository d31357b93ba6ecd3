"""Run each bundled tool directly under wasmtime: --help and a few real operations.

Deliberately minimal and independent of the server's runner.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
import wasmtime

from toolbay.internals.wasmtime_capi import set_compiler

REPO_ROOT = Path(__file__).resolve().parents[2]
EXTENSIONS = REPO_ROOT / "extensions"


@dataclass
class Result:
    code: int
    out: str
    err: str


class Tool:
    def __init__(self, engine: wasmtime.Engine, name: str, scratch: Path) -> None:
        self.engine = engine
        self.name = name
        self.module = wasmtime.Module.from_file(engine, str(EXTENSIONS / f"{name}.wasm"))
        self.scratch = scratch
        self.calls = 0

    def __call__(self, *args: str, stdin: bytes = b"", workspace: Path | None = None) -> Result:
        self.calls += 1
        base = self.scratch / f"{self.name}-{self.calls}"
        paths = {k: base.with_suffix(f".{k}") for k in ("in", "out", "err")}
        paths["in"].write_bytes(stdin)
        config = wasmtime.WasiConfig()
        config.argv = [self.name, *args]
        config.stdin_file = str(paths["in"])
        config.stdout_file = str(paths["out"])
        config.stderr_file = str(paths["err"])
        if workspace is not None:
            config.preopen_dir(str(workspace), "/workspace")
        store = wasmtime.Store(self.engine)
        store.set_wasi(config)
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        instance = linker.instantiate(store, self.module)
        start = instance.exports(store)["_start"]
        assert isinstance(start, wasmtime.Func)
        code = 0
        try:
            start(store)
        except wasmtime.ExitTrap as e:
            code = e.code
            e.__traceback__ = None
        return Result(
            code,
            paths["out"].read_bytes().decode("utf-8"),
            paths["err"].read_bytes().decode("utf-8"),
        )


@pytest.fixture(scope="module")
def engine() -> wasmtime.Engine:
    config = wasmtime.Config()
    # These runs are tiny: compiling fast matters more than fast machine code (jsonkit is 7 MB),
    # so the baseline compiler, as the server uses for first runs.
    set_compiler(config, "winch")
    return wasmtime.Engine(config)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bundled-smoke")


@pytest.fixture(scope="module")
def textkit(engine: wasmtime.Engine, scratch: Path) -> Tool:
    return Tool(engine, "textkit", scratch)


@pytest.fixture(scope="module")
def jsonkit(engine: wasmtime.Engine, scratch: Path) -> Tool:
    return Tool(engine, "jsonkit", scratch)


@pytest.fixture(scope="module")
def hashsum(engine: wasmtime.Engine, scratch: Path) -> Tool:
    return Tool(engine, "hashsum", scratch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "notes.txt").write_text("alpha beta\nGamma delta\nalpha again\n", encoding="utf-8")
    doc = '{"items": [{"name": "a", "n": 1.50}, {"name": "b"}]}'
    (ws / "sub" / "doc.json").write_text(doc, encoding="utf-8")
    return ws


# --- textkit (Rust + clap, subcommands) ---


def test_textkit_help_carries_keywords_and_permission(textkit: Tool) -> None:
    r = textkit("--help")
    assert r.code == 0
    assert "Usage: textkit <COMMAND>" in r.out
    for sub in ("count", "grep", "replace", "head", "tail", "sort", "case"):
        assert f"  {sub}" in r.out
    assert "Keywords: text, lines, search" in r.out
    assert "PermissionLevel: read" in r.out


def test_textkit_subcommand_help_lists_possible_values(textkit: Tool) -> None:
    r = textkit("case", "--help")
    assert r.code == 0
    assert "[possible values: upper, lower, title, snake, kebab, camel, pascal]" in r.out
    assert "PermissionLevel: read" in r.out


def test_textkit_count_stdin(textkit: Tool) -> None:
    r = textkit("count", "--json", stdin="one two\nthree é\n".encode())
    assert r.code == 0, r.err
    assert json.loads(r.out) == {"file": "-", "lines": 2, "words": 4, "chars": 16, "bytes": 17}


def test_textkit_grep_workspace_file(textkit: Tool, workspace: Path) -> None:
    r = textkit("grep", "-n", "-i", "ALPHA", "notes.txt", workspace=workspace)
    assert (r.code, r.out) == (0, "1:alpha beta\n3:alpha again\n")


def test_textkit_case_and_sort(textkit: Tool) -> None:
    assert textkit("case", "--to", "snake", stdin=b"HTTPServer fooBar\n").out == "http_server_foo_bar\n"
    assert textkit("sort", "-n", "-r", stdin=b"9 b\n10 a\n2 c\n").out == "10 a\n9 b\n2 c\n"


def test_textkit_missing_file_fails(textkit: Tool, workspace: Path) -> None:
    r = textkit("head", "nope.txt", workspace=workspace)
    assert r.code == 1
    assert "nope.txt" in r.err and r.out == ""


# --- jsonkit (Go + cobra) ---


def test_jsonkit_help(jsonkit: Tool) -> None:
    r = jsonkit("--help")
    assert r.code == 0
    assert "Available Commands:" in r.out and "Flags:" in r.out
    for sub in ("fmt", "get", "keys", "validate", "merge"):
        assert f"  {sub} " in r.out
    assert "completion" not in r.out
    assert "PermissionLevel: read" in r.out


def test_jsonkit_get(jsonkit: Tool, workspace: Path) -> None:
    r = jsonkit("get", "items.0.name", "--file", "sub/doc.json", workspace=workspace)
    assert (r.code, json.loads(r.out)) == (0, "a")
    r = jsonkit("get", "items[-1]", "--input", '{"items": [1, {"k": [true]}]}')
    assert json.loads(r.out) == {"k": [True]}
    r = jsonkit("get", "items.5", "--input", '{"items": []}')
    assert r.code == 1 and "not found" in r.err


def test_jsonkit_get_s_path_is_described_as_its_help_says_a_json_path_not_a_file(jsonkit: Tool) -> None:
    # cobra lists no positionals: "PATH" alone read as a file's path, which the sandbox then
    # mapped as one. The help's own sentence about PATH says what it is.
    from toolbay.helptext.describe import describe_help

    r = jsonkit("get", "--help")
    [path] = describe_help(r.out.encode()).positionals
    assert path.description.startswith("PATH is a sequence of object keys and array indexes separated by dots")
    assert path.description.endswith("as in items.0.name or items[0].name.")
    assert path.type == "string"


def test_jsonkit_keys_s_path_option_is_a_json_path_its_file_option_a_file(jsonkit: Tool) -> None:
    # pflag prints "--path string": the option's name said "a file's place", and the sandbox
    # mapped a host-looking value given for it. Its description speaks of an object, not a file.
    from toolbay.helptext.describe import describe_help

    options = {o.long: o for o in describe_help(jsonkit("keys", "--help").out.encode()).options}
    assert options["--path"].description.startswith("path of the object to list")
    assert (options["--path"].type, options["--file"].type) == ("string", "path")


def test_jsonkit_fmt_keeps_order_and_numbers(jsonkit: Tool) -> None:
    r = jsonkit("fmt", "--compact", stdin=b'{"b": 1.50, "a": [1, {}]}')
    assert (r.code, r.out) == (0, '{"b":1.50,"a":[1,{}]}\n')


def test_jsonkit_validate(jsonkit: Tool) -> None:
    r = jsonkit("validate", "--input", '{"a": [1, 2,]}')
    assert r.code == 1
    result = json.loads(r.out)
    assert result["valid"] is False and result["offset"] == 11
    assert json.loads(jsonkit("validate", "--input", "[1]").out) == {"valid": True}


def test_jsonkit_merge_patch(jsonkit: Tool) -> None:
    r = jsonkit("merge", "--input", '{"a": 1, "b": {"c": 2}}', "--patch", '{"b": {"c": null, "d": 3}}')
    assert json.loads(r.out) == {"a": 1, "b": {"d": 3}}


# --- hashsum (C + getopt_long) ---


def test_hashsum_help(hashsum: Tool) -> None:
    r = hashsum("--help")
    assert r.code == 0
    assert r.out.startswith("Usage: hashsum [OPTION]...")
    assert "  -a, --algorithm=ALG" in r.out and "(default: sha256)" in r.out


@pytest.mark.parametrize("alg", ["md5", "sha1", "sha256"])
@pytest.mark.parametrize("length", [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 1000])
def test_hashsum_matches_hashlib(hashsum: Tool, alg: str, length: int) -> None:
    text = ("abcdefghij" * 100)[:length]
    r = hashsum("-a", alg, "--text", text)
    assert (r.code, r.out) == (0, hashlib.new(alg, text.encode()).hexdigest() + "\n")


def test_hashsum_crc32_base64_upper(hashsum: Tool) -> None:
    assert hashsum("-a", "crc32", "-t", "abc").out == f"{zlib.crc32(b'abc'):08x}\n"
    assert hashsum("-u", "-t", "abc").out == hashlib.sha256(b"abc").hexdigest().upper() + "\n"
    assert hashsum("-e", "base64", "-a", "sha1", "-t", "abc").out == (
        base64.b64encode(hashlib.sha1(b"abc").digest()).decode() + "\n"
    )


def test_hashsum_file_and_stdin(hashsum: Tool, workspace: Path) -> None:
    blob = bytes(range(256)) * 700  # crosses the 64 KiB read size
    (workspace / "blob.bin").write_bytes(blob)
    assert hashsum("-f", "blob.bin", workspace=workspace).out == hashlib.sha256(blob).hexdigest() + "\n"
    assert hashsum("-a", "md5", stdin=blob).out == hashlib.md5(blob).hexdigest() + "\n"
    r = hashsum("--file=missing.bin", workspace=workspace)
    assert r.code == 1 and "missing.bin" in r.err
    assert hashsum("--algorithm=sha512", "-t", "x").code == 2


def test_hashsum_schema_offers_exactly_the_algorithms_and_encodings_the_program_takes(
        hashsum: Tool, shared_data_dir: Path) -> None:
    """Its help said "digest algorithm: md5, sha1, sha256 or crc32", which no parser reads as a
    list of choices: the schema offered any string. The truth is the program's own refusal."""
    import re

    from typer.testing import CliRunner

    from toolbay.cli import app

    listed = CliRunner().invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    assert listed.exit_code == 0, listed.output
    (tool,) = [t for t in json.loads(listed.stdout)["tools"] if t["name"] == "hashsum"]
    for option in ("algorithm", "encoding"):
        refusal = hashsum(f"--{option}=nope", "-t", "x")
        named = re.search(r"\(choose (.*)\)", refusal.err)
        assert refusal.code == 2 and named is not None, refusal.err
        accepted = re.split(r", | or ", named.group(1))
        assert tool["input_schema"]["properties"][option]["enum"] == accepted


def test_hashsum_of_empty_text_is_the_digest_of_nothing(shared_data_dir: Path) -> None:
    """{"text": ""} was passed as a bare "--text", which the program refuses ("option requires an
    argument"): a sentence of its help, "--text and --file cannot be used together.", had been
    read as a second listing of --text without a value, making the value one that may be left out."""
    from typer.testing import CliRunner

    from toolbay.cli import app

    called = CliRunner().invoke(app, ["call", "hashsum", '{"text": ""}', "--data-dir", str(shared_data_dir)])
    assert called.exit_code == 0, called.output
    assert called.stdout.strip() == hashlib.sha256(b"").hexdigest()
    listed = CliRunner().invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    (tool,) = [t for t in json.loads(listed.stdout)["tools"] if t["name"] == "hashsum"]
    assert tool["input_schema"]["properties"]["text"]["description"].endswith(
        "--text and --file cannot be used together.")
