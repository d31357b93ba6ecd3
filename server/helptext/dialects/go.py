"""The help-text dialects of Go programs: cobra, flaggy, goarg, goflag, kingpin, kong, urfave.

Each dialect is a class, what its library prints said above it. They share a module by
language because ``toolbay parse-help`` imports every dialect, and each module imported
cost it about 0.15 ms.
"""

from __future__ import annotations

import re

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from ..notes import value_type
from .base import Dialect, mark

# cobra/pflag (Go): "Flags:", "Global Flags:", "Available Commands:", type words, '(default "x")'.
#
# pflag writes each flag's type where a value's name would be ("--replicas int"); a counter
# (``CountVarP``) is written "-v, --verbose count", but takes no value: each time it is given
# counts one ("-vvv"), so it is read as a flag given again. (A value named in backquotes in
# the flag's usage, "lines to show, a `count`", is written so too, and keeps the word in its text.)

_COUNT_WORD = compiled(r"\bcount\b")


class Cobra(Dialect):
    name = "cobra"
    min_score = 1.5
    marks = (
        mark(r"^Available Commands:$", 3.0),
        mark(r"^(?:Global )?Flags:$", 2.0),
        mark(r"^(?:FLAGS|INHERITED FLAGS|CORE COMMANDS|LEARN MORE)$", 2.0),
        mark(r'^Use "[^"]+ \[command\] --help"', 3.0),
        mark(r"\[flags\]", 1.0),
        mark(r"^\s+(?:-\w, )?--[\w-]+ (?:string|int|stringArray|strings|duration|uint|float\d*|int\d+)\s",
             1.5),
        mark(r'\(default "[^"]*"\)', 0.5),
        mark(r"^\s+-h, --help\s+help for \S+", 3.0),
    )

    def parse(self, text: str) -> HelpDescription:
        described = super().parse(text)
        return described._replace(options=tuple(map(_counter_read, described.options)))


def _counter_read(option: OptionSpec) -> OptionSpec:
    if not (option.takes_value and option.value_name == "count" and not option.choices) \
            or _COUNT_WORD.search(option.description):
        return option
    return option._replace(takes_value=False, value_name=None, type="boolean", default=None, repeatable=True,
                           value_optional=False, value_spaced=False, values_per_flag=1)


# flaggy (Go): "Subcommands:", "Positional Variables:", "Flags:", and its help flag's "Displays
# help with available flag, subcommand, and positional value parameters."
#
# flaggy shows no value placeholder: "-w --workers   Number of worker threads (default: 4)" takes
# a number and "-v --verbose   Print progress" is a switch; only a default that is no true or
# false says that a flag takes a value (``Rules.value_from_default``). A flag whose value has
# no default shows as a switch: its help says nothing more.

class Flaggy(Dialect):
    name = "flaggy"
    rules = Rules(value_from_default=True)
    marks = (
        mark(r"Displays help with available flag, subcommand, and positional value parameters\.", 4.0),
        mark(r"^\s*Positional Variables:\s*$", 1.0),
    )
    min_score = 4.0


# go-arg (Go, alexflint/go-arg): a struct's fields as "--output OUTPUT, -o OUTPUT".
#
# go-arg writes the long name first and the short one after it, each with the value's name,
# its notes as "[default: out.png]", its positionals under "Positional arguments:", and its own
# help line "display this help and exit" after "--help, -h". A switch takes "--color=false"
# (go-arg reads a switch's value after "="); "--no-color" it refuses.

class GoArg(Dialect):
    name = "goarg"
    marks = (
        mark(r"^  --help, -h\s+display this help and exit$", 6.0),
        mark(r"^Positional arguments:$", 1.0),
        mark(r"^  --[\w-]+ [A-Z][A-Z0-9_]*, -\w [A-Z][A-Z0-9_]*$", 1.0),
    )
    # Its own help line, at least: argparse and httpie write "positional arguments" too.
    min_score = 6.0


# Go's standard ``flag`` package: "Usage of prog:", single-dash long names, description on the next line.

