"""The help-text dialects of JavaScript programs (Node.js): commander, yargs.

Each dialect is a class, what its library prints said above it. They share a module by
language because ``toolbay parse-help`` imports every dialect, and each module imported
cost it about 0.15 ms.
"""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark

# commander.js (Node): "Usage: x [options] [command]", "display help for command", "(default: x)".

class Commander(Dialect):
    name = "commander"
    min_score = 2.0
    marks = (
        mark(r"^\s+-h, --help\s+display help for (?:command|\w+)$", 5.0),
        mark(r"^\s+-V, --version\s+output the version number$", 3.0),
        mark(r"^Usage: \S+(?: \S+)* \[options\]", 1.5),
        mark(r"\(choices: ", 1.0),
        mark(r"^\s+help \[command\]\s+display help for command$", 2.0),
    )


# yargs (Node): a type note after each description ("[boolean]", "[string] [required]"),
# commands prefixed by the program's name.

class Yargs(Dialect):
    name = "yargs"
    rules = Rules(commands_prefixed=True, value_from_type_note=True, bare_usage_first=True)
    marks = (
        mark(r"Show help\s+\[boolean\]$", 5.0),
        mark(r"Show version number\s+\[boolean\]$", 3.0),
        mark(r"\s\[(?:boolean|string|number|array|count)\]$", 1.0),
        # yargs prints the long name first and its aliases after it: "--bail, -b".
        mark(r"^ +--[\w-]+(?:, --[\w-]+)*, -\w {2,}\S", 1.0),
        mark(r"^Usage: \S+ \[\w+\.\.\]$", 1.5),  # a variadic positional written "[spec..]"
        mark(r"Show version number (?:& exit|\s+\[boolean\])$", 1.0),
    )
