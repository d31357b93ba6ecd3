"""Python Fire: a help laid out as a manual page (NAME, SYNOPSIS, FLAGS ...), four spaces in.

Fire names the program and what it does under NAME ("resize.py - Resizes images."), its usage
under SYNOPSIS ("resize.py <flags> [INPUTS]..."), and each flag as "-o, --output=OUTPUT" with
"Type: int" and "Default: 'out.png'" (Python's spelling of the value) on lines below its text
(on standard error, in later releases).
A flag whose default is True or False is a switch ("--verbose"; "--noverbose" turns it off).
Fire may say first which command it shows the help of ("INFO: Showing help with ...").
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from ..pyvalues import NOT_A_LITERAL, python_literal
from ..records import TYPE_CHECKING
from .base import Dialect, lines_under, mark, notes_apart

if TYPE_CHECKING:
    from ..model import ValueType

_SECTION = compiled(r"^[A-Z][A-Z ]+$")
_FLAG = compiled(r"^    (?:(-\w), )?--([\w-]+)(?:=[A-Z_]+)?$")
_NOTE = compiled(r"^ {8}(Type|Default): (.*)$")
_MORE = compiled(r"^ {8}")
_TYPES: dict[str, ValueType] = {"int": "integer", "float": "number", "str": "string"}


class Fire(Dialect):
    name = "fire"
    marks = (
        mark(r"^INFO: Showing help with the command ", 4.0),
        mark(r"^NAME\n    \S", 2.0),
        mark(r"^SYNOPSIS\n    \S", 2.0),
        mark(r"^FLAGS\n    (?:-\w, )?--[\w-]+=[A-Z_]+\n {8}\S", 3.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        sections: dict[str, list[str]] = {}
        current = ""
        for line in text.splitlines():
            if _SECTION.match(line):
                current = line
                sections[current] = []
            elif current:
                sections[current].append(line)
        name, _, about = " ".join(line.strip() for line in sections.get("NAME", [])).partition(" - ")
        usage = " ".join(line.strip() for line in sections.get("SYNOPSIS", []))
        # The rest as the engine reads any help: a usage line, what it does, its positionals.
        rebuilt = [f"Usage: {usage}" if usage else "", "", about, "",
                   *(line.strip() for line in sections.get("DESCRIPTION", [])), ""]
        if "POSITIONAL ARGUMENTS" in sections:
            rebuilt += ["Arguments:", *_entries(sections["POSITIONAL ARGUMENTS"])]
        described = parse_text("\n".join(rebuilt), self.rules, self.name)
        if name and not described.name:
            described = described._replace(name=name.strip())
        return described._replace(options=tuple(_flags(sections.get("FLAGS", []))))


def _entries(lines: list[str]) -> list[str]:
    """Fire's "    NAME" over "        text", as one entry line each."""
    out: list[str] = []
    for line in lines:
        if line.startswith("    ") and not line.startswith("     ") and line.strip():
            out.append(f"  {line.strip()}")
        elif line.strip() and out:
            out[-1] += ("    " if out[-1].count("  ") < 2 else " ") + line.strip()
    return out


def _flags(lines: list[str]) -> list[OptionSpec]:
    options: list[OptionSpec] = []
    k = 0
    while k < len(lines):
        found = _FLAG.match(lines[k])
        k += 1
        if found is None:
            continue
        more = lines_under(lines, k, _MORE)
        k += len(more)
        notes, said = notes_apart(more, _NOTE)
        options.append(_option(found[1], found[2], notes, said))
    return options


def _option(short: str | None, name: str, notes: dict[str, str], said: str) -> OptionSpec:
    default = python_literal(notes["Default"]) if "Default" in notes else None
    if default is NOT_A_LITERAL:
        default = notes["Default"]
    annotated = notes.get("Type", "").strip("'\"")  # later releases quote it: "Type: 'int'"
    if isinstance(default, bool) or annotated == "bool":
        return OptionSpec(long=f"--{name}", short=short, description=said, negation=f"--no{name}",
                          default=None if default is None else str(default).lower())
    kind: ValueType = _TYPES.get(annotated, "integer" if isinstance(default, int) else
                                 "number" if isinstance(default, float) else "string")
    return OptionSpec(long=f"--{name}", short=short, takes_value=True, value_name=name.upper(), type=kind,
                      default=None if default is None else str(default), description=said)