class GoFlag(Dialect):
    name = "goflag"
    rules = Rules(single_dash_long=True)
    marks = (
        mark(r"^Usage of \S+:$", 4.0),
        mark(r"^  -\w{2,}(?: \w+)?\n {8}\S", 3.0),
        mark(r"^  -\w(?: \w+)?\n {8}\S", 1.0),
        mark(r"^  -\w+(?: \w+)?\n {8}\S", 1.0),
    )

    def detect(self, text: str) -> float:
        if "\n  --" in text or "\n      --" in text:  # double-dash long options: not Go's flag package
            return 0.0
        return super().detect(text)

    def parse(self, text: str) -> HelpDescription:
        described = super().parse(text)
        return described._replace(options=tuple(map(_typed_as_go_prints_it, described.options)))


# A flag's usage names its value in backquotes ("number of `lines`"), which the package prints
# as the value's name: "-n lines ... (default 10)". When it prints the backquotes as written,
# they hid the name from the describer: the value is typed as the plain name would be, by its
# word ("count") or else by its default. A whole default alone stays a number, not an integer:
# Go prints a float64's 2.0 as "2" as it prints an int's 2, and an integer would refuse 2.5 to
# a float flag, where a number only offers it to an int flag, which then says so itself.
_GO_NUMBER = compiled(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _typed_as_go_prints_it(option: OptionSpec) -> OptionSpec:
    default = option.default
    if not option.takes_value or option.choices or default is None:
        return option
    name = option.value_name or ""
    if len(name) > 2 and name[0] == name[-1] == "`" and option.type == "string":
        name = name[1:-1]
        kind = value_type(name, name)
        if kind == "string" and _GO_NUMBER.fullmatch(default):
            kind = "number"
        option = option._replace(value_name=name, type=kind)  # type: ignore[arg-type]
    return option


# kingpin (Go): "Flags:", "Commands:" at the margin with the description under it, a flag's
# default printed where its value's name would be ("--retries=3", '--server="127.0.0.1"'), a
# counter as "-v, --verbose ...", a group's commands under "Subcommands:" by their whole path.

_COMMANDS = compiled(r"^Commands:\n(.*?)(?=\n\S[^\n]*:\n|\Z)", re.MULTILINE | re.DOTALL)
_AT_MARGIN = compiled(r"^(?=[a-z][\w-]*(?: |$))", re.MULTILINE)
# "--tag=TAG ...": the flag repeats. Read from the start of the word (its first "=" is the only
# one a match can start at), not tried from every "=" of it: quadratic in a word of them.
_REPEATS = compiled(r"(?<!\S)([^\s=]*)(=\S+) \.\.\.(?= |$)", re.MULTILINE)


_SUBCOMMANDS = compiled(r"^Subcommands:$", re.MULTILINE)
# "-v, --verbose ...": a flag given again, no value (Counter()); "..." was read as its value.
_COUNTER = compiled(r"(?<!\S)(--?[\w-]+) \.\.\.(?= |$)", re.MULTILINE)


class Kingpin(Dialect):
    name = "kingpin"
    # Its own --help line says it all; its "Flags:" heading is cobra's too.
    marks = (mark(r"Show context-sensitive help \(also try --help-long", 6.0),
             mark(r"^usage: \S+(?: \S+)* \[<flags>\]", 2.0))
    rules = Rules(default_as_value_name=True, commands_by_path=True)

    def parse(self, text: str) -> HelpDescription:
        # A group's help lists its commands under "Subcommands:", each by its whole path ("db
        # migrate" under "kp db"): read as the program's own are (the shared reading takes the
        # usage's path off them).
        text = _SUBCOMMANDS.sub("Commands:", text)

        def listed(found: re.Match[str]) -> str:
            # At the margin, indented as every other list is, so that their descriptions
            # (indented four) are read as theirs.
            return "Commands:\n" + _AT_MARGIN.sub("  ", found.group(1))

        text = _COMMANDS.sub(listed, text)
        return parse_text(_COUNTER.sub(r"\1...", _REPEATS.sub(r"\1\2...", text)), self.rules, self.name)


# kong (Go, kingpin's successor): a flag's default where its value's name would be.
#
# kong writes "-o, --output="out.png"" and "-w, --width=640" for flags with a default, and the
# value's type in capitals where there is none ("--scale=FLOAT-64", "--tag=TAG,..."), under
# "Flags:", with its positionals under "Arguments:" and its own help line "Show
# context-sensitive help." (kingpin's goes on "(also try --help-long ...)"). A group's help
# lists its commands by their whole path ("db migrate up" under "kg db"), read from the group.

# "--tag=TAG,...": a list, given as "a,b" or flag by flag; its name, not a default.
_LIST = compiled(r"=([A-Z][A-Z0-9_-]*),\.\.\.(?= |$)", re.MULTILINE)


class Kong(Dialect):
    name = "kong"
    marks = (
        mark(r"^  -h, --help\s+Show context-sensitive help\.$", 6.0),
        mark(r"^Usage: \S+(?: \S+)* \[flags\]$", 1.0),
        mark(r"^Arguments:$", 0.5),
    )
    rules = Rules(default_as_value_name=True, counter_takes_count=True, commands_by_path=True)

    def parse(self, text: str) -> HelpDescription:
        # A group's commands, listed by their whole path, are read from the group's own (the
        # shared reading takes the usage's path off them).
        return parse_text(_LIST.sub(r"=\1...", text), self.rules, self.name)


# urfave/cli (Go): "NAME:" with "prog - what it does", "GLOBAL OPTIONS:", every value named
# "value" ("--parallel value, -p value  ... (default: 4)"), "[arguments...]" where a command
# names no operands; commands listed under categories ("   queries:") as any other.

_NAME_LINE = compiled(r"^NAME:\n +\S+(?: \S+)* - (.+)$", re.MULTILINE)
# "--host value [ --host value ]": the flag repeats (a slice flag).
_SAID_AGAIN = compiled(r"^( +--?([\w-]+) value(?:, -\w value)?) \[ --?\2 value \]", re.MULTILINE)


# A category of commands ("Category: "queries"" in the program) is a heading inside the list,
# its commands indented under it: "   queries:" then "     track  track parcels".
_CATEGORY = compiled(r"^( +)[^\s:](?:[^\s:]| (?! ))*:$")  # a name alone: no gap before a description


def _uncategorised(text: str) -> str:
    """``text`` with the command list's category headings left out and their commands put
    back at the list's indent, as commands of no category are written."""
    lines = text.split("\n")
    out: list[str] = []
    in_commands = False
    category_indent: str | None = None
    for line in lines:
        if line and not line[0].isspace():
            in_commands = line.rstrip() == "COMMANDS:"
            category_indent = None
        elif in_commands and (found := _CATEGORY.match(line)):
            category_indent = found.group(1)
            continue
        elif in_commands and category_indent is not None and line.startswith(category_indent + "  "):
            line = line[2:]
        out.append(line)
    return "\n".join(out)


class Urfave(Dialect):
    name = "urfave"
    min_score = 3.0
    marks = tuple(mark(pattern, weight) for pattern, weight in (
        (r"Shows a list of commands or help for one command", 4.0),  # its own help command
        (r"^GLOBAL OPTIONS:$", 3.0), (r"^NAME:\n +\S+(?: \S+)* - ", 2.0),
        (r"^ +--[\w-]+ value(?:, -\w value)? ", 2.0), (r"^ +--help, -h +show help", 2.0),
    ))
    rules = Rules()

    def parse(self, text: str) -> HelpDescription:
        desc = parse_text(_uncategorised(_SAID_AGAIN.sub(r"\1...", text)), self.rules, self.name)
        options = []
        for option in desc.options:
            if "(accepts multiple inputs)" in option.description:
                option = option._replace(repeatable=True)
            options.append(option)
        # "[arguments...]" is what urfave prints for a command whose operands it was not told of.
        positionals = [p for p in desc.positionals if not (p.name == "arguments" and p.variadic and not p.required)]
        named = _NAME_LINE.search(text)
        about = desc.about or (named.group(1).strip() if named else "")
        return desc.with_changes(options=tuple(options), positionals=tuple(positionals), about=about)
