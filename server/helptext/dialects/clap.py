"""clap 2, 3 and 4 (Rust): "USAGE:"/"Usage:", "ARGS:"/"Arguments:", "[default: x]",
"[possible values: a, b]"."""

from __future__ import annotations

import re

from ..engine import Rules
from .base import Dialect, mark


class Clap(Dialect):
    name = "clap"
    rules = Rules(author_after_version=True, counter_from_zero=True)
    marks = (
        mark(r"^USAGE:\s*$", 2.0),
        mark(r"^(?:FLAGS|OPTIONS|ARGS|SUBCOMMANDS):\s*$", 1.5),
        mark(r"^(?:Arguments|Commands):\s*$", 0.5),
        mark(r"\[possible values: ", 2.0),
        mark(r"\[default: [^\]]*\]", 0.5),
        mark(r"\[env: [^\]]*\]", 2.0),
        mark(r"^\s+-h, --help\s+Prints? help(?: information)?(?:$| \(see)", 3.0),
        mark(r"^\s+-V, --version\s+Prints? version(?: information)?$", 2.0),
        mark(r"^Usage: \S+ (?:\[OPTIONS\]|<COMMAND>|\[COMMAND\])", 1.0),
        mark(r"^\s+-\w, --[\w-]+ <[A-Z_]+>", 1.0),
        mark(r"^\s+help\s+Print this message or the help of the given subcommand", 3.0, re.MULTILINE),
    )
