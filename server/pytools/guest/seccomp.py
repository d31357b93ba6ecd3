"""A seccomp filter for the worker: what Landlock does not govern, refused by system call.

Landlock rules which files a worker may open, make and remove, but not changes to a file's
metadata: a worker confined to read its workspace could still ``chmod``, ``chown``, ``utime``
or set extended attributes on any file the server's user may change (as root, anything: a
system binary made setuid, the server's tokens file made unreadable). Nor does it govern
``connect`` to a UNIX socket file, so a worker without network could still talk to any local
service listening on one (a container runtime's socket, a database, an ssh agent).

Nor does anything keep the processes a tool starts in the worker's process group, which the
server kills when a call is cancelled or overruns, or the server stops: one that called
``setsid`` (a double fork, as a daemon does) went on after all of them.

The filter refuses, with EPERM:
- for every confined worker: changing a file's owner (``chown`` and kin) and its extended
  attributes (``setxattr``, ``removexattr`` and kin), leaving the process group (``setsid``,
  ``setpgid``: ``start_new_session`` and ``process_group`` of ``subprocess`` fail), and making
  UNIX-domain sockets unless the module may use the network (``socketpair``, which asyncio's
  loop uses, is left alone), io_uring (whose operations the kernel runs past the filter:
  a socket, a connect, a setxattr), and new namespaces: ``unshare``, and ``clone`` with a
  ``CLONE_NEW*`` flag (a user namespace is kernel surface no tool needs); ``clone3``, whose
  flags the filter cannot read, is answered ENOSYS, so that glibc falls back to ``clone``;
- for a worker that may not write: changing a file's mode (``chmod`` and kin) and times
  (``utime`` and kin) too. A worker that may write keeps those, since ``shutil.copy`` and
  ``copy2`` set them on what they write; a system call cannot be limited to some folders.

Any system call of another architecture than the worker's own (the 32-bit ABIs on x86-64) is
refused whole, so the table cannot be sidestepped. Written by hand, like ``landlock``: the
worker runs it before any third-party import. The numbers are the kernel's UAPI
(``linux/filter.h``, ``linux/seccomp.h``, ``linux/audit.h``, each architecture's syscall table).
"""

from __future__ import annotations

import ctypes
import os

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_RET_ENOSYS = 0x00050000 | 38
_JSET_K = 0x45
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_AF_UNIX = 1
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (linux/sched.h).
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
_NR, _ARCH, _ARG0 = 0, 4, 16

# Per architecture: (AUDIT_ARCH_*, the first number of another ABI sharing it, or 0, system calls).
_OWNER_AND_XATTR = ("chown", "fchown", "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr",
                    "removexattr", "lremovexattr", "fremovexattr", "setxattrat", "removexattrat")
# Leaving the worker's process group or session: the server kills the group when the call is
# cancelled, overruns, or the server stops, and a process started with setsid would go on.
_LEAVING_THE_GROUP = ("setsid", "setpgid")
# Doors past the filter itself: io_uring runs socket(), connect() and setxattr() inside the
# kernel, where no filter sees them (an outside check reached a UNIX socket file from a read
# tool, and set security.capability on a binary, so); a new user namespace is a kernel surface
# no tool needs.
_SIDE_DOORS = ("io_uring_setup", "io_uring_enter", "io_uring_register", "unshare")
_MODE_AND_TIMES = ("chmod", "fchmod", "fchmodat", "fchmodat2", "utime", "utimes", "futimesat", "utimensat")
_TABLES: dict[str, tuple[int, int, dict[str, int]]] = {
    "x86_64": (0xC000003E, 0x40000000, {  # x32's numbers start at 0x40000000
        "socket": 41, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94, "utime": 132,
        "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198,
        "fremovexattr": 199, "utimes": 235, "fchownat": 260, "futimesat": 261, "fchmodat": 268,
        "utimensat": 280, "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466, "setpgid": 109,
        "setsid": 112, "clone": 56, "clone3": 435, "unshare": 272,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}),
    "aarch64": (0xC00000B7, 0, {
        "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
        "fremovexattr": 16, "fchmod": 52, "fchmodat": 53, "fchownat": 54, "fchown": 55, "utimensat": 88,
        "socket": 198, "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466, "setpgid": 154,
        "setsid": 157, "clone": 220, "clone3": 435, "unshare": 97,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}),
}


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def refused_calls(*, may_write: bool, network: bool) -> list[str]:
    """The system calls the filter refuses (``socket`` only for UNIX-domain sockets)."""
    names = [*_OWNER_AND_XATTR, *_LEAVING_THE_GROUP, *_SIDE_DOORS]
    if not may_write:
        names += _MODE_AND_TIMES
    if not network:
        names.append("socket")
    return names


