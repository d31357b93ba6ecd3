"""A tool's file in a watched folder, read as every reader of it must: without blocking, and
never past the size a tool can be.

A name in a tool folder may lead anywhere: to a file whose reads wait for ever (the kernel's
log), or one that says it is empty and reads on for hundreds of GB (``/proc/self/pagemap``).
Hashing, describing and importing each read the file; each opens it here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

# The largest real tools are tens of MB (a Go program 7 MB, a Python interpreter built in 40);
# a file is held whole in memory when it is read.
MAX_TOOL_FILE_BYTES = 512 * 1024 * 1024


def open_tool_file(path: str | Path) -> BinaryIO:
    """``path`` opened for reading without blocking: a read that would wait returns what there
    is (``None`` when there is nothing), not never."""
    return open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb")


def too_large(size: int, what: str, limit: int = MAX_TOOL_FILE_BYTES) -> str | None:
    """Why a file of ``size`` bytes is not read (``what`` it is: "a module"), or None. Its size
    is rounded up to a tenth of a MiB: rounded to the nearest, a file just past 16 MiB was
    "16 MiB, more than the 16 MiB" it may be."""
    if size <= limit:
        return None
    tenths = -(-size * 10 // 2**20)
    return f"{tenths // 10:,}.{tenths % 10} MiB, more than the {limit / 2**20:g} MiB {what} may be"
