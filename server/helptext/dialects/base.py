"""The dialect contract: a name, how sure it is that a text is its own, and a parse.

A dialect's ``detect`` counts the marks its library prints (headings, the wording
of its own --help line, its note syntax); the highest score wins, ties go to the
first listed in ``DIALECTS``.
"""

from __future__ import annotations

import re

from ..engine import Rules, parse_text
from ..kept import compiled
from ..model import HelpDescription
from ..records import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import ClassVar


class Dialect:
    name: ClassVar[str]
    rules: ClassVar[Rules] = Rules()
    # (pattern, weight): the score is the sum of the weights of the patterns found.
    marks: ClassVar[tuple[tuple[re.Pattern[str], float], ...]] = ()
    # A score below this is chance (one loose mark such as "[options]"): the text stays generic.
    min_score: ClassVar[float] = 0.0

    def detect(self, text: str) -> float:
        return sum(weight for pattern, weight in self.marks if pattern.search(text))

    def parse(self, text: str) -> HelpDescription:
        return parse_text(text, self.rules, self.name)


class LineRewriter(Dialect):
    """A dialect whose entries, a line each, are rewritten into the engine's shared reading
    (``plain``) and then read as any help is (CLI11, Boost.Program_options)."""

    @staticmethod
    def plain(line: str) -> str:
        return line

    def parse(self, text: str) -> HelpDescription:
        return parse_text("\n".join(self.plain(line) for line in text.splitlines()), self.rules, self.name)


# Where the engine finds an entry's text when its head stands alone on its line.
_TEXT_COLUMN = 30


def entry_line(head: str, text: str, notes: list[str]) -> str:
    """An entry as the engine reads it: its head, then its text and notes (``[default: 1]``)
    four spaces on; with no text of its own, its notes on a line below, in the text's column."""
    said = " ".join(filter(None, [text, *notes]))
    if not said:
        return head
    return f"{head}    {said}" if text else f"{head}\n{' ' * _TEXT_COLUMN}{' '.join(notes)}"


def mark(pattern: str, weight: float, flags: int = re.MULTILINE) -> tuple[re.Pattern[str], float]:
    # A line's indent is spaces or tabs: "^\s+" would also run across empty lines, from every line
    # of a run of them to its end (thousands of indented empty lines: seconds, searched again for
    # every dialect's marks).
    if pattern.startswith(r"^\s"):
        pattern = r"^[ \t]" + pattern[3:]
    return compiled(pattern, flags), weight


def lines_under(lines: list[str], start: int, goes_on: re.Pattern[str]) -> list[str]:
    """The lines from ``start`` on that ``goes_on`` matches: an entry's text and notes below its
    head (absl, gflags, JCommander and Fire indent them deeper than the head)."""
    end = start
    while end < len(lines) and goes_on.match(lines[end]):
        end += 1
    return lines[start:end]


def notes_apart(lines: list[str], note: re.Pattern[str]) -> tuple[dict[str, str], str]:
    """The ``Key: value`` notes among an entry's lines (``note`` groups the two), and the rest of
    its text joined ("Default: out.png" under JCommander's and Fire's options)."""
    notes: dict[str, str] = {}
    said: list[str] = []
    for line in lines:
        found = note.match(line)
        if found:
            notes[found[1]] = found[2].strip()
        else:
            said.append(line.strip())
    return notes, " ".join(said)
