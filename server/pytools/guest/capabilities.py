"""Dropping the worker's capabilities: what a server run as root would otherwise hand it.

A worker of a server run as root (a container's usual user) kept every capability root has:
Landlock and the seccomp filter confine files, sockets and a few system calls, but not what a
capability grants outside them. An outside check, from a read tool: a device node made in its
temp folder (CAP_MKNOD) read the kernel's log; the machine's host name changed (CAP_SYS_ADMIN,
in the machine's own namespace); a watch on the whole disk named files made anywhere
(fanotify); the right to reboot was held.

So the worker keeps only CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, which let root read and
write files whatever their owner (a workspace of another user's files), within what Landlock
grants: they are dropped from the bounding set (no program it runs gets them back), from the
ambient set, and from its own sets (``capset``). Written by hand, like ``landlock`` and
``seccomp``: the worker runs it before any third-party import. The numbers are the kernel's
UAPI (``linux/capability.h``, ``linux/prctl.h``).
"""

from __future__ import annotations

import ctypes

_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_VERSION_3 = 0x20080522
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
KEPT = frozenset({CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
            return int(last.read())
    except (OSError, ValueError):
        return 63


def held() -> int:
    """The effective set of this process, as a bit mask."""
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = _Header(_VERSION_3, 0), (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    return data[0].effective | (data[1].effective << 32)


def drop(kept: frozenset[int] = KEPT) -> int:
    """Drops every capability but ``kept`` from this process and whatever it starts, for good;
    returns the effective set left. Raises OSError when the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(_last_capability() + 1):
        # Past CAP_SETPCAP's drop below, this would fail: the bounding set goes first. Without
        # CAP_SETPCAP (a server not run as root) there is nothing in it to fear.
        if capability not in kept and libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            break
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _Header(_VERSION_3, 0), (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    mask = sum(1 << capability for capability in kept)
    for half, word in enumerate(data):
        keep = (mask >> (32 * half)) & 0xFFFFFFFF
        word.effective &= keep
        word.permitted &= keep
        word.inheritable = 0
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    return held()
