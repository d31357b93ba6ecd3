"""kingpin (Go): "Flags:", "Commands:" at the margin with the description under it, a flag's
default printed where its value's name would be ("--retries=3", '--server="127.0.0.1"'), a
counter as "-v, --verbose ...", a group's commands under "Subcommands:" by their whole path."""

from __future__ import annotations

import re

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription
from .base import Dialect, mark

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
