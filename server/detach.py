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

import ctypes
import logging
import os
import signal
import sys
from pathlib import Path

from toolbay.protocol.standard_fds import can_serve_on_loop

logger = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
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
    parent never returns: it exits with the child's status."""
    if not sys.platform.startswith("linux") or not can_serve_on_loop():
        return
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        os.setsid()
        if not _die_with_parent(signal.SIGKILL) or os.getppid() != parent:
            os._exit(1)  # could not tie itself to the parent, or the parent is gone already
        return
    # The parent holds none of the client's pipes, so that the client sees the server's end
    # when the child closes them.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child decides when to stop
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
    null = os.open(os.devnull, os.O_RDWR)
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
