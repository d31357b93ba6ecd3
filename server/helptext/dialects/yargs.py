"""yargs (Node): a type note after each description ("[boolean]", "[string] [required]"),
commands prefixed by the program's name."""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


class Yargs(Dialect):
    name = "yargs"
    rules = Rules(commands_prefixed=True, value_from_type_note=True, bare_usage_first=True)
    marks = (
        mark(r"Show help\s+\[boolean\]$", 5.0),
        mark(r"Show version number\s+\[boolean\]$", 3.0),
        mark(r"\s\[(?:boolean|string|number|array|count)\]$", 1.0),
        # yargs prints the long name first and its aliases after it: "--bail, -b".
        mark(r"^ +--[\w-]+(?:, --[\w-]+)*, -\w {2,}\S", 1.0),
        mark(r"^Usage: \S+ \[\w+\.\.\]$", 1.5),  # a variadic positional written "[spec..]"
        mark(r"Show version number (?:& exit|\s+\[boolean\])$", 1.0),
    )
