"""Files replaced whole or not at all.

Every file toolbay keeps (a job's record, a compiled module, an index, a tool's source) is
written to a temporary file beside it and renamed over it, so a reader sees the old content
or the new, never half; a write that fails (a full disk, a file size limit) leaves the old
content and no temporary file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def replacing(path: Path, *, durable: bool = False, prefix: str = ".tmp-", suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content to; ``path`` is replaced by it when the
    block ends without an error. ``durable`` also waits for the content to reach the disk
    before the rename (a record that must survive a power cut, not a cache). The temporary
    file is named ``prefix``…``suffix`` in ``path``'s folder, which must exist."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_whole(path: Path, data: bytes, *, durable: bool = False, prefix: str = ".tmp-", suffix: str = ".tmp") -> None:
    """``path`` holds ``data``, or its old content if the write failed (see ``replacing``)."""
    with replacing(path, durable=durable, prefix=prefix, suffix=suffix) as handle:
        handle.write(data)
