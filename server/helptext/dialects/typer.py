"""typer with rich: the same content as click, drawn in boxed panels ("╭─ Options ─╮")."""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


class Typer(Dialect):
    name = "typer"
    rules = Rules(angle_choices=True, columns=True, counter_from_zero=True)
    marks = (
        mark(r"^\s*╭─ (?:Options|Arguments|Commands)", 6.0),
        mark(r"│\s+--help\s+Show this message and exit", 3.0),
    )
