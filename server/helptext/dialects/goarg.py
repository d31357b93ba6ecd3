"""go-arg (Go, alexflint/go-arg): a struct's fields as "--output OUTPUT, -o OUTPUT".

go-arg writes the long name first and the short one after it, each with the value's name,
its notes as "[default: out.png]", its positionals under "Positional arguments:", and its own
help line "display this help and exit" after "--help, -h". A switch takes "--color=false"
(go-arg reads a switch's value after "="); "--no-color" it refuses.
"""

from __future__ import annotations

from .base import Dialect, mark


class GoArg(Dialect):
    name = "goarg"
    marks = (
        mark(r"^  --help, -h\s+display this help and exit$", 6.0),
        mark(r"^Positional arguments:$", 1.0),
        mark(r"^  --[\w-]+ [A-Z][A-Z0-9_]*, -\w [A-Z][A-Z0-9_]*$", 1.0),
    )
    # Its own help line, at least: argparse and httpie write "positional arguments" too.
    min_score = 6.0
