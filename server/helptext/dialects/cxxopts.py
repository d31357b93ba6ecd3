"""cxxopts (C++): "  -o, --output arg  Where to write (default: out.png)" under "Usage:".

cxxopts names every value "arg", says a default in parentheses after the text, and writes
its usage as "prog [OPTION...] positional". A switch on by default ("(default: true)") is
turned off as "--color=false", which cxxopts reads; it has no "--no-color".
"""

from __future__ import annotations

from .base import Dialect, mark


class Cxxopts(Dialect):
    name = "cxxopts"
    marks = (
        mark(r"^  \S+ \[OPTION\.\.\.\]", 3.0),
        mark(r"^  (?:-\w, |    )--[\w-]+ arg(?:\s{2,}|$)", 2.0),
        mark(r"^  -\w, --[\w-]+\s{2,}\S[^\n]*\(default: (?:true|false)\)$", 1.0),
    )
    min_score = 5.0