def program(machine: str, *, may_write: bool, network: bool) -> list[tuple[int, int, int, int]] | None:
    """The filter as (code, jt, jf, k) instructions; None on an architecture it does not know."""
    table = _TABLES.get(machine)
    if table is None:
        return None
    arch, other_abi, numbers = table
    refused = [numbers[name] for name in refused_calls(may_write=may_write, network=network)
               if name in numbers and name != "socket"]
    socket_checked = not network and "socket" in numbers
    # Written with named places to jump to ("refuse"), resolved into offsets at the end (each
    # jump counts from the instruction after it). An entry: (code, true place, false place, k),
    # a place being a name or None (the next instruction); or a name alone, marking its place.
    body: list[tuple[int, str | None, str | None, int] | str] = [
        (_LD_W_ABS, None, None, _ARCH), (_JEQ_K, None, "refuse", arch), (_LD_W_ABS, None, None, _NR)]
    if other_abi:
        body.append((_JGE_K, "refuse", None, other_abi))
    body += [(_JEQ_K, "refuse", None, number) for number in refused]
    if socket_checked:
        body.append((_JEQ_K, "socket", None, numbers["socket"]))
    body += [(_JEQ_K, "clone", None, numbers["clone"]), (_JEQ_K, "nosys", None, numbers["clone3"]),
             (_RET_K, None, None, _RET_ALLOW)]
    if socket_checked:
        # The family, in the low half on a little-endian machine.
        body += ["socket", (_LD_W_ABS, None, None, _ARG0), (_JEQ_K, "refuse", None, _AF_UNIX),
                 (_RET_K, None, None, _RET_ALLOW)]
    # clone's flags (its first argument on both architectures): no new namespace, a user
    # namespace above all (unshare's refusal was sidestepped so). clone3 keeps its flags in
    # memory the filter cannot read: refused as unknown (ENOSYS), glibc then uses clone.
    body += ["clone", (_LD_W_ABS, None, None, _ARG0), (_JSET_K, "refuse", None, _CLONE_NEW),
             (_RET_K, None, None, _RET_ALLOW), "nosys", (_RET_K, None, None, _RET_ENOSYS),
             "refuse", (_RET_K, None, None, _RET_EPERM)]
    places: dict[str, int] = {}
    instructions: list[tuple[int, str | None, str | None, int]] = []
    for entry in body:
        if isinstance(entry, str):
            places[entry] = len(instructions)
        else:
            instructions.append(entry)

    def offset(at: int, place: str | None) -> int:
        return 0 if place is None else places[place] - at - 1

    return [(code, offset(at, true), offset(at, false), k)
            for at, (code, true, false, k) in enumerate(instructions)]


def install(*, may_write: bool, network: bool) -> bool:
    """Installs the filter on this process and its future children, for good; False where the
    architecture is not known. Raises OSError when the kernel refuses it."""
    # platform.machine(), without importing platform (see landlock.abi_version).
    instructions = program(os.uname().machine, may_write=may_write, network=network)
    if instructions is None:
        return False
    array = (_Instruction * len(instructions))(*(_Instruction(*each) for each in instructions))
    prog = _Program(len(instructions), ctypes.cast(array, ctypes.POINTER(_Instruction)))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
    return True
