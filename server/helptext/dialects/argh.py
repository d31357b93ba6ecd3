"""argh (Rust, Google's): "Positional Arguments:", "Options:", "--help  display usage information".

argh names an option's value only in the usage line ("[-n <count>] [--level <level>]") and takes
it only as the next word: "--level=-3" is refused ("Unrecognized argument"), so a value that
starts with "-" is still given apart ("--level -3"; see ``toolbay.helptext.schema``).
"""

from __future__ import annotations

from .base import Dialect, mark


class Argh(Dialect):
    name = "argh"
    marks = (
        mark(r"^  --help(?:, help)?\s+display usage information$", 3.0),
        mark(r"^Positional Arguments:$", 1.0),
        mark(r"^Usage: \S+(?: [a-z][\w-]*)* \[?<[\w-]+(?:\.\.\.)?>", 0.5),
    )
    min_score = 3.0
