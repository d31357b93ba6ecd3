"""Abseil's flags (absl-py, the library of Google's Python programs): "--name: text" entries.

absl lists its flags by the module that defines them ("/path/prog.py:", "absl.app:"), each as
"  -s,--name: what it does" with its notes on lines of their own below ("(default: '1')",
"(an integer)", "(a comma separated list)"). A switch is written "--[no]name" and is turned
off as "--noname" (absl refuses "--no-name"); an enum starts its text with its choices
("--format: <text|json>: ..."); a flag given several times says "repeat this option to
specify a list of values". Every other flag takes a value. The engine reads the rest of the
help (the module's docstring: what the program does, and its usage if it writes one).
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from ..pyvalues import python_literal
from ..records import TYPE_CHECKING
from .base import Dialect, lines_under, mark

if TYPE_CHECKING:
    from ..model import ValueType

_ENTRY = compiled(r"^  (?:(-[^\s,-][^\s,]*),)?--(\[no\])?([A-Za-z0-9_][\w.-]*):(?: (.*))?$")
_MORE = compiled(r"^ {4,}\S")
# The heading of a module's flags ("/usr/lib/prog.py:", "absl.logging:") and the list's title.
_MODULE = compiled(r"^(?:\S+\.py|[A-Za-z_][\w.]*):$|^(?:[A-Z][a-z]+ )?flags:$")
_CHOICES = compiled(r"^<([^<>|]+(?:\|[^<>|]+)+)>: ?")
_DEFAULT = compiled(r"\(default: ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)")
_REPEATED = "repeat this option to specify a list of values"
_INTEGER = compiled(r"\((?:an? )?(?:(?:non-)?(?:positive|negative) )?integer\b|\binteger [<>]=")
_NUMBER = compiled(r"\((?:an? )?(?:(?:non-)?(?:positive|negative) )?number\b|\bnumber [<>]=")
_LIST = compiled(r"\(an? (?:comma|whitespace) separated list\)")


class Absl(Dialect):
    name = "absl"
    marks = (
        mark(r"^  (?:-\S+,)?--\[no\][\w.-]+: ", 3.0),
        mark(r"^  (?:-\S+,)?--[\w.-]+: \S[^\n]*\n(?: {4}[^\n]*\n)* {4}\((?:default: |an? [\w ]+\)$)", 3.0),
        mark(r"^Try --helpfull to get a list of all flags\.$", 4.0),
        mark(r"^(?:\S+\.py|absl\.\w+):\n  -", 2.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        options, rest = _flags(text)
        described = parse_text(rest, self.rules, self.name)
        return described._replace(options=tuple(options))


def _flags(text: str) -> tuple[list[OptionSpec], str]:
    """The flags listed in ``text``, and the text without them (nor their modules' headings)."""
    options: list[OptionSpec] = []
    rest: list[str] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        found = _ENTRY.match(lines[k])
        if found is None:
            if not (_MODULE.match(lines[k]) and _heads_flags(lines, k + 1)):
                rest.append(lines[k])  # "Examples:" in a module's docstring is the program's own heading
            k += 1
            continue
        more = lines_under(lines, k + 1, _MORE)
        k += 1 + len(more)
        said = [found[4] or "", *(line.strip() for line in more)]
        options.append(_option(found[1], found[2] is not None, found[3], " ".join(part for part in said if part)))
    return options, "\n".join(rest)


def _heads_flags(lines: list[str], start: int) -> bool:
    """Whether the next line with text is a flag or another module's heading."""
    following = next((line for line in lines[start:] if line.strip()), "")
    return bool(_ENTRY.match(following) or _MODULE.match(following))


def _option(short: str | None, switch: bool, name: str, said: str) -> OptionSpec:
    default = _default(said)
    if switch:
        return OptionSpec(long=f"--{name}", short=short, description=said, negation=f"--no{name}",
                          default=default if default in ("true", "false") else None)
    choices = _CHOICES.match(said)
    kind: ValueType
    value_name: str | None
    repeatable = _REPEATED in said
    if choices:
        kind, value_name = "enum", None
    elif _INTEGER.search(said):
        kind, value_name = "integer", "INTEGER"
    elif _NUMBER.search(said):
        kind, value_name = "number", "NUMBER"
    else:
        kind, value_name = "string", "LIST" if _LIST.search(said) else "VALUE"
    if repeatable or default in ("", "[]"):
        default = None  # a repeated flag's default is a list as Python prints it
    return OptionSpec(long=f"--{name}", short=short, takes_value=True, value_name=value_name, type=kind,
                      default=default, choices=tuple(choices[1].split("|")) if choices else (),
                      repeatable=repeatable, description=said)


def _default(said: str) -> str | None:
    found = _DEFAULT.search(said)
    if found is None:
        return None
    value = python_literal(found[1])
    return value if isinstance(value, str) else None

