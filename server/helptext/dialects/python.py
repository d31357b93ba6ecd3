"""The help-text dialects of Python programs: absl, argh, argparse, click, docopt, fire, typer.

Each dialect is a class, what its library prints said above it. They share a module by
language because ``toolbay parse-help`` imports every dialect, and each module imported
cost it about 0.15 ms.
"""

from __future__ import annotations

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from ..pyvalues import NOT_A_LITERAL, python_literal
from ..records import TYPE_CHECKING
from .base import Dialect, lines_under, mark, notes_apart

if TYPE_CHECKING:
    from ..model import ValueType

# Abseil's flags (absl-py, the library of Google's Python programs): "--name: text" entries.
#
# absl lists its flags by the module that defines them ("/path/prog.py:", "absl.app:"), each as
# "  -s,--name: what it does" with its notes on lines of their own below ("(default: '1')",
# "(an integer)", "(a comma separated list)"). A switch is written "--[no]name" and is turned
# off as "--noname" (absl refuses "--no-name"); an enum starts its text with its choices
# ("--format: <text|json>: ..."); a flag given several times says "repeat this option to
# specify a list of values". Every other flag takes a value. The engine reads the rest of the
# help (the module's docstring: what the program does, and its usage if it writes one).

_ENTRY = compiled(r"^  (?:(-[^\s,-][^\s,]*),)?--(\[no\])?([A-Za-z0-9_][\w.-]*):(?: (.*))?$")
_ABSL_MORE = compiled(r"^ {4,}\S")
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
        options, rest = _absl_flags(text)
        described = parse_text(rest, self.rules, self.name)
        return described._replace(options=tuple(options))


def _absl_flags(text: str) -> tuple[list[OptionSpec], str]:
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
        more = lines_under(lines, k + 1, _ABSL_MORE)
        k += 1 + len(more)
        said = [found[4] or "", *(line.strip() for line in more)]
        options.append(_absl_option(found[1], found[2] is not None, found[3], " ".join(part for part in said if part)))
    return options, "\n".join(rest)


def _heads_flags(lines: list[str], start: int) -> bool:
    """Whether the next line with text is a flag or another module's heading."""
    following = next((line for line in lines[start:] if line.strip()), "")
    return bool(_ENTRY.match(following) or _MODULE.match(following))


def _absl_option(short: str | None, switch: bool, name: str, said: str) -> OptionSpec:
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


# argh (Rust, Google's): "Positional Arguments:", "Options:", "--help  display usage information".
#
# argh names an option's value only in the usage line ("[-n <count>] [--level <level>]") and takes
# it only as the next word: "--level=-3" is refused ("Unrecognized argument"), so a value that
# starts with "-" is still given apart ("--level -3"; see ``toolbay.helptext.schema``).

class Argh(Dialect):
    name = "argh"
    marks = (
        mark(r"^  --help(?:, help)?\s+display usage information$", 3.0),
        mark(r"^Positional Arguments:$", 1.0),
        mark(r"^Usage: \S+(?: [a-z][\w-]*)* \[?<[\w-]+(?:\.\.\.)?>", 0.5),
    )
    min_score = 3.0


# argparse (Python): "usage:", "positional arguments:", "options:"/"optional arguments:", "{a,b}".

class Argparse(Dialect):
    name = "argparse"
    rules = Rules(remainder_dots=True, counter_from_zero=True)
    marks = (
        mark(r"^usage: \S+ \[-", 1.5),  # argparse's usage lists the options first: "usage: x [-h]"
        mark(r"^positional arguments:$", 2.0),
        mark(r"^(?:optional arguments|options):$", 0.5),
        mark(r"^\s+-h, --help\s+show this help message and exit", 4.0),
        mark(r"^\s+-\w \w+, --[\w-]+ \w+", 1.0),
        mark(r"\[-h\]", 1.5),
    )


# click (Python): "Usage: x [OPTIONS]", "--x / --no-x", "[required]", "TEXT"/"INTEGER" metavars.

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


# docopt: the usage patterns are the grammar; "Options:" entries like "-h --help" and "[default: x]".

class Docopt(Dialect):
    name = "docopt"
    rules = Rules(commands_from_usage=True)
    min_score = 2.0
    marks = (
        mark(r"^Usage:\n  \S+ ", 1.0),
        mark(r"^\s+-h --help\s", 4.0),
        mark(r"^\s+\S+ -h \| --help$", 3.0),
        mark(r"^\s+--[\w-]+=<[\w-]+>\s", 1.0),
        mark(r"\[default: [^\]]*\]\.", 1.0),
    )


# Python Fire: a help laid out as a manual page (NAME, SYNOPSIS, FLAGS ...), four spaces in.
#
# Fire names the program and what it does under NAME ("resize.py - Resizes images."), its usage
# under SYNOPSIS ("resize.py <flags> [INPUTS]..."), and each flag as "-o, --output=OUTPUT" with
# "Type: int" and "Default: 'out.png'" (Python's spelling of the value) on lines below its text
# (on standard error, in later releases).
# A flag whose default is True or False is a switch ("--verbose"; "--noverbose" turns it off).
# Fire may say first which command it shows the help of ("INFO: Showing help with ...").

_SECTION = compiled(r"^[A-Z][A-Z ]+$")
_FLAG = compiled(r"^    (?:(-\w), )?--([\w-]+)(?:=[A-Z_]+)?$")
_NOTE = compiled(r"^ {8}(Type|Default): (.*)$")
_FIRE_MORE = compiled(r"^ {8}")
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
        return described._replace(options=tuple(_fire_flags(sections.get("FLAGS", []))))


def _entries(lines: list[str]) -> list[str]:
    """Fire's "    NAME" over "        text", as one entry line each."""
    out: list[str] = []
    for line in lines:
        if line.startswith("    ") and not line.startswith("     ") and line.strip():
            out.append(f"  {line.strip()}")
        elif line.strip() and out:
            out[-1] += ("    " if out[-1].count("  ") < 2 else " ") + line.strip()
    return out


def _fire_flags(lines: list[str]) -> list[OptionSpec]:
    options: list[OptionSpec] = []
    k = 0
    while k < len(lines):
        found = _FLAG.match(lines[k])
        k += 1
        if found is None:
            continue
        more = lines_under(lines, k, _FIRE_MORE)
        k += len(more)
        notes, said = notes_apart(more, _NOTE)
        options.append(_fire_option(found[1], found[2], notes, said))
    return options


def _fire_option(short: str | None, name: str, notes: dict[str, str], said: str) -> OptionSpec:
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


# typer with rich: the same content as click, drawn in boxed panels ("╭─ Options ─╮").

class Typer(Dialect):
    name = "typer"
    rules = Rules(angle_choices=True, columns=True, counter_from_zero=True)
    marks = (
        mark(r"^\s*╭─ (?:Options|Arguments|Commands)", 6.0),
        mark(r"│\s+--help\s+Show this message and exit", 3.0),
    )
