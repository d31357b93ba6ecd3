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
    rules = Rules(default_as_value_name=True, counter_takes_count=True, commands_by_path=True)

    def parse(self, text: str) -> HelpDescription:
        # A group's commands, listed by their whole path, are read from the group's own (the
        # shared reading takes the usage's path off them).
        return parse_text(_LIST.sub(r"=\1...", text), self.rules, self.name)
