"""click (Python): "Usage: x [OPTIONS]", "--x / --no-x", "[required]", "TEXT"/"INTEGER" metavars."""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


class Click(Dialect):
    name = "click"
    min_score = 1.5
    rules = Rules(nargs_dots=True)
    marks = (
        mark(r"^\s+(?:-h, )?--help\s+Show this message and exit\.", 4.0),
        mark(r"^Usage: \S+(?: \S+)* \[OPTIONS\]", 1.0),
        mark(r"^\s+(?:-\w, )?--[\w-]+ (?:TEXT|INTEGER|FLOAT|PATH|FILENAME|DIRECTORY|BOOLEAN)\b", 1.5),
        # "--x / --no-x"; a name starts with a letter: "--[\w-]+" ran along a line of dashes from
        # each of them (10 KB of "-": 0.7 s)
        mark(r"--\w[\w-]* / --\w[\w-]*", 1.5),
        mark(r"\[required\]", 1.0),
    )
