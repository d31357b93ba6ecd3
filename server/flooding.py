"""When a tool's output is a flood: the one rule for wasm guests and Python tool workers.

A tool that writes more than its output limit keeps the first ``limit`` bytes (or characters)
and finishes; one that goes on writing ``FLOOD_FACTOR`` times the limit past it (at least
``FLOOD_FACTOR`` times ``FLOOD_FLOOR``) is flooding, not finishing, and is stopped rather than
left to its time limit (15 minutes of a core by default). The Python worker, which imports
nothing of the server's, is handed these two numbers in its init message.
"""

from __future__ import annotations

FLOOD_FACTOR = 16
FLOOD_FLOOR = 1024 * 1024


def flood_mark(limit: int) -> int:
    """How much may be dropped past an output limit of ``limit`` before the tool is stopped."""
    return FLOOD_FACTOR * max(limit, FLOOD_FLOOR)
