"""kingpin (Go): "Flags:", "Commands:" at the margin with the description under it, a flag's
default printed where its value's name would be ("--retries=3", '--server="127.0.0.1"')."""

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


class Kingpin(Dialect):
    name = "kingpin"
    # Its own --help line says it all; its "Flags:" heading is cobra's too.
    marks = (mark(r"Show context-sensitive help \(also try --help-long", 6.0),
             mark(r"^usage: \S+(?: \S+)* \[<flags>\]", 2.0))
    rules = Rules(default_as_value_name=True)

    def parse(self, text: str) -> HelpDescription:
        # The commands, at the margin, indented as every other list is, so that their descriptions
        # (indented four) are read as theirs.
        text = _COMMANDS.sub(lambda found: "Commands:\n" + _AT_MARGIN.sub("  ", found.group(1)), text)
        return parse_text(_REPEATS.sub(r"\1\2...", text), self.rules, self.name)
