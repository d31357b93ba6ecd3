"""``toolbay.internals.typer_click``: the usage errors typer's own copy of click raises."""

from __future__ import annotations

import pytest
import typer
from typer.main import get_command

from toolbay import cli
from toolbay.internals.typer_click import Context, NoArgsIsHelpError, UsageError, command_name


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


def test_an_option_missing_its_value_is_raised_with_no_context_and_one_can_be_made_for_it() -> None:
    """toolbay.cli gives such an error the context of the command it names (``Context``)."""
    app = typer.Typer()
    seen: list[object] = []

    @app.command()
    def one(ctx: typer.Context, count: int = 1) -> None:
        """A command."""
        seen.append(ctx)

    @app.command()
    def two() -> None:
        """Another, so that the app is a group."""

    command = get_command(app)
    with pytest.raises(UsageError) as raised:
        command.main(["one", "--count"], standalone_mode=False)
    assert raised.value.ctx is None
    command.main(["one"], standalone_mode=False)
    assert isinstance(seen[0], Context)
    made = Context(command, info_name="one", parent=seen[0])
    assert made.info_name == "one" and made.parent is seen[0]


def test_typer_names_each_command_as_command_name_says() -> None:
    # toolbay.internals.typer_click.command_name works out the names typer gives, which it says
    # only as it builds the group: this fails if typer names them otherwise.
    group = get_command(cli.app)
    names = {command_name(command) for command in cli.app.registered_commands}
    names |= {str(group_info.name) for group_info in cli.app.registered_groups}
    assert names == set(group.commands)  # type: ignore[attr-defined]
