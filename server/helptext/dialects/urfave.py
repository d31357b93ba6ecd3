"""urfave/cli (Go): "NAME:" with "prog - what it does", "GLOBAL OPTIONS:", every value named
"value" ("--parallel value, -p value  ... (default: 4)"), "[arguments...]" where a command
names no operands; commands listed under categories ("   queries:") as any other."""

from __future__ import annotations

import re

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription
from .base import Dialect, mark

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
