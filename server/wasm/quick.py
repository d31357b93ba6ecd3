"""Which calls run on the event loop's own thread instead of a worker thread.

Handing a run to a worker thread and its result back costs two cross-CPU wake-ups: on the
small virtual machines this server often runs on, 0.15 to 0.25 ms, more than a small tool's
whole sandboxed run. So a tool runs on the calling thread, under a budget
(``WasmRuntime.run_quick``), until it shows it is not quick: a run there that takes more
than ``QUICK_CPU_S`` of processor time or ``QUICK_WALL_S`` in all sends it to workers, and
one that outlives the budget is stopped, is void, and runs again on a worker. Back on
workers, the tool must prove itself quick again (that many quick runs in a row), for twice as
many runs after each overrun. A tool whose speed depends on
its input so costs at most one budget now and then, and a slow tool never blocks the loop for
long. Tools start trusted: timing a first run on a worker would say little, as under load a
worker's run waits for the interpreter lock as much as it runs.

Only tools that cannot write files are run this way, as a void run must have changed nothing.
"""

from __future__ import annotations

# A run counts as quick within both: processor time (what the run costs the loop, untouched by
# preemption) and wall time (a guest that sleeps costs no processor but holds the loop).
QUICK_CPU_S = 0.001
QUICK_WALL_S = 0.005


def is_quick(duration_s: float, cpu_s: float) -> bool:
    return cpu_s <= QUICK_CPU_S and duration_s <= QUICK_WALL_S
# Quick runs in a row on workers before a tool that was slow runs on the calling thread again.
FIRST_PROOF = 3
MAX_PROOF = 1024


class QuickRunRecord:
    """One tool's recent pace. Used from the event loop only."""

    __slots__ = ("_needed", "_streak")

    def __init__(self) -> None:
        self._streak = 0
        self._needed = 0

    @property
    def trusted(self) -> bool:
        """True when the tool may run on the calling thread."""
        return self._streak >= self._needed

    def ran_here(self, duration_s: float, cpu_s: float) -> None:
        """A run on the calling thread took this long: too long, and the tool goes to workers."""
        if is_quick(duration_s, cpu_s):
            self._streak += 1
        else:
            self._streak = 0
            self._needed = max(self._needed, FIRST_PROOF)

    def ran_on_worker(self, duration_s: float, cpu_s: float) -> None:
        """A run on a worker took this long. Only ever counts for the tool: a worker's run
        also waits for the interpreter lock, so a slow one proves little."""
        self._streak = self._streak + 1 if is_quick(duration_s, cpu_s) else 0

    def overran(self) -> None:
        """A run on the calling thread outlived its budget."""
        self._streak = 0
        self._needed = min(max(self._needed * 2, FIRST_PROOF), MAX_PROOF)
