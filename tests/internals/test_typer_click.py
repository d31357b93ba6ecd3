"""``toolbay.internals.typer_click``: the usage errors typer's own copy of click raises."""

from __future__ import annotations

import pytest
import typer
from typer.main import get_command

from toolbay.internals.typer_click import NoArgsIsHelpError, UsageError


def test_typer_raises_these_usage_errors_for_a_command_line_it_cannot_run() -> None:
    app = typer.Typer()

    @app.command()
    def one(count: int = 1) -> None:
        """A command."""

    @app.command()
    def two() -> None:
        """Another, so that the app is a group."""

    command = get_command(app)
    for argv in (["one", "--nope"], ["one", "--count", "x"], ["three"]):
        with pytest.raises(UsageError):
            command.main(argv, standalone_mode=False)
    with pytest.raises(NoArgsIsHelpError):
        get_command(typer.Typer(no_args_is_help=True, callback=lambda: None)).main([], standalone_mode=False)
    assert issubclass(typer.BadParameter, UsageError)
