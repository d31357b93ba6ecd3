"""A guest's standard output and error through pipes instead of Python callbacks.

wasmtime offers three places for a guest's stdout: inherit, a file path, or a custom
callback. The callback costs about a quarter of a millisecond per call (wasmtime hands every
write over to a helper thread that calls back into Python, and tears it down with the store),
more than instantiating and running a small tool. A file path costs a few microseconds, but a
file would take whatever a runaway guest prints. A pipe gets both: wasmtime opens it by path
like a file (``/proc/self/fd/N`` of a pipe's write end opens that pipe), and the pipe holds
at most its capacity (1 MiB where the system allows) until it is read. No file is made, so
nothing is left behind and no temp-folder cleaner can pull a pipe from under a call.

Each run borrows a pair of pipes from a pool (their read ends stay open, non-blocking). After
``_start`` returns, everything the guest wrote is already in the pipe and is read into the
run's ``CappedOutput``. A guest that prints more than the pipe holds blocks in its write until
the epoch ticker, which wakes every tick while guests run, drains the pipes of running calls.
So a flood is read at pipe-capacity per tick, kept up to the output limit and dropped beyond
it, and the guest, back in wasm code, still stops at its deadline.

Where pipes can't be opened by path (no ``/proc``) the runtime keeps using callbacks
(``make_pipe_pool`` returns ``None``).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading

from toolbay.wasm.streams import Sink

log = logging.getLogger(__name__)

# Linux's F_SETPIPE_SZ (not exported by the fcntl module before Python 3.10 on every platform).
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PIPE_CAPACITY = 1024 * 1024
_READ_CHUNK = 64 * 1024
_FD_FOLDER = "/proc/self/fd"  # below malloc's mmap threshold, so reads don't map and unmap memory


class OutputPipe:
    """One pipe: wasmtime opens ``path`` for the guest; ``fd`` is the read end."""

    def __init__(self) -> None:
        self.fd, self._write_fd = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self.fd, False)  # the write end (and what wasmtime opens) stays blocking
        self.path = f"{_FD_FOLDER}/{self._write_fd}"
        with contextlib.suppress(OSError):  # a smaller pipe only means more frequent draining
            fcntl.fcntl(self.fd, _F_SETPIPE_SZ, PIPE_CAPACITY)
        self._buffer = bytearray(_READ_CHUNK)
        self._lock = threading.Lock()
        self._sink: Sink | None = None

    def attach(self, sink: Sink) -> None:
        # Empty: ``detach`` read the last run's output to the end once its store was gone.
        with self._lock:
            self._sink = sink

    def drain(self) -> None:
        """Reads what is in the pipe now into the attached sink (from any thread).

        It stops at the first read that leaves the pipe empty rather than chasing a guest that
        is still writing: chasing turns a flood into many reads of a few hundred bytes each (a
        sink call each, a progress report each) instead of one read per 64 KiB."""
        with self._lock:
            sink = self._sink
            if sink is not None:
                self._read_available(sink, until_short_read=True)

    def detach(self) -> None:
        """Reads the rest into the sink and lets it go; the pipe is ready for another run.
        Called once the run's store is gone: nobody writes any more, so the first read that
        does not fill the buffer has emptied the pipe (sparing a read that would find it so)."""
        with self._lock:
            if self._sink is not None:
                self._read_available(self._sink, until_short_read=True)
            self._sink = None

    def drain_into(self, sink: Sink | None) -> None:
        with self._lock:
            self._read_available(sink)

    def _read_available(self, sink: Sink | None, *, until_short_read: bool = False) -> None:
        view = memoryview(self._buffer)
        while True:
            try:
                count = os.readv(self.fd, [self._buffer])
            except BlockingIOError:  # empty, and a writer is still open
                return
            if count == 0:  # empty, and no writer
                return
            if sink is not None:
                sink.write(view[:count])
            if until_short_read and count < len(self._buffer):
                return

    def close(self) -> None:
        for fd in (self.fd, self._write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class PipePool:
    """Pipe pairs for stdout and stderr, made as concurrency needs them and reused."""

    def __init__(self) -> None:
        self._free: list[tuple[OutputPipe, OutputPipe]] = []
        self._busy: set[tuple[OutputPipe, OutputPipe]] = set()
        self._lock = threading.Lock()
        self._closed = False

    def acquire(self, stdout: Sink, stderr: Sink) -> tuple[OutputPipe, OutputPipe]:
        with self._lock:
            if self._closed:
                raise RuntimeError("the wasm runtime is closed")
            pair = self._free.pop() if self._free else None
        if pair is None:
            pair = (OutputPipe(), OutputPipe())
        pair[0].attach(stdout)
        pair[1].attach(stderr)
        with self._lock:
            self._busy.add(pair)
        return pair

    def release(self, pair: tuple[OutputPipe, OutputPipe]) -> None:
        with self._lock:
            self._busy.discard(pair)
        for pipe in pair:
            pipe.detach()
        with self._lock:
            if self._closed:
                for pipe in pair:
                    pipe.close()
            else:
                self._free.append(pair)

    def drain_busy(self) -> None:
        """Called by the epoch ticker at every tick, so that no guest waits long on a full pipe."""
        with self._lock:
            busy = list(self._busy)
        for stdout, stderr in busy:
            stdout.drain()
            stderr.drain()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            free, self._free = self._free, []
        for pair in free:
            for pipe in pair:
                pipe.close()


def make_pipe_pool() -> PipePool | None:
    """A pool, or ``None`` where a pipe can't be opened by path (the runtime uses callbacks)."""
    try:
        probe = OutputPipe()
    except (OSError, AttributeError):  # AttributeError: no os.pipe2 (not Linux)
        return None
    try:
        with open(probe.path, "wb", buffering=0) as reopened:
            reopened.write(b"?")
        probe.drain_into(None)
    except OSError as error:
        log.info("guest output goes through callbacks (slower): pipes can't be opened by path (%s)", error)
        return None
    finally:
        probe.close()
    return PipePool()
