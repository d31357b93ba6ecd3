"""Reaching past typer's public API: the usage errors of its own copy of click.

typer (0.29 on) carries its own copy of click (``typer._click``) and exports only
``BadParameter`` of its exceptions. toolbay says a command line it cannot run in one line
(``toolbay.cli``), which means catching the usage errors typer's parsing raises, and letting
through the one that is an answer, not an error: a group given no command shows its help.
Its parser raises some (an option missing its value) with no context, so the command they
name is given one made here (``Context``). tests/internals/test_typer_click.py fails if these
are no longer what typer raises.
"""

from __future__ import annotations

from typer._click.core import Context
from typer._click.exceptions import NoArgsIsHelpError, UsageError

__all__ = ["Context", "NoArgsIsHelpError", "UsageError"]
