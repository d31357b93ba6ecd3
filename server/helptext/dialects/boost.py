"""Boost.Program_options (C++): "  -o [ --output ] arg (=out.png)  where to write".

Boost writes an option's short name, its long name in spaced brackets, "arg" where it takes a
value, "[=arg(=1)]" where the value may be left out (the flag alone then means 1), and its
default as "(=out.png)"; the text follows in a column. Each head is rewritten as the engine
reads any other ("-o, --output ARG", "[=ARG]"), its default as the note "[default: out.png]".
A value that may be left out is written after "=" ("--level=3"), which no operand after it can
be taken for (Boost gives such a flag the next word when it can).
"""

from __future__ import annotations

from ..kept import compiled
from .base import LineRewriter, entry_line, mark

_ENTRY = compiled(r"^  (?:(-\w) \[ (--[\w-]+) \]|(--[\w-]+))( arg| \[=arg\(=[^)]*\)\])?( \(=[^)]*\))?(?=\s|$)(.*)$")


class Boost(LineRewriter):
    name = "boost"
    marks = (
        mark(r"^  -\w \[ --[\w-]+ \]", 4.0),
        mark(r"^  (?:-\w \[ )?--[\w-]+(?: \])? arg(?: \(=[^)\n]*\))?\s{2,}\S", 2.0),
        mark(r"\[=arg\(=[^)\n]*\)\]", 1.0),
    )
    min_score = 5.0

    @staticmethod
    def plain(line: str) -> str:
        found = _ENTRY.match(line)
        if found is None:
            return line
        short, long, alone, value, default, rest = found.groups()
        names = f"{short}, {long}" if short else alone
        taken = "" if not value else " ARG" if value == " arg" else " [=ARG]"
        notes = [f"[default: {default.strip()[2:-1]}]"] if default else []
        return entry_line(f"  {names}{taken}", rest.strip(), notes)
