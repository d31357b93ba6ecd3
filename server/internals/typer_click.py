"""Reaching past typer's public API: the usage errors of its own copy of click.

typer (0.29 on) carries its own copy of click (``typer._click``) and exports only
``BadParameter`` of its exceptions. toolbay says a command line it cannot run in one line
(``toolbay.cli``), which means catching the usage errors typer's parsing raises, and letting
through the one that is an answer, not an error: a group given no command shows its help.
Its parser raises some (an option missing its value) with no context, so the command they
name is given one made here (``Context``). tests/internals/test_typer_click.py fails if these
are no longer what typer raises.

``command_name``: the name typer gives a registered command, which it works out only as it
builds every command of a group (``typer.main.get_command_name``), for ``toolbay.cli`` to build
the one a command line runs; the same test file fails if typer names them otherwise.
"""

from __future__ import annotations

from typer._click.core import Context
from typer._click.exceptions import NoArgsIsHelpError, UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see toolbay.helptext.records)
if TYPE_CHECKING:
    from typer.models import CommandInfo

__all__ = ["Context", "NoArgsIsHelpError", "UsageError", "command_name"]


def command_name(command: CommandInfo) -> str:
    """The name typer gives ``command``: its own, else its function's in lower case with ``-`` for ``_``."""
    if command.name:
        return command.name
    assert command.callback is not None  # typer refuses a command without one
    return command.callback.__name__.lower().replace("_", "-")
