"""urfave/cli (Go): "NAME:" with "prog - what it does", "GLOBAL OPTIONS:", every value named
"value" ("--parallel value, -p value  ... (default: 4)"), "[arguments...]" where a command
names no operands."""

from __future__ import annotations

import re

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription
from .base import Dialect, mark

_NAME_LINE = compiled(r"^NAME:\n +\S+(?: \S+)* - (.+)$", re.MULTILINE)
# "--host value [ --host value ]": the flag repeats (a slice flag).
_SAID_AGAIN = compiled(r"^( +--?([\w-]+) value(?:, -\w value)?) \[ --?\2 value \]", re.MULTILINE)


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
        desc = parse_text(_SAID_AGAIN.sub(r"\1...", text), self.rules, self.name)
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
