"""Python's cyclic garbage collector while a server or a command starts: paused during the
imports, then the survivors frozen and the collector back on (a short command ends first).

A server's imports make about 160,000 objects that live as long as the process. The
collector, run every 700 new objects, walks them again and again while they are being
made: 0.13 to 0.28 s of processor time on a server's start (measured with ``gc.callbacks``),
a tenth of it, to free a few thousand. Paused, the imports cost that much less, and
``gc.freeze`` then moves what they made out of the collector's reach for good, so that a
full collection while serving skips them. There is no collection before the freeze: it took
80 to 90 ms of every start to free about 1,300 objects (0.65 MB, now kept for the life of
the process, under 1 % of a server's memory). This is the order Python's documentation
gives for ``gc.freeze``: disable early, freeze once the long-lived objects are made, enable.
"""

from __future__ import annotations

import gc

_paused_here = False


def pause_for_imports(enabled: bool | None = None) -> None:
    """Pauses the collector until ``resume_after_imports`` (a no-op if it is off already:
    whoever turned it off turns it back on). ``enabled``: whether it was on before the caller
    paused it itself, before importing this module (this module's import may set it off)."""
    global _paused_here
    if enabled if enabled is not None else gc.isenabled():
        gc.disable()
        _paused_here = True


def resume_after_imports() -> None:
    """Freezes what the imports made and turns the collector back on if ``pause_for_imports``
    turned it off."""
    global _paused_here
    gc.freeze()
    if _paused_here:
        _paused_here = False
        gc.enable()


class ImportsUnderway:
    """Imports made on more than one thread (a server's own, and the MCP SDK's on a thread of
    its own, begun before them): ``resume_after_imports`` once the last of them is done, not
    while another still makes objects that will live as long as the process."""

    def __init__(self, threads: int) -> None:
        # Imported here, with the collector paused: this module is imported before it is, and
        # what an import makes before the pause may set it off.
        import threading

        self._left = threads
        self._lock = threading.Lock()

    def done(self) -> None:
        """One thread's imports are done."""
        with self._lock:
            self._left -= 1
            last = self._left == 0
        if last:
            resume_after_imports()
