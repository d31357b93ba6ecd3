"""CLI11 (C++): "-o,--output TEXT=out.png", a type after the names and the value's notes joined to it.

CLI11 writes an entry's names apart by commas without spaces, then the type of its value
(TEXT, INT, FLOAT, ...) with what it knows of the value joined on: the default after "="
(or in brackets, "TEXT [out.png]", as later releases print it), the allowed values after ":"
("TEXT:{fit,fill,crop}=fit"), a check ("INT:INT in [1 - 10]", "TEXT:FILE"), "..." for a value
given several times (all after one flag, up to the next) and "REQUIRED". The head keeps its
type; the rest becomes the notes the engine reads of every help ("[default: out.png]",
"[possible values: fit, fill, crop]", "[required]").
"""

from __future__ import annotations

from ..kept import compiled
from .base import LineRewriter, entry_line, mark

# "  -o,--output TEXT=out.png ...  description": names, type, the type's notes, then the text.
_ENTRY = compiled(r"^(  (?:-[^\s,]+,)*-[^\s,]+|  [a-z][\w-]*) ([A-Z][A-Z0-9_]*)"
                  r"((?::\{[^}]*\}|:[A-Z][^\s{}=:]*(?: in \[[^\]]*\])?|=\S+)*)( \[[^\]]*\])?"
                  r"( \.\.\.)?( REQUIRED)?(?=\s{2,}|$)(.*)$")
# One part of what is joined to the type: allowed values, a check, or the default.
_PART = compiled(r":\{([^}]*)\}|:[A-Z][^\s{}=:]*(?: in \[[^\]]*\])?|=(\S+)")


class Cli11(LineRewriter):
    name = "cli11"
    marks = (
        mark(r"^  -h,\s*--help\s+Print this help message and exit$", 6.0),
        mark(r"^Positionals:$", 1.0),
        mark(r"^  (?:-\w,)?--[\w-]+ (?:TEXT|INT|UINT|FLOAT|BOOLEAN)(?:[=:]\S+)?(?: \.\.\.)?(?: REQUIRED)?(?: |$)", 2.0),
    )

    @staticmethod
    def plain(line: str) -> str:
        return _plain(line)


def _plain(line: str) -> str:
    found = _ENTRY.match(line)
    if found is None:
        return line
    names, kind, joined, bracketed, dots, required, rest = found.groups()
    notes = []
    for part in _PART.finditer(joined):
        if part[1] is not None:
            notes.append(f"[possible values: {', '.join(value.strip() for value in part[1].split(','))}]")
        elif part[2] is not None:
            notes.append(f"[default: {part[2]}]")
    if bracketed:  # the default as later releases print it: "TEXT [out.png]"
        notes.append(f"[default: {bracketed.strip()[1:-1]}]")
    if required:
        notes.append("[required]")
    # "TEXT ..." takes every word up to the next flag (as argparse's "TEXT [TEXT ...]"), so a
    # call's positionals must come after "--". A positional keeps its name alone: its usage says
    # whether it repeats, and its type word would be read as a second name.
    head = (f"{names} {kind}{f' [{kind} ...]' if dots else ''}" if names.lstrip().startswith("-") else names)
    return entry_line(head, rest.strip(), notes)
