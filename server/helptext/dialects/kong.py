"""kong (Go, kingpin's successor): a flag's default where its value's name would be.

kong writes "-o, --output="out.png"" and "-w, --width=640" for flags with a default, and the
value's type in capitals where there is none ("--scale=FLOAT-64", "--tag=TAG,..."), under
"Flags:", with its positionals under "Arguments:" and its own help line "Show
context-sensitive help." (kingpin's goes on "(also try --help-long ...)"). A group's help
lists its commands by their whole path ("db migrate up" under "kg db"), read from the group.
"""

from __future__ import annotations

import re

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription
from .base import Dialect, mark

# "--tag=TAG,...": a list, given as "a,b" or flag by flag; its name, not a default.
_LIST = compiled(r"=([A-Z][A-Z0-9_-]*),\.\.\.(?= |$)", re.MULTILINE)


class Kong(Dialect):
    name = "kong"
    marks = (
        mark(r"^  -h, --help\s+Show context-sensitive help\.$", 6.0),
        mark(r"^Usage: \S+(?: \S+)* \[flags\]$", 1.0),
        mark(r"^Arguments:$", 0.5),
    )
    rules = Rules(default_as_value_name=True, counter_takes_count=True)

    def parse(self, text: str) -> HelpDescription:
        return parse_text(_LIST.sub(r"=\1...", _commands_below(text)), self.rules, self.name)


# "Usage: kg db <command>": the words between the program and "<command>" are the command path;
# a group's required flags may come between ("kg db table --schema=STRING <command>").
_COMMAND_USAGE = compiled(r"^Usage: \S+((?: [a-z][\w-]*)+)(?: (?:--?[\w-]+(?:=\S+)?|\[[^\]]*\]))* <command>",
                          re.MULTILINE)


def _commands_below(text: str) -> str:
    """``text`` with its commands named from the command it is the help of: kong lists a
    group's commands by their whole path ("kg db --help" lists "db migrate up <steps>"), and
    the path's words were read again as the group's one command ("db", under "db")."""
    found = _COMMAND_USAGE.search(text)
    if found is None:
        return text
    path = found.group(1).strip() + " "
    lines = text.split("\n")
    in_commands = False
    for index, line in enumerate(lines):
        if line and not line[0].isspace():
            in_commands = line.rstrip() == "Commands:"
        elif in_commands and line.startswith("  " + path) and not line.startswith("   "):
            lines[index] = "  " + line[2 + len(path):]
    return "\n".join(lines)
