"""GNU getopt_long tools: "Usage: ls [OPTION]... [FILE]...", "-a, --all", "--color[=WHEN]",
option lists under custom headings."""

from __future__ import annotations

from .base import Dialect, mark


class Gnu(Dialect):
    name = "gnu"
    marks = (
        mark(r"^Usage: \S+ \[OPTION\]", 3.0),
        mark(r"^\s+--help\s+display this help and exit", 4.0),
        mark(r"^\s+--version\s+output version information and exit", 2.0),
        mark(r"Mandatory arguments to long options are mandatory for short options too", 3.0),
        mark(r"^\s+(?:-\w, )?--[\w-]+\[=[A-Z]+\]", 1.0),
        mark(r"^\s+(?:-\w, )?--[\w-]+=[A-Z]+\s", 1.0),
    )
