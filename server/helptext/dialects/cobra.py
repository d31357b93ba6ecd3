"""cobra/pflag (Go): "Flags:", "Global Flags:", "Available Commands:", type words, '(default "x")'.

pflag writes each flag's type where a value's name would be ("--replicas int"); a counter
(``CountVarP``) is written "-v, --verbose count", but takes no value: each time it is given
counts one ("-vvv"), so it is read as a flag given again. (A value named in backquotes in
the flag's usage, "lines to show, a `count`", is written so too, and keeps the word in its text.)
"""

from __future__ import annotations

from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from .base import Dialect, mark

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
