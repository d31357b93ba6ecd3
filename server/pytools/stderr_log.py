"""What Python tool workers write to their standard error, into the server's log, bounded.

A worker's ``print`` and ``sys.stderr`` go to the call's answer; what escapes them (a C library
writing to fd 2, ``os.write(1, ...)``, a subprocess) once went straight into the server's own
standard error: for a stdio server, the log of the MCP client that started it, without limit
and without saying which tool wrote it. Each worker's standard error is now a pipe that one
thread reads for all of them (a selector, not a thread per worker); each line is logged with
the module's name, up to ``LIMIT_BYTES`` per worker process, and what comes after is counted
and dropped, with one line saying so.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import selectors
import signal
import threading
from collections.abc import Callable
from typing import NamedTuple

from toolbay.blotting import CREDENTIAL_HIDDEN, blot, written_forms

logger = logging.getLogger("toolbay.pytools.stderr")

LIMIT_BYTES = 64 * 1024
_LINE_BYTES = 4096  # a longer line is logged in pieces of this size




class StderrSource:
    """One worker's stderr, logged line by line. ``hide`` adds a credential handed to the
    worker: a line holding it is logged with it blotted out (a tool that writes it to fd 2,
    or a C library that does, must not put it in the log, its file, or after-client.log)."""

    __slots__ = ("module", "pending", "logged", "dropped", "hidden", "flood_mark", "on_flood", "read", "flooded")

    def __init__(self, module: str, flood_mark: int | None = None, on_flood: Callable[[], None] | None = None) -> None:
        self.module = module
        self.pending = b""
        self.logged = 0
        self.dropped = 0
        # Replaced whole, never changed in place: read on the log's thread, added to on the loop's.
        self.hidden: tuple[str, ...] = ()
        # Past ``flood_mark`` bytes the worker is flooding its fd 1 or 2 (os.write, a C library):
        # ``on_flood`` is called once, on this thread, to stop it. Reading and dropping a flood
        # cost the server a core for as long as it went on (until the call's time limit, or the
        # worker's retirement for a thread that flooded after its call returned).
        self.flood_mark = flood_mark
        self.on_flood = on_flood
        self.read = 0
        self.flooded = False

    def hide(self, secret: str) -> None:
        if secret not in self.hidden:
            # Raw writes to fd 2 carry a secret as written; JSON's forms are for results.
            self.hidden = tuple(written_forms((*self.hidden, secret), as_json=False))

    def feed(self, data: bytes) -> None:
        self.read += len(data)
        if self.flood_mark is not None and self.read > self.flood_mark and not self.flooded:
            self.flooded = True
            logger.warning("%s: its worker went on writing to stdout or stderr past %d bytes; it was stopped",
                           self.module, self.flood_mark)
            if self.on_flood is not None:
                self.on_flood()
        if self.flooded:
            self.dropped += len(data)
            return
        lines = (self.pending + data).split(b"\n")
        self.pending = lines.pop()
        # A line too long to wait for is logged in pieces; a credential must not be cut in two
        # by that, so each piece is blotted whole before it is cut, and the last bytes that
        # could begin one stay pending until the rest comes.
        hidden = [secret.encode() for secret in self.hidden]
        keep = max((len(secret) for secret in hidden), default=1) - 1
        if len(self.pending) > _LINE_BYTES + keep:
            for secret in hidden:
                self.pending = self.pending.replace(secret, CREDENTIAL_HIDDEN.encode())
            while len(self.pending) > _LINE_BYTES + keep:
                lines.append(self.pending[:_LINE_BYTES])
                self.pending = self.pending[_LINE_BYTES:]
        for line in lines:
            self._log(line)

    def end(self) -> None:
        if self.pending:
            self._log(self.pending)
        if self.dropped:
            # Its stdout (fd 1, which prints and C code reach) goes to the same log.
            logger.warning("%s: its worker wrote %d more bytes to stderr or stdout, past %d; they were dropped",
                           self.module, self.dropped, LIMIT_BYTES)

    def _log(self, line: bytes) -> None:
        if self.logged + len(line) > LIMIT_BYTES:
            self.dropped += len(line) + 1
            return
        self.logged += len(line) + 1
        text = line.decode("utf-8", "replace").rstrip("\r")
        text = blot(text, self.hidden)
        # Its stdout goes there too (file descriptor 1 is the worker's stderr): "output", not "stderr".
        logger.info("%s (output): %s", self.module, text)


class _WorkerEnd(NamedTuple):
    """A worker's pidfd among the pipes: readable once the worker has ended."""

    pid: int


class StderrLog:
    """One thread that reads the pipes given to ``watch`` until each ends, and logs them; and sees
    the workers end."""

    def __init__(self) -> None:
        self._added: queue.SimpleQueue[tuple[int, StderrSource | _WorkerEnd]] = queue.SimpleQueue()
        self._wake_read, self._wake_write = os.pipe()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, fd: int, module: str, flood_mark: int | None = None,
              on_flood: Callable[[], None] | None = None, pid: int | None = None) -> StderrSource:
        """Reads ``fd`` (the read end of a worker's stderr pipe, now this object's to close);
        ``on_flood``: see ``StderrSource``. ``pid``: the worker, whose process group is killed
        as soon as it ends (seen through a pidfd, where the system has them): what it started
        would hold its pipes open, and the call waiting on them would wait for nothing."""
        source = StderrSource(module, flood_mark, on_flood)
        self._added.put((fd, source))
        if pid is not None:
            with contextlib.suppress(AttributeError, OSError):  # no pidfds (not Linux 5.3 or later)
                self._added.put((os.pidfd_open(pid), _WorkerEnd(pid)))
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="toolbay-worker-stderr", daemon=True)
                self._thread.start()
        os.write(self._wake_write, b"\0")  # the selector learns of the new pipe at once
        return source

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._wake_read, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fd == self._wake_read:
                    os.read(self._wake_read, 4096)
                    while not self._added.empty():
                        fd, source = self._added.get()
                        selector.register(fd, selectors.EVENT_READ, source)
                    continue
                if isinstance(key.data, _WorkerEnd):  # the worker has ended: so does what it started
                    selector.unregister(key.fd)
                    os.close(key.fd)
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(key.data.pid, signal.SIGKILL)
                    continue
                try:
                    data = os.read(key.fd, 65536)
                except OSError:
                    data = b""
                if data:
                    key.data.feed(data)
                    continue
                selector.unregister(key.fd)
                os.close(key.fd)
                key.data.end()


_shared: StderrLog | None = None
_shared_lock = threading.Lock()


def stderr_log() -> StderrLog:
    """The process's one ``StderrLog``."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = StderrLog()
        return _shared
