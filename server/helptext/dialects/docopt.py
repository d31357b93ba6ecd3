"""docopt: the usage patterns are the grammar; "Options:" entries like "-h --help" and "[default: x]"."""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


class Docopt(Dialect):
    name = "docopt"
    rules = Rules(commands_from_usage=True)
    min_score = 2.0
    marks = (
        mark(r"^Usage:\n  \S+ ", 1.0),
        mark(r"^\s+-h --help\s", 4.0),
        mark(r"^\s+\S+ -h \| --help$", 3.0),
        mark(r"^\s+--[\w-]+=<[\w-]+>\s", 1.0),
        mark(r"\[default: [^\]]*\]\.", 1.0),
    )
