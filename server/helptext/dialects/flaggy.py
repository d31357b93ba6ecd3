"""flaggy (Go): "Subcommands:", "Positional Variables:", "Flags:", and its help flag's "Displays
help with available flag, subcommand, and positional value parameters."

flaggy shows no value placeholder: "-w --workers   Number of worker threads (default: 4)" takes
a number and "-v --verbose   Print progress" is a switch; only a default that is no true or
false says that a flag takes a value (``Rules.value_from_default``). A flag whose value has
no default shows as a switch: its help says nothing more.
"""

from __future__ import annotations

from ..engine import Rules
from .base import Dialect, mark


class Flaggy(Dialect):
    name = "flaggy"
    rules = Rules(value_from_default=True)
    marks = (
        mark(r"Displays help with available flag, subcommand, and positional value parameters\.", 4.0),
        mark(r"^\s*Positional Variables:\s*$", 1.0),
    )
    min_score = 4.0
