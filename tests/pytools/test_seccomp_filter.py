"""The worker's seccomp filter, run through a small interpreter of the classic BPF it is made of,
for each architecture it knows (the confinement tests run it in the kernel on this one)."""

from __future__ import annotations

import pytest

from toolbay.pytools.guest import seccomp

ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050001, 0x00050026
AF_UNIX, AF_INET = 1, 2


def run(program: list[tuple[int, int, int, int]], arch: int, nr: int, arg0: int = 0) -> int:
    """What the filter answers for one system call (only the instructions it uses)."""
    data = {0: nr, 4: arch, 16: arg0}
    accumulator, at = 0, 0
    while True:
        code, jt, jf, k = program[at]
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            accumulator = data[k]
        elif code in (0x15, 0x35, 0x45):  # BPF_JMP | BPF_JEQ / BPF_JGE / BPF_JSET | BPF_K
            taken = accumulator == k if code == 0x15 else accumulator >= k if code == 0x35 else bool(accumulator & k)
            at += jt if taken else jf
        elif code == 0x06:  # BPF_RET | BPF_K
            return k
        else:
            raise AssertionError(f"unexpected instruction {code:#x}")
        at += 1


@pytest.mark.parametrize(("machine", "arch", "calls"), [
    ("x86_64", 0xC000003E, {"chmod": 90, "fchmodat": 268, "chown": 92, "fchownat": 260, "utimensat": 280,
                            "setxattr": 188, "fremovexattr": 199, "socket": 41, "read": 0, "openat": 257,
                            "socketpair": 53, "kill": 62, "setsid": 112, "setpgid": 109, "unshare": 272,
                            "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "clone": 56}),
    ("aarch64", 0xC00000B7, {"fchmodat": 53, "fchownat": 54, "utimensat": 88, "setxattr": 5,
                             "fremovexattr": 16, "socket": 198, "read": 63, "openat": 56, "socketpair": 199,
                             "kill": 129, "setsid": 157, "setpgid": 154, "unshare": 97, "io_uring_setup": 425,
                             "io_uring_enter": 426, "io_uring_register": 427, "clone": 220}),
])
@pytest.mark.parametrize("may_write", [False, True])
@pytest.mark.parametrize("network", [False, True])
def test_the_filter_refuses_what_the_tier_may_not_do_and_nothing_else(
        machine: str, arch: int, calls: dict[str, int], may_write: bool, network: bool) -> None:
    program = seccomp.program(machine, may_write=may_write, network=network)
    assert program is not None
    refused = set(seccomp.refused_calls(may_write=may_write, network=network))
    for name, nr in calls.items():
        expected = EPERM if name in refused and name != "socket" else ALLOW
        assert run(program, arch, nr) == expected, name
    unix = run(program, arch, calls["socket"], AF_UNIX)
    assert unix == (ALLOW if network else EPERM)
    assert run(program, arch, calls["socket"], AF_INET) == ALLOW
    assert run(program, arch ^ 0x80000000, calls["read"]) == EPERM  # another ABI's calls, whole
    # clone: a thread or a process, yes; a new namespace, no (unshare's refusal was sidestepped so)
    thread = 0x3D0F00  # CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | ..., as glibc's
    assert run(program, arch, calls["clone"], thread) == ALLOW
    assert run(program, arch, calls["clone"], 17) == ALLOW  # SIGCHLD alone: fork
    for new in (0x10000000, 0x20000000, 0x40000000, 0x00020000, 0x04000000):  # USER, PID, NET, NS, UTS
        assert run(program, arch, calls["clone"], new | 17) == EPERM
    assert run(program, arch, 435) == ENOSYS  # clone3: glibc falls back to clone
    if machine == "x86_64":
        assert run(program, arch, 0x40000000 | 90) == EPERM  # x32's chmod


def test_an_unknown_architecture_gets_no_filter_rather_than_a_wrong_one() -> None:
    assert seccomp.program("riscv64", may_write=False, network=False) is None
