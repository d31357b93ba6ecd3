"""A cap on how many processes a Python tool runs at once (``[python] max_processes``).

Why the server watches rather than the kernel: ``RLIMIT_NPROC`` does not bind root (the
Dockerfile's user) and otherwise counts every process of the server's user, the server's own
included; a cgroup's ``pids.max`` needs a cgroup the server may make, which a container
seldom grants. A tool cannot leave its worker's process group (the worker's seccomp filter
refuses ``setsid`` and ``setpgid``), so the processes of that group are the tool's, however
they were started, orphans included; a group over its cap is killed whole (``killpg``, which
a forking process cannot outrun: the kernel refuses a fork while a fatal signal is pending).

Why it costs nothing while nothing forks: counting a group's processes reads every
``/proc/PID/stat``. One thread for the whole server reads instead the machine's count of
tasks (the fourth field of ``/proc/loadavg``, one small read) every ``TICK_S``, and counts the
groups only when that has grown by more than the room the fullest group had at the last count.
A fork bomb is found within a tick or two, at a few hundred processes at most.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading

logger = logging.getLogger(__name__)

TICK_S = 0.05


def tasks_on_the_machine() -> int | None:
    """Processes and threads the kernel has now (``/proc/loadavg``: ``running/total``)."""
    try:
        with open("/proc/loadavg", "rb") as loadavg:
            return int(loadavg.read().split()[3].split(b"/")[1])
    except (OSError, ValueError, IndexError):
        return None


def processes_by_group(groups: set[int]) -> dict[int, int]:
    """How many processes each of ``groups`` (process group ids) has now, zombies included."""
    counts = dict.fromkeys(groups, 0)
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    data = stat.read()
                # After the name, which may hold spaces and parentheses: state, ppid, pgrp.
                group = int(data[data.rindex(b")") + 2:].split(b" ", 3)[2])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
            if group in counts:
                counts[group] += 1
    return counts


class ProcessCap:
    """The process groups of the live workers, each with its cap, watched by one thread."""

    def __init__(self, tick_s: float = TICK_S) -> None:
        self.tick_s = tick_s
        self._caps: dict[int, int] = {}  # group -> most processes it may have
        self._crowded: dict[int, int] = {}  # group -> processes it had when it was killed
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._thread: threading.Thread | None = None
        self.counts = 0  # how many times the groups were counted (for tests and benchmarks)

    def watch(self, group: int, most: int) -> None:
        """Caps ``group`` (a worker's pid, which leads its group) at ``most`` processes."""
        with self._lock:
            self._caps[group] = most
            self._crowded.pop(group, None)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="python process cap", daemon=True)
                self._thread.start()
        self._changed.set()  # counted at the next tick: what it starts with is its own

    def forget(self, group: int) -> None:
        with self._lock:
            self._caps.pop(group, None)
            self._crowded.pop(group, None)

    def crowded(self, group: int) -> int | None:
        """The processes ``group`` had when it was killed for having too many; None if it was not."""
        with self._lock:
            return self._crowded.get(group)

    def _run(self) -> None:
        baseline, room = 0, 0
        while True:
            with self._lock:
                idle = not self._caps
            if idle:
                self._changed.wait()
            else:
                self._changed.wait(self.tick_s)
            recount = self._changed.is_set()
            self._changed.clear()
            total = tasks_on_the_machine()
            if total is None:
                recount = True
            else:
                baseline = min(baseline, total)  # what ended since makes room too
                recount = recount or total - baseline > room
            if recount:
                baseline, room = total or 0, self._count_and_kill()

    def _count_and_kill(self) -> int:
        """Counts every capped group, kills those over their cap; the least room any has left."""
        with self._lock:
            caps = dict(self._caps)
        if not caps:
            return 0
        self.counts += 1
        counts = processes_by_group(set(caps))
        room = min(caps[group] - count for group, count in counts.items())
        for group, count in counts.items():
            if count > caps[group]:
                with self._lock:
                    if group in self._caps:
                        self._crowded[group] = count
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
                logger.warning("a Python tool's worker ran %d processes, over [python] max_processes (%d): "
                               "killed with all it started", count, caps[group])
        return max(room, 0)


# One for the server: the thread is started by the first worker.
PROCESS_CAP = ProcessCap()
