"""JSON from outside read by Python's reader, with no garbage collected while the reader is deep.

From outside: a client's message, or a value another program (or a hand, or a bad disk) may have
written where toolbay keeps its own (the job database, Redis's channels and lists).

Python's JSON reader recurses once a level of nesting, up to the interpreter's recursion limit
(then ``RecursionError``). A collection that starts while it is that deep, as any allocation can
start one, runs the finalizers of whatever garbage waits: each then fails at once for want of
stack ("Exception ignored in ..."), and what it should have closed or released stays so. A
client's message of 5,000 nested objects did that to objects of other requests. Collection waits
while such a text is read, and happens as ever once it is read.
"""

from __future__ import annotations

import gc
import json
import threading
from typing import Any

# Fewer brackets than this cannot take the reader deep enough to matter (it is well below the
# recursion limit whatever the caller's depth), and need no pause: the count is a scan in C.
_SHALLOW_BRACKETS = 200

_paused = threading.Lock()
_readers = 0  # readers pausing collection now, on any thread
_was_enabled = False  # whether collection was on when the first of them paused it


def read_outside_json(text: bytes | str, **options: Any) -> Any:
    """``json.loads(text, **options)``, with collection paused when ``text`` could nest deeply."""
    arrays, objects = (b"[", b"{") if isinstance(text, bytes) else ("[", "{")
    if text.count(arrays) + text.count(objects) < _SHALLOW_BRACKETS:  # type: ignore[arg-type]
        return json.loads(text, **options)
    _pause()
    try:
        return json.loads(text, **options)
    finally:
        _resume()


def _pause() -> None:
    global _readers, _was_enabled
    with _paused:
        if _readers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _readers += 1


def _resume() -> None:
    global _readers
    with _paused:
        _readers -= 1
        if _readers == 0 and _was_enabled:
            gc.enable()
