"""The `toolbay` command as a new user meets it: its helps and the one-line refusals of what it
cannot take (issue #14)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolbay.cli import app

runner = CliRunner()


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
