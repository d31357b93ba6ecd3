"""The help-text dialects of Java programs: picocli, jcommander.

Each dialect is a class, what its library prints said above it. They share a module by
language because ``toolbay parse-help`` imports every dialect, and each module imported
cost it about 0.15 ms.
"""

from __future__ import annotations

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec, PositionalSpec
from ..records import TYPE_CHECKING
from .base import Dialect, lines_under, mark, notes_apart

if TYPE_CHECKING:
    from ..model import ValueType

# picocli (Java): "  -o, --output=<output>   Where to write.", its notes on lines of their own.
#
# picocli lists positionals and options in one list right after what the command does, with no
# heading of its own; a default shown goes on a line below the text ("Default: out.png"); a
# flag that may be given again is written "[-t=<tags>]..." in the usage; a value's name is the
# field's ("<width>"), which says nothing of its type (the engine then takes it from the default).
# The list is given its heading, the default its bracketed note, and the usage its say on repeats.

_PICOCLI_ENTRY = compiled(r"^(?:  -[^\s-]|      --|      <|      \[<|  --)")
_PICOCLI_HEADING = compiled(r"^\S[^\n]*:$")
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
            if not listed and _PICOCLI_ENTRY.match(line):
                listed = True
                if not (lines and _PICOCLI_HEADING.match(lines[-1])):
                    lines += ["", "Options:"]
            elif _PICOCLI_HEADING.match(line):
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


# JCommander (Java): each option's names on a line of their own, its text and notes below.
#
# JCommander prints "Usage: prog [options] <what the main parameter is>", then under
# "  Options:" each option as "    --output, -o" ("  * --retries" when required) with its text
# and its notes ("Default: out.png", "Possible Values: [fit, fill, crop]") indented below. It
# prints no value's name: an option takes a value unless it is a switch, which JCommander
# shows with its default "false" or "true" (the help option too, without one). A list's default
# is "[]": it is given once per value. A value is the word after its flag (JCommander reads no
# "--width=640" unless the program says so). The main parameter is one list of values, named by its
# description.

_JCOMMANDER_HEADING = compiled(r"^  Options:$")
_JCOMMANDER_ENTRY = compiled(r"^  (\*| ) (-{1,2}[^\s,]+(?:, -{1,2}[^\s,]+)*)$")
_NOTE = compiled(r"^      (Default|Possible Values): (.*)$")
_MORE = compiled(r"^ {6}\S")
_USAGE = compiled(r"^Usage: (\S+) \[options\](?: (.+))?$")
_NUMBER = compiled(r"-?\d+(?:\.\d+)?")
_SWITCHES = frozenset({"--help", "-h", "-help", "-?", "--version", "-version"})


class JCommander(Dialect):
    name = "jcommander"
    marks = (
        mark(r"^Usage: \S+ \[options\]", 1.0),
        mark(r"^  Options:$", 2.0),
        mark(r"^  [* ] -{1,2}[\w-]+(?:, -{1,2}[\w-]+)*\n {6}\S", 2.0),
        mark(r"^ {6}Default: ", 2.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        lines = text.splitlines()
        options: list[OptionSpec] = []
        rest: list[str] = []
        listing = False
        main = ""
        k = 0
        while k < len(lines):
            line = lines[k]
            if _JCOMMANDER_HEADING.match(line):
                listing = True
                k += 1
                continue
            found = _JCOMMANDER_ENTRY.match(line) if listing else None
            if found is None:
                # A blank line ends the list, unless an option follows it: JCommander prints one
                # for an option without a description (a help option's), and the options after
                # it were lost, a required one among them.
                listing = listing and (bool(line.strip()) or _entry_follows(lines, k + 1))
                usage = _USAGE.match(line)
                if usage and usage[2]:
                    main = usage[2].strip()
                    line = f"Usage: {usage[1]} [options]"  # the main parameter is read here, not as words
                rest.append(line)
                k += 1
                continue
            more = lines_under(lines, k + 1, _MORE)
            k += 1 + len(more)
            notes, said = notes_apart(more, _NOTE)
            options.append(_option(found[2].split(", "), found[1] == "*", said, notes))
        described = parse_text("\n".join(rest), self.rules, self.name)
        # The main parameter, named by its description: any number of values, none required.
        positionals = (PositionalSpec(main, required=False, variadic=True, description=main),) if main else ()
        return described._replace(options=tuple(options), positionals=positionals)


def _entry_follows(lines: list[str], start: int) -> bool:
    """Whether the first line from ``start`` that is not blank is an option's."""
    return next((_JCOMMANDER_ENTRY.match(line) is not None for line in lines[start:] if line.strip()), False)


def _option(names: list[str], required: bool, said: str, notes: dict[str, str]) -> OptionSpec:
    longs = [name for name in names if name.startswith("--") or len(name) > 2]
    shorts = [name for name in names if name not in longs]
    long, short = next(iter(longs), None), next(iter(shorts), None)
    default = notes.get("Default")
    if default in ("true", "false") or set(names) & _SWITCHES:
        return OptionSpec(long=long, short=short, required=required, description=said)
    choices = tuple(value.strip() for value in notes.get("Possible Values", "").strip("[]").split(",") if value.strip())
    repeatable = default == "[]"
    if repeatable or default in ("", "null"):
        default = None
    kind: ValueType = "enum" if choices else "number" if default is not None and _NUMBER.fullmatch(default) \
        else "string"
    # JCommander takes a value as the next word ("--width 640"); "=" only where a program asks for it.
    return OptionSpec(long=long, short=short, takes_value=True, value_name="VALUE", type=kind, default=default,
                      choices=choices, required=required, repeatable=repeatable, description=said, value_spaced=True)
