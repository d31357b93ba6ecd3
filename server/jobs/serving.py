"""Several servers on one data folder: which jobs left unfinished have nobody running them.

Each server holds a shared lock on ``jobs.serving`` beside the job database while it runs.
A server that starts and gets the lock exclusively is alone, so every job the database shows
unfinished was left by a server that died (a crash, ``kill -9``): those are its to recover.
One that starts while another still runs (say, one draining its jobs after its client left)
leaves unfinished jobs alone: that server finishes and records them itself, unless it dies
first; so such a server asks again now and then (``alone_now``), and once it is the only one
left, the jobs still shown unfinished are its to recover too.

Going from shared to exclusive is not atomic with ``flock`` (the shared lock is dropped first),
so whoever decides whether it is alone (a server starting, a server asking again) does so
holding ``jobs.serving-gate``: in that gap no other server can find the folder free.

Being alone is not enough once three servers share a folder: with two left after the third
died, neither is ever alone, and the dead one's jobs stayed unfinished for as long as both
ran. So each server also holds a lock of its own, ``jobs.serving.d/<its id>``, exclusively
for as long as it runs, and the jobs it runs are marked with its id (a ``runner`` event): a
job whose runner's lock is free has nobody running it (``runner_alive``), whoever else runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from toolbay.errors import StorageError


class ServingLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.gate_path = path.with_name(path.name + "-gate")
        self.runners = path.with_name(path.name + ".d")
        self.server_id = secrets.token_hex(8)
        self._fd: int | None = None
        self._own_fd: int | None = None

    def take(self) -> bool:
        """Takes the lock exclusively if no other server holds it (returns True: alone), else
        shared (False). Blocking for as long as another server holds it exclusively, which it
        does only while it starts or takes over: run it on a worker thread. Raises
        ``StorageError`` naming the file when it or its gate cannot be opened."""
        try:
            fd = _open(self.path)
        except OSError as error:
            raise _unusable(error, self.path) from None
        try:
            with held_exclusively(self.gate_path, blocking=True):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    alone = True
                except BlockingIOError:
                    fcntl.flock(fd, fcntl.LOCK_SH)
                    alone = False
        except BaseException as error:
            os.close(fd)
            if isinstance(error, OSError) and not isinstance(error, BlockingIOError):
                raise _unusable(error, self.gate_path) from None
            raise
        self._fd = fd
        try:
            self.runners.mkdir(mode=0o700, exist_ok=True)
            own = _open(self.runners / self.server_id)
            fcntl.flock(own, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._own_fd = own
        except OSError:
            pass  # its jobs are then taken over only once it is alone, as before
        return alone

    @property
    def holds_its_own_lock(self) -> bool:
        """Whether this server's own lock is held: only then may it mark jobs as its (a job
        marked by a server without it would look orphaned to the others)."""
        return self._own_fd is not None

    def runner_alive(self, server_id: str) -> bool:
        """Whether the server ``server_id`` still runs (on this folder). A dead one's lock file is
        removed once it is found free."""
        if server_id == self.server_id:
            return True
        path = self.runners / server_id
        if "/" in server_id or not server_id:
            return False
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        return False

    @contextlib.contextmanager
    def deciding(self) -> Iterator[None]:
        """Held while this server decides which jobs of dead servers to take over (and does):
        no two servers take the same job. Raises ``BlockingIOError`` when another is deciding."""
        with held_exclusively(self.gate_path, blocking=False):
            yield

    def alone_now(self) -> bool:
        """For a server that holds the lock shared: True when every other server has gone. The
        lock is then held exclusively (``share()`` when done); else it stays shared. Returns
        False at once when another server is deciding the same thing. Run it on a worker thread."""
        fd = self._fd
        if fd is None:
            return False
        try:
            with held_exclusively(self.gate_path, blocking=False):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return True
                except BlockingIOError:
                    fcntl.flock(fd, fcntl.LOCK_SH)  # the failed attempt dropped it
                    return False
        except BlockingIOError:
            return False

    def share(self) -> None:
        """From exclusive to shared, once the orphans are dealt with: other servers may start."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_SH)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        own, self._own_fd = self._own_fd, None
        if own is not None:
            with contextlib.suppress(OSError):
                (self.runners / self.server_id).unlink()
            with contextlib.suppress(OSError):
                os.close(own)


def _unusable(error: OSError, path: Path) -> StorageError:
    """A lock file that cannot be opened (a folder in its place, a file this user may not
    write): the server stopped at start with a traceback."""
    if path.is_dir():
        return StorageError(f"cannot use {path}, the file by which servers on this data folder know of each "
                            "other: a folder is in its place. Move it aside (toolbay makes the file anew)")
    return StorageError(f"cannot use {path}, the file by which servers on this data folder know of each other: "
                        f"{error.strerror or error}. Make it readable and writable by this user, or move it aside "
                        "(toolbay makes it anew)")


def serving_lock_beside(database: Path) -> Path:
    """The serving lock of the job database ``database`` (``jobs.serving`` for ``jobs.sqlite3``)."""
    return database.with_name(database.stem + ".serving")


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


@contextlib.contextmanager
def held_exclusively(path: Path, *, blocking: bool) -> Iterator[None]:
    """``path`` locked exclusively for the block; raises ``BlockingIOError`` when it is not
    free and ``blocking`` is False (with the serving lock: some server is serving)."""
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)
