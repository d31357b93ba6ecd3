"""Which calls run on the event loop's own thread instead of a worker thread.

Handing a run to a worker thread and its result back costs two cross-CPU wake-ups: on the
small virtual machines this server often runs on, 0.15 to 0.25 ms, more than a small tool's
whole sandboxed run. So a tool runs on the calling thread, under a budget
(``WasmRuntime.run_quick``), until it shows it is not quick: a run there that takes more
than ``QUICK_CPU_S`` of processor time, or ``QUICK_OWN_S`` of processor time and sleep
together, sends it to workers, and one that outlives the budget is stopped, is void, and
runs again on a worker.

Every judgement is made on the time the run itself used (its thread's processor time, and
its sleeps in ``poll_oneoff``), never on the wall clock: on a busy machine a run may be
descheduled, or wait for the interpreter lock, for longer than it runs, and a quick tool
must not lose its place for that. Back on
workers, the tool must prove itself quick again (that many quick runs in a row), for twice as
many runs after each overrun. A tool whose speed depends on
its input so costs at most one budget now and then, and a slow tool never blocks the loop for
long. Tools start trusted: timing a first run on a worker would say little, as under load a
worker's run waits for the interpreter lock as much as it runs.

Only tools that cannot write files are run this way, as a void run must have changed nothing.
"""

from __future__ import annotations

# A run counts as quick within both: processor time (what the run costs the loop, untouched by
# preemption) and processor time with sleeps (a guest that sleeps costs no processor but holds
# the loop). 2 ms, not less: the same small run's processor time varies two- to threefold on a
# busy shared machine (cold caches after being descheduled, a sibling thread on the core), and a
# tool that is quick on a quiet machine must stay quick there.
QUICK_CPU_S = 0.002
QUICK_OWN_S = 0.005


def is_quick(cpu_s: float, waited_s: float) -> bool:
    return cpu_s <= QUICK_CPU_S and cpu_s + waited_s <= QUICK_OWN_S

# Quick runs in a row on workers before a tool that was slow runs on the calling thread again.
FIRST_PROOF = 3
MAX_PROOF = 1024


class QuickRunRecord:
    """One tool's recent pace. Used from the event loop only."""

    __slots__ = ("_needed", "_streak", "_slow_once")

    def __init__(self) -> None:
        self._streak = 0
        self._needed = 0
        self._slow_once = False

    @property
    def trusted(self) -> bool:
        """True when the tool may run on the calling thread."""
        return self._streak >= self._needed

    def ran_here(self, cpu_s: float, waited_s: float) -> None:
        """A run on the calling thread used this much processor time and slept this long: too
        much twice in a row, and the tool goes to workers. Once is not enough: on a crowded
        virtual machine one run's processor time is now and then inflated several times over
        (time stolen from the machine is charged to whatever ran), and a quick tool must not
        leave the loop for that; a slow tool costs the loop one run more, within its budget."""
        if is_quick(cpu_s, waited_s):
            self._streak += 1
            self._slow_once = False
        elif not self._slow_once:
            self._slow_once = True
        else:
            self._slow_once = False
            self._streak = 0
            self._needed = max(self._needed, FIRST_PROOF)

    def ran_on_worker(self, cpu_s: float, waited_s: float) -> None:
        """A run on a worker used this much processor time and slept this long."""
        self._streak = self._streak + 1 if is_quick(cpu_s, waited_s) else 0

    def overran(self) -> None:
        """A run on the calling thread outlived its budget."""
        self._slow_once = False
        self._streak = 0
        self._needed = min(max(self._needed * 2, FIRST_PROOF), MAX_PROOF)
