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


def mark(pattern: str, weight: float, flags: int = re.MULTILINE) -> tuple[re.Pattern[str], float]:
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
