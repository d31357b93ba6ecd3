"""Landlock through its three system calls (Linux 5.13+), for the worker to confine itself.

Why not a packaged binding: the one on the package index is a pre-release that covers file
rules only; the worker also needs TCP rules (ABI 4) and scoping (ABI 6), and runs before any
third-party import. The numbers below are the kernel's UAPI (``linux/landlock.h``).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Collection

_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
_PR_SET_NO_NEW_PRIVS = 38
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 16, 32, 64, 128, 256
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM, REFER, TRUNCATE, IOCTL_DEV = 512, 1024, 2048, 4096, 8192, 16384, 32768
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2

FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    # os.uname().machine is what platform.machine() says on Linux, without importing platform
    # (2-3 ms of processor time of every worker's start).
    numbers = _SYSCALLS.get(os.uname().machine)
    if numbers is None:
        return 0
    version = _libc.syscall(numbers[0], None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def all_fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read: list[str], write: list[str], *, block_tcp: bool,
             no_links: Collection[str] = ()) -> dict[str, object]:
    """Confines this process (and its children, for good): files only under ``read``
    (read-only) and ``write`` (read-write, but no symbolic links made under those also in
    ``no_links``); no TCP bind or connect when ``block_tcp`` and the kernel can (ABI 4); no
    signals or abstract sockets outside (ABI 6). Returns what is enforced."""
    abi = abi_version()
    if abi < 1:
        return {"files": False, "tcp": False, "abi": 0}
    syscall_create, syscall_add, syscall_restrict = _SYSCALLS[os.uname().machine]
    fs_rights = all_fs_rights(abi)
    attr = _Ruleset(handled_access_fs=fs_rights)
    size = 8
    tcp = block_tcp and abi >= 4
    if tcp:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
    if abi >= 4:
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = _libc.syscall(syscall_create, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        # No device nodes anywhere, writable folders included: a node of /dev/kmsg made in the
        # worker's temp folder read and wrote the kernel's log, which Landlock refused by its path.
        for paths, rights in ((read, READ_RIGHTS), (write, fs_rights & ~(MAKE_CHAR | MAKE_BLOCK))):
            for path in paths:
                granted = rights & ~MAKE_SYM if path in no_links else rights
                _allow(syscall_add, ruleset, path, granted & fs_rights)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if _libc.syscall(syscall_restrict, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return {"files": True, "tcp": tcp, "abi": abi}


def _allow(syscall_add: int, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist grants nothing
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(allowed_access=rights, parent_fd=fd)
        if _libc.syscall(syscall_add, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)
