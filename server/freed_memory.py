"""Memory the process freed, given back to the system.

glibc keeps what a program frees for its next allocations rather than returning it, and
compiling a WebAssembly module allocates and frees a great deal at once: a 10 MB module of
60,000 functions (refused: its help was no help) left a server at 700 MB of resident memory,
against 37 MB without it, until ``malloc_trim`` gave 300 MB back (measured with the server's
own discovery, the module already freed). Called after new files are described and after each
module is optimised, and while serving (``give_back_while_serving``) once the server is quiet
with much more memory than when it was last quiet: a burst of sixteen HTTP calls of 4 MB
arguments each left a server at 280 MB, against 77 MB before it, for as long as it ran (about
120 MB now). A no-op where the C library has no ``malloc_trim`` (musl, macOS).
"""

from __future__ import annotations

import ctypes
import functools
import gc
import os
import sys
from collections.abc import Callable

import anyio

# How often a serving process looks at its resident memory (one read of /proc), and how far
# above what it was when last quiet it may stay.
LOOK_EVERY_S = 5.0
GROWN_BY_AT_MOST = 64 * 2**20


def give_back_freed_memory() -> bool:
    """Returns the free memory glibc holds to the system; False where it cannot."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def resident_bytes() -> int | None:
    """This process's resident memory (None where /proc does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


async def give_back_while_serving(is_quiet: Callable[[], bool], *, every_s: float = LOOK_EVERY_S,
                                  grown_by_at_most: int = GROWN_BY_AT_MOST) -> None:
    """Runs until cancelled: whenever ``is_quiet()`` (no request or call running or waiting), at
    two looks in a row, finds the
    process ``grown_by_at_most`` above the least memory it had since it last did so, collects garbage
    and gives the freed memory back. Returns at once where it could not (no /proc, no glibc)."""
    last = resident_bytes()
    if last is None or _malloc_trim() is None:
        return
    was_quiet = False
    while True:
        await anyio.sleep(every_s)
        now, quiet = resident_bytes(), is_quiet()
        # Quiet at two looks in a row: a burst has gaps, and memory collected in one of them
        # (its requests still being read) freed little, and the burst's height became the mark.
        quiet, was_quiet = quiet and was_quiet, quiet
        if now is None:
            continue
        if now - last < grown_by_at_most or not quiet:
            # The lowest since: memory given back otherwise (a trim after describing) and
            # taken again by a burst is a burst's all the same.
            last = min(last, now)
            continue
        # A call's arguments outlive it in reference cycles (an exception's traceback and the
        # frames it holds: cancellations, timeouts), which only a full collection frees, and a
        # quiet server allocates nothing that would start one. Rare (after a burst of at least
        # the growth above), so its pause, tens of milliseconds, is no cost to speak of.
        gc.collect()
        await anyio.to_thread.run_sync(give_back_freed_memory)
        last = resident_bytes() or now
