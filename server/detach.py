"""A stdio server whose jobs may outlive its client.

An MCP client ends a stdio server by closing its standard input, then signalling the
server's whole process group (SIGTERM, then SIGKILL): nothing in that group outlives it. So
``serve`` over pipes forks at once, before any thread exists: the parent stays in the
client's group and only waits for the child, whose exit status it passes on; the child, in a
session of its own, is the server. While the client is there, the child dies with the parent
(so ``kill -9`` of the server's pid is still a crash); once the client has gone and jobs are
still running, ``stay_after_client`` lets it outlive the parent, finish its jobs (bounded by
``[jobs] drain_s``) and exit. Linux only, and only over pipes of its own (as clients start it): else the server stays
one process.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
from pathlib import Path

from toolbay.null_device import null_descriptor
from toolbay.protocol.standard_fds import can_serve_on_loop

logger = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
# The process this server was forked from (``detach_from_client``), if it was.
_forked_from: int | None = None
# Whether ``detach_from_client`` has been called: the entry point may call it before the
# settings are read, to begin a first start's compiles (``toolbay.first_start``), and
# ``serve`` then calls it again.
_decided = False
# Past this size the log of servers that ran on after their client is started afresh.
AFTER_CLIENT_LOG_MAX_BYTES = 1024 * 1024


def _die_with_parent(sig: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def detach_from_client() -> None:
    """Forks when serving stdio over pipes on Linux; returns in the child (the server). The
    parent never returns: it exits with the child's status. Called again, does nothing."""
    global _decided
    if _decided:
        return
    _decided = True
    if not sys.platform.startswith("linux") or not can_serve_on_loop():
        return
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        os.setsid()
        if not _die_with_parent(signal.SIGKILL) or os.getppid() != parent:
            os._exit(1)  # could not tie itself to the parent, or the parent is gone already
        global _forked_from
        _forked_from = parent
        return
    # The parent holds none of the client's pipes, so that the client sees the server's end
    # when the child closes them. It writes nothing there: a null that fails writes does as well.
    null = null_descriptor()
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)

    def forward(signum: int, frame: object) -> None:
        # The client (or a person with ``kill``) stops the server it started: this process.
        # Killed by the signal, it would take the child with it (SIGKILL): no shutdown, its
        # jobs left "running" until the next start. The child stops as on Ctrl-C instead.
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    # The child runs on without its client (``stay_after_client``): this one ends, and the
    # client sees its server end.
    signal.signal(signal.SIGUSR1, lambda signum, frame: os._exit(0))
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def stay_after_client(log: Path) -> None:
    """The client has gone: outlive the parent (the client will kill it) and let go of the
    client's pipes, so that it sees this server end while the jobs run on. What the server
    writes on stderr from now on (its log) is appended to ``log``: how those jobs ended is
    written somewhere."""
    _die_with_parent(0)
    # The forking parent, if this server was forked and it is still there (never the client,
    # whose own process SIGUSR1 would end): it passes the client's signals on no more.
    if _forked_from is not None and os.getppid() == _forked_from:
        with contextlib.suppress(OSError):
            os.kill(_forked_from, signal.SIGUSR1)
    # Nothing is written on stdout from now on, and stderr is the log where it can be opened.
    null = null_descriptor()
    try:
        if log.stat().st_size > AFTER_CLIENT_LOG_MAX_BYTES:  # one older file kept, no more
            log.replace(log.with_name(log.name + ".1"))
    except OSError:
        pass
    try:
        error = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        error = null
    for fd, target in ((0, null), (1, null), (2, error)):
        os.dup2(target, fd)
    for fd in {null, error}:
        os.close(fd)
