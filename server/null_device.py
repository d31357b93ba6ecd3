"""Descriptors that stand for the null device, also where it cannot be opened.

toolbay points descriptors at /dev/null to let go of a client's pipes (``toolbay.detach``),
to give a tool or a worker an empty standard input, and to take a stream the caller closed.
In some containers and sandboxes /dev/null is not there or not the user's to open (mode
600, a chroot without /dev, a seccomp or Landlock policy): each of those opens raised, and
``serve`` over pipes died at start with a traceback. Where it cannot be opened, these stand in.
"""

from __future__ import annotations

import os


def null_descriptor(flags: int = os.O_RDWR) -> int:
    """A new descriptor on /dev/null opened with ``flags``, or where it cannot be opened the read
    end of a pipe whose write end is closed: reads end at once, as on /dev/null, and writes fail
    (EBADF) as on a closed descriptor, so what is written there is lost either way. For
    descriptors nothing should write to, or whose writer copes with a failed write."""
    try:
        return os.open(os.devnull, flags)
    except OSError:
        read_end, write_end = os.pipe()
        os.close(write_end)
        return read_end


def discarding_descriptor() -> int:
    """A new descriptor that takes whatever is written to it, for a command about to end whose
    buffered output must be flushed somewhere (a failed flush at exit is a traceback and status
    120): /dev/null, or where it cannot be opened an anonymous file in memory, gone at exit."""
    try:
        return os.open(os.devnull, os.O_WRONLY)
    except OSError:
        if hasattr(os, "memfd_create"):
            return os.memfd_create("toolbay-discarded")
        import tempfile  # here: only where neither /dev/null nor memfd_create is there

        with tempfile.TemporaryFile() as unlinked:
            return os.dup(unlinked.fileno())
