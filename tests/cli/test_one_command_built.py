"""A command line that names a command has typer build that command alone (``toolbay.cli.main``):
building every command's options was 8-15 ms of each command's start. Its options, help and
refusals are those of the whole group; a word that names no command still has the whole group
say which it may have meant."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import typer.main

from toolbay import cli
from toolbay.internals.typer_click import command_name


def _built_running(argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                   ) -> tuple[list[str], int, str]:
    """The commands typer built to run ``toolbay ARGV``, its exit status and what it said."""
    built: list[str] = []
    build = typer.main.get_command_from_info

    def recording(command_info: Any, **options: Any) -> Any:
        built.append(command_name(command_info))
        return build(command_info, **options)

    monkeypatch.setattr(typer.main, "get_command_from_info", recording)
    monkeypatch.setattr(sys, "argv", ["toolbay", *argv])
    with pytest.raises(SystemExit) as ended:
        cli.main()
    said = capsys.readouterr()
    return built, int(ended.value.code or 0), said.out + said.err


def test_a_command_named_first_is_built_alone(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    built, code, said = _built_running(["list", "--help"], monkeypatch, capsys)
    assert (built, code) == (["list"], 0)
    assert "Usage: toolbay list [OPTIONS]" in said
    built, code, said = _built_running(["list", "--bogus"], monkeypatch, capsys)
    assert (built, code) == (["list"], 2)
    assert "No such option: --bogus" in said
    built, code, _ = _built_running(["token", "new", "--help"], monkeypatch, capsys)
    assert (built, code) == (["new"], 0)  # the group's own commands, none of the others'


def test_a_word_naming_no_command_is_read_by_the_whole_group(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    every = {command_name(command) for command in cli.app.registered_commands}
    built, code, said = _built_running(["lst"], monkeypatch, capsys)
    assert every <= set(built) and code == 2
    assert "list" in said  # the command it may have meant
    built, code, said = _built_running(["--version"], monkeypatch, capsys)
    assert every <= set(built) and code == 0
    # And the table is the whole one again afterwards (a second main() in one process).
    assert {command_name(command) for command in cli.app.registered_commands} == every

