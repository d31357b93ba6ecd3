"""Go's standard ``flag`` package: "Usage of prog:", single-dash long names, description on the next line."""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


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
