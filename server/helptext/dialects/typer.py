"""typer with rich: the same content as click, drawn in boxed panels ("╭─ Options ─╮")."""

from __future__ import annotations

from .base import Dialect, mark


class Typer(Dialect):
    name = "typer"
    marks = (
        mark(r"^\s*╭─ (?:Options|Arguments|Commands)", 6.0),
        mark(r"│\s+--help\s+Show this message and exit", 3.0),
    )
