"""`toolbay describe FILE.wasm`: what a tool author sees of their program, without serving it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM
from toolbay.cli import app

runner = CliRunner()


def test_describe_shows_the_help_the_program_printed_and_the_schema_made_of_it(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["describe", str(BUNDLED_EXTENSIONS / "hashsum.wasm"), "--json",
                                 "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    described = json.loads(result.stdout)
    help_text = "\n".join(run["text"] for run in described["help_runs"])
    assert described["help_runs"][0]["argv"][0] == "hashsum"
    assert "Usage: hashsum" in help_text
    # The truth is the help text itself: each long option it lists is a parameter (--help and
    # --version are the server's business, not the model's).
    options = set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z-]*)", help_text, re.MULTILINE)) - {"help", "version"}
    (tool,) = described["tools"]
    assert tool["name"] == "hashsum" and tool["tier"] == "read"
    assert options and set(tool["input_schema"]["properties"]) == {o.replace("-", "_") for o in options} | {"stdin"}


def test_describe_of_a_program_with_subcommands_shows_one_tool_each(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["describe", str(BUNDLED_EXTENSIONS / "textkit.wasm"),
                                 "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    shown = set(re.findall(r"^== tool (\S+)", result.stdout, re.MULTILINE))
    # Each subcommand the root help lists is a tool (help and completion are not).
    root_help = result.stdout.split("\n== tool ")[0]
    commands = re.findall(r"^\s{2}(\w[\w-]*)\s{2,}", root_help.split("Commands:")[1], re.MULTILINE)
    assert shown == {f"textkit_{command}" for command in commands if command != "help"}


def test_describe_of_a_missing_file_exits_2_with_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["describe", str(tmp_path / "nowhere.wasm"), "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "no such file" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_describe_of_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    """It said "no such file: /tmp" of a folder that is there."""
    result = runner.invoke(app, ["describe", str(tmp_path), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"toolbay: describe: {tmp_path} is a folder; give it one .wasm file (toolbay "
                                     "list shows a folder's tools)")


def test_describe_says_what_a_path_that_is_no_program_is(tmp_path: Path) -> None:
    """A pipe and a link to a file gone were each "no such file" (an outside check)."""
    pipe, link = tmp_path / "fifo.wasm", tmp_path / "link.wasm"
    os.mkfifo(pipe)
    link.symlink_to(tmp_path / "gone.wasm")
    for path, said in ((pipe, f"{pipe} is not a regular file (a pipe, a socket or a device); give it a .wasm file"),
                       (link, f"{link} is a symbolic link to {tmp_path / 'gone.wasm'}, which does not exist")):
        result = runner.invoke(app, ["describe", str(path), "--data-dir", str(tmp_path / "data")])
        assert result.exit_code == 2, result.output
        assert result.stderr == f"toolbay: describe: {said}\n"


def test_describe_of_a_file_it_cannot_read_exits_2_saying_so(tmp_path: Path) -> None:
    """Past the size a tool can be, or a read that fails (EIO), it was "cannot write the output", exit 1."""
    huge = tmp_path / "huge.wasm"
    with huge.open("wb") as file:
        file.write(b"\0asm\1\0\0\0")
        file.truncate(600 * 2**20)  # sparse: nothing more written to the disk
    failing = tmp_path / "failing.wasm"
    failing.symlink_to("/proc/self/mem")  # a regular file whose first read fails (EIO): nothing is mapped at 0
    for path, said in ((huge, "600.0 MiB, more than the 512 MiB a tool's file may be"),
                       (failing, "Input/output error")):  # the test process's /proc/self/mem: EIO too
        result = runner.invoke(app, ["describe", str(path), "--data-dir", str(tmp_path / "data")])
        assert (result.exit_code, result.stderr) == (2, f"toolbay: describe: cannot read {path} ({said})\n"), \
            result.exception


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is not installed here")
def test_describe_of_a_file_in_a_folder_this_user_cannot_enter_says_so(tmp_path: Path) -> None:
    """It said "no such file" of a program that is there, in another user's folder (an outside
    check). Root reads any folder, so describe runs here without the capabilities that let it."""
    closed = tmp_path / "closed"
    closed.mkdir()
    shutil.copy(BUNDLED_EXTENSIONS / "hashsum.wasm", closed)
    if os.geteuid() == 0:
        os.chown(closed, 65534, 65534)
    closed.chmod(0o700)
    completed = subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search",
         sys.executable, "-m", "toolbay", "describe", str(closed / "hashsum.wasm"), "--data-dir", str(tmp_path / "d")],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    if completed.returncode != 2 and os.geteuid() == 0 and "Operation not permitted" in completed.stderr:
        pytest.skip("setpriv may not change capabilities here")
    assert (completed.returncode, completed.stderr) == (
        2, f"toolbay: describe: cannot read {closed / 'hashsum.wasm'} (Permission denied)\n")


def test_describe_of_a_program_whose_help_is_no_help_shows_what_it_printed_and_why(tmp_path: Path) -> None:
    """It printed the reason alone: the author did not see what their program had printed
    (found by an outside probe)."""
    result = runner.invoke(app, ["describe", str(FIXTURE_WASM / "fsops.wasm"), "--data-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "$ fsops --help" in result.stdout and "unknown operation --help" in result.stdout
    assert result.stderr.strip().startswith("toolbay: ") and "is not help text" in result.stderr


def test_a_permission_level_that_names_no_tier_is_said_beside_the_undeclared_tool(tmp_path: Path) -> None:
    """"PermissionLevel: rwxr" served the tool as undeclared, with no workspace, without a word:
    the author saw the tier line in their help and no reason it did nothing. The program is the
    report fixture with its tier word changed in the binary (the same length, so still valid)."""
    program = tmp_path / "report.wasm"
    binary = (FIXTURE_WASM / "report.wasm").read_bytes()
    assert binary.count(b"PermissionLevel: read\n") == 1
    program.write_bytes(binary.replace(b"PermissionLevel: read\n", b"PermissionLevel: rwxr\n"))
    result = runner.invoke(app, ["describe", str(program), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    assert "(tier: undeclared" in result.stdout
    assert "note: its help says 'PermissionLevel: rwxr', which is no tier (read, write or exec)" in result.stdout
    proper = runner.invoke(app, ["describe", str(FIXTURE_WASM / "report.wasm"), "--data-dir", str(tmp_path / "data")])
    assert "(tier: read" in proper.stdout and "which is no tier" not in proper.stdout


@pytest.mark.parametrize("name", ["helpsub", "helpsub_git"])
def test_subcommands_that_take_no_help_flag_are_read_through_the_help_command(tmp_path: Path, name: str) -> None:
    """"helpsub get --help" is an unknown option to it; "helpsub help get" prints the help: the
    program served no tool, with describe exiting 0 and notes that named no file. helpsub_git
    exits 129 on it, as git does: a status WASI refuses, which made it a crash of every
    subcommand's help, so that the help command was never asked."""
    result = runner.invoke(app, ["describe", str(FIXTURE_WASM / f"{name}.wasm"), "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"$ {name} help get" in result.stdout
    assert set(re.findall(r"^== tool (\S+)", result.stdout, re.MULTILINE)) == {f"{name}_get", f"{name}_put"}
    assert "note:" not in result.stdout


def test_a_program_none_of_whose_subcommands_has_readable_help_serves_no_tool_and_says_why(tmp_path: Path) -> None:
    result = runner.invoke(app, ["describe", str(FIXTURE_WASM / "helpsub_nohelp.wasm"), "--data-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "helpsub_nohelp.wasm serves no tool: it lists subcommands, but none of their help could be read (get:" \
        in result.output
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "helpsub_nohelp.wasm").write_bytes((FIXTURE_WASM / "helpsub_nohelp.wasm").read_bytes())
    listed = runner.invoke(app, ["list", "--json", "--extensions", str(folder), "--data-dir", str(tmp_path)])
    skipped = {Path(s["path"]).name: s["reason"] for s in json.loads(listed.stdout)["skipped"]}
    assert skipped["helpsub_nohelp.wasm"].startswith("it lists subcommands, but none of their help could be read")


def test_describe_says_why_a_help_run_was_stopped_rather_than_its_missing_exit_status(
        shared_data_dir: Path) -> None:
    # A help that never ends (this one writes for ever) was shown "(exit None, utf-8)". Its time
    # limit is far off: it is stopped by its output limit, however busy the machine (at half a
    # second, a busy machine stopped one run by time, before that).
    result = runner.invoke(app, ["describe", str(FIXTURE_WASM / "helpforever.wasm"), "--data-dir",
                                 str(shared_data_dir)], env={"TOOLBAY_DISCOVERY__HELP_TIMEOUT_S": "120"})
    runs = re.findall(r"^\$ helpforever \S+    \((.*)\)$", result.stdout, re.MULTILINE)
    assert runs and all(run.startswith("stopped: it went on writing") for run in runs), result.stdout
    assert "exit None" not in result.stdout
