"""Boost.Program_options (C++): "  -o [ --output ] arg (=out.png)  where to write".

Boost writes an option's short name, its long name in spaced brackets, "arg" where it takes a
value, "[=arg(=1)]" where the value may be left out (the flag alone then means 1), and its
default as "(=out.png)"; the text follows in a column. Each head is rewritten as the engine
reads any other ("-o, --output ARG", "[=ARG]"), its default as the note "[default: out.png]".
A value that may be left out is written after "=" ("--level=3"), which no operand after it can
be taken for (Boost gives such a flag the next word when it can).
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription
from .base import Dialect, mark

_ENTRY = compiled(r"^  (?:(-\w) \[ (--[\w-]+) \]|(--[\w-]+))( arg| \[=arg\(=[^)]*\)\])?( \(=[^)]*\))?(?=\s|$)(.*)$")


class Boost(Dialect):
    name = "boost"
    marks = (
        mark(r"^  -\w \[ --[\w-]+ \]", 4.0),
        mark(r"^  (?:-\w \[ )?--[\w-]+(?: \])? arg(?: \(=[^)\n]*\))?\s{2,}\S", 2.0),
        mark(r"\[=arg\(=[^)\n]*\)\]", 1.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        return parse_text("\n".join(_plain(line) for line in text.splitlines()), self.rules, self.name)


def _plain(line: str) -> str:
    found = _ENTRY.match(line)
    if found is None:
        return line
    short, long, alone, value, default, rest = found.groups()
    names = f"{short}, {long}" if short else alone
    taken = "" if not value else " ARG" if value == " arg" else " [=ARG]"
    note = f" [default: {default.strip()[2:-1]}]" if default else ""
    said = rest.strip()
    if said:
        return f"  {names}{taken}    {said}{note}"
    return f"  {names}{taken}" + (f"\n{' ' * 30}{note.strip()}" if note else "")
