"""The `toolbay` command as a new user meets it: its helps and the one-line refusals of what it
cannot take (issue #14)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.conftest import BUNDLED_EXTENSIONS, REPO_ROOT
from toolbay.cli import app

runner = CliRunner()


def every_command_line() -> list[list[str]]:
    """Every command's words (``["jobs", "list"]``), groups included."""
    found: list[list[str]] = []

    def walk(command: Any, words: list[str]) -> None:
        found.append(words)
        for name, sub in getattr(command, "commands", {}).items():  # a group's
            walk(sub, [*words, name])

    walk(typer.main.get_command(app), [])
    return found


@pytest.mark.parametrize("argv", [
    ["jobs", "list", "--owner", ""], ["jobs", "list", "--owner", "  "], ["jobs", "status", "job_x", "--owner", ""],
    ["jobs", "wait", "job_x", "--owner", ""], ["jobs", "result", "job_x", "--owner", ""],
    ["jobs", "cancel", "job_x", "--owner", ""]])
def test_jobs_refuse_an_empty_owner(argv: list[str], tmp_path: Path) -> None:
    """`jobs list --owner ""` listed the jobs of nobody ("0 jobs of , newest first"), exit 0."""
    result = runner.invoke(app, [*argv, "--data-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith(f"toolbay jobs {argv[1]}: Invalid value for '--owner': is empty: give the caller's id")


@pytest.mark.parametrize("command", ["status", "wait", "result", "cancel"])
def test_jobs_refuse_an_empty_job_id(command: str, tmp_path: Path) -> None:
    """`jobs status ""` looked for a job named '' (and said there were no jobs, exit 1)."""
    result = runner.invoke(app, ["jobs", command, " ", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert f"toolbay jobs {command}: Invalid value for 'ID': is empty: give the job's id" in line


def test_jobs_refuse_an_empty_data_folder_as_the_other_commands_do(tmp_path: Path) -> None:
    """`jobs list --data-dir ""` read the current folder's jobs, where `list --data-dir ""` is refused."""
    result = runner.invoke(app, ["jobs", "list", "--data-dir", ""])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert "Invalid value for '--data-dir': is empty, which would mean the current folder" in line


@pytest.mark.parametrize("words", every_command_line(), ids=lambda words: " ".join(words) or "toolbay")
def test_no_help_shows_the_parsers_type_names(words: list[str]) -> None:
    """`jobs list --help` showed `--limit <int range>`, `[default: 100; 1<=x<=10000]` and
    `--status <str>`: each value is named by a word and a range is said in words."""
    shown = runner.invoke(app, [*words, "--help"])
    assert shown.exit_code == 0, shown.output
    assert not re.search(r"<\w[\w ]*>|x\s*[<>]=|[<>]=\s*x", shown.stdout), shown.stdout


@pytest.mark.parametrize(("argv", "said"), [
    (["jobs", "list", "--limit", "0"],
     "Invalid value for '--limit': 0 is out of range: give a number from 1 to 10,000"),
    (["jobs", "list", "--limit", "ten"], "Invalid value for '--limit': 'ten' is not a whole number"),
    (["jobs", "list", "--offset", "-1"], "Invalid value for '--offset': -1 is out of range: give a number 0 or more"),
    (["search", "hash", "--limit", "0"], "Invalid value for '--limit' / '-k': 0 is out of range: give a number 1 or "
                                         "more")])
def test_a_count_out_of_range_is_said_in_words(argv: list[str], said: str, tmp_path: Path) -> None:
    """They were pydantic's ("Input should be greater than or equal to 1")."""
    result = runner.invoke(app, [*argv, "--data-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert said in result.stderr


def test_jobs_list_help_says_its_ranges_in_words() -> None:
    shown = " ".join(runner.invoke(app, ["jobs", "list", "--help"]).stdout.split())
    assert "--limit N At most this many, from 1 to 10,000. [default: 100]" in shown
    assert "--offset N Skip this many of the newest first, 0 or more." in shown
    assert "--status STATUS Only jobs with this status" in shown


def test_token_new_notes_a_scope_toolbay_does_not_know(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--scope bogus` made a token that grants nothing, without a word (only a misspelt `tools:`
    scope was noted); a scope the configuration defines is no mistake."""
    monkeypatch.chdir(tmp_path)
    made = runner.invoke(app, ["token", "new", "--client-id", "ci", "--scope", "bogus", "--scope", "tools:exce",
                               "--scope", "tool:textkit_*", "--scope", "metrics:read"])
    assert made.exit_code == 0, made.output
    notes = [line for line in made.stderr.splitlines() if line.startswith("toolbay: note:")]
    assert len(notes) == 2, made.stderr
    assert notes[0].startswith("toolbay: note: 'bogus' is no scope toolbay knows: it grants nothing unless the "
                               'configuration defines it ([chain.access.scopes."bogus"]); the scopes are tools:read, ')
    assert "tool:PATTERN, catalog:PATTERN" in notes[0]
    assert notes[1].startswith("toolbay: note: 'tools:exce' is no scope toolbay knows (did you mean 'tools:exec'?)")
    (tmp_path / "toolbay.toml").write_text('[chain.access.scopes.bogus]\ntiers = ["read"]\n')
    defined = runner.invoke(app, ["token", "new", "--client-id", "ci", "--scope", "bogus", "--scope", "bogsu"])
    assert defined.exit_code == 0, defined.output
    [note] = [line for line in defined.stderr.splitlines() if line.startswith("toolbay: note:")]
    assert note.startswith("toolbay: note: 'bogsu' is no scope toolbay knows (did you mean 'bogus'?)")


def token_lines(tmp_path: Path, config: Path) -> tuple[str, str]:
    """What `token new --append` printed after the token, for ``config``, and what it said on stderr."""
    made = runner.invoke(app, ["token", "new", "--client-id", "ci", "--scope", "tools:read", "--append",
                               str(tmp_path / "tokens.toml"), "--config", str(config)])
    assert made.exit_code == 0, made.output
    return made.stdout.split("\n", 1)[1], made.stderr


@pytest.mark.parametrize("before", ["", "[sandbox]\nmemory_mb = 128\n", '[chain.auth]\nlocal_scopes = ["tools:exec"]',
                                    '[chain.auth]\nlocal_scopes = ["tools:exec"]\n[chain.access.scopes.ci]\n'
                                    'tiers = ["read"]\n[sandbox]\nmemory_mb = 128\n',
                                    '[ "chain" . \'auth\' ]\nlocal_scopes = ["tools:exec"]\n'
                                    '[sandbox]\nmemory_mb = 128\n'])
def test_the_lines_token_new_prints_go_into_the_configuration_as_said(
        tmp_path: Path, shared_data_dir: Path, before: str) -> None:
    """They were `[chain.auth]` and `tokens_file` whatever the configuration: appended to one with
    a [chain.auth] table, TOML refused the file (a table defined twice) and no command started."""
    config = tmp_path / "toolbay.toml"
    config.write_text(before)
    lines, said = token_lines(tmp_path, config)
    if "append the lines after the token to" in said:
        config.write_text(before + lines)
    else:  # [chain.auth] is followed by another table: the one line goes under its header
        assert f"add the line after the token under [chain.auth] in {config}" in said, said
        assert lines.strip().startswith("tokens_file = ") and "\n" not in lines.strip()
        header = before.split("\n", 1)[0] + "\n"
        config.write_text(before.replace(header, header + lines.strip() + "\n", 1))
    loaded = runner.invoke(app, ["list", "--json", "--config", str(config), "--data-dir", str(shared_data_dir)])
    assert loaded.exit_code == 0, loaded.output
    from toolbay.config import load_settings

    assert load_settings(config).chain["auth"]["tokens_file"] == str(tmp_path / "tokens.toml")
    # Once named, nothing more is printed for it.
    again, said_again = token_lines(tmp_path, config)
    assert again == "" and f"{config} names that file already" in said_again


def test_every_command_whose_reader_went_away_ends_quietly_as_ls_does(tmp_path: Path, shared_data_dir: Path) -> None:
    """`toolbay list | head -1` and the like ended with status 1, the status of a tool that failed or
    a full disk; typer's commands by typer's own handler, the others by toolbay's. Now each ends
    as `ls | head` does, with 128 + SIGPIPE and nothing said."""
    helps = REPO_ROOT / "tests" / "helptext" / "corpus" / "gnu" / "cp"
    (tmp_path / "catalog.jsonl").write_text('{"name": "a", "description": "hash text", "inputSchema": {}}\n')
    (tmp_path / "queries.jsonl").write_text('{"id": "1", "query": "hash"}\n')
    catalog = ["--catalog", str(tmp_path / "catalog.jsonl"), "--queries", str(tmp_path / "queries.jsonl")]
    commands = [["list"], ["list", "--json"], ["parse-help", str(helps / "long.txt")],
                ["parse-help", "--short", str(helps / "short.txt"), "--", str(helps / "long.txt")],
                ["search", "hash"], ["search", "hash", "--json"], ["search", *catalog], ["jobs", "list"],
                ["jobs", "list", "--json"], ["describe", str(BUNDLED_EXTENSIONS / "hashsum.wasm")],
                ["describe", str(BUNDLED_EXTENSIONS / "hashsum.wasm"), "--json"], ["call", "hashsum", '{"text": "a"}'],
                ["--help"], ["jobs", "list", "--help"], ["--version"],
                ["token", "new", "--client-id", "a", "--scope", "tools:read"]]
    env = {**os.environ, "TOOLBAY_DATA_DIR": str(shared_data_dir)}
    running = []
    for argv in commands:
        reader, writer = os.pipe()
        os.close(reader)  # gone before the command writes a byte
        running.append((argv, subprocess.Popen([sys.executable, "-m", "toolbay", *argv], stdout=writer,
                                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                                cwd=tmp_path, env=env)))
        os.close(writer)
    for argv, process in running:
        _, said = process.communicate(timeout=120)
        # What it says on stderr before its output it says (cp's -h text is no help; no server kept jobs there).
        lines = [line for line in said.splitlines() if not line.startswith(("toolbay: note:", "toolbay: no jobs in "))]
        assert (process.returncode, lines) == (128 + signal.SIGPIPE, []), argv


@pytest.mark.parametrize(("argv", "said"), [
    (["describe", ""], "toolbay describe: Invalid value for 'FILE.wasm': is empty: name the .wasm file"),
    (["parse-help", ""], "toolbay parse-help: Invalid value for 'FILE': is empty: name the file of `PROGRAM --help`'s"),
    (["parse-help", "--long", ""], "toolbay parse-help: Invalid value for '--long': is empty"),
    (["parse-help", "--short", "", "help.txt"], "toolbay parse-help: Invalid value for '--short': is empty: name the "
                                                "file of `PROGRAM -h`'s output, or leave --short out"),
    (["token", "new", "--client-id", "a", "--scope", "tools:read", "--append", ""],
     "toolbay token new: Invalid value for '--append': is empty: name the tokens file, or leave --append out")])
def test_an_empty_file_name_is_refused_by_name(argv: list[str], said: str, tmp_path: Path) -> None:
    """Taken as the current folder, or as no name at all: `describe ""` said "describe: . is a
    folder", `token new --append ""` "cannot append to .: Is a directory", `parse-help ""`
    "cannot read help text : No such file or directory"."""
    (tmp_path / "help.txt").write_text("Usage: x [-v]\n\nOptions:\n  -v  be loud\n")
    done = subprocess.run([sys.executable, "-m", "toolbay", *argv], capture_output=True, text=True, cwd=tmp_path,
                          check=False, timeout=60)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(said), line
    assert done.stdout == "" and not (tmp_path / "tokens.toml").exists()


@pytest.mark.parametrize("words", [[], ["jobs"], ["token"]], ids=lambda words: " ".join(["toolbay", *words]))
def test_a_groups_help_says_each_commands_first_sentence_whole(words: list[str]) -> None:
    """`toolbay --help` cut them to the width beside the names: "Show the tools toolbay would
    serve, and the files it...", "Waits for a job to end, showing its progress; exit 1 unless it..."."""
    shown = runner.invoke(app, [*words, "--help"])
    assert shown.exit_code == 0, shown.output
    commands = shown.stdout.split("Commands:\n", 1)[1]
    assert "..." not in commands, commands
    if not words:
        assert "list        Show the tools toolbay would serve, and the files it skipped and\n" in commands


def test_token_new_help_names_every_kind_of_scope() -> None:
    """It named tools:read|write|exec, tool:PATTERN and named scopes: not the authoring tools'
    tools:create and tools:share, catalog:PATTERN (what a caller may search) or metrics:read."""
    from toolbay.chain.authorize import KNOWN_TOOL_SCOPES

    shown = " ".join(runner.invoke(app, ["token", "new", "--help"]).stdout.split())
    said = shown.split("--scope SCOPE", 1)[1].split("--append", 1)[0]
    assert "tools:read|write|exec|create|share" in said
    assert {scope.removeprefix("tools:") for scope in KNOWN_TOOL_SCOPES} <= set(said.split("tools:")[1].split(",")[0]
                                                                                 .split("|"))
    for kind in ("tool:PATTERN", "catalog:PATTERN", "metrics:read", "[chain.access.scopes]"):
        assert kind in said, said


@pytest.mark.parametrize(("argv", "said"), [
    (["serve", "--transport", "http", "--port", "x"], "toolbay serve: Invalid value for '--port': 'x' is not a whole "
                                                       "number"),
    (["serve", "--transport", "http", "--port", "99999"], "toolbay serve: Invalid value for '--port': 99999 is out of "
                                                           "range: give a number from 0 to 65,535"),
    (["jobs", "wait", "job_x", "--timeout", "ten"], "toolbay jobs wait: Invalid value for '--timeout': 'ten' is not a "
                                                     "number of seconds")])
def test_a_number_that_is_not_one_is_said_in_words(argv: list[str], said: str, tmp_path: Path) -> None:
    """In pydantic's: "Input should be a valid integer, unable to parse string as an integer", and a
    port too large, which `serve` reads without typer, "invalid configuration: port: Input should be
    less than or equal to 65535"."""
    done = subprocess.run([sys.executable, "-m", "toolbay", *argv, "--data-dir", str(tmp_path)], capture_output=True,
                          text=True, cwd=tmp_path, check=False, timeout=60)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(said), line


@pytest.mark.parametrize(("argv", "said"), [
    (["hashsum", ""], "toolbay: the arguments are empty; give a JSON object ('{}' for none)"),
    (["hashsum", "--args", " "], "toolbay: --args is empty; give a JSON object ('{}' for none)"),
    (["hashsum", '"abc"'], 'toolbay: the arguments must be a JSON object ({"name": value, ...}), not a string')])
def test_call_says_what_its_arguments_are_when_they_are_no_object(argv: list[str], said: str,
                                                                   shared_data_dir: Path) -> None:
    """An unset variable (`toolbay call hashsum "$ARGS"`) was "not valid JSON: EOF while parsing a
    value at line 1 column 0"; a string was said to be no object, not what it was."""
    result = runner.invoke(app, ["call", *argv, "--data-dir", str(shared_data_dir)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [said])


@pytest.mark.parametrize(("argv", "said"), [
    (["help"], "toolbay: No such command 'help': 'toolbay COMMAND -h' shows its help. (see 'toolbay -h')"),
    (["help", "list"], "toolbay: No such command 'help': 'toolbay list -h' shows its help. (see 'toolbay -h')"),
    (["jobs", "help", "wait"], "toolbay jobs: No such command 'help': 'toolbay jobs wait -h' shows its help. (see "
                               "'toolbay jobs -h')"),
    (["version"], "toolbay: No such command 'version': 'toolbay --version' prints the version. (see 'toolbay -h')"),
    (["-V"], "toolbay: No such option: -V: 'toolbay --version' prints the version. (see 'toolbay -h')")])
def test_what_other_commands_answer_points_at_toolbays_answer(argv: list[str], said: str) -> None:
    """`toolbay help`, `toolbay version` and `toolbay -V` (git's, go's, many tools' ways) were
    "No such command 'help'." and no more."""
    result = runner.invoke(app, argv)
    assert (result.exit_code, result.stderr.splitlines()) == (2, [said])


@pytest.mark.parametrize(("setting", "said"), [
    ("data_dir = 5", "data_dir: should be a path, written as text in quotes (got 5)"),
    ('[chain.auth]\ntokens_file = ["a"]', "chain.auth.tokens_file: should be a path, written as text in quotes "
                                          "(got ['a'])")])
def test_a_path_setting_that_is_no_text_is_said_without_python_words(setting: str, said: str,
                                                                      tmp_path: Path) -> None:
    """It was "Input is not a valid path for <class 'pathlib.Path'>", a Python class."""
    config = tmp_path / "toolbay.toml"
    config.write_text(setting + "\n")
    result = runner.invoke(app, ["list", "--config", str(config)])  # the tests' HOME: its data folder is theirs
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert said in line and "class" not in line, line


def test_a_chain_setting_refused_names_the_file_it_is_in(tmp_path: Path) -> None:
    """A top-level setting refused named the configuration file; one under [chain] did not
    ("invalid configuration: chain.auth.token_file: no such setting ..."), which left the user
    to guess which file, or variable, held it."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[chain.auth]\ntoken_file = "tokens.toml"\n')
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"toolbay: invalid configuration (config file {config}, environment TOOLBAY_*, or flags): "
        f"chain.auth.token_file: no such setting; did you mean tokens_file? (got 'tokens.toml') (in {config})"]


@pytest.mark.parametrize("argv", [["parse-help"], ["parse-help", "--short", "h.txt"]])
def test_parse_help_without_its_file_says_it_is_missing(argv: list[str]) -> None:
    """It said "Invalid value: give the --help text ...", as if a value given were wrong, where the
    other commands say "Missing argument 'FILE.wasm'"."""
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("toolbay parse-help: Missing argument 'FILE': give the --help text: toolbay parse-help FILE")


def test_token_new_lists_a_scope_given_twice_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--scope tools:read --scope tools:read` wrote scopes = ["tools:read", "tools:read"]."""
    monkeypatch.chdir(tmp_path)  # no ./toolbay.toml: none is read
    from toolbay.auth.tokens import TokenStore

    tokens = tmp_path / "tokens.toml"
    made = runner.invoke(app, ["token", "new", "--client-id", "ci", "--scope", "tools:read", "--scope", "tool:x",
                               "--scope", "tools:read", "--append", str(tokens), "--config", str(tmp_path / "none")])
    assert made.exit_code == 2, made.output  # the configuration named does not exist: nothing written
    assert not tokens.exists()
    made = runner.invoke(app, ["token", "new", "--client-id", "ci", "--scope", "tools:read", "--scope", "tool:x",
                               "--scope", "tools:read", "--append", str(tokens)])
    assert made.exit_code == 0, made.output
    assert 'scopes = ["tools:read", "tool:x"]\n' in tokens.read_text()
    assert TokenStore.from_file(tokens).scopes_given() == [("ci", "tools:read"), ("ci", "tool:x")]


@pytest.mark.parametrize("before", ['chain.auth.local_scopes = ["tools:exec"]\n',
                                    'chain = {auth = {local_scopes = ["tools:exec"]}}\n',
                                    '[chain]\nauth.local_scopes = ["tools:exec"]\n[sandbox]\nmemory_mb = 128\n'])
def test_token_new_says_where_its_line_goes_in_a_configuration_without_a_chain_auth_header(
        tmp_path: Path, before: str) -> None:
    """A configuration that sets chain.auth by dotted keys or an inline table was told to add the
    line 'under [chain.auth]', a header it does not have: added, TOML refuses the file (a table
    defined twice). Top-level dotted keys take one more appended; the others are told where."""
    config = tmp_path / "toolbay.toml"
    config.write_text(before)
    lines, said = token_lines(tmp_path, config)
    assert "under [chain.auth]" not in said, said
    if before.startswith("chain.auth."):
        assert f"append the lines after the token to {config}" in said, said
        config.write_text(before + lines)
        from toolbay.config import load_settings

        assert load_settings(config).chain["auth"]["tokens_file"] == str(tmp_path / "tokens.toml")
    else:
        assert "without a [chain.auth] header" in said and "inline table" in said, said
