"""argparse (Python): "usage:", "positional arguments:", "options:"/"optional arguments:", "{a,b}"."""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


class Argparse(Dialect):
    name = "argparse"
    rules = Rules(remainder_dots=True, counter_from_zero=True)
    marks = (
        mark(r"^usage: \S+ \[-", 1.5),  # argparse's usage lists the options first: "usage: x [-h]"
        mark(r"^positional arguments:$", 2.0),
        mark(r"^(?:optional arguments|options):$", 0.5),
        mark(r"^\s+-h, --help\s+show this help message and exit", 4.0),
        mark(r"^\s+-\w \w+, --[\w-]+ \w+", 1.0),
        mark(r"\[-h\]", 1.5),
    )
