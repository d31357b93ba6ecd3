"""What this process's standard input and output are, without the MCP SDK: ``serve`` asks
before it forks (``toolbay.detach``), long before the SDK is loaded."""

from __future__ import annotations

import os
import stat


def _is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_file(fd_a: int, fd_b: int) -> bool:
    try:
        a, b = os.fstat(fd_a), os.fstat(fd_b)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def can_serve_on_loop() -> bool:
    """True when fd 0 and fd 1 are pipes or sockets of their own, so making them
    non-blocking affects nobody else (fd 2 sharing fd 1's pipe would see it too)."""
    return _is_pipe_or_socket(0) and _is_pipe_or_socket(1) and not _same_file(1, 2)


def access_mode(fd: int) -> int | None:
    """How ``fd`` is open (``os.O_RDONLY``, ``O_WRONLY`` or ``O_RDWR``); None where that cannot be
    asked (no such descriptor, or Windows, whose handles have no such flags)."""
    try:
        import fcntl  # here: there is none on Windows
    except ImportError:
        return None
    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:
        return None


def input_readable() -> bool:
    """Whether fd 0 is open for reading: ``serve 0>file`` (or ``0>&1``, a pipe's writing end) is
    not, and served on the event loop, which waits for it to be readable, the server waited for ever."""
    if os.name == "nt":
        return True
    mode = access_mode(0)
    return mode is not None and mode != os.O_WRONLY
