"""commander.js (Node): "Usage: x [options] [command]", "display help for command", "(default: x)"."""

from __future__ import annotations

from .base import Dialect, mark


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
