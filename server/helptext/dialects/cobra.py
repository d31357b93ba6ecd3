"""cobra/pflag (Go): "Flags:", "Global Flags:", "Available Commands:", type words, '(default "x")'."""

from __future__ import annotations

from .base import Dialect, mark


class Cobra(Dialect):
    name = "cobra"
    min_score = 1.5
    marks = (
        mark(r"^Available Commands:$", 3.0),
        mark(r"^(?:Global )?Flags:$", 2.0),
        mark(r"^(?:FLAGS|INHERITED FLAGS|CORE COMMANDS|LEARN MORE)$", 2.0),
        mark(r'^Use "[^"]+ \[command\] --help"', 3.0),
        mark(r"\[flags\]", 1.0),
        mark(r"^\s+(?:-\w, )?--[\w-]+ (?:string|int|stringArray|strings|duration|uint|float\d*|int\d+)\s",
             1.5),
        mark(r'\(default "[^"]*"\)', 0.5),
        mark(r"^\s+-h, --help\s+help for \S+", 3.0),
    )
