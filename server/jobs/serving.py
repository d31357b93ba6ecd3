"""Several servers on one data folder: which jobs left unfinished have nobody running them.

Each server holds a shared lock on ``jobs.serving`` beside the job database while it runs.
A server that starts and gets the lock exclusively is alone, so every job the database shows
unfinished was left by a server that died (a crash, ``kill -9``): those are its to recover.
One that starts while another still runs (say, one draining its jobs after its client left)
leaves unfinished jobs alone: that server finishes and records them itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


class ServingLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def take(self) -> bool:
        """Takes the lock exclusively if no other server holds it (returns True: alone), else
        shared (False). Blocking for as long as another server holds it exclusively, which it
        does only while it starts: run it on a worker thread."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            alone = True
        except BlockingIOError:
            fcntl.flock(fd, fcntl.LOCK_SH)
            alone = False
        self._fd = fd
        return alone

    def share(self) -> None:
        """From exclusive to shared, once the orphans are dealt with: other servers may start."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_SH)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
