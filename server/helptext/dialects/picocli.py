"""picocli (Java): "  -o, --output=<output>   Where to write.", its notes on lines of their own.

picocli lists positionals and options in one list right after what the command does, with no
heading of its own; a default shown goes on a line below the text ("Default: out.png"); a
flag that may be given again is written "[-t=<tags>]..." in the usage; a value's name is the
field's ("<width>"), which says nothing of its type (the engine then takes it from the default).
The list is given its heading, the default its bracketed note, and the usage its say on repeats.
"""

from __future__ import annotations

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from .base import Dialect, mark

_ENTRY = compiled(r"^(?:  -[^\s-]|      --|      <|      \[<|  --)")
_HEADING = compiled(r"^\S[^\n]*:$")
_DEFAULT = compiled(r"^(\s{8,})Default: (.*)$")
_REPEATED = compiled(r"\[(-{1,2}[\w-]+)[= ][^\]]*\]\.\.\.")


class Picocli(Dialect):
    name = "picocli"
    rules = Rules(value_names_untyped=True)
    marks = (
        mark(r"^  -h, --help\s+Show this help message and exit\.$", 3.0),
        mark(r"^  -V, --version\s+Print version information and exit\.$", 3.0),
        mark(r"^Usage: \S+ (?:\[-\w+\] )?[^\n]*\[?-{1,2}[\w-]+=<[\w-]+>", 1.0),
        mark(r"^\s{8,}Default: \S", 1.0),
    )
    min_score = 4.0

    def parse(self, text: str) -> HelpDescription:
        lines: list[str] = []
        listed = False
        for line in text.splitlines():
            if not listed and _ENTRY.match(line):
                listed = True
                if not (lines and _HEADING.match(lines[-1])):
                    lines += ["", "Options:"]
            elif _HEADING.match(line):
                listed = True  # a heading of the program's own (optionListHeading) heads its list
            found = _DEFAULT.match(line)
            lines.append(f"{found[1]}[default: {found[2].strip()}]" if found else line)
        described = parse_text("\n".join(lines), self.rules, self.name)
        repeated = set(_REPEATED.findall(described.usage))
        return described._replace(options=tuple(_read(option, repeated) for option in described.options))


def _read(option: OptionSpec, repeated: set[str]) -> OptionSpec:
    if option.takes_value and (option.long in repeated or option.short in repeated):
        option = option._replace(repeatable=True)
    return option
