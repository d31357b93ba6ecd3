"""Reading a file a user names that is small by nature (a configuration, a tokens file).

Read whole with no bound, ``--config /dev/zero`` grew the process's memory until it was killed,
and a FIFO in its place waited for a writer for ever, saying nothing (an outside check). Such a
file is opened without waiting, must be a regular file, and is read up to ``SMALL_FILE_LIMIT``
bytes; past it, or not a file, it is refused as an ``OSError`` whose ``strerror`` says why, as
the callers already say a file that cannot be read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# Far more than any configuration or tokens file holds (a thousand tokens take about 200 KB).
SMALL_FILE_LIMIT = 16 * 1024 * 1024


def read_small_file(path: Path, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (else ``OSError``)."""
    # O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise; a regular file's
    # reads are not changed by it.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        found = os.fstat(descriptor)
        if stat.S_ISDIR(found.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(found.st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file (a device, a FIFO or a socket)", str(path))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        bound = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
        raise OSError(errno.EFBIG, f"it is larger than {bound}", str(path))
    finally:
        os.close(descriptor)
