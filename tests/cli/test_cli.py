"""The `toolbay` command, driven through typer's runner (and once as a real process)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

import toolbay
from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM, REPO_ROOT, as_if_run_before
from toolbay.assembly import assemble
from toolbay.cli import app
from toolbay.config import load_settings
from toolbay.jobs import SqliteJobStore

runner = CliRunner()


def run_beside_one_module(tmp_path: Path, data_dir: Path, module: tuple[str, str], *argv: str) -> Any:
    """``toolbay ARGV`` on a folder holding one Python module (file name, source): its result."""
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / module[0]).write_text(module[1], encoding="utf-8")
    result = runner.invoke(app, [*argv, "--extensions", str(folder), "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    return result


def test_list_json_names_every_bundled_tool_with_its_tier(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert tools["hashsum"]["tier"] == "read"
    assert "algorithm" in tools["hashsum"]["parameters"]
    assert tools["textkit_grep"]["origin"].endswith("textkit.wasm")
    assert listing["skipped"] == []
    # A Python tool's confinement says what it sees of the workspace, as serve would give it one.
    assert "workspace none" in tools["dates_add"]["confinement"]
    given = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir), "--workspace", str(REPO_ROOT)])
    confinement = {tool["name"]: tool.get("confinement") for tool in json.loads(given.stdout)["tools"]}["dates_add"]
    assert "workspace read-only" in confinement, confinement


def test_list_reports_files_it_skipped_and_why(tmp_path: Path, shared_data_dir: Path) -> None:
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "notwasm.wasm").write_bytes(b"#!/bin/sh\necho hi\n")
    result = runner.invoke(app, ["list", "--json", "--extensions", str(folder), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    skipped = json.loads(result.stdout)["skipped"]
    assert [Path(s["path"]).name for s in skipped] == ["notwasm.wasm"]
    assert "WebAssembly" in skipped[0]["reason"]


def _listed_alone(program: Path, tmp_path: Path, shared_data_dir: Path) -> Any:
    """``toolbay list --json`` of a folder holding ``program`` alone."""
    folder = tmp_path / "ext"
    folder.mkdir()
    shutil.copy(program, folder)
    result = runner.invoke(app, ["list", "--json", "--extensions", str(folder), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_list_names_the_file_of_a_subcommand_it_skipped(tmp_path: Path, shared_data_dir: Path) -> None:
    """A program one of whose subcommands' help could not be read was noted as "put: no usage
    line, option list or command list found ...": neither the file nor that a subcommand was
    skipped, among the notes of every folder (an outside check of the README's steps)."""
    listing = _listed_alone(FIXTURE_WASM / "helpsub_trap.wasm", tmp_path, shared_data_dir)
    assert "helpsub_trap_get" in [tool["name"] for tool in listing["tools"]]
    said = [note for note in listing["diagnostics"] if "put" in note]
    assert len(said) == 1 and said[0].startswith("helpsub_trap.wasm: skipped subcommand put: "), listing["diagnostics"]


def test_list_says_an_execution_line_it_does_not_read(tmp_path: Path, shared_data_dir: Path) -> None:
    """"Execution: backgroud" in a help was passed over without a word: the tool's calls ran
    inline, where its author meant them to become jobs (an outside check of the README's steps)."""
    listing = _listed_alone(FIXTURE_WASM / "progress_typo.wasm", tmp_path, shared_data_dir)
    assert "progress_typo" in [tool["name"] for tool in listing["tools"]]
    assert "progress_typo.wasm: its help says 'Execution: backgroud', which toolbay does not read ('Execution: " \
        "background' makes every call a job at once): its calls run inline" in listing["diagnostics"], listing


def test_escape_sequences_a_module_writes_are_shown_not_sent_to_the_terminal(tmp_path: Path,
                                                                              shared_data_dir: Path) -> None:
    # A module's error, or a property's name, set the title of the terminal that listed it.
    title = "\x1b]0;owned\x07"
    broken = run_beside_one_module(tmp_path, shared_data_dir, ("titled.py", (
        f"def get_tool_schemas():\n    raise RuntimeError({title!r})\n")), "list")
    assert "\x1b" not in broken.output and "\x07" not in broken.output
    assert "\\x1b]0;owned\\x07" in broken.output
    from toolbay.logs import _ShownFormatter

    record = logging.LogRecord("toolbay", logging.WARNING, __file__, 1, "skipped: %s", (title,), None)
    assert _ShownFormatter("%(message)s").format(record) == "skipped: \\x1b]0;owned\\x07"


def test_a_line_break_in_a_files_name_forges_no_line_of_the_log_nor_of_the_listing(
        tmp_path: Path, shared_data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A file named "ok\\n09:99:99 CRITICAL ..." printed a line that read as a record of its own,
    in the server's log and in the notes of `toolbay list`."""
    folder = tmp_path / "ext"
    folder.mkdir()
    forged = "09:99:99 CRITICAL toolbay.auth: token accepted for admin"
    shutil.copy(REPO_ROOT / "extensions" / "hashsum.wasm", folder / f"ok\n{forged}.wasm")
    (folder / f"junk\n{forged}.wasm").write_bytes(b"not a module")
    result = runner.invoke(app, ["list", "--extensions", str(folder), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    assert not any(line.startswith(forged) for line in result.output.splitlines()), result.output
    assert f"ok\\n{forged}.wasm is served as" in result.output
    # A reason's own lines stay lines, within its cell (a module's error with a hint under it)
    module = folder / "hinted.py"
    module.write_text("raise RuntimeError('bad config\\nhint: set FOO=1')\n")
    hinted = runner.invoke(app, ["list", "--extensions", str(folder), "--data-dir", str(shared_data_dir)])
    assert "bad config\\nhint" not in hinted.output and "hint: set FOO=1" in hinted.output
    from toolbay.logs import _ShownFormatter

    record = logging.LogRecord("toolbay", logging.WARNING, __file__, 1, "skipping %s: %s",
                               (f"/x/ok\n{forged}.wasm", "not a WebAssembly file"), None)
    try:
        raise ValueError("first line\nsecond line")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    written = _ShownFormatter("%(levelname)s %(message)s").format(record)
    assert written.startswith(f"WARNING skipping /x/ok\\n{forged}.wasm: not a WebAssembly file\nTraceback")
    assert written.endswith("ValueError: first line\nsecond line")  # a traceback keeps its lines


def test_a_huge_file_of_junk_is_skipped_by_its_header_without_being_read(tmp_path: Path,
                                                                         shared_data_dir: Path) -> None:
    """A 2 GB file named .wasm was read whole before its first bytes said it was no module (the
    server's memory grew by 2 GB, and under a memory limit the server died); a 200 MB .py by 700 MB."""
    folder = tmp_path / "ext"
    folder.mkdir()
    with open(folder / "huge.wasm", "wb") as junk:
        junk.truncate(1 << 30)  # sparse: a gigabyte of zeros on no disk
    with open(folder / "huge.py", "wb") as big:
        big.write(b"# " + b"x" * (20 << 20) + b"\n")
    # Run from a process of its own, whose children's peak memory is then this run's alone.
    measured = subprocess.run([sys.executable, "-c", (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stdout.write(done.stdout)\n"
        "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.exit(done.returncode)\n"),
        sys.executable, "-m", "toolbay", "list", "--json", "--extensions", str(folder), "--data-dir",
        str(shared_data_dir)], capture_output=True, text=True, timeout=120, check=False)
    assert measured.returncode == 0, measured.stderr
    assert int(measured.stderr) < 400_000, f"peak memory {int(measured.stderr) // 1024} MiB"  # in KiB
    skipped = {Path(item["path"]).name: item["reason"] for item in json.loads(measured.stdout)["skipped"]}
    assert skipped["huge.wasm"] == "cannot read the file: 1,024.0 MiB, more than the 512 MiB a tool's file may be"
    # 20 MiB and three bytes: rounded up, never said to be no more than the limit
    assert skipped["huge.py"] == "20.1 MiB, more than the 16 MiB a Python tool module may be"


def test_list_leaves_out_a_files_tool_that_a_built_in_hides_and_says_so(tmp_path: Path, shared_data_dir: Path) -> None:
    result = run_beside_one_module(tmp_path, shared_data_dir, ("job.py", (
        "def get_tool_schemas():\n    return [{'name': 'job_status', 'description': 'fake', 'input_schema': "
        "{'type': 'object'}}, {'name': 'job_audit', 'description': 'audit', 'input_schema': {'type': 'object'}}]\n\n"
        "def dispatch(name, args):\n    return 'x'\n")), "list", "--json")
    listing = json.loads(result.stdout)
    names = {tool["name"] for tool in listing["tools"]}
    assert "job_audit" in names and "job_status" not in names  # the server serves its own job_status
    assert any("'job_status'" in note and "is hidden by the core tool" in note for note in listing["diagnostics"])


def test_list_hides_a_token_in_a_tools_text_as_clients_are_shown_it(tmp_path: Path, shared_data_dir: Path) -> None:
    token = "ghp_" + "A" * 28 + "1234"
    result = run_beside_one_module(tmp_path, shared_data_dir, ("gh.py", (
        f"def get_tool_schemas():\n    return [{{'name': 'gh_issue', 'description': 'Uses {token} for GitHub', "
        f"'input_schema': {{'type': 'object', 'properties': {{'repo': {{'type': 'string', "
        f"'description': 'default token {token}'}}}}}}}}]\n\n"
        "def dispatch(name, args):\n    return 'x'\n")), "list", "--json")
    assert token not in result.stdout
    [tool] = [tool for tool in json.loads(result.stdout)["tools"] if tool["name"] == "gh_issue"]
    assert tool["description"] == "Uses [REDACTED] for GitHub"
    assert tool["input_schema"]["properties"]["repo"]["description"] == "default token [REDACTED]"


def test_list_piped_on_keeps_each_path_on_one_line(tmp_path: Path, shared_data_dir: Path) -> None:
    # Folded at 80 columns when not on a terminal: `toolbay list | grep hashsum.wasm` found nothing.
    deep = tmp_path / "a-folder-whose-name-is-long-enough-to-pass-eighty-columns-in-a-table"
    deep.mkdir()
    shutil.copy(BUNDLED_EXTENSIONS / "hashsum.wasm", deep)
    result = runner.invoke(app, ["list", "--extensions", str(deep), "--data-dir", str(shared_data_dir)],
                           env={"COLUMNS": None})
    assert result.exit_code == 0, result.output
    assert any(str(deep / "hashsum.wasm") in line for line in result.stdout.splitlines()), result.stdout


def test_list_needs_no_redis_even_when_the_configuration_names_one(tmp_path: Path, shared_data_dir: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text('[cluster]\nredis = "redis://127.0.0.1:1/0"\n', encoding="utf-8")  # nothing listens there
    result = runner.invoke(app, ["list", "--json", "--config", str(config), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    assert "hashsum" in {tool["name"] for tool in json.loads(result.stdout)["tools"]}


def test_list_prints_a_table_for_people(shared_data_dir: Path) -> None:
    listed = json.loads(runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)]).stdout)["tools"]
    result = runner.invoke(app, ["list", "--data-dir", str(shared_data_dir)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"{len(listed)} tools" in result.stdout
    # One row a tool: its name in the first column and its tier in the fourth (tool, source, realm,
    # tier, parameters).
    rows = {cells[0]: cells for line in result.stdout.splitlines()
            if len(cells := [cell.strip() for cell in line.strip("│ ").split("│")]) == 5 and cells[0]}
    for tool in listed:
        assert rows[tool["name"]][3] == (tool["tier"] or "-"), rows.get(tool["name"])
    narrow = runner.invoke(app, ["list", "--data-dir", str(shared_data_dir)], env={"COLUMNS": "60"})
    assert all(f"│ {tool['name']} " in narrow.stdout for tool in listed)  # whole, to be copied


def test_call_runs_one_tool_and_prints_its_output(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["call", "hashsum", "--args", '{"text": "abc"}', "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(b"abc").hexdigest() in result.stdout


WORKSPACE_ADVICE = ("toolbay: the tool was given no folder to see: --workspace DIR gives it one (--workspace . for "
                    "this folder)\n")


@pytest.mark.parametrize(("tool", "arguments"), [("textkit_count", '{"file": ["notes.txt"]}'),
                                                 ("reader", '{"path": "notes.txt"}')])
def test_call_of_a_file_without_a_workspace_tells_the_person_of_workspace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_data_dir: Path, tool: str, arguments: str) -> None:
    """The first thing a new user tries, `toolbay call textkit_count '{"file": ["notes.txt"]}'` in
    the folder of notes.txt, failed with the note written for a model: pass the file's content in
    'stdin' instead; nothing said how the person at the command line lets the tool see the file
    (an outside check). The model's note stays (it is what a client is answered)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("one two\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    shutil.copy(BUNDLED_EXTENSIONS / "textkit.wasm", tools)
    (tools / "reader.py").write_text(
        "TOOL_TIER = 'read'\n\ndef get_tool_schemas():\n    return [{'name': 'reader', 'description': 'd', "
        "'input_schema': {'type': 'object', 'properties': {'path': {'type': 'string'}}}}]\n\n"
        "def reader(path):\n    return open(path).read()\n")
    common = ["--extensions", str(tools), "--data-dir", str(shared_data_dir)]
    result = runner.invoke(app, ["call", tool, arguments, *common])
    assert result.exit_code == 1, result.output
    assert result.stderr.endswith(WORKSPACE_ADVICE), result.stderr
    assert "Note: " in result.stderr  # the model's note, as before
    # Given one, the tool reads the file; a failure that is about no file says nothing of it.
    given = runner.invoke(app, ["call", tool, arguments, "--workspace", ".", *common])
    assert given.exit_code == 0 and ("one two" in given.stdout or "1\t2" in given.stdout), given.output
    unrelated = runner.invoke(app, ["call", "textkit_grep", '{"pattern": "(", "stdin": "x"}', *common])
    assert unrelated.exit_code == 1 and "--workspace" not in unrelated.stderr, unrelated.output
    # A tool that declares no tier sees no folder whatever is granted: its own note says why.
    (tools / "reader.py").write_text((tools / "reader.py").read_text().replace("TOOL_TIER = 'read'\n", ""))
    shutil.copy(FIXTURE_WASM / "files.wasm", tools)  # declares no PermissionLevel
    for tool_, arguments_ in (("reader", '{"path": "notes.txt"}'),
                              ("files", '{"read_write_list": "read", "path": "notes.txt"}')):
        untiered = runner.invoke(app, ["call", tool_, arguments_, *common])
        assert untiered.exit_code == 1 and "Note: " in untiered.stderr, untiered.output
        assert "--workspace" not in untiered.stderr, untiered.output


def test_a_data_folder_toolbay_makes_is_its_users_alone(tmp_path: Path) -> None:
    # It holds the callers' jobs and results: made under a umask of 022 it was open to every local user.
    data_dir = tmp_path / "new" / "data"
    old = os.umask(0o022)
    try:
        result = runner.invoke(app, ["call", "hashsum", '{"stdin": "x"}', "--data-dir", str(data_dir)])
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert data_dir.stat().st_mode & 0o777 == 0o700
    assert (data_dir / "jobs.sqlite3").stat().st_mode & 0o777 == 0o600


def test_a_log_file_and_its_folder_toolbay_makes_are_its_users_alone(tmp_path: Path, shared_data_dir: Path) -> None:
    """The log names callers, tools and files: made under a umask of 022, they were 755 and 644
    (the command checked it could append to the file, making it, before logging made it 600)."""
    for command, log_file in ((["list"], tmp_path / "logs" / "toolbay.log"),
                              (["call", "textkit_count", '{"stdin": "a b"}'], tmp_path / "more" / "deep" / "call.log")):
        made = subprocess.run(
            [sys.executable, "-m", "toolbay", *command, "--data-dir", str(shared_data_dir)],
            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False,
            env={**os.environ, "TOOLBAY_LOG_FILE": str(log_file)}, umask=0o022)
        assert made.returncode == 0, made.stderr
        modes = [folder.stat().st_mode & 0o777 for folder in log_file.parents if tmp_path in folder.parents]
        assert modes == [0o700] * len(modes) and log_file.stat().st_mode & 0o777 == 0o600, (command, modes)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (writes fail as on a full disk)")
def test_a_log_file_on_a_full_disk_is_said_once_in_one_line(shared_data_dir: Path) -> None:
    """Each line logged printed logging's own "--- Logging error ---" and a traceback of some 35
    lines on stderr (an outside check)."""
    served = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--data-dir", str(shared_data_dir)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False,
        env={**os.environ, "TOOLBAY_LOG_FILE": "/dev/full", "TOOLBAY_LOG_LEVEL": "debug"})
    assert served.returncode == 0, served.stderr
    said = [line for line in served.stderr.splitlines() if "log file" in line]
    assert len(said) == 1 and said[0].endswith("cannot write the log file /dev/full (No space left on device): its "
                                               "lines are on stderr only until it can be written again"), said
    assert "Logging error" not in served.stderr and "Traceback" not in served.stderr
    assert "toolbay.catalog_keeper: serving " in served.stderr  # the lines logged are on stderr all the same


def test_call_takes_its_arguments_after_the_tool_name_as_well_but_not_twice(shared_data_dir: Path) -> None:
    data = ["--data-dir", str(shared_data_dir)]
    result = runner.invoke(app, ["call", "hashsum", '{"text": "abc"}', *data])
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(b"abc").hexdigest() in result.stdout
    twice = runner.invoke(app, ["call", "hashsum", '{"text": "abc"}', "--args", '{"text": "abd"}', *data])
    assert twice.exit_code == 2
    assert twice.stdout == "" and "give the arguments once" in twice.stderr
    for bad, reason in (("{text:", "the arguments are not valid JSON"), ("[1]", "the arguments must be a JSON object")):
        refused = runner.invoke(app, ["call", "hashsum", bad, *data])
        assert refused.exit_code == 2 and refused.stderr.startswith(f"toolbay: {reason}"), refused.output


def test_call_with_arguments_that_are_not_json_exits_2_with_a_reason(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["call", "hashsum", "--args", "{text:", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2
    assert "not valid JSON" in result.stderr


def test_call_with_arguments_nested_too_deep_or_holding_a_lone_surrogate_exits_2_in_one_line(
    shared_data_dir: Path
) -> None:
    deep_object = '{"text": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"
    for bad in (deep_object, '{"text": "\\ud800"}', "[" * 20000 + "]" * 20000):
        result = runner.invoke(app, ["call", "hashsum", "--args", bad, "--data-dir", str(shared_data_dir)])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("toolbay: --args is not valid JSON: ")
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_call_stdin_longer_than_a_client_could_send_exits_2_in_one_line(shared_data_dir: Path, tmp_path: Path) -> None:
    # Read whole with no bound, `call hashsum --stdin < /dev/zero` grew until the system killed it.
    from toolbay.cli import STDIN_MAX_BYTES
    from toolbay.protocol.stdio import MAX_LINE_BYTES

    assert STDIN_MAX_BYTES == MAX_LINE_BYTES  # no more than a stdio client can send the server
    endless = tmp_path / "zeros"
    with endless.open("wb") as file:
        file.truncate(STDIN_MAX_BYTES + 1)  # sparse: nothing written to the disk
    with endless.open("rb") as stdin:
        completed = subprocess.run([sys.executable, "-m", "toolbay", "call", "hashsum", "--stdin", "--data-dir",
                                    str(shared_data_dir)], stdin=stdin, capture_output=True, text=True,
                                   check=False, timeout=120)
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith("toolbay: --stdin: standard input is longer than 64 MiB"), completed.stderr
    assert completed.stderr.count("\n") == 1 and completed.stdout == ""


def test_call_of_a_failing_tool_exits_1(shared_data_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["call", "textkit_count", "--args", '{"file": ["missing.txt"]}',
                                 "--workspace", str(tmp_path), "--data-dir", str(shared_data_dir)])
    assert (result.exit_code, result.stdout) == (1, "")  # no result: out=$(toolbay call ...) takes nothing
    assert "textkit_count failed with exit code 1" in result.stderr
    assert "missing.txt: No such file or directory" in result.stderr


def test_call_shows_what_a_tool_printed_and_wrote_to_stderr_on_stderr_and_its_result_on_stdout(
        tmp_path: Path, shared_data_dir: Path) -> None:
    result = run_beside_one_module(tmp_path, shared_data_dir, ("chat.py", (
        "import sys\n\ndef get_tool_schemas():\n    return [{'name': 'chat', 'description': 'd', "
        "'input_schema': {'type': 'object'}}]\n\ndef chat():\n    print('debug: step one')\n"
        "    sys.stderr.write('warning: odd input\\n')\n    return {'answer': 42}\n")), "call", "chat")
    assert json.loads(result.stdout) == {"answer": 42}
    assert "chat printed:\ndebug: step one\n" in result.stderr
    assert "chat wrote to stderr:\nwarning: odd input\n" in result.stderr


@pytest.mark.parametrize(("make", "said"), [
    (lambda path: path.symlink_to(path.parent / "gone.toml"),
     "config file toolbay.toml is a symbolic link to {tmp}/gone.toml, which does not exist"),
    (lambda path: path.mkdir(), "config file toolbay.toml is a folder; name the TOML file in it"),
])
@pytest.mark.parametrize("command", [["list", "--json"], ["call", "hashsum", '{"text": "a"}'], ["jobs", "list"]])
def test_a_toolbay_toml_in_the_current_folder_that_is_no_file_stops_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_data_dir: Path, make: Any, said: str,
        command: list[str]) -> None:
    """./toolbay.toml as a link to a file gone (a dotfiles link) or a folder was passed over without
    a word, and the command ran on the defaults: the settings the user wrote there (its tokens,
    its workspace) were not applied (an outside check). --config of the same is refused."""
    monkeypatch.chdir(tmp_path)
    make(tmp_path / "toolbay.toml")
    result = runner.invoke(app, [*command, "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"toolbay: {said.format(tmp=tmp_path)}\n"
    assert result.stdout == ""


def test_a_configuration_or_tokens_file_nested_too_deeply_is_said_in_one_line(tmp_path: Path) -> None:
    """``x = [[[[...]]]]`` ran the TOML (or JSON) reader out of recursion: a traceback of RecursionError.
    A number of 5,000 digits in a configuration was one of ValueError (Python's limit on digits)."""
    deep = "[" * 5000 + "]" * 5000
    (tmp_path / "deep.toml").write_text(f"x = {deep}\n")
    (tmp_path / "deep.json").write_text(deep)
    (tmp_path / "long.toml").write_text("[sandbox]\nmemory_mb = " + "9" * 5000 + "\n")
    said = "nested too deeply (more arrays or tables one inside another than any configuration holds)"
    for tokens in ("deep.toml", "deep.json"):
        (tmp_path / f"with-{tokens}.toml").write_text(f'[chain.auth]\ntokens_file = "{tmp_path / tokens}"\n')
    for argv, expected in (
            (["list", "--config", str(tmp_path / "deep.toml")],
             f"toolbay: config file {tmp_path / 'deep.toml'} is not valid TOML: {said}"),
            (["list", "--config", str(tmp_path / "with-deep.toml.toml")],
             f"toolbay: tokens file {tmp_path / 'deep.toml'} is not valid TOML: {said}"),
            (["list", "--config", str(tmp_path / "with-deep.json.toml")],
             f"toolbay: tokens file {tmp_path / 'deep.json'} is not valid JSON: {said}"),
            (["token", "new", "--client-id", "a", "--scope", "tools:read", "--append", str(tmp_path / "deep.toml")],
             f"toolbay: {tmp_path / 'deep.toml'} is not valid TOML ({said}); mend it first, nothing was written"),
            (["list", "--config", str(tmp_path / "long.toml")],
             f"toolbay: config file {tmp_path / 'long.toml'} is not valid TOML: a number longer than 4,300 digits")):
        result = runner.invoke(app, [*argv, *(["--data-dir", str(tmp_path / "data")] if argv[0] == "list" else [])])
        assert (result.exit_code, result.stderr) == (2, expected + "\n"), result.output


def test_a_refused_settings_long_value_is_quoted_cut_in_one_short_line(tmp_path: Path) -> None:
    """A 10 MB value was quoted whole: one line of 10 MB on stderr (any value past the 200
    characters a message quotes shows it)."""
    config = tmp_path / "toolbay.toml"
    config.write_text('log_level = "' + "a" * 100_000 + '"\n')
    result = runner.invoke(app, ["list", "--config", str(config), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output[:500]
    assert result.stderr == (f"toolbay: invalid configuration (config file {config}, environment TOOLBAY_*, or flags): "
                             "log_level: Input should be 'debug', 'info', 'warning' or 'error' (got '... (100000 "
                             f"characters)') (in {config})\n")


def test_a_data_folder_that_is_a_link_leading_nowhere_is_said_so(tmp_path: Path) -> None:
    """A link in a loop, or to nothing, as --data-dir was "cannot be made (File exists)" (list, call)
    or "does not exist" (jobs)."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for name, said in (("loop", "is a symbolic link in a loop (it leads back to itself)"),
                       ("dangling", f"is a symbolic link to {tmp_path / 'nowhere'}, which does not exist")):
        folder = tmp_path / name
        listed = runner.invoke(app, ["list", "--data-dir", str(folder)])
        assert (listed.exit_code, listed.stderr) == (2, f"toolbay: the data folder {folder} {said}; choose another "
                                                        "with --data-dir (or data_dir in the configuration)\n")
        jobs = runner.invoke(app, ["jobs", "list", "--data-dir", str(folder)])
        assert (jobs.exit_code, jobs.stderr) == (2, f"toolbay: the data folder {folder} {said}\n")


@pytest.mark.parametrize(("setting", "said"), [("log_file", "log_file {fifo}"),
                                               ("[chain.audit]\nfile", "[chain.audit] file {fifo}")])
def test_a_log_that_is_a_named_pipe_is_refused_at_once(
        setting: str, said: str, tmp_path: Path, shared_data_dir: Path) -> None:
    """A FIFO as log_file or the audit file: opening it for appending waited for a reader, and
    the command (or the server) hung, saying nothing."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    config = tmp_path / "toolbay.toml"
    config.write_text(f'{setting} = "{fifo}"\n')
    done = subprocess.run([sys.executable, "-m", "toolbay", "call", "hashsum", '{"text": "a"}', "--config",
                           str(config), "--data-dir", str(shared_data_dir)], capture_output=True, text=True,
                          cwd=REPO_ROOT, check=False, timeout=60)  # a guard: it ends at once, or never
    assert (done.returncode, done.stderr) == (2, f"toolbay: {said.format(fifo=fifo)} is a named pipe or a socket, "
                                                 "not a file\n")


def test_jobs_list_shows_an_owner_s_escape_sequence_rather_than_sending_it_to_the_terminal(tmp_path: Path) -> None:
    """``--owner $'a\\e[2Jb'`` cleared the screen as the title of the table named the owner."""
    data = tmp_path / "data"
    data.mkdir()
    listed = runner.invoke(app, ["jobs", "list", "--owner", "a\x1b[2Jb", "--data-dir", str(data)])
    assert listed.exit_code == 0, listed.output
    assert "\x1b" not in listed.output and "a\\x1b[2Jb" in listed.output, listed.output


def test_a_bad_setting_stops_with_a_message_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("[sandbox]\ntimeout_s = -1\n")
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 2
    assert "sandbox.timeout_s" in result.stderr


def test_a_personal_dir_without_a_place_for_the_caller_is_refused(tmp_path: Path) -> None:
    """personal_dir = "people" gave no caller a folder: personal tools were off, and nothing said so."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[python]\npersonal_dir = "people"\n')
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 2
    assert f"python.personal_dir: '{tmp_path / 'people'}' has no {{caller}} in it" in result.stderr


def test_an_unknown_setting_is_refused_rather_than_ignored(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("[sandbox]\ntimeout = 5\n")
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 2
    assert "sandbox.timeout: no such setting; did you mean timeout_s?" in result.stderr
    # A TOOLBAY__ variable is read the same way, its misspelling named with the closest setting.
    environment = runner.invoke(app, ["list"], env={"TOOLBAY_SANDBOX__MEMROY_MB": "100"})
    assert environment.exit_code == 2
    assert "sandbox.memroy_mb: no such setting; did you mean memory_mb?" in environment.stderr
    # A setting put in the wrong place is told where it belongs.
    for written, said in (("[http]\nport = 9000\n", "http.port: no such setting; port is a top-level setting"),
                          ("memory_mb = 100\n", "memory_mb: no such setting; it is [sandbox] memory_mb"),
                          # The same name elsewhere is surer than a close one here (stderr_limit_kb).
                          ("[sandbox]\nrun_limit_s = 5\n", "it is [jobs] run_limit_s"),
                          ("redis = 'redis://h'\n", "it is [cluster] redis"),
                          # An old name is pointed to the setting that replaced it.
                          ("[jobs]\ntimeout_s = 5\n", "jobs.timeout_s: no such setting; it is [jobs] run_limit_s"),
                          # The chain's sections, named as they are written, however deep.
                          ("[chain]\ntokens_file = 't.toml'\n", "it is [chain.auth] tokens_file"),
                          ("[chain.auth]\nper_caller = '1/second'\n", "it is [chain.rate_limits] per_caller"),
                          ("[chain.auth]\nissuer = 'https://i'\n", "it is [chain.auth.jwt] issuer"),
                          # ... and from outside the chain, a setting or a whole table of it.
                          ("tokens_file = 't.toml'\n", "tokens_file: no such setting; it is [chain.auth] tokens_file"),
                          ("[audit]\nfile = 'audit.jsonl'\n", "audit: no such setting; it is [chain.audit]")):
        config.write_text(written)
        misplaced = runner.invoke(app, ["list", "--config", str(config)])
        assert misplaced.exit_code == 2 and said in misplaced.stderr, misplaced.stderr


def test_parse_help_prints_the_description_as_json(tmp_path: Path) -> None:
    help_file = tmp_path / "help.txt"
    help_file.write_bytes(b"Usage: greet [OPTIONS] NAME\n\nOptions:\n  -n, --count <N>  How many times [default: 1]\n"
                          b"  -h, --help       Print help\n")
    result = runner.invoke(app, ["parse-help", "--long", str(help_file)])
    assert result.exit_code == 0, result.output
    description = json.loads(result.stdout)
    assert description["options"][0]["long"] == "--count"
    assert "count" in description["input_schema"]["properties"]
    # The file as the command's argument, or standard input as "-", reads the same.
    positional = runner.invoke(app, ["parse-help", str(help_file)])
    piped = runner.invoke(app, ["parse-help", "-"], input=help_file.read_bytes())
    assert json.loads(positional.stdout) == json.loads(piped.stdout) == description
    assert runner.invoke(app, ["parse-help"]).exit_code == 2


def test_parse_help_of_something_that_is_not_help_exits_2(tmp_path: Path) -> None:
    not_help = tmp_path / "log.txt"
    not_help.write_bytes(b"2026-11-30 12:00:01 INFO server started on port 8080\n")
    result = runner.invoke(app, ["parse-help", "--long", str(not_help)])
    assert result.exit_code == 2
    assert "not help" in result.stderr and "no usage line" in result.stderr
    assert result.stdout == ""


def test_python_dash_m_server_is_the_same_command() -> None:
    completed = subprocess.run([sys.executable, "-m", "toolbay", "--help"], capture_output=True, text=True,
                               cwd=REPO_ROOT, timeout=60, check=False)
    assert completed.returncode == 0
    for command in ("serve", "list", "call", "parse-help"):  # each a row of the command list
        assert re.search(rf"^[│ ]+{command}\s", completed.stdout, re.M), completed.stdout


def test_the_bundled_extensions_and_roles_are_the_default(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    origins = {Path(tool["origin"]) for tool in json.loads(result.stdout)["tools"]}
    roles = {path for path in (REPO_ROOT / "agents").glob("*.md") if path.name != "README.md"}
    assert roles
    tool_files = set(BUNDLED_EXTENSIONS.glob("*.wasm")) | set(BUNDLED_EXTENSIONS.glob("*.py"))
    assert origins == tool_files | roles


def test_call_checks_arguments_against_the_schema_like_a_served_call(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["call", "hashsum", "--args", '{"algo": "md5", "text": 5}',
                                 "--data-dir", str(shared_data_dir)])
    # Refused before the tool ran: bad input, on stderr with exit 2 (a tool that fails: 1, stdout).
    assert result.exit_code == 2 and result.stdout == ""
    assert "$.text: expected string" in result.stderr
    assert "$.algo: unknown property" in result.stderr


def test_call_of_search_tools_searches_every_tool_as_the_server_does(shared_data_dir: Path) -> None:
    """It described only the roles and built-ins (the files that could serve 'search_tools')."""
    called = runner.invoke(app, ["call", "search_tools", '{"query": "message digest checksum"}',
                                 "--data-dir", str(shared_data_dir)])
    searched = runner.invoke(app, ["search", "message digest checksum", "--json", "--data-dir", str(shared_data_dir)])
    assert called.exit_code == 0 and searched.exit_code == 0, called.output
    assert json.loads(searched.stdout)["results"][0]["name"] == "hashsum"
    assert '"name": "hashsum"' in called.stdout
    # The same answer, as many tools as search_tools gives when not told (its default limit).
    everything = runner.invoke(app, ["call", "search_tools", '{"query": "text"}', "--data-dir", str(shared_data_dir)])
    listed = runner.invoke(app, ["search", "text", "--json", "--data-dir", str(shared_data_dir)])
    assert [hit["name"] for hit in json.loads(listed.stdout)["results"]] == \
        re.findall(r'"name": "([^"]+)"', everything.stdout)


def test_list_json_gives_each_tools_input_schema(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    tools = {tool["name"]: tool for tool in json.loads(result.stdout)["tools"]}
    schema = tools["hashsum"]["input_schema"]
    assert schema["type"] == "object"
    assert set(tools["hashsum"]["parameters"]) == set(schema["properties"])
    assert "md5" in schema["properties"]["algorithm"]["description"]
    # The MCP hints clients are shown: a read tool's, and an agent tool's, which may change things.
    assert tools["hashsum"]["annotations"] == {"title": "hashsum", "readOnlyHint": True, "destructiveHint": False,
                                               "idempotentHint": True, "openWorldHint": False}
    assert tools["agent_json_reviewer"]["annotations"]["readOnlyHint"] is False
    # and a title, where a tool has one, in both places as over MCP: a subcommand's names its
    # program, an agent tool's its role; a Python tool's is what its module gives (none here)
    assert "title" not in tools["dates_add"] and "title" not in tools["dates_add"]["annotations"]
    for name, title in (("jsonkit_fmt", "jsonkit fmt"), ("agent_json_reviewer", "Delegate to the json-reviewer role")):
        assert tools[name]["title"] == title and tools[name]["annotations"]["title"] == title


def test_call_describes_only_the_file_of_the_tool_it_calls(tmp_path: Path) -> None:
    # A folder where the other file is not a tool at all: describing it would list it as
    # skipped in the data folder's caches and take its time; the call must not touch it.
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "hashsum.wasm").write_bytes((BUNDLED_EXTENSIONS / "hashsum.wasm").read_bytes())
    (folder / "jsonkit.wasm").write_bytes((BUNDLED_EXTENSIONS / "jsonkit.wasm").read_bytes())
    data = tmp_path / "data"
    result = runner.invoke(app, ["call", "hashsum", "--args", '{"text": "abc"}', "--extensions", str(folder),
                                 "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(b"abc").hexdigest() in result.stdout
    # Only hashsum was compiled: one compiled module in the cache, hashsum's.
    compiled = [entry.name for entry in (data / "modules").glob("*.cwasm")]
    hashsum_sha = hashlib.sha256((folder / "hashsum.wasm").read_bytes()).hexdigest()
    assert [name.split("-")[0] for name in compiled] == [hashsum_sha]


def test_calling_an_unknown_tool_exits_2_and_names_the_closest_tools(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["call", "textkit_grepp", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert "'textkit_grepp'" in line and "textkit_grep" in line.split("closest names:")[1]
    # A tool's last word alone, as people shorten a subcommand's tool name.
    shortened = runner.invoke(app, ["call", "grep", "--data-dir", str(shared_data_dir)])
    assert shortened.exit_code == 2 and "closest names: textkit_grep." in shortened.stderr, shortened.stderr


def test_calling_a_tool_whose_file_was_skipped_says_why_it_was(tmp_path: Path) -> None:
    # It said only "There is no tool named 'notes'": the author had to run toolbay list to learn why.
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "notes.py").write_text("def get_tool_schemas(:\n", encoding="utf-8")
    result = runner.invoke(app, ["call", "notes_add", "--extensions", str(tools), "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert f"Note: {tools / 'notes.py'} offers no tools: it cannot be imported: SyntaxError" in line, line


def test_calling_a_tool_its_module_refused_says_why_though_the_module_serves_others(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "refs.py").write_text(
        "def get_tool_schemas():\n    return [\n"
        "        {'name': 'refs_ok', 'description': 'd', 'input_schema': {'type': 'object'}},\n"
        "        {'name': 'refs_bad', 'description': 'd', 'input_schema': {'type': 'object', 'required': 'a'}},\n"
        "    ]\n\ndef dispatch(name, args):\n    return 'ok'\n", encoding="utf-8")
    result = runner.invoke(app, ["call", "refs_bad", "--extensions", str(tools), "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert "Note: refs: refused 'refs_bad': its input_schema is not a valid JSON Schema" in line, line
    # A module none of whose tools is served says so once.
    (tools / "refs.py").write_text(
        "def get_tool_schemas():\n    return [{'name': 'refs_bad', 'description': 'd', 'input_schema': "
        "{'type': 'object', 'required': 'a'}}]\n\ndef dispatch(name, args):\n    return 'ok'\n", encoding="utf-8")
    alone = runner.invoke(app, ["call", "refs_bad", "--extensions", str(tools), "--data-dir", str(tmp_path / "d")])
    [line] = alone.stderr.strip().splitlines()
    assert f"Note: {tools / 'refs.py'} offers no tools: 'refs_bad': its input_schema" in line, line
    assert line.count("its input_schema is not a valid JSON Schema") == 1, line


def test_log_level_debug_logs_each_call_with_its_caller_and_outcome(shared_data_dir: Path) -> None:
    # log_level = "debug" showed nothing more than info on a warm start and a call.
    completed = subprocess.run(
        [sys.executable, "-m", "toolbay", "call", "textkit_count", '{"words": true, "stdin": "a b"}',
         "--data-dir", str(shared_data_dir)], capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "TOOLBAY_LOG_LEVEL": "debug"})
    assert completed.returncode == 0, completed.stderr
    logged = r"DEBUG +toolbay\.app: call 'textkit_count' by '\S+' \(cli\): ok in [\d.]+ ms"
    assert re.search(logged, completed.stderr), completed.stderr


def test_parse_help_of_a_file_whose_read_fails_names_it(tmp_path: Path) -> None:
    # /proc/self/mem opens, and its first read fails (EIO): the error named no file ("help text None").
    (tmp_path / "help.txt").write_text("Usage: x [-v]\n\n  -v  verbose\n")
    for argv in (["/proc/self/mem"], [str(tmp_path / "help.txt"), "--short", "/proc/self/mem"]):
        completed = subprocess.run([sys.executable, "-m", "toolbay", "parse-help", *argv], capture_output=True,
                                   text=True, check=False, timeout=60)
        assert (completed.returncode, completed.stderr) == (2, "toolbay: cannot read help text /proc/self/mem: "
                                                                "Input/output error\n")


def test_parse_help_of_a_missing_file_exits_2_with_a_one_line_reason(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    for argv in (["-m", "toolbay", "parse-help", "--long", str(missing)],
                 ["-m", "toolbay", "parse-help", str(missing)],
                 ["-m", "toolbay", "parse-help", f"--long={missing}", "--short", str(missing)]):
        completed = subprocess.run([sys.executable, *argv], capture_output=True, text=True, check=False,
                                   timeout=60)
        assert completed.returncode == 2
        [line] = completed.stderr.strip().splitlines()
        assert str(missing) in line and "No such file" in line
    for argv in (["parse-help", "--long", str(missing)], ["parse-help", str(missing)]):
        through_typer = runner.invoke(app, argv)
        assert through_typer.exit_code == 2 and str(missing) in through_typer.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (writes fail as on a full disk)")
def test_parse_help_prints_its_json_when_its_note_on_stderr_cannot_be_written() -> None:
    """With stderr full, the note that `cp -h` is not help raised: the JSON was never printed
    and parse-help exited 1 (found by an outside check)."""
    folder = REPO_ROOT / "tests" / "helptext" / "corpus" / "gnu" / "cp"
    # Buffered, as it is unless PYTHONUNBUFFERED is set: the note stayed in the buffer and
    # failed again at exit (status 120).
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    for env in (buffered, {**buffered, "PYTHONUNBUFFERED": "1"}):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "toolbay", "parse-help", str(folder / "long.txt"), "--short",
                                   str(folder / "short.txt")], stdout=subprocess.PIPE, stderr=full, text=True,
                                  env=env, check=False, timeout=60)
        assert done.returncode == 0, env.get("PYTHONUNBUFFERED")
        assert json.loads(done.stdout)["name"] == "cp"


# Runs each command (JSON argv lists, one argument each) in turn in one fresh process, and prints
# for each what it printed, its exit code and which of the watched modules (the first argument,
# a JSON list) were loaded by then. A command's os._exit ends only that command.
FRESH_PROCESS_PROBE = """
import contextlib, io, json, os, runpy, sys
watched, *commands = sys.argv[1:]
def ended(code):  # parse-help ends with os._exit (toolbay.entry): here, the probe goes on after it
    raise SystemExit(code)
os._exit = ended
reports = []
for argv in map(json.loads, commands):
    sys.argv, printed = ["toolbay", *argv], io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            runpy.run_module("toolbay", run_name="__main__")
        except SystemExit as end:
            code = end.code
    loaded = sorted(m for m in json.loads(watched) if m in sys.modules)
    reports.append({"argv": argv, "code": code, "printed": printed.getvalue(), "loaded": loaded})
print(json.dumps(reports))
"""


def in_a_fresh_process(commands: Sequence[list[str]], watched: Sequence[str]) -> list[dict[str, Any]]:
    """What each of ``commands`` printed and returned, run in turn in one new process, and which
    of the ``watched`` modules were loaded after each."""
    completed = subprocess.run([sys.executable, "-c", FRESH_PROCESS_PROBE, json.dumps(list(watched)),
                                *map(json.dumps, commands)], capture_output=True, text=True, check=False, timeout=120)
    assert completed.returncode == 0, completed.stderr
    reports: list[dict[str, Any]] = json.loads(completed.stdout)
    assert [report["argv"] for report in reports] == list(commands)
    return reports


@pytest.mark.parametrize(("argv", "said"), [
    # "--short" alone was told to give the help text "once", as if it had been given twice.
    (["parse-help", "--short", "h.txt"], "give the --help text: toolbay parse-help FILE (or --long FILE; - reads "
                                         "standard input), with --short beside it"),
    (["parse-help"], "give the --help text: toolbay parse-help FILE (or --long FILE; - reads standard input)"),
    (["parse-help", "a.txt", "--long", "b.txt"], "give the --help text once: as FILE or as --long FILE, not both"),
])
def test_parse_help_says_which_help_text_is_missing_or_given_twice(argv: list[str], said: str) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2 and said in " ".join(result.stderr.split()), result.stderr


def test_parse_help_as_a_process_prints_what_the_full_command_prints_and_loads_no_server(tmp_path: Path) -> None:
    help_file = tmp_path / "help.txt"
    help_file.write_bytes(b"Usage: greet [OPTIONS] NAME\n\nOptions:\n  -n, --count <N>  How many times [default: 1]\n"
                          b"  -h, --help       Print help\n")
    # Nor dataclasses: the decorator and the ``inspect`` module it imports were a quarter of the run.
    # Nor typing: its import and NamedTuple's forward references were a tenth (toolbay.helptext.records).
    [report] = in_a_fresh_process([["parse-help", str(help_file)]],
                                  watched=("typer", "pydantic", "anyio", "rich", "wasmtime", "chardet", "dataclasses",
                                           "typing"))
    assert report["code"] in (0, None), report
    assert report["loaded"] == [], report
    full_command = runner.invoke(app, ["parse-help", "--long", str(help_file)])
    assert json.loads(report["printed"]) == json.loads(full_command.stdout)


def test_the_commands_that_speak_no_mcp_load_no_mcp_sdk(shared_data_dir: Path, tmp_path: Path) -> None:
    """Importing the MCP SDK costs more processor time than everything else these commands do
    (its protocol types are some 550 pydantic models): only ``serve`` may load it. Nor is the
    rate-limit library loaded (0.13 s) where no rate limit is configured."""
    data = ["--data-dir", str(shared_data_dir)]
    jobs = tmp_path / "jobs"
    jobs.mkdir()

    async def make_job_database() -> None:
        store = SqliteJobStore(jobs / "jobs.sqlite3")
        await store.open()
        await store.aclose()

    anyio.run(make_job_database)
    commands = (["list", "--json", *data], ["call", "textkit_count", "--args", '{"stdin": "a b"}', *data],
                ["search", "count words", *data], ["jobs", "list", "--json", "--data-dir", str(jobs)],
                ["token", "new", "--client-id", "alice", "--scope", "tools:read"])
    # Nor importlib.metadata (with the email package, 10-40 ms), which pydantic's look-up of its
    # plugins and the version of wasmtime each loaded (toolbay.internals.pydantic_plugins), nor
    # jsonschema (0.1 s) for arguments that plainly fit a plain schema (toolbay.chain.validate),
    # nor watchfiles (10 ms), as only a server watches its folders.
    watched = ("mcp", "mcp_types", "starlette", "uvicorn", "limits", "importlib.metadata", "jsonschema",
               "watchfiles")
    for report in in_a_fresh_process(commands, watched=watched):
        assert report["code"] in (0, None), report
        assert report["printed"].strip(), report  # it did its work: a listing, an answer, results, a job list, a token
        assert report["loaded"] == [], report


def test_help_and_version_load_neither_pydantic_nor_the_server() -> None:
    """``toolbay --help`` and ``toolbay --version`` only print: they load typer and nothing of
    the server, not even pydantic (a third of their time when they did)."""
    help_report, version_report = in_a_fresh_process(
        (["--help"], ["--version"]), watched=("pydantic", "pydantic_settings", "anyio", "wasmtime", "mcp"))
    for report in (help_report, version_report):
        assert report["code"] in (0, None), report
        assert report["loaded"] == [], report
    assert "serve" in help_report["printed"] and "parse-help" in help_report["printed"]
    assert version_report["printed"].strip() == f"toolbay {toolbay.__version__}"


def test_token_new_appends_to_a_tokens_file_that_then_verifies_the_token(tmp_path: Path) -> None:
    import anyio

    from toolbay.auth.tokens import TokenStore

    tokens = tmp_path / "tokens.toml"
    tokens.write_text('[[tokens]]\nclient_id = "old"\nsha256 = "' + "0" * 64 + '"\nscopes = ["tools:read"]')
    result = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:exec",
                                 "--append", str(tokens)])
    assert result.exit_code == 0, result.output
    token, *rest = result.stdout.splitlines()
    assert "[chain.auth]" in rest and f"tokens_file = {json.dumps(str(tokens.resolve()))}" in rest
    assert token not in tokens.read_text()  # stored hashed only
    store = TokenStore.from_file(tokens)
    assert len(store) == 2
    verified = anyio.run(store.verify_token, token)
    assert verified is not None and verified.client_id == "bob" and verified.scopes == ["tools:exec"]
    assert "already had" not in result.stderr


def test_token_new_refuses_to_append_to_the_configuration_file(tmp_path: Path, shared_data_dir: Path) -> None:
    """Its own output says the lines after the token go in the configuration file: appended to
    that file, the entry was a setting the server then refused to start on (an outside check)."""
    config = tmp_path / "toolbay.toml"
    config.write_text("[sandbox]\nmemory_mb = 128\n")
    result = runner.invoke(app, ["token", "new", "--client-id", "a", "--scope", "tools:read", "--append", str(config)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        f"toolbay: {config} holds more than tokens (sandbox): --append writes to a tokens file, which the "
        "configuration names in [chain.auth] tokens_file; nothing was written"]
    assert config.read_text() == "[sandbox]\nmemory_mb = 128\n" and result.stdout == ""
    # A data folder named: the default one may be new to this test process, a first start.
    data = ["--data-dir", str(shared_data_dir)]
    assert runner.invoke(app, ["list", "--config", str(config), "--json", *data]).exit_code == 0
    # A tokens file with a key of its own, or a byte order mark, which the server reads (a re-check)
    from toolbay.auth.tokens import TokenStore

    tokens = tmp_path / "tokens.toml"
    tokens.write_bytes(b"\xef\xbb\xbfversion = 1\n")
    added = runner.invoke(app, ["token", "new", "--client-id", "a", "--scope", "tools:read", "--append", str(tokens)])
    assert added.exit_code == 0, added.output
    assert TokenStore.from_file(tokens).scopes_given() == [("a", "tools:read")]


def test_token_new_refuses_to_append_to_a_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """The configuration lines it prints name the file in TOML, which holds UTF-8 only: they
    were a TOML error (an escaped lone surrogate) in the configuration they were pasted into."""
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/tokens\xff.toml"))
    result = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:exec", "--append", str(odd)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        f"toolbay: --append {tmp_path}/tokens\\xff.toml is not named in UTF-8, which the configuration file (TOML) "
        "needs to name it; choose a name in UTF-8, nothing was written"]
    assert result.stdout == "" and not os.path.lexists(odd)


def test_a_second_token_for_one_client_is_added_beside_the_first_and_said_so(tmp_path: Path) -> None:
    """Running ``token new --append`` again for a client added a second entry without a word: the
    first token stays valid (rotation needs both for a while), so the user is told to remove it."""
    import anyio

    from toolbay.auth.tokens import TokenStore

    tokens = tmp_path / "tokens.toml"
    issued = []
    for _ in range(3):
        result = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:read",
                                     "--append", str(tokens)])
        assert result.exit_code == 0, result.output
        issued.append((result.stdout.splitlines()[0], result.stderr))
    assert "already had" not in issued[0][1]
    assert "'bob' already had 1 token in" in issued[1][1] and "remove the old entry" in issued[1][1]
    assert "'bob' already had 2 tokens in" in issued[2][1] and "remove the old entries" in issued[2][1]
    store = TokenStore.from_file(tokens)
    assert all(anyio.run(store.verify_token, token) is not None for token, _ in issued)


def test_token_new_shows_no_token_it_could_not_store(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[[tokens]\n")
    for target, reason in ((broken, "is not valid TOML"), (tmp_path / "missing" / "t.toml", "cannot append")):
        result = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:read",
                                     "--append", str(target)])
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert reason in result.stderr
    assert broken.read_text() == "[[tokens]\n"  # left as it was
    # TOML, but a 'tokens' of another kind: another [[tokens]] after it would be TOML no more
    for odd_tokens in ('tokens = "oops"\n', "[tokens]\nx = 1\n", "tokens = []\n"):
        broken.write_text(odd_tokens)
        result = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:read",
                                     "--append", str(broken)])
        assert result.exit_code == 2 and result.stdout == "" and "a [[tokens]] entry cannot follow" in result.stderr
        assert broken.read_text() == odd_tokens
    odd = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:rea"])
    assert odd.exit_code == 0 and "'tools:rea' is no scope toolbay knows (did you mean 'tools:read'?)" in odd.stderr
    # The authoring tools' own scopes are known ones.
    authoring = runner.invoke(app, ["token", "new", "--client-id", "bob", "--scope", "tools:create"])
    assert authoring.exit_code == 0 and "note:" not in authoring.stderr, authoring.stderr


def test_serve_with_a_workspace_that_does_not_exist_stops_at_start_naming_it(tmp_path: Path,
                                                                             shared_data_dir: Path) -> None:
    missing = tmp_path / "no-such-folder"
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    completed = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--workspace", str(missing), "--data-dir", str(data)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert completed.returncode == 2
    [line] = completed.stderr.strip().splitlines()
    assert line == f"toolbay: invalid configuration: workspace: {missing} does not exist"


def test_a_workspace_or_tool_folder_not_named_in_utf8_stops_at_start_naming_it(tmp_path: Path,
                                                                               shared_data_dir: Path) -> None:
    """Accepted, such a workspace failed every call as an internal error (the sandbox and the
    Python workers are given its name as UTF-8 text), and so did a Python tool in such a folder
    (an outside check)."""
    odd = os.fsencode(tmp_path) + b"/ws\xffx"
    os.mkdir(odd)
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    for option in ("--workspace", "--extensions"):
        completed = subprocess.run(
            [sys.executable.encode(), b"-m", b"toolbay", b"serve", option.encode(), odd,
             b"--data-dir", os.fsencode(data)],
            capture_output=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
        said = completed.stderr.decode()
        assert completed.returncode == 2, said
        assert "\\xffx is not named in UTF-8" in said and "Traceback" not in said, said


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is not installed here")
@pytest.mark.parametrize(("mode", "said"), [(0o000, "cannot be read (Permission denied)"),
                                           (0o744, "cannot be entered by this user (no search permission)")])
def test_a_workspace_this_user_cannot_read_stops_at_start_naming_it(tmp_path: Path, shared_data_dir: Path, mode: int,
                                                                    said: str) -> None:
    """Accepted, it ran a Python tool in the server's own folder instead, and a .wasm tool's
    refusal blamed its permission level (an outside check); one it could list but not enter too
    (a re-check). Root reads any folder, so the server runs here without the capabilities that
    let it, in a folder of another user's."""
    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "a.txt").write_text("hi")
    if os.geteuid() == 0:
        os.chown(closed, 65534, 65534)
    closed.chmod(mode)
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    completed = subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search",
         sys.executable, "-m", "toolbay", "serve", "--workspace", str(closed), "--data-dir", str(data)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    if completed.returncode != 2 and os.geteuid() == 0 and "Operation not permitted" in completed.stderr:
        pytest.skip("setpriv may not change capabilities here")
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip().splitlines() == [f"toolbay: invalid configuration: workspace: {closed} {said}"]


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is not installed here")
@pytest.mark.parametrize("option", ["--workspace", "--extensions"])
def test_a_link_to_a_folder_this_user_cannot_reach_is_not_said_to_lead_nowhere(tmp_path: Path, shared_data_dir: Path,
                                                                               option: str) -> None:
    """A link into another user's folder (~/project -> /home/ann/project) was said to be "a symbolic
    link to /home/ann/project, which does not exist": it does, this user may not reach it (an
    outside check). Root reaches any folder, so the server runs here without the capabilities that
    let it, as in the test above."""
    closed = tmp_path / "closed"
    (closed / "project").mkdir(parents=True)
    if os.geteuid() == 0:
        os.chown(closed, 65534, 65534)
    closed.chmod(0o700)
    link = tmp_path / "project"
    link.symlink_to(closed / "project")
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    completed = subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search",
         sys.executable, "-m", "toolbay", "serve", option, str(link), "--data-dir", str(data)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    if completed.returncode != 2 and os.geteuid() == 0 and "Operation not permitted" in completed.stderr:
        pytest.skip("setpriv may not change capabilities here")
    assert completed.returncode == 2, completed.stderr
    [line] = completed.stderr.strip().splitlines()
    assert f"{link} is a symbolic link to {closed / 'project'}, which this user cannot reach (Permission denied)" \
        in line, line
    assert "does not exist" not in line


def test_a_link_whose_target_cannot_be_read_is_said_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc/1/root, a link that even root may not read in a container, was a PermissionError
    traceback from the workspace's check (an outside check)."""
    from toolbay import config

    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    real_stat, real_readlink = os.stat, os.readlink

    def stat_patch(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) == str(link) and kwargs.get("follow_symlinks", True):
            raise PermissionError(13, "Permission denied", str(link))
        return real_stat(path, *args, **kwargs)

    def readlink_patch(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) == str(link):
            raise PermissionError(13, "Permission denied", str(link))
        return real_readlink(path, *args, **kwargs)

    monkeypatch.setattr(config.os, "stat", stat_patch)
    monkeypatch.setattr(config.os, "readlink", readlink_patch)
    assert config._unreadable(link) == "is a symbolic link this user cannot follow (Permission denied)"


@pytest.mark.parametrize("argv", [[b"jobs", b"result", b"job_\xff"], [b"jobs", b"list", b"--owner", b"\xff"],
                                  [b"call", b"textkit_count", b'{"stdin": "\xff"}']])
def test_words_that_are_not_utf8_where_text_is_wanted_are_refused_in_one_line(tmp_path: Path,
                                                                               argv: list[bytes]) -> None:
    """A job's id, an owner, a call's JSON: each was a traceback from the database or the JSON
    parser, exit 1 (an outside check)."""
    completed = subprocess.run([sys.executable.encode(), b"-m", b"toolbay", *argv, b"--data-dir",
                                os.fsencode(tmp_path / "d")],
                               capture_output=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    said = completed.stderr.decode()
    assert completed.returncode == 2, said
    assert "is not UTF-8 text" in said and "Traceback" not in said, said


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_configuration_or_tokens_file_that_is_no_file_is_refused_in_one_line(tmp_path: Path, shared_data_dir: Path,
                                                                               kind: str) -> None:
    """``--config /dev/zero`` grew memory until killed, and a FIFO waited for a writer for ever
    (a re-check); a tokens file the same."""
    if kind == "fifo":
        odd = tmp_path / "config.fifo"
        os.mkfifo(odd)
    else:
        odd = Path("/dev/zero")
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(f"[chain.auth]\ntokens_file = {json.dumps(str(odd))}\n")
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    for argv, what in ((["list", "-c", str(odd)], "config file"),
                       (["serve", "-t", "http", "--port", "0", "-c", str(tokens)], "tokens file")):
        completed = subprocess.run([sys.executable, "-m", "toolbay", *argv, "--data-dir", str(data)],
                                   capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
        assert completed.returncode == 2, completed.stderr
        assert f"{what} {odd} cannot be read: it is not a regular file" in completed.stderr, completed.stderr


def test_a_file_past_the_bound_is_refused_not_read_whole(tmp_path: Path) -> None:
    from toolbay.small_files import read_small_file

    big = tmp_path / "big.toml"
    big.write_bytes(b"x" * 11)
    assert read_small_file(big, limit=11) == b"x" * 11
    with pytest.raises(OSError, match="larger than"):
        read_small_file(big, limit=10)


def test_a_host_that_is_no_name_stops_serve_in_one_line(tmp_path: Path) -> None:
    """A --host not in UTF-8 was a traceback from the resolver (a re-check)."""
    completed = subprocess.run([sys.executable.encode(), b"-m", b"toolbay", b"serve", b"-t", b"http", b"--host",
                                b"h\xff", b"--port", b"0", b"--data-dir", os.fsencode(tmp_path / "d")],
                               capture_output=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    said = completed.stderr.decode()
    assert completed.returncode == 2, said
    assert "host: 'h\\udcff' is no host name or address" in said and "Traceback" not in said, said


def test_a_long_host_that_is_no_name_is_quoted_cut(tmp_path: Path) -> None:
    """A --host of 100,000 characters was quoted whole: a line of 100 KB."""
    completed = subprocess.run([sys.executable, "-m", "toolbay", "serve", "-t", "http", "--host", "a" * 100_000,
                                "--port", "0", "--data-dir", str(tmp_path / "d")], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert (completed.returncode, completed.stderr) == (
        2, "toolbay: invalid configuration: host: '... (100000 characters)' is no host name or address\n")
    # An empty one was said as "refusing to serve HTTP on , which ..." (a second re-check).
    empty = subprocess.run([sys.executable, "-m", "toolbay", "serve", "-t", "http", "--host", "", "--port", "0",
                            "--data-dir", str(tmp_path / "d")],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert empty.returncode == 2 and "host: is empty: name an address to listen on" in empty.stderr, empty.stderr


def test_serve_with_a_tool_folder_that_is_not_there_stops_at_start_naming_it(tmp_path: Path) -> None:
    # A mistyped --extensions served the built-ins alone, said in a log line a client never shows.
    (tmp_path / "a-file").write_text("")
    tools, roles = tmp_path / "tols", tmp_path / "a-file"
    config = tmp_path / "toolbay.toml"
    config.write_text(f"agents = [{str(roles)!r}]\n")
    completed = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(tools), "--config", str(config),
         "--data-dir", str(tmp_path / "d")],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip().splitlines() == [
        f"toolbay: the extension folder {tools} does not exist (make it, or name another with --extensions)",
        f"toolbay: the agents folder {roles} is a file, not a folder (name a folder with agents in the configuration)"]
    assert completed.stdout == ""


def test_serve_with_a_port_but_no_http_transport_says_so_rather_than_serving_stdio(tmp_path: Path,
                                                                                   shared_data_dir: Path) -> None:
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    completed = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--port", "8797", "--data-dir", str(data)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert completed.returncode == 2 and completed.stdout == ""
    assert completed.stderr.strip() == ("toolbay: --port and --host are for --transport http or sse; this server "
                                        "would speak stdio (add --transport http)")


def test_serve_on_stdio_with_a_port_from_the_environment_or_configuration_says_it_is_not_used(
        tmp_path: Path) -> None:
    """TOOLBAY_PORT (perhaps exported for another server of the shell) was taken silently by a
    stdio server; unlike the flag, it is said, and the server serves."""
    config = tmp_path / "toolbay.toml"
    config.write_text('host = "0.0.0.0"\n')
    for settings, said in ((["--config", str(config)], "host (from the configuration or the environment) is for"),
                           ([], "port (from the configuration or the environment) is for")):
        completed = subprocess.run(
            [sys.executable, "-m", "toolbay", "serve", *settings, "--extensions", str(tmp_path),
             "--data-dir", str(tmp_path / "d")],
            capture_output=True, text=True, input="", timeout=60, check=False,
            env={**os.environ, "TOOLBAY_PORT": "8797"} if not settings else None)
        assert completed.returncode == 0 and completed.stdout == "", completed.stderr
        assert f"toolbay: warning: {said} transport http or sse; this server speaks stdio" in completed.stderr


MISSPELT_SCOPES = [
    ('[chain.auth]\nlocal_scopes = ["tools:exce"]\n', "'tools:exce' grants nothing (did you mean 'tools:exec'?)"),
    # a scope named in [chain.access.scopes], misspelt (an outside check: it started silently)
    ('[chain.auth]\nlocal_scopes = ["cii"]\n[chain.access.scopes.ci]\ntiers = ["read"]\n',
     "'cii' grants nothing (did you mean 'ci'?)"),
    # ... in another case, or with its kind misspelt (a re-check: both started silently)
    ('[chain.auth]\nlocal_scopes = ["CI"]\n[chain.access.scopes.ci]\ntiers = ["read"]\n',
     "'CI' grants nothing (did you mean 'ci'?)"),
    ('[chain.auth]\nlocal_scopes = ["tols:exec"]\n', "'tols:exec' grants nothing (did you mean 'tools:exec'?)"),
    # a pattern's kind in another case, or misspelt, and metrics:read (a re-check: wrong names, or silence)
    ('[chain.auth]\nlocal_scopes = ["Tool:hashsum"]\n', "'Tool:hashsum' grants nothing (did you mean 'tool:hashsum'?)"),
    ('[chain.auth]\nlocal_scopes = ["catalogue:x"]\n', "'catalogue:x' grants nothing (did you mean 'catalog:x'?)"),
    ('[chain.auth]\nlocal_scopes = ["Metrics:read"]\n', "'Metrics:read' grants nothing (did you mean 'metrics:read'?)"),
]


# One of each of the two ways a scope is refused (a tools: scope; one of another kind): the others
# are told apart by the words alone, checked below on the command that builds the same policies.
@pytest.mark.parametrize(("settings", "said"), MISSPELT_SCOPES[:2])
def test_serve_with_a_misspelt_scope_for_its_caller_stops_at_start_naming_it(
        tmp_path: Path, shared_data_dir: Path, settings: str, said: str) -> None:
    # A misspelt scope granted nothing: the server started, then refused every call of its one caller.
    config = tmp_path / "toolbay.toml"
    config.write_text(settings)
    data = as_if_run_before(tmp_path / "d", shared_data_dir)  # not about compiling
    completed = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--config", str(config), "--data-dir", str(data)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert completed.returncode == 2, completed.stderr
    [line] = completed.stderr.strip().splitlines()
    assert line.startswith(f"toolbay: chain.auth.local_scopes: {said}")


@pytest.mark.parametrize(("settings", "said"), MISSPELT_SCOPES)
def test_a_misspelt_scope_is_named_with_the_scope_it_was_meant_to_be(
        tmp_path: Path, shared_data_dir: Path, settings: str, said: str) -> None:
    """As serve says it at start (above): the refusal comes as the chain's policies are built,
    which toolbay list does too, here in the test process rather than a server process each."""
    config = tmp_path / "toolbay.toml"
    config.write_text(settings)
    result = runner.invoke(app, ["list", "--config", str(config), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"toolbay: chain.auth.local_scopes: {said}")


@pytest.mark.parametrize(("target", "reason"), [
    (None, "is a symbolic link in a loop (it leads back to itself)"),
    ("gone", "is a symbolic link to {tmp}/gone, which does not exist"),
    ("inside", "passes through a symbolic link in a loop"),  # a folder below such a link (a re-check)
])
@pytest.mark.parametrize("command", [["list", "--json"], ["call", "hashsum", '{"text": "a"}'], ["search", "hash"]])
def test_an_extension_folder_that_is_a_broken_link_is_named_as_one_and_exits_2(
        tmp_path: Path, shared_data_dir: Path, command: list[str], target: str | None, reason: str) -> None:
    """A link in a loop was a traceback for list and call (pathlib's "Symlink loop"), and said
    to "not exist" by serve and search, whose advice was to make it (an outside check)."""
    link = tmp_path / "tools"
    link.symlink_to(link if target in (None, "inside") else tmp_path / target)
    if target == "inside":
        link = link / "inside"
    result = runner.invoke(app, [*command, "--extensions", str(link), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2, result.output
    said = f"the extension folder {link} {reason.format(tmp=tmp_path)}"
    assert said in result.stderr and "Traceback" not in result.output, result.output
    assert "make it" not in result.stderr


@pytest.mark.parametrize("setting", ["workspace", "data_dir", "log_file"])
def test_a_path_setting_of_the_configuration_file_that_is_a_link_in_a_loop_is_one_line(
        tmp_path: Path, setting: str) -> None:
    """Read from the configuration file, each ended in a traceback (pathlib's "Symlink loop"), where
    the same given as a flag or a variable was said in one line (a re-check)."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    config = tmp_path / "toolbay.toml"
    config.write_text(f'{setting} = "{loop}"\n', encoding="utf-8")
    said = _one_line_exit_2(["list", "--config", str(config)])
    assert str(loop) in said and "Traceback" not in said, said


def test_token_new_appending_to_a_link_in_a_loop_is_one_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    result = runner.invoke(app, ["token", "new", "--client-id", "bot", "--scope", "tools:read", "--append", str(loop)])
    assert result.exit_code == 2, result.output
    said = result.stderr.strip().splitlines()
    assert said == [f"toolbay: cannot append to {loop}: Too many levels of symbolic links"]
    assert result.stdout == ""


def test_list_and_search_name_an_extension_folder_that_does_not_exist_and_exit_2(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """`list -e /typo` listed the built-ins and exited 0, so a script took the listing for the
    folder's; `search QUERY -e /typo` answered "no match" and exited 0 without a word of it.
    Then list printed what it could (the roles alone) and said why after it, exit 2 (found by
    an outside check): now both stop at start, as serve does, with its one line and nothing else."""
    missing = tmp_path / "tols"
    said = f"toolbay: the extension folder {missing} does not exist (make it, or name another with --extensions)"
    common = ["--extensions", str(missing), "--data-dir", str(shared_data_dir)]
    for argv in (["list", "--json"], ["list"], ["search", "hash a text"]):
        result = runner.invoke(app, [*argv, *common])
        assert (result.exit_code, result.stdout, result.stderr.strip()) == (2, "", said), argv


def _one_line_exit_2(args: list[str], env: dict[str, str] | None = None) -> str:
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("toolbay: "), result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.stderr


def test_a_bad_chain_setting_from_the_environment_names_its_variable_and_a_table_is_asked_for_in_words() -> None:
    """A [chain] setting given by a variable was refused without naming the variable (an operator
    looks in the file first, as the other sections' errors say), and a single value where a table
    belongs was refused in pydantic's words: "Input should be a valid dictionary or instance of
    AuthSettings"."""
    said = _one_line_exit_2(["list"], env={"TOOLBAY_CHAIN__AUTH": "x"})
    assert said.rstrip() == ("toolbay: invalid configuration: chain.auth: should be a table of settings (got 'x') "
                             "(from the environment variable TOOLBAY_CHAIN__AUTH)"), said
    said = _one_line_exit_2(["list"], env={"TOOLBAY_SANDBOX": "5"})
    assert "sandbox: should be a table of settings (got 5) (from the environment variable TOOLBAY_SANDBOX)" in said
    # A table no setting is, given by the variable of a setting inside it, names that variable.
    said = _one_line_exit_2(["list"], env={"TOOLBAY_CHAIN__RATE_LIMIT__PER_MINUTE": "abc"})
    assert "chain.rate_limit: no such setting; did you mean rate_limits?" in said, said
    assert said.rstrip().endswith("(from the environment variable TOOLBAY_CHAIN__RATE_LIMIT__PER_MINUTE)"), said


def test_a_bad_value_from_the_environment_names_its_variable_and_a_zero_is_said(tmp_path: Path) -> None:
    """An operator told "http.page_size: ..." looked in the file; the value was a variable's. And
    "greater than 0" held the 0 it was given, so "(got 0)" was left out (an outside check)."""
    said = _one_line_exit_2(["list"], env={"TOOLBAY_HTTP__PAGE_SIZE": "abc"})
    assert "http.page_size: " in said and "(got 'abc') (from the environment variable TOOLBAY_HTTP__PAGE_SIZE)" in said
    # An entry of a table or list a variable gives names that variable (an outside check).
    said = _one_line_exit_2(["list"], env={"TOOLBAY_TIERS": '{"x": "bogus"}'})
    assert "tiers.x: " in said and "(from the environment variable TOOLBAY_TIERS)" in said
    config = tmp_path / "toolbay.toml"
    config.write_text("[discovery]\nhelp_timeout_s = 0\n", encoding="utf-8")
    said = _one_line_exit_2(["list", "--config", str(config)])
    # Named as the file's, as a variable's is named as the variable's (an outside check).
    assert said.rstrip().endswith(f"help_timeout_s: Input should be greater than 0 (got 0) (in {config})"), said
    # The file's setting, overridden by a variable with a bad value: the variable is named.
    said = _one_line_exit_2(["list", "--config", str(config)], env={"TOOLBAY_DISCOVERY__HELP_TIMEOUT_S": "-1"})
    assert said.rstrip().endswith("(from the environment variable TOOLBAY_DISCOVERY__HELP_TIMEOUT_S)"), said
    # nan was said to be "not less than or equal to 3600" (an outside check)
    said = _one_line_exit_2(["list"], env={"TOOLBAY_JOBS__SYNC_BUDGET_S": "nan"})
    assert "jobs.sync_budget_s: Input should be a finite number (got 'nan')" in said, said
    config.write_text("[sandbox]\ntimeout_s = inf\n", encoding="utf-8")
    said = _one_line_exit_2(["list", "--config", str(config)])
    assert "sandbox.timeout_s: Input should be a finite number (got inf)" in said, said


@pytest.mark.parametrize("command", [["serve"], ["list"], ["jobs", "list"]])
def test_an_empty_config_option_is_refused_by_name(command: list[str]) -> None:
    # Read as a path it was the current folder: "config file . is a folder; name the TOML file in it".
    result = runner.invoke(app, [*command, "--config", ""])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "'--config' / '-c': is empty: name the TOML file, or leave the option out" in result.stderr, result.stderr


def test_a_config_file_that_is_not_utf8_is_one_line_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_bytes(b'port = 80\nlog_level = "\xff\xfe"\n')
    said = _one_line_exit_2(["list", "--config", str(config)])
    assert f"config file {config} is not UTF-8 text" in said


def test_a_list_variable_that_is_not_json_is_one_line_naming_it(shared_data_dir: Path) -> None:
    said = _one_line_exit_2(["list", "--data-dir", str(shared_data_dir)], env={"TOOLBAY_EXTENSIONS": "/srv/tools"})
    assert "environment variable TOOLBAY_EXTENSIONS: its value must be JSON (a list)" in said
    # The example is the variable that was wrong, its own value written as it must be.
    other = _one_line_exit_2(["list", "--data-dir", str(shared_data_dir)], env={"TOOLBAY_BACKGROUND_TOOLS": "hashsum"})
    assert other.rstrip().endswith("e.g. TOOLBAY_BACKGROUND_TOOLS='[\"hashsum\"]'")
    table = _one_line_exit_2(["list", "--data-dir", str(shared_data_dir)], env={"TOOLBAY_TIERS": "hashsum"})
    assert "TOOLBAY_TIERS: its value must be JSON (a table), e.g. TOOLBAY_TIERS='{\"NAME\": \"VALUE\"}'" in table


def test_a_list_variable_of_broken_json_is_told_where_it_breaks_not_wrapped_in_a_list(shared_data_dir: Path) -> None:
    """'["/srv/tools"' (its closing bracket missing) was offered back as the example
    '["[\\"/srv/tools\\""]': the broken text wrapped whole in a list, as one path."""
    said = _one_line_exit_2(["list", "--data-dir", str(shared_data_dir)], env={"TOOLBAY_EXTENSIONS": '["/srv/tools"'})
    assert said.rstrip().endswith("environment variable TOOLBAY_EXTENSIONS: it is not valid JSON (expecting ',' "
                                  "delimiter, at character 13); its value must be a JSON list, "
                                  "e.g. TOOLBAY_EXTENSIONS='[\"...\"]'")


def test_a_list_in_a_section_given_by_a_variable_that_is_not_json_is_named_by_that_variable(
        shared_data_dir: Path) -> None:
    """The message named TOOLBAY_SANDBOX, and its example was that (wrong) variable's."""
    said = _one_line_exit_2(["list", "--data-dir", str(shared_data_dir)], env={"TOOLBAY_SANDBOX__ENV_ALLOW": "PATH"})
    assert said.rstrip().endswith("environment variable TOOLBAY_SANDBOX__ENV_ALLOW: its value must be JSON (a list), "
                                  "e.g. TOOLBAY_SANDBOX__ENV_ALLOW='[\"PATH\"]'")


def test_a_log_file_or_audit_log_that_cannot_be_written_is_one_line_at_start(tmp_path: Path,
                                                                            shared_data_dir: Path) -> None:
    """A log file that was a folder (or under /proc) was a traceback in every command; an audit
    log that could not be written was found at the first call, whose line was lost, and so on."""
    folder = tmp_path / "a-folder"
    folder.mkdir()
    data = as_if_run_before(tmp_path / "data", shared_data_dir)  # not about compiling
    for argv in (["list"], ["call", "textkit_count", '{"stdin": "a"}']):
        said = _one_line_exit_2([*argv, "--data-dir", str(data)], env={"TOOLBAY_LOG_FILE": str(folder)})
        assert said.strip() == f"toolbay: log_file {folder} is a folder, not a file", argv
    config = tmp_path / "toolbay.toml"
    config.write_text(f'[chain.audit]\nfile = "{folder}"\n', encoding="utf-8")
    served = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0",
                             "--config", str(config), "--data-dir", str(data)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert served.returncode == 2, served.stderr
    assert served.stderr.strip() == f"toolbay: [chain.audit] file {folder} is a folder, not a file"
    under_a_file = tmp_path / "a-file"
    under_a_file.write_text("")
    said = _one_line_exit_2(["list", "--data-dir", str(data)],
                            env={"TOOLBAY_LOG_FILE": str(under_a_file / "toolbay.log")})
    assert said.startswith(f"toolbay: log_file {under_a_file / 'toolbay.log'} cannot be written to (")
    if os.path.exists("/proc/version"):  # opened, but not for appending text: a traceback (a re-check)
        said = _one_line_exit_2(["list", "--data-dir", str(data)],
                                env={"TOOLBAY_LOG_FILE": "/proc/version"})
        assert said.strip() == ("toolbay: log_file /proc/version is the kernel's (under /proc or /sys), "
                                "not a file for a log")


def test_the_audit_log_a_command_makes_is_readable_by_its_owner_alone(tmp_path: Path) -> None:
    """Checking at start that it could be written once made the file with the umask's mode
    (readable by everyone), before the audit log's own 0600 could apply."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[chain.audit]\nfile = "logs/audit.jsonl"\n', encoding="utf-8")
    result = runner.invoke(app, ["call", "textkit_count", '{"stdin": "a b"}', "--config", str(config),
                                 "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    audit = tmp_path / "logs" / "audit.jsonl"  # beside the configuration, as documented
    assert audit.stat().st_mode & 0o777 == 0o600
    assert json.loads(audit.read_text().splitlines()[-1])["tool"] == "textkit_count"


def test_a_bracketed_ipv6_host_is_one_line_naming_the_setting() -> None:
    said = _one_line_exit_2(["serve", "--transport", "http", "--host", "[::1]", "--port", "0"])
    assert said.strip().endswith("host: write an IPv6 address without brackets, e.g. ::1 (got '[::1]')")


def test_a_toolbay_variable_that_names_no_setting_is_reported_with_the_right_name(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)],
                           env={"TOOLBAY_SANDBOX_TIMEOUT_S": "5"})
    assert result.exit_code == 0, result.output
    assert ("toolbay: warning: environment variable TOOLBAY_SANDBOX_TIMEOUT_S names no setting and is ignored; "
            "did you mean TOOLBAY_SANDBOX__TIMEOUT_S?") in result.stderr
    # With JSON logs, the warning is a JSON line too: a log collector choked on the one plain line.
    as_json = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)],
                            env={"TOOLBAY_SANDBOX_TIMEOUT_S": "5", "TOOLBAY_LOG_FORMAT": "json"})
    lines = [json.loads(line) for line in as_json.stderr.splitlines()]
    assert any(line["level"] == "WARNING" and "TOOLBAY_SANDBOX__TIMEOUT_S?" in line["message"] for line in lines)


def test_a_variable_naming_a_key_of_a_table_setting_is_taken_without_a_warning(shared_data_dir: Path) -> None:
    """TOOLBAY_TIERS__HASHSUM=write took effect and was said to be ignored (an outside check): an
    operator was told a credential given so was not in effect when it was."""
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)],
                           env={"TOOLBAY_TIERS__HASHSUM": "write"})
    assert result.exit_code == 0, result.output
    assert "names no setting" not in result.stderr, result.stderr
    [hashsum] = [tool for tool in json.loads(result.stdout)["tools"] if tool["name"] == "hashsum"]
    assert hashsum["tier"] == "write"


def test_an_access_list_that_leaves_out_the_job_tools_is_said_at_start(
        tmp_path: Path, shared_data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    """allow = ["hash*"] hid job_wait too, with nothing said: a call that went on as a job was
    told to call job_wait, which was "disabled on this server by its configuration"."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[chain.access]\nallow = ["hash*"]\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--config", str(config), "--data-dir",
                           str(shared_data_dir)], input=b"", capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "[chain.access] allow and deny leave out job_status, job_wait, job_result" in done.stderr.decode()

    # Which tools are left out, and what to change, is worked out as the server is assembled, the
    # same in every process: asked of the assembly here, rather than of a server process each.
    def said_at_start(allow: str) -> str:
        config.write_text(f"[chain.access]\nallow = {allow}\n", encoding="utf-8")
        caplog.clear()

        async def start() -> None:
            async with assemble(load_settings(config, data_dir=shared_data_dir), watch=False):
                pass

        with caplog.at_level(logging.WARNING, logger="toolbay"):
            anyio.run(start)
        return caplog.text

    assert "leave out" not in said_at_start('["hash*", "job_*"]')
    # deny wins over allow: what to change is deny (a re-check: it said to add "job_*" to allow)
    assert "job_wait, job_result: a call that goes on as a job (past [jobs] sync_budget_s) cannot be followed; " \
        "take job_status, job_wait, job_result out of deny to" in said_at_start('["*"]\ndeny = ["job_*"]')
    # ... and each where it is left out (a re-check: only deny was named)
    assert 'take job_status out of deny and add "job_*" to allow' in said_at_start('["hashsum"]\ndeny = ["job_status"]')


def test_a_host_that_cannot_be_bound_is_one_line_naming_it(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["serve", "--transport", "http", "--host", "no-such-host.invalid", "--port", "0",
                                 "--insecure-no-auth", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2, result.output
    # The start-up log comes first; the error is the one last line.
    assert result.stderr.splitlines()[-1].startswith("toolbay: cannot listen on host 'no-such-host.invalid', port 0")
    assert "Traceback" not in result.stderr


def test_jobs_list_where_no_server_kept_a_job_lists_none_and_a_data_folder_that_does_not_exist_exits_2(
        tmp_path: Path) -> None:
    empty = tmp_path / "data"
    empty.mkdir()
    table = runner.invoke(app, ["jobs", "list", "--data-dir", str(empty)])
    assert table.exit_code == 0, table.output
    assert "0 jobs" in table.stdout and "no server has kept one there" in table.stderr
    as_json = runner.invoke(app, ["jobs", "list", "--json", "--data-dir", str(empty)])
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == []
    # A job asked for by its id is not there: that stays a failure.
    assert runner.invoke(app, ["jobs", "status", "j-1", "--data-dir", str(empty)]).exit_code == 1
    missing = runner.invoke(app, ["jobs", "list", "--data-dir", str(tmp_path / "typo")])
    assert missing.exit_code == 2
    assert missing.stderr.strip() == f"toolbay: the data folder {tmp_path / 'typo'} does not exist"


def test_a_data_folder_that_cannot_be_made_is_one_line_and_exit_2_for_every_command_that_keeps_files(
        tmp_path: Path) -> None:
    """A file, or a path under one, ended these commands with a FileExistsError or
    NotADirectoryError traceback (exit 1)."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    damaged = tmp_path / "damaged"  # its modules/ replaced by a file: a FileExistsError traceback
    damaged.mkdir()
    (damaged / "modules").write_text("")
    for folder, problem in ((a_file, "is a file, not a folder"), (a_file / "sub", "cannot be made (Not a directory)"),
                            (damaged, "holds a file named modules where toolbay keeps a folder")):
        for argv in (["list"], ["call", "textkit_count", '{"stdin": "a"}'], ["search", "count"],
                     ["describe", str(FIXTURE_WASM / "echo.wasm")]):
            result = runner.invoke(app, [*argv, "--data-dir", str(folder)])
            assert result.exit_code == 2, (argv, result.output)
            assert result.stderr.strip() == (f"toolbay: the data folder {folder} {problem}; choose another with "
                                             "--data-dir (or data_dir in the configuration)"), argv
    served = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--data-dir", str(a_file)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert served.returncode == 2 and len(served.stderr.strip().splitlines()) == 1, served.stderr
    assert a_file.read_text() == "not a folder"


def test_a_data_folder_on_a_read_only_mount_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """It exists, so nothing complained until the compiled-module cache made modules/ in it: an
    OSError traceback. A real read-only mount, in a mount namespace of the test's own."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs unshare and mount")
    folder = tmp_path / "read-only"
    folder.mkdir()
    script = (f'mount -t tmpfs -o ro,size=1m tmpfs "{folder}" || exit 77; '
              f'exec "{sys.executable}" -m toolbay list --data-dir "{folder}"')
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60,
                            check=False)
    if result.returncode == 77 or "unshare failed" in result.stderr:
        pytest.skip(f"no mount namespace here: {result.stderr.strip()}")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == (f"toolbay: the data folder {folder} cannot be written to (Read-only file "
                                     "system); choose another with --data-dir (or data_dir in the configuration)")


def test_a_config_file_that_is_a_folder_is_one_line_naming_it(tmp_path: Path) -> None:
    result = runner.invoke(app, ["list", "--config", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"toolbay: config file {tmp_path} is a folder; name the TOML file in it"


def test_token_new_refuses_a_client_id_with_a_line_break_and_names_the_setting_an_unknown_scope_needs() -> None:
    broken = runner.invoke(app, ["token", "new", "--client-id", "ci\nbot", "--scope", "tools:read"])
    assert broken.exit_code == 2 and "[[tokens]]" not in broken.stdout
    odd = runner.invoke(app, ["token", "new", "--client-id", "ci", "--scope", "tools:admin"])
    assert odd.exit_code == 0
    # It named "[chain.auth] scopes", a setting that does not exist.
    assert '[chain.access.scopes."tools:admin"]' in odd.stderr


def test_a_path_argument_given_as_the_hosts_own_path_into_the_workspace_reaches_the_file(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """A model that read "/home/ann/project/data/doc.json" in the request sends that; the sandbox
    sees the workspace at /workspace, and jsonkit said "Bad file number"."""
    import hashlib

    workspace = tmp_path / "project"
    (workspace / "data").mkdir(parents=True)
    document = workspace / "data" / "doc.json"
    document.write_text('{"b": 1, "a": 2}')
    common = ["--workspace", str(workspace), "--data-dir", str(shared_data_dir)]
    keys = runner.invoke(app, ["call", "jsonkit_keys", json.dumps({"file": str(document)}), *common])
    digest = runner.invoke(app, ["call", "hashsum", json.dumps({"file": str(document)}), *common])
    outside = runner.invoke(app, ["call", "hashsum", json.dumps({"file": str(tmp_path / "elsewhere.txt")}), *common])
    assert keys.exit_code == 0, keys.output
    assert sorted(json.loads(keys.stdout)) == ["a", "b"]
    assert digest.exit_code == 0 and digest.stdout.strip() == hashlib.sha256(document.read_bytes()).hexdigest()
    assert outside.exit_code == 1  # a path outside the workspace is not reachable, and is not rewritten


def test_a_host_path_given_for_a_file_positional_reaches_the_file(tmp_path: Path, shared_data_dir: Path) -> None:
    """textkit's FILE... is a positional: its schema said no more than "string", so the host
    path was passed as it was and every textkit tool failed on it."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    notes = workspace / "notes.txt"
    notes.write_text("one two\nthree\n")
    counted = runner.invoke(app, ["call", "textkit_count", json.dumps({"file": [str(notes)]}),
                                  "--workspace", str(workspace), "--data-dir", str(shared_data_dir)])
    assert counted.exit_code == 0, counted.output
    assert counted.stdout.split()[:2] == ["2", "3"]  # lines, words


def test_an_empty_folder_setting_is_refused_by_name_rather_than_read_as_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--workspace "$DIR" with DIR unset gave the tools the current folder; an empty data folder
    filled the current folder with the server's files."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("private\n")
    for argv in (["--workspace", ""], ["--data-dir", ""], ["--extensions", ""]):
        result = runner.invoke(app, ["call", "textkit_count", '{"file": ["notes.txt"]}', *argv])
        assert result.exit_code == 2, (argv, result.output)
        assert "is empty, which would mean the current folder" in result.stderr, argv
    monkeypatch.setenv("TOOLBAY_WORKSPACE", "")
    from_environment = runner.invoke(app, ["call", "textkit_count", '{"file": ["notes.txt"]}'])
    assert from_environment.exit_code == 2 and "workspace" in from_environment.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]  # nothing written here


def test_a_folder_setting_that_is_no_text_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("extensions = [1, 2]\n", encoding="utf-8")
    result = runner.invoke(app, ["list", "--config", str(config), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "extensions" in result.stderr


def test_a_home_folder_written_with_a_tilde_in_the_configuration_is_the_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = tmp_path / "conf" / "toolbay.toml"
    config.parent.mkdir()
    config.write_text('data_dir = "~/toolbay-data"\n', encoding="utf-8")
    from toolbay.config import load_settings

    assert load_settings(config).data_dir == tmp_path / "home" / "toolbay-data"


INTERRUPT_DURING_IMPORT = '''
import os, sys

class _CtrlCDuring:
    """Python turns a SIGINT into KeyboardInterrupt at the next instruction of the main thread;
    this raises it exactly there: when the command starts importing the module named."""

    def find_spec(self, name, path=None, target=None):
        if name == os.environ["INTERRUPTED_AT_IMPORT_OF"]:
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, _CtrlCDuring())
'''


@pytest.mark.parametrize(("argv", "module"), [(["serve"], "toolbay.config"), (["list"], "toolbay.cli"),
                                              (["search", "hash"], "typer")])
def test_ctrl_c_while_a_command_starts_ends_it_without_a_traceback(
        tmp_path: Path, shared_data_dir: Path, argv: list[str], module: str) -> None:
    """Pressed in the first half second, it printed a KeyboardInterrupt traceback. A command
    ends with the shell's status for Ctrl-C; a server with 0, as it does once serving (it was
    130 while it started: the same stop, a failure or not by when it came)."""
    (tmp_path / "sitecustomize.py").write_text(INTERRUPT_DURING_IMPORT, encoding="utf-8")
    data = as_if_run_before(tmp_path / "data", shared_data_dir)  # not about compiling
    result = subprocess.run([sys.executable, "-m", "toolbay", *argv, "--data-dir", str(data)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False,
                            env={**os.environ, "PYTHONPATH": str(tmp_path), "INTERRUPTED_AT_IMPORT_OF": module})
    assert result.returncode == (0 if argv == ["serve"] else 130), result.stderr
    assert "Traceback" not in result.stderr and "KeyboardInterrupt" not in result.stderr, result.stderr


def test_a_misspelt_chain_setting_is_named_with_the_closest_real_one(tmp_path: Path) -> None:
    """The [chain] sections are validated apart from the rest: they answered pydantic's
    "Extra inputs are not permitted" where every other section said what was meant."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[chain.rate_limits]\nper_calller = "1/second"\n', encoding="utf-8")
    result = runner.invoke(app, ["list", "--config", str(config), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output
    assert "chain.rate_limits.per_calller: no such setting; did you mean per_caller?" in result.stderr


def test_an_error_repeats_a_huge_argument_back_only_in_part(shared_data_dir: Path) -> None:
    """A 1 MB job id, tool name or date came back whole in the error, into the model's context."""
    huge = "x" * 200_000
    common = ["--data-dir", str(shared_data_dir)]
    answers = [runner.invoke(app, ["call", "job_status", json.dumps({"job_id": huge}), *common]),
               runner.invoke(app, ["call", huge, "{}", *common]),
               runner.invoke(app, ["call", "dates_add", json.dumps({"date": huge, "days": 1}), *common])]
    for answer in answers:
        assert answer.exit_code != 0
        assert len(answer.output) < 10_000, answer.output[:300]
    # One unbroken run is not quoted in part (it could be part of a secret): said so, not as ''
    # (an outside check: "There is no tool named ''... (300 characters)").
    unbroken = "'…' (200000 characters, unbroken in the first 100, not shown)"
    assert unbroken in answers[0].output and unbroken in answers[1].output
    assert "''" not in answers[0].output + answers[1].output
    worded = runner.invoke(app, ["call", "job_status", json.dumps({"job_id": "job " * 50_000}), *common])
    assert "'job job job" in worded.output and "(200000 characters)" in worded.output


def test_a_tool_or_role_folder_that_is_no_folder_is_said_by_list_and_by_call(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """A file given as the extension folder was said not to exist; a missing agents folder was
    not said at all; and `call` answered only "There is no tool named 'hashsum'"."""
    a_file = BUNDLED_EXTENSIONS / "hashsum.wasm"
    common = ["--extensions", str(a_file), "--data-dir", str(shared_data_dir)]
    config = tmp_path / "toolbay.toml"
    config.write_text(f'agents = ["{tmp_path / "no-agents"}"]\n', encoding="utf-8")
    listed = runner.invoke(app, ["list", "--config", str(config), *common])
    called = runner.invoke(app, ["call", "hashsum", '{"text": "a"}', "--config", str(config), *common])
    assert f"extension folder {a_file} is a file, not a folder" in listed.output
    assert f"agents folder {tmp_path / 'no-agents'} does not exist" in listed.output
    assert called.exit_code == 2
    assert f"Note: the extension folder {a_file} is a file, not a folder." in called.stderr


def test_small_things_people_type_are_understood(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configuration file saved with a byte-order mark ("Invalid statement (at line 1, column
    1)"), TOOLBAY_LOG_LEVEL=DEBUG (refused for its case), and -h for --help (no such option)."""
    config = tmp_path / "toolbay.toml"
    config.write_bytes(b'\xef\xbb\xbfdata_dir = "data"\n')
    monkeypatch.setenv("TOOLBAY_LOG_LEVEL", "DEBUG")
    # No tools: what is listed is not the point, and the bundled ones would be compiled first in
    # the new data folder (a first start, ~1.3 s of CPU).
    (tmp_path / "no-tools").mkdir()
    listed = runner.invoke(app, ["list", "--json", "--config", str(config), "--extensions", str(tmp_path / "no-tools")])
    assert listed.exit_code == 0, listed.output
    assert (tmp_path / "data").is_dir()
    for argv in (["-h"], ["list", "-h"], ["jobs", "list", "-h"]):
        helped = runner.invoke(app, argv)
        assert helped.exit_code == 0 and "Usage:" in helped.output, argv
    # --transport HTTP is http: the port, out of range, is what stops it here.
    shouted = runner.invoke(app, ["serve", "--transport", "HTTP", "--port", "70000"])
    assert shouted.exit_code == 2 and "port" in shouted.stderr and "transport" not in shouted.stderr, shouted.output


def test_a_group_given_no_command_answers_with_its_help_as_toolbay_alone_does() -> None:
    """``toolbay jobs`` and ``toolbay token`` printed their help on stderr and exited 2, as if
    asked wrongly, while ``toolbay`` alone prints its help on stdout and exits 0."""
    for argv, commands in (([], ["serve", "jobs"]), (["jobs"], ["list", "cancel"]), (["token"], ["new"])):
        answered = runner.invoke(app, argv)
        assert answered.exit_code == 0, (argv, answered.output)
        assert answered.stdout.startswith("Usage: ") and not answered.stderr, argv
        assert all(f"  {command} " in answered.stdout for command in commands), (argv, answered.stdout)
    wrong = runner.invoke(app, ["jobs", "nope"])
    assert wrong.exit_code == 2 and "No such command 'nope'" in wrong.stderr


def test_an_option_missing_its_value_is_said_as_its_commands_error() -> None:
    """It was said as toolbay's own ("toolbay: Option '--workspace' requires an argument. (see
    'toolbay -h')"), pointing at a help that does not list the option."""
    for argv in (["serve", "--workspace"], ["list", "--json", "--workspace"], ["jobs", "list", "--limit"],
                 ["token", "new", "--client-id"], ["call", "hashsum", "--args"]):
        command = " ".join(["toolbay", *(word for word in argv if not word.startswith("-") and word != "hashsum")])
        wrong = runner.invoke(app, argv)
        assert wrong.exit_code == 2 and not wrong.stdout, argv
        assert wrong.stderr == f"{command}: Option '{argv[-1]}' requires an argument. (see '{command} -h')\n", argv


def test_a_port_already_taken_stops_the_server_before_it_compiles_or_describes_any_tool(tmp_path: Path) -> None:
    """It described (on a first start, compiled) every tool before saying the port was taken;
    then it no longer described them, but a first start's compiles had begun."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", str(port),
                                 "--data-dir", str(tmp_path / "data")],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False,
                                env={**os.environ, "TOOLBAY_LOG_LEVEL": "debug"})
    assert result.returncode == 2, result.stderr
    assert f"toolbay: cannot listen on host '127.0.0.1', port {port}" in result.stderr.splitlines()[-1]
    assert "before the server is put together" not in result.stderr  # nothing was compiled for nothing
    assert not (tmp_path / "data" / "descriptions").exists()  # nor described


def test_a_host_path_through_a_symlink_to_the_workspace_reaches_the_file(tmp_path: Path,
                                                                         shared_data_dir: Path) -> None:
    """The workspace is kept as its real path, so a path the model knew through a symlink (the
    folder as the user named it, macOS's /tmp) was passed as it was, and the tool found nothing;
    a link out of the workspace still leads nowhere."""
    real = tmp_path / "real-project"
    real.mkdir()
    (real / "notes.txt").write_text("one two\nthree\n")
    linked = tmp_path / "project"
    linked.symlink_to(real)
    (tmp_path / "secret.txt").write_text("outside\n")
    (real / "out").symlink_to(tmp_path)

    def count(workspace: Path, file: Path) -> Any:
        return runner.invoke(app, ["call", "textkit_count", json.dumps({"file": [str(file)]}),
                                   "--workspace", str(workspace), "--data-dir", str(shared_data_dir)])

    for workspace in (linked, real):
        for file in (linked / "notes.txt", real / "notes.txt"):
            counted = count(workspace, file)
            assert counted.exit_code == 0, (workspace, file, counted.output)
            assert counted.stdout.split()[:2] == ["2", "3"]  # lines, words
    escaped = count(real, real / "out" / "secret.txt")
    assert escaped.exit_code == 1 and "outside" not in escaped.output


@pytest.mark.parametrize("closed", ["<&-", ">&-", "2>&-"])
def test_a_command_whose_caller_closed_a_standard_stream_runs(closed: str, shared_data_dir: Path) -> None:
    """``toolbay call ... <&-`` aborted with a core dump: uvloop's libuv asserts that a
    descriptor it opens is not numbered 0 to 2, which a closed stream's number then was."""
    import shlex

    command = [sys.executable, "-m", "toolbay", "call", "hashsum", '{"text": "a"}', "--data-dir", str(shared_data_dir)]
    done = subprocess.run(["bash", "-c", f"{shlex.join(command)} {closed}"], capture_output=True, text=True,
                          cwd=REPO_ROOT, check=False, timeout=120)
    assert "Assertion" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    if closed == ">&-":  # the tool ran; its result has nowhere to go, as ``cat >&-`` fails
        assert (done.returncode, done.stderr) == (1, "toolbay: cannot write the output: standard output is closed\n")
    else:
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == hashlib.sha256(b"a").hexdigest()


@pytest.mark.parametrize("argv", [["parse-help", "tests/helptext/corpus/gnu/cp/long.txt"], ["list"], ["--version"]])
def test_a_command_whose_output_is_closed_says_so_and_exits_1(argv: list[str], shared_data_dir: Path) -> None:
    """``toolbay parse-help FILE >&-`` exited 0 and said nothing, the JSON written into the
    /dev/null opened in the closed stream's place (found by an outside check)."""
    import shlex

    command = [sys.executable, "-m", "toolbay", *argv]
    env = {**os.environ, "TOOLBAY_DATA_DIR": str(shared_data_dir)}
    done = subprocess.run(["bash", "-c", f"{shlex.join(command)} >&-"], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=env, check=False, timeout=120)
    assert (done.returncode, done.stderr) == (1, "toolbay: cannot write the output: standard output is closed\n")


@pytest.mark.parametrize("argv", [["parse-help", "tests/helptext/corpus/gnu/cp/long.txt"], ["list"], ["--version"],
                                  ["--help"]])
def test_a_command_whose_output_is_open_for_reading_only_says_so_and_exits_1(
        argv: list[str], shared_data_dir: Path, tmp_path: Path) -> None:
    """``toolbay list 1<file``: its writes fail as on a closed output (EBADF), which ended in a traceback."""
    (tmp_path / "file").write_text("x")
    env = {**os.environ, "TOOLBAY_DATA_DIR": str(shared_data_dir)}
    with (tmp_path / "file").open("rb") as read_only:
        done = subprocess.run([sys.executable, "-m", "toolbay", *argv], stdout=read_only, stderr=subprocess.PIPE,
                              text=True, cwd=REPO_ROOT, env=env, check=False, timeout=120)
    assert (done.returncode, done.stderr) == (1, "toolbay: cannot write the output: standard output is not open "
                                                 "for writing\n")


def test_call_stdin_that_cannot_be_read_exits_2_in_one_line(shared_data_dir: Path, tmp_path: Path) -> None:
    """``toolbay call hashsum --stdin 0>file`` (open for writing only): a traceback of EBADF."""
    with (tmp_path / "file").open("wb") as write_only:
        done = subprocess.run([sys.executable, "-m", "toolbay", "call", "hashsum", "--stdin", "--data-dir",
                               str(shared_data_dir)], stdin=write_only, capture_output=True, text=True, cwd=REPO_ROOT,
                              check=False, timeout=120)
    assert (done.returncode, done.stderr) == (2, "toolbay: --stdin: cannot read standard input: Bad file descriptor\n")


def test_output_the_disk_refuses_is_one_line_not_a_traceback(shared_data_dir: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "toolbay", "list", "--json", "--data-dir", str(shared_data_dir)],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT, check=False, timeout=120)
    assert (done.returncode, done.stderr) == (1, "toolbay: cannot write the output: No space left on device\n")


def test_a_call_result_the_disk_refuses_is_one_line_and_exit_1(shared_data_dir: Path) -> None:
    """``call`` leaves its result in Python's buffer (unless PYTHONUNBUFFERED is set), which was
    written at exit: "Exception ignored in: <_io.TextIOWrapper name='<stdout>'...>", status 120."""
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "toolbay", "call", "hashsum", '{"text": "a"}', "--data-dir",
                               str(shared_data_dir)], stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT,
                              env=buffered, check=False, timeout=120)
    assert (done.returncode, done.stderr) == (1, "toolbay: cannot write the output: No space left on device\n")


def test_call_passes_its_standard_input_to_the_tool_with_stdin(shared_data_dir: Path) -> None:
    """`echo -n abc | toolbay call hashsum` hashed nothing, silently: there was no way to pass
    a pipe to the tool but to quote its whole content as JSON."""
    piped = runner.invoke(app, ["call", "hashsum", "--stdin", "--data-dir", str(shared_data_dir)], input=b"abc")
    twice = runner.invoke(app, ["call", "hashsum", '{"stdin": "x"}', "--stdin", "--data-dir", str(shared_data_dir)],
                          input=b"abc")
    binary = runner.invoke(app, ["call", "hashsum", "--stdin", "--data-dir", str(shared_data_dir)], input=b"\xff")
    assert (piped.exit_code, piped.stdout.strip()) == (0, hashlib.sha256(b"abc").hexdigest())
    assert twice.exit_code == 2 and "give the tool's standard input once" in twice.stderr
    assert binary.exit_code == 2 and "standard input is not UTF-8 text" in binary.stderr


@pytest.mark.parametrize("timeout", ["nan", "inf", "-inf"])
def test_jobs_wait_with_a_timeout_that_is_no_number_of_seconds_is_a_usage_error(tmp_path: Path, timeout: str) -> None:
    result = runner.invoke(app, ["jobs", "wait", "job_x", "--timeout", timeout, "--data-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "is not a number of seconds" in result.output and "Traceback" not in result.output


def test_jobs_wait_with_a_timeout_below_0_is_a_usage_error_as_for_the_job_wait_tool(tmp_path: Path) -> None:
    result = runner.invoke(app, ["jobs", "wait", "job_x", "--timeout", "-1", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and "-1 is below 0; give the seconds to wait, or 0 to look once" in result.output


def test_tables_show_text_in_square_brackets_as_written(tmp_path: Path) -> None:
    """Read as rich markup, "([discovery] help_timeout_s)" showed as "( help_timeout_s)", and a
    description's "[possible values: fast, slow]" vanished (found by an outside probe)."""
    folder = tmp_path / "tools"
    folder.mkdir()
    described = "Mode [possible values: fast, slow] [default: fast]."
    (folder / "fine.py").write_text(
        f"def get_tool_schemas():\n    return [dict(name='fine', description={described!r}, "
        "input_schema=dict(type='object'))]\n\n\ndef fine():\n    return 'ok'\n", encoding="utf-8")
    (folder / "quits.py").write_text("raise SystemExit('[red]not markup[/red]')\n", encoding="utf-8")
    data = ["--extensions", str(folder), "--data-dir", str(tmp_path / "data")]
    listed = runner.invoke(app, ["list", *data])
    found = runner.invoke(app, ["search", "possible values fast", *data])
    assert listed.exit_code == 0, listed.output
    assert "'[red]not markup[/red]'" in " ".join(listed.output.split()), listed.output
    assert found.exit_code == 0, found.output
    assert "[possible values: fast, slow]" in found.output, found.output


def test_list_says_which_tools_the_configuration_keeps_from_every_caller(tmp_path: Path,
                                                                        shared_data_dir: Path) -> None:
    """[chain.access] deny kept hashsum from every client's tools/list and call, yet toolbay list
    showed it as served (found by an outside probe)."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[chain.access]\ndeny = ["hash*"]\n', encoding="utf-8")
    data = as_if_run_before(tmp_path / "data", shared_data_dir)  # not about compiling
    result = runner.invoke(app, ["list", "--json", "--config", str(config), "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    tools = {tool["name"]: tool for tool in json.loads(result.stdout)["tools"]}
    assert "allow/deny" in tools["hashsum"]["disabled"]
    assert "disabled" not in tools["textkit_count"]


def test_a_relative_folder_that_does_not_exist_is_said_with_the_path_it_was_read_as(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started from a subfolder, 'extension folder extensions does not exist' did not say where
    it had looked (found by an outside probe)."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["list", "--json", "--extensions", "tools", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output
    assert f"extension folder tools (read as {tmp_path / 'tools'}) does not exist" in result.stderr


def test_jobs_list_says_when_older_jobs_follow_and_pages_filters_them(tmp_path: Path) -> None:
    # It showed the newest 100 under the title "100 jobs of OWNER", older ones unreachable.
    from toolbay.jobs import JobRecord
    from toolbay.words import ToolResult

    async def five_jobs() -> None:
        async with SqliteJobStore(tmp_path / "jobs.sqlite3") as store:
            for number in range(5):
                record = JobRecord(id=f"job_{number}", owner="alice", tool="cat", status="running",
                                   created_at=100.0 + number, updated_at=100.0 + number, started_at=100.0 + number)
                await store.create(record)
                if number % 2:
                    await store.finish(record.id, "completed", ToolResult("done"), at=200.0 + number)

    anyio.run(five_jobs)
    base = ["jobs", "list", "--owner", "alice", "--data-dir", str(tmp_path)]
    first = runner.invoke(app, [*base, "--limit", "2"])
    last = runner.invoke(app, [*base, "--limit", "2", "--offset", "4", "--json"])
    done = runner.invoke(app, [*base, "--status", "completed", "--json"])
    wrong = runner.invoke(app, [*base, "--status", "done"])
    assert first.exit_code == 0, first.output
    assert "2 jobs of alice, newest first (older ones follow: --offset 2)" in " ".join(first.stdout.split())
    assert "job_4" in first.stdout and "job_3" in first.stdout and "job_2" not in first.stdout
    assert [job["job_id"] for job in json.loads(last.stdout)] == ["job_0"]
    assert [job["job_id"] for job in json.loads(done.stdout)] == ["job_3", "job_1"]
    assert wrong.exit_code == 2 and "'done' is not one of queued, running" in wrong.output


def test_jobs_commands_leave_a_damaged_job_database_where_it_is_and_say_how_it_is_mended(tmp_path: Path) -> None:
    """`toolbay jobs list` moved a damaged database aside and listed an empty fresh one, exit 0:
    a command that reads jobs repaired the store, and the jobs were gone (an outside check)."""
    damaged = b"\x00not a database at all" * 10
    (tmp_path / "jobs.sqlite3").write_bytes(damaged)
    listed = runner.invoke(app, ["jobs", "list", "--data-dir", str(tmp_path)])
    assert listed.exit_code == 2, listed.output
    assert listed.stderr.strip() == (
        f"toolbay: cannot open the job database {tmp_path / 'jobs.sqlite3'}: it is damaged (file is not a database). "
        "Start `toolbay serve` on this data folder: the damaged file is then kept aside and a fresh one started "
        "(the jobs it held are lost).")
    assert (tmp_path / "jobs.sqlite3").read_bytes() == damaged
    assert [path.name for path in tmp_path.iterdir() if "damaged" in path.name] == []
    # With a server on the folder (its lock held), starting another would not mend it: that
    # server refuses it too, as in use (an outside check). The servers are to stop first.
    from toolbay.jobs.serving import ServingLock, serving_lock_beside

    lock = ServingLock(serving_lock_beside(tmp_path / "jobs.sqlite3"))
    lock.take()
    try:
        in_use = runner.invoke(app, ["jobs", "list", "--data-dir", str(tmp_path)])
    finally:
        lock.release()
    assert in_use.exit_code == 2, in_use.output
    assert in_use.stderr.strip().endswith(
        "it is damaged (file is not a database), and a server on this data folder is using it. Stop the servers "
        "using this data folder (or let them finish), then start again: the damaged file is then kept aside and a "
        "fresh one started.")


def test_jobs_commands_and_the_server_change_nothing_of_another_programs_database(tmp_path: Path,
                                                                                  shared_data_dir: Path) -> None:
    """`toolbay jobs list` on a data folder whose jobs.sqlite3 was another program's added
    toolbay's tables to it (a re-check); then, though it said the file was none of toolbay's,
    it made it private and switched its journal, and `serve` took it over as its own, all its
    tables added, with nothing said (an outside check). Both refuse it, the file as it was."""
    import sqlite3

    database = tmp_path / "jobs.sqlite3"
    with contextlib.closing(sqlite3.connect(database)) as other:
        other.execute("CREATE TABLE notes (text)")
        other.commit()
    database.chmod(0o644)
    before = database.read_bytes()
    as_if_run_before(tmp_path, shared_data_dir)  # not about compiling
    listed = runner.invoke(app, ["jobs", "list", "--data-dir", str(tmp_path)])
    assert listed.exit_code == 2, listed.output
    assert "it has no table jobs but others (notes): it is not a toolbay job database" in listed.stderr
    served = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--data-dir", str(tmp_path)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert served.returncode == 2, served.stderr
    assert served.stderr.strip().splitlines()[-1] == (
        f"toolbay: cannot open the job database {database}: it has no table jobs but others (notes): it is not a "
        "toolbay job database. Move it aside (toolbay then starts a fresh one) or choose another data folder "
        "(--data-dir); the jobs it holds are not read.")
    assert database.read_bytes() == before and stat.S_IMODE(database.stat().st_mode) == 0o644
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("jobs.sqlite3")) == ["jobs.sqlite3"]


def test_jobs_commands_read_a_database_this_user_may_not_write(tmp_path: Path) -> None:
    """A read-only file or mount: `toolbay jobs list` failed to open it, saying the folder should
    be made writable (an outside check); it reads jobs, and writes only a cancel."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(tmp_path / "jobs.sqlite3")) as made:
        made.executescript("CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT NOT NULL, tool TEXT NOT NULL, "
                           "arguments TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, created_at REAL NOT NULL, "
                           "updated_at REAL NOT NULL, started_at REAL, finished_at REAL, result TEXT, "
                           "result_file TEXT); CREATE TABLE job_events (seq INTEGER PRIMARY KEY, job_id TEXT NOT NULL, "
                           "at REAL NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL);"
                           "INSERT INTO jobs VALUES ('job_1', 'alice', 'hashsum', '{}', 'completed', NULL, 1, 2, 1, 2, "
                           "'{\"text\": \"done\"}', NULL)")
        made.execute("PRAGMA journal_mode=WAL")  # as toolbay's are: read-only, it could not be opened at all
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs unshare and mount")
    # A read-only bind mount of the folder, in a mount namespace of the test's own.
    result = subprocess.run(["unshare", "-m", "sh", "-c", f'mount --bind "{tmp_path}" "{tmp_path}" && '
                             f'mount -o remount,bind,ro "{tmp_path}" || exit 77; '
                             f'exec "{sys.executable}" -m toolbay jobs list --owner alice --data-dir "{tmp_path}"'],
                            capture_output=True, text=True, timeout=60, check=False)
    if result.returncode == 77 or "unshare failed" in result.stderr:
        pytest.skip(f"no mount namespace here: {result.stderr.strip()}")
    assert result.returncode == 0, result.stderr
    assert "job_1" in result.stdout and "hashsum" in result.stdout


def test_a_modules_import_error_is_shown_with_its_secrets_hidden(tmp_path: Path, shared_data_dir: Path) -> None:
    # Its words reached refresh_tools' answer and this listing as they were, a password and a key in them.
    secret = "sk-" + "abcdefghijklmnopqrstuvwx1234"
    module = f'raise RuntimeError("cannot reach postgres://admin:hunter2@db/prod with {secret}")\n'
    result = run_beside_one_module(tmp_path, shared_data_dir, ("leaky.py", module), "list", "--json")
    [skipped] = json.loads(result.stdout)["skipped"]
    assert "postgres://admin:[REDACTED]@db/prod with [REDACTED]" in skipped["reason"]
    assert "hunter2" not in result.stdout and secret not in result.stdout


def test_a_folder_this_user_may_not_read_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Another user's folder (here: mode 000, read without the capabilities that let root read
    anything) stopped list and serve with a PermissionError traceback, exit 1."""
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs setpriv, run as root, to drop the capabilities that read any folder")
    locked, tools = tmp_path / "locked", tmp_path / "tools"
    locked.mkdir()
    tools.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", tools / "echo.wasm")
    locked.chmod(0)
    tools.chmod(0)
    as_a_user = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", sys.executable, "-m", "toolbay"]
    try:
        listed = subprocess.run([*as_a_user, "list", "--data-dir", str(locked / "data")], capture_output=True,
                                text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
        served = subprocess.run([*as_a_user, "serve", "--extensions", str(tools), "--data-dir", str(tmp_path / "d")],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    finally:
        locked.chmod(0o700)
        tools.chmod(0o700)
    assert (listed.returncode, listed.stderr.strip()) == (2, (
        f"toolbay: the data folder {locked / 'data'} cannot be read (Permission denied); choose another with "
        "--data-dir (or data_dir in the configuration)"))
    assert (served.returncode, served.stderr.strip()) == (2, (
        f"toolbay: the extension folder {tools} cannot be read (Permission denied) (let this user read it, or name "
        "another with --extensions)"))


@pytest.mark.parametrize("where", ["flag", "variable", "file"])
def test_a_path_in_the_home_of_a_user_the_system_does_not_know_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """"~anne/data" for a user "ann" was left as written: a folder named "~anne" was made in the
    current folder for the data, and a workspace so named was read from there (an outside check)."""
    monkeypatch.chdir(tmp_path)
    value = "~no-such-user-here/data"
    args, env = ["call", "hashsum", '{"text": "a"}'], None
    if where == "flag":
        args += ["--data-dir", value]
    elif where == "variable":
        env = {"TOOLBAY_DATA_DIR": value}
    else:
        (tmp_path / "toolbay.toml").write_text(f'data_dir = "{value}"\n', encoding="utf-8")
    said = _one_line_exit_2(args, env=env)
    assert f"data_dir: {value!r} starts with the home folder of 'no-such-user-here', a user this system does not know" \
        in said, said
    assert list(tmp_path.iterdir()) == ([tmp_path / "toolbay.toml"] if where == "file" else [])


def test_a_relative_xdg_data_home_is_ignored_as_the_xdg_specification_asks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "~/xdg" (quoted, so the shell left it) made a folder named "~" where the server started.
    from toolbay.defaults import default_data_dir

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "~/xdg")
    assert default_data_dir() == tmp_path / ".local" / "share" / "toolbay"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "toolbay"


def test_no_home_folder_and_a_deleted_current_folder_are_one_line_and_exit_2(tmp_path: Path) -> None:
    """A RuntimeError ('Could not determine home directory') and a FileNotFoundError traceback."""
    gone = tmp_path / "gone"
    gone.mkdir()
    in_gone = subprocess.run(["sh", "-c", f'cd "{gone}" && rmdir "{gone}" && exec "{sys.executable}" -m toolbay list'],
                             capture_output=True, text=True, timeout=60, check=False)
    assert (in_gone.returncode, in_gone.stderr.strip()) == (
        2, "toolbay: the current folder no longer exists (it was deleted or moved); cd to another")
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs setpriv, run as root, to be a user with no home folder")
    as_other_user = ["setpriv", "--reuid=4242", "--regid=4242", "--clear-groups", sys.executable]
    if subprocess.run([*as_other_user, "-c", "import toolbay"], capture_output=True, timeout=60, check=False,
                      cwd="/", stdin=subprocess.DEVNULL).returncode != 0:
        # A checkout in a folder of mode 700 (mktemp -d makes one) is not readable by that user.
        pytest.skip("another user cannot import toolbay from this checkout")
    env = {key: value for key, value in os.environ.items() if key not in ("HOME", "XDG_DATA_HOME")}
    homeless = subprocess.run([*as_other_user, "-m", "toolbay", "list"], capture_output=True, text=True, timeout=60,
                              check=False, env=env, cwd="/", stdin=subprocess.DEVNULL)
    locked_in = subprocess.run([*as_other_user, "-m", "toolbay", "list"], capture_output=True, text=True, timeout=60,
                               check=False, cwd=tmp_path, stdin=subprocess.DEVNULL)  # root's, mode 700
    assert (locked_in.returncode, locked_in.stderr.strip()) == (
        2, "toolbay: the current folder cannot be entered by this user; cd to another")
    assert (homeless.returncode, homeless.stderr.strip()) == (2, (
        "toolbay: there is no home folder to keep the data folder in (HOME is not set): name one with --data-dir "
        "(or data_dir in the configuration)"))


def test_a_folder_named_twice_is_one_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            shared_data_dir: Path) -> None:
    # "-e extensions -e ./extensions/" compiled and described each file twice, and warned twice
    # that every tool name was offered by both.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "greet.py").write_text(
        "def get_tool_schemas():\n    return [{'name': 'greet', 'description': 'Greets.'}]\n"
        "def greet():\n    return 'hello'\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "tools")
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir), "-e", "tools", "-e", "./tools/",
                                 "-e", str(tmp_path / "link"), "-e", "tools"])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    assert [tool["name"] for tool in listing["tools"] if tool["source"] == "python"] == ["greet"]
    assert listing["diagnostics"] == [] and listing["skipped"] == [], listing


def test_list_says_which_role_tool_patterns_match_no_tool(tmp_path: Path, shared_data_dir: Path) -> None:
    # A misspelt pattern left the sub-agent without the tool, and nothing said so.
    roles = tmp_path / "roles"
    roles.mkdir()
    (roles / "counter.md").write_text("---\nname: counter\ndescription: Counts.\ntools: [textkit_count, zzz_*]\n"
                                      "---\nCount.\n", encoding="utf-8")
    config = tmp_path / "toolbay.toml"
    config.write_text(f'agents = ["{roles}"]\n', encoding="utf-8")
    result = runner.invoke(app, ["list", "--json", "--config", str(config), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    said = [line for line in json.loads(result.stdout)["diagnostics"] if "matches no tool" in line]
    assert said == [f"role counter ({roles / 'counter.md'}): its tools pattern 'zzz_*' matches no tool"]


@pytest.mark.parametrize(("argv", "said"), [
    (["search", "--limit", "abc", "foo"], "toolbay search: Invalid value for '--limit' / '-k'"),
    (["list", "--nope"], "toolbay list: No such option: --nope"),
    (["call"], "toolbay call: Missing argument 'TOOL'."),
    (["token", "new", "--scopes", "x"], "toolbay token new: No such option: --scopes (Possible options: --scope)"),
    (["nocmd"], "toolbay: No such command 'nocmd'."),
    (["serve", "--nope"], "toolbay serve: No such option: --nope"),
    # Without the validator's words before the reason ("Value error, 'bogus' is ...").
    (["serve", "--transport", "bogus"], "toolbay serve: Invalid value for '--transport' / '-t': 'bogus' is not one of "
                                        "'stdio', 'http', 'sse'."),
])
def test_a_command_line_toolbay_cannot_run_is_one_line_naming_the_fault_and_exit_2(argv: list[str], said: str) -> None:
    """As the README says of exit status 2: click said it in four lines (the usage, a hint, a
    blank line, then the error)."""
    result = subprocess.run([sys.executable, "-m", "toolbay", *argv], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(said), result.stderr
    assert result.stderr.rstrip().endswith(f"(see '{said.split(':')[0]} -h')")


def test_a_group_given_no_command_still_shows_its_help() -> None:
    result = subprocess.run([sys.executable, "-m", "toolbay", "token"], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert "Commands:" in result.stdout + result.stderr and "new" in result.stdout + result.stderr


def test_a_tools_name_that_is_no_file_is_said_not_skipped_without_a_word(tmp_path: Path,
                                                                         shared_data_dir: Path) -> None:
    """A dangling link, a named pipe or a folder named like a tool appeared nowhere: a mistyped
    link's target was found by no one."""
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "typo.wasm").symlink_to(tmp_path / "nowhere" / "tool.wasm")
    os.mkfifo(folder / "pipe.py")
    (folder / "folder.wasm").mkdir()
    (folder / "self.wasm").symlink_to(folder / "self.wasm")
    result = runner.invoke(app, ["list", "--json", "--extensions", str(folder), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    said = "\n".join(json.loads(result.stdout)["diagnostics"])
    assert f"{folder / 'typo.wasm'} is a link to nothing, not a file; it is skipped" in said
    assert f"{folder / 'pipe.py'} is a named pipe, not a file; it is skipped" in said
    assert f"{folder / 'folder.wasm'} is a folder, not a file; it is skipped" in said
    assert f"{folder / 'self.wasm'} is a link that cannot be followed (Too many levels of symbolic links)" in said


def test_a_tools_name_leading_to_a_file_whose_reads_wait_is_skipped_not_waited_on(tmp_path: Path,
                                                                                   shared_data_dir: Path) -> None:
    """A .wasm linked to a file whose reads block (the kernel's log, as a stalled mount's would)
    stopped every later rescan, and with it hot reload; `toolbay list` never ended."""
    if not os.access("/proc/kmsg", os.R_OK):
        pytest.skip("/proc/kmsg cannot be read here (not root, or no /proc)")
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "kmsg.wasm").symlink_to("/proc/kmsg")
    # and one that says it is empty but reads on for hundreds of GB: 'toolbay list' took minutes
    (folder / "pagemap.py").symlink_to("/proc/self/pagemap")
    shutil.copy(REPO_ROOT / "extensions" / "hashsum.wasm", folder / "hashsum.wasm")
    listed = subprocess.run([sys.executable, "-m", "toolbay", "list", "--json", "--extensions", str(folder),
                             "--data-dir", str(shared_data_dir)], capture_output=True, text=True, timeout=120,
                            check=False)
    assert listed.returncode == 0, listed.stderr
    listing = json.loads(listed.stdout)
    assert "hashsum" in {tool["name"] for tool in listing["tools"]}
    assert [Path(item["path"]).name for item in listing["skipped"]] == ["kmsg.wasm", "pagemap.py"]


def test_list_says_which_credentials_give_nothing(tmp_path: Path, shared_data_dir: Path) -> None:
    """A credential granted to no tool (a misspelt ``tool``) was said in serve's log only:
    ``toolbay list``, where an operator checks a configuration, showed nothing (an outside check)."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[credentials.weather]\ntool = ["weather_*"]\napi_key = "moonbeam42"\n', encoding="utf-8")
    result = runner.invoke(app, ["list", "--json", "--config", str(config), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    said = [line for line in json.loads(result.stdout)["diagnostics"] if "credentials." in line]
    assert said == ["credentials.weather names no tools, so no tool is granted it ('tool' is read as a secret's "
                    "key: did you mean 'tools'?)"]
    assert "moonbeam42" not in result.stdout
    # An empty list of tools is said as such (a re-check: "'tools' ... did you mean 'tools'?"), and
    # patterns that match no tool served are said too.
    config.write_text('[credentials.empty]\ntools = []\n[credentials.missed]\ntools = ["wether_*"]\n'
                      '[credentials.used]\ntools = ["hashsum"]\n[credentials.builtin]\ntools = ["job_*"]\n',
                      encoding="utf-8")
    result = runner.invoke(app, ["list", "--json", "--config", str(config), "--data-dir", str(shared_data_dir)])
    said = [line for line in json.loads(result.stdout)["diagnostics"] if "credentials." in line]
    assert said == ["credentials.empty names no tools, so no tool is granted it",
                    "credentials.missed: its tools ['wether_*'] match no tool served, so no tool is granted it",
                    # built-ins are handed no credential (a re-check: said of nothing)
                    "credentials.builtin: its tools ['job_*'] match no tool served, so no tool is granted it"]


def test_a_cache_or_lock_file_that_is_a_folder_is_ignored_or_said_in_one_line(tmp_path: Path,
                                                                               shared_data_dir: Path) -> None:
    """hashes.json, jobs.serving or jobs.serving-gate a folder (or unreadable): `serve`, `list`
    and `call` ended with an IsADirectoryError traceback, exit 1 (an outside check). The hash
    index is a cache: it is left aside, every file hashed again. The lock files are how servers
    on one folder know of each other: the server stops at start saying which and what to do."""
    hashed = as_if_run_before(tmp_path / "hashed", shared_data_dir)  # not about compiling
    (hashed / "hashes.json").mkdir()
    called = runner.invoke(app, ["call", "textkit_count", '{"stdin": "a b"}', "--data-dir", str(hashed)])
    assert called.exit_code == 0 and called.stdout.split() == ["1", "2", "3", "3"], called.output
    served = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--data-dir", str(hashed)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert served.returncode == 0, served.stderr
    assert f"ignoring the hash index {hashed / 'hashes.json'}, which cannot be read" in served.stderr
    for name in ("jobs.serving", "jobs.serving-gate"):
        locked = as_if_run_before(tmp_path / name, shared_data_dir)
        (locked / name).mkdir()
        served = subprocess.run([sys.executable, "-m", "toolbay", "serve", "--data-dir", str(locked)],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)
        assert served.returncode == 2, served.stderr
        assert served.stderr.strip().splitlines()[-1] == (
            f"toolbay: cannot use {locked / name}, the file by which servers on this data folder know of each "
            "other: a folder is in its place. Move it aside (toolbay makes the file anew)")


def test_jobs_commands_on_a_data_folder_that_is_a_file_say_so(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    listed = runner.invoke(app, ["jobs", "list", "--data-dir", str(a_file)])
    assert listed.exit_code == 2
    assert listed.stderr.strip() == f"toolbay: the data folder {a_file} is a file, not a folder"


def test_list_probes_the_confinement_once_for_modules_of_the_same_grants(
        tmp_path: Path, shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Described from the cache, each module was probed by a worker of its own: 100 modules
    # started 100 workers for one listing (an outside check at 8,000 tools).
    import toolbay.discovery

    folder = tmp_path / "tools"
    folder.mkdir()
    for number in range(4):
        (folder / f"mod{number}.py").write_text(
            f"def get_tool_schemas():\n    return [{{'name': 'mod{number}_run', 'description': 'Runs.'}}]\n"
            f"def mod{number}_run():\n    return 'x'\n", encoding="utf-8")
    probes: list[object] = []
    real = toolbay.discovery.probe_confinement

    def counted(spec: object, timeout_s: float) -> object:
        probes.append(spec)
        return real(spec, timeout_s)  # type: ignore[arg-type]

    argv = ["list", "--json", "--extensions", str(folder), "--data-dir", str(shared_data_dir)]
    assert runner.invoke(app, argv).exit_code == 0  # described, into the cache
    monkeypatch.setattr(toolbay.discovery, "probe_confinement", counted)
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    said = {tool["confinement"] for tool in json.loads(result.stdout)["tools"] if tool["source"] == "python"}
    assert len(probes) <= 1 and len(said) == 1, (probes, said)


@pytest.mark.parametrize(("command", "usage", "arguments"), [
    (["call"], "toolbay call [OPTIONS] TOOL [JSON]", ["TOOL", "JSON"]),
    (["describe"], "toolbay describe [OPTIONS] FILE.wasm", ["FILE.wasm"]),
    (["search"], "toolbay search [OPTIONS] [QUERY]", ["QUERY"]),
    (["parse-help"], "toolbay parse-help [OPTIONS] [FILE]", ["FILE"]),
    (["jobs", "status"], "toolbay jobs status [OPTIONS] ID", ["ID"]),
])
def test_a_commands_help_names_its_arguments_as_its_options_values_are_named(
        command: list[str], usage: str, arguments: list[str]) -> None:
    """typer wrote a required argument in braces ('call [OPTIONS] {TOOL} [JSON]', read as a set
    of choices) and each argument with its Python type ('TOOL <str>'), where the options name
    their values alone ('--extensions DIR')."""
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"Usage: {usage}"
    listed = result.stdout.split("Arguments:\n")[1].split("\n\n")[0]
    # Each argument's line starts with its name, then its help: no type between them.
    assert [line.split()[0] for line in listed.splitlines() if not line.startswith("    ")] == arguments
    assert "{" not in result.stdout.splitlines()[0] and "<" not in listed, result.stdout


def test_a_commands_help_loads_neither_pydantic_nor_the_server() -> None:
    """A command's --help only prints, as ``toolbay --help`` does (issue #14): it loaded pydantic,
    for the settings' deferral and for typer's reading of the group's own --help not given, which
    was two thirds of its run."""
    commands = [("list", ["list", "--help"]), ("call", ["call", "-h"]), ("serve", ["serve", "--help"]),
                ("jobs status", ["jobs", "status", "--help"]), ("token new", ["token", "new", "--help"]),
                ("call", ["call", "hashsum", "--help"])]
    reports = in_a_fresh_process([argv for _, argv in commands],
                                 watched=("pydantic", "pydantic_core", "anyio", "wasmtime", "mcp"))
    for (named, _), report in zip(commands, reports, strict=True):
        assert report["code"] in (0, None), report
        assert report["printed"].startswith(f"Usage: toolbay {named} [OPTIONS]"), report
        assert report["loaded"] == [], report


def test_a_credential_value_search_reads_as_nothing_lists_and_searches_as_any_other(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """A credential's value of zero-width spaces alone (a variable pasted so) ended toolbay list
    and toolbay search with a traceback, IndexError, and every listing of the server too: the
    value folded as search reads it was empty, and matched at every place (an outside check)."""
    config = tmp_path / "toolbay.toml"
    config.write_text('[credentials.weather]\ntools = ["*"]\napi_key = "\\u200b\\u200b\\u200b\\u200b"\n',
                      encoding="utf-8")
    common = ["--config", str(config), "--data-dir", str(shared_data_dir)]
    listed = runner.invoke(app, ["list", "--json", *common])
    assert listed.exit_code == 0, listed.output
    assert "hashsum" in {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    found = runner.invoke(app, ["search", "hash a file", "--json", *common])
    assert found.exit_code == 0, found.output
    assert "hashsum" in found.stdout
