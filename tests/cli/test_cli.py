"""The `toolbay` command, driven through typer's runner (and once as a real process)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import BUNDLED_EXTENSIONS, REPO_ROOT
from toolbay.cli import app

runner = CliRunner()


def test_list_json_names_every_bundled_tool_with_its_tier(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert tools["hashsum"]["tier"] == "read"
    assert "algorithm" in tools["hashsum"]["parameters"]
    assert tools["textkit_grep"]["origin"].endswith("textkit.wasm")
    assert listing["skipped"] == []


def test_list_reports_files_it_skipped_and_why(tmp_path: Path, shared_data_dir: Path) -> None:
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "notwasm.wasm").write_bytes(b"#!/bin/sh\necho hi\n")
    result = runner.invoke(app, ["list", "--json", "--extensions", str(folder), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    skipped = json.loads(result.stdout)["skipped"]
    assert [Path(s["path"]).name for s in skipped] == ["notwasm.wasm"]
    assert "WebAssembly" in skipped[0]["reason"]


def test_list_prints_a_table_for_people(shared_data_dir: Path) -> None:
    listed = json.loads(runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)]).stdout)["tools"]
    result = runner.invoke(app, ["list", "--data-dir", str(shared_data_dir)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"{len(listed)} tools" in result.stdout
    # One row a tool: its name in the first column and its tier in the third.
    rows = {cells[0]: cells for line in result.stdout.splitlines()
            if len(cells := [cell.strip() for cell in line.strip("│ ").split("│")]) == 4 and cells[0]}
    for tool in listed:
        assert rows[tool["name"]][2] == tool["tier"], rows.get(tool["name"])


def test_call_runs_one_tool_and_prints_its_output(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["call", "hashsum", "--args", '{"text": "abc"}', "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(b"abc").hexdigest() in result.stdout


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


def test_call_of_a_failing_tool_exits_1(shared_data_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["call", "textkit_count", "--args", '{"file": ["missing.txt"]}',
                                 "--workspace", str(tmp_path), "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 1
    assert "textkit_count failed with exit code 1" in result.stdout
    assert "missing.txt: No such file or directory" in result.stdout


def test_a_bad_setting_stops_with_a_message_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("[sandbox]\ntimeout_s = -1\n")
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 2
    assert "sandbox.timeout_s" in result.stderr


def test_an_unknown_setting_is_refused_rather_than_ignored(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("[sandbox]\ntimeout = 5\n")
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 2
    assert "sandbox.timeout" in result.stderr


def test_parse_help_prints_the_description_as_json(tmp_path: Path) -> None:
    help_file = tmp_path / "help.txt"
    help_file.write_bytes(b"Usage: greet [OPTIONS] NAME\n\nOptions:\n  -n, --count <N>  How many times [default: 1]\n"
                          b"  -h, --help       Print help\n")
    result = runner.invoke(app, ["parse-help", "--long", str(help_file)])
    assert result.exit_code == 0, result.output
    description = json.loads(result.stdout)
    assert description["options"][0]["long"] == "--count"
    assert "count" in description["input_schema"]["properties"]


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
    assert origins == set(BUNDLED_EXTENSIONS.glob("*.wasm")) | roles


def test_call_checks_arguments_against_the_schema_like_a_served_call(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["call", "hashsum", "--args", '{"algo": "md5", "text": 5}',
                                 "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 1
    assert "$.text: expected string" in result.stdout
    assert "$.algo: unknown property" in result.stdout


def _one_line_exit_2(args: list[str], env: dict[str, str] | None = None) -> str:
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("toolbay: "), result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.stderr


def test_a_config_file_that_is_not_utf8_is_one_line_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_bytes(b'port = 80\nlog_level = "\xff\xfe"\n')
    said = _one_line_exit_2(["list", "--config", str(config)])
    assert f"config file {config} is not UTF-8 text" in said


def test_a_list_variable_that_is_not_json_is_one_line_naming_it(shared_data_dir: Path) -> None:
    said = _one_line_exit_2(["list", "--data-dir", str(shared_data_dir)], env={"TOOLBAY_EXTENSIONS": "/srv/tools"})
    assert "environment variable TOOLBAY_EXTENSIONS: its value must be JSON" in said


def test_a_bracketed_ipv6_host_is_one_line_naming_the_setting() -> None:
    said = _one_line_exit_2(["serve", "--transport", "http", "--host", "[::1]", "--port", "0"])
    assert "host: Value error, write an IPv6 address without brackets, e.g. ::1" in said


def test_a_toolbay_variable_that_names_no_setting_is_reported_with_the_right_name(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--data-dir", str(shared_data_dir)],
                           env={"TOOLBAY_SANDBOX_TIMEOUT_S": "5"})
    assert result.exit_code == 0, result.output
    assert ("toolbay: warning: environment variable TOOLBAY_SANDBOX_TIMEOUT_S names no setting and is ignored; "
            "did you mean TOOLBAY_SANDBOX__TIMEOUT_S?") in result.stderr


def test_a_host_that_cannot_be_bound_is_one_line_naming_it(shared_data_dir: Path) -> None:
    result = runner.invoke(app, ["serve", "--transport", "http", "--host", "no-such-host.invalid", "--port", "0",
                                 "--insecure-no-auth", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 2, result.output
    # The start-up log comes first; the error is the one last line.
    assert result.stderr.splitlines()[-1].startswith("toolbay: cannot listen on host 'no-such-host.invalid', port 0")
    assert "Traceback" not in result.stderr
