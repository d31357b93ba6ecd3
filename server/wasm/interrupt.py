"""Stopping a guest: wall-clock limits and cancellation.

wasmtime checks an *epoch deadline* at function entries and loop back-edges. A ticker thread
advances the engine's epoch every ``TICK_S`` while any guest runs; every store gets a deadline
of one tick and a callback (the C API's ``wasmtime_store_epoch_deadline_callback``) which, at
each tick, either extends the deadline by one tick or stops the guest because its call was
cancelled or ran out of time. So a guest in wasm code stops within about one tick.

A guest blocked *inside a host call* does not run wasm code and sees no epochs. The only host
call of WASI preview 1 that can block for long here is ``poll_oneoff`` (sleep): stdin is an
in-memory buffer, files are regular files, there are no sockets, and stdout and stderr are
pipes that the ticker drains at every tick (``toolbay.wasm.pipes``) or callbacks.
So ``poll_oneoff`` is replaced by ``poll_oneoff`` below, which sleeps on the call's
cancel event until its timeout, the call's deadline, or a cancellation, whichever comes first.
When the call is to stop, the guest is never told its clock fired: it gets an error, and its
store's deadline is set to the current epoch, so the guest stops at its very next epoch check
instead of a tick later.

A guest can still end between two epoch checks after its call was cancelled or its time ran
out (a run cancelled a millisecond in, then ending on its own within the tick). Such a run is
stopped all the same: ``RunState.reason_at_end`` says so, and the runtime reports it that way,
so a cancelled or timed-out call never reads as the tool's success.

The run's state reaches both callbacks through a thread-local: wasmtime runs the epoch callback
and host functions on the thread that called into the guest.
"""

from __future__ import annotations

import logging
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import wasmtime

from toolbay.internals.wasmtime_capi import EpochWatcher, stop_at_next_check

log = logging.getLogger(__name__)

TICK_S = 0.01
# How long the ticker keeps ticking after the last run ended, before it parks until the next.
TICKER_LINGER_S = 1.0

_ERRNO_INTR = 27
_ERRNO_INVAL = 28
_ERRNO_IO = 29
_ERRNO_NOTSUP = 58
_EVENT = struct.Struct("<QHB5xQH6x")  # userdata, error, type, nbytes, flags: 32 bytes
_SUB_HEAD = struct.Struct("<QB")  # userdata, tag
_SUB_CLOCK = struct.Struct("<I4xQQH")  # clock id, timeout, precision, flags (at offset 16)
_SUB_FD = struct.Struct("<I")
_SUB_SIZE = 48
_TAG_CLOCK, _TAG_FD_READ, _TAG_FD_WRITE = 0, 1, 2
_CLOCK_REALTIME = 0
_ABSTIME = 1


# The stop reason of a run on the caller's thread that outlived its budget (``run_quick``).
OVER_BUDGET = "over its budget on the calling thread"
# A run on the caller's thread is judged by the time it used (its thread's processor time and
# its sleeps), so that a run descheduled by a busy machine keeps its place. Only a run that
# uses little of either for this long, held by something else entirely, is stopped by the clock.
BUDGET_WALL_CAP_S = 1.0


@dataclass(slots=True)
class RunState:
    """What the callbacks need to know about the run on this thread (made on that thread)."""

    deadline: float  # time.monotonic()
    timeout_s: float
    cancel: threading.Event
    stop_reason: str | None = None
    started: float = field(default_factory=time.monotonic)
    cpu_started: float = field(default_factory=time.thread_time)
    # Time the guest spent asleep in ``poll_oneoff``: no processor, but time it chose to take.
    waited_s: float = 0.0
    # A run on the caller's thread is stopped once it has used this much, well before its deadline.
    budget_s: float | None = None
    # Why the run must stop for what it did (its output flooding), asked at every tick: cheap.
    misbehaving: Callable[[], str | None] | None = None

    def used_s(self) -> float:
        """Processor time and sleep of the run so far: what it cost the thread, whatever the
        machine's load. Read on the run's own thread only."""
        return time.thread_time() - self.cpu_started + self.waited_s

    def should_stop(self) -> bool:
        if self.stop_reason is None:
            self.stop_reason = self._reason_now(with_budget=True)
        return self.stop_reason is not None

    def stopped_before_start(self) -> bool:
        """Cancelled or out of time before the guest began (no budget used yet: not asked)."""
        if self.stop_reason is None:
            self.stop_reason = self._reason_now(with_budget=False)
        return self.stop_reason is not None

    def reason_at_end(self) -> str | None:
        """Why the run that has just ended counts as stopped, or ``None`` when it ended on its own.

        A guest may end after its call was cancelled or its time ran out but before an epoch
        check noticed (within one tick): it is stopped all the same, so that a cancelled call
        never reads as a success. The budget is not asked: a quick run that ended is valid.
        """
        if self.stop_reason is None:
            self.stop_reason = self._reason_now(with_budget=False)
        return self.stop_reason

    def _reason_now(self, *, with_budget: bool) -> str | None:
        now = time.monotonic()
        if self.cancel.is_set():
            return "cancelled"
        if now >= self.deadline:
            return f"timed out after {self.timeout_s:g} s"
        if self.misbehaving is not None and (reason := self.misbehaving()) is not None:
            return reason
        if with_budget and self.budget_s is not None and (
                self.used_s() >= self.budget_s or now - self.started >= BUDGET_WALL_CAP_S):
            return OVER_BUDGET
        return None

    def stop_by(self) -> float:
        """When a sleep that starts now must end at the latest, unless the run is cancelled first."""
        if self.budget_s is None:
            return self.deadline
        return min(self.deadline, time.monotonic() + max(0.0, self.budget_s - self.used_s()),
                   self.started + BUDGET_WALL_CAP_S)


_current = threading.local()


def current_state() -> RunState | None:
    return getattr(_current, "state", None)


def set_current_state(state: RunState | None) -> None:
    _current.state = state


def _current_run_should_stop() -> bool:
    state = current_state()
    return state is not None and state.should_stop()


_epochs = EpochWatcher(_current_run_should_stop)


def watch_store(store: wasmtime.Store) -> None:
    """Makes ``store`` check the current thread's ``RunState`` at every epoch tick."""
    _epochs.watch(store)


class EpochTicker:
    """Advances the engines' epochs every ``interval`` seconds while at least one guest runs."""

    def __init__(self, engines: Sequence[wasmtime.Engine], interval: float = TICK_S,
                 on_tick: Callable[[], None] | None = None) -> None:
        """``on_tick`` runs on the ticker's thread after every tick (it drains output pipes)."""
        self._engines = tuple(engines)
        self._interval = interval
        self._on_tick = on_tick
        self._active = 0
        self._parked = False
        self._last_exit = 0.0
        self._closed = False
        self._wake = threading.Condition()
        self._closing = threading.Event()  # wakes the ticker from its sleep at once on close
        self._thread: threading.Thread | None = None

    def __enter__(self) -> EpochTicker:
        with self._wake:
            if self._closed:
                raise RuntimeError("the wasm runtime is closed")
            self._active += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="toolbay-epoch", daemon=True)
                self._thread.start()
            elif self._parked:
                self._wake.notify()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._wake:
            self._active -= 1
            if self._active == 0:
                self._last_exit = time.monotonic()

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._closing.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    def _loop(self) -> None:
        while True:
            with self._wake:
                # Between runs the ticker goes on for a while before it parks: a server answering
                # calls one after another would otherwise wake it from its parking for every run
                # (two thread wake-ups a call, more than the rest of a small run's bookkeeping).
                while (self._active == 0 and not self._closed
                       and time.monotonic() - self._last_exit >= TICKER_LINGER_S):
                    self._parked = True
                    self._wake.wait()
                    self._parked = False
                if self._closed:
                    return
            if self._closing.wait(self._interval):
                return
            for engine in self._engines:
                engine.increment_epoch()
            if self._on_tick is not None:
                try:
                    self._on_tick()
                except Exception:  # the ticker must outlive any one tick's trouble
                    log.exception("epoch tick hook failed")


def _poll_oneoff(caller: wasmtime.Caller, subs_ptr: int, events_ptr: int, count: int, nevents_ptr: int) -> int:
    """WASI ``poll_oneoff`` that never blocks past the call's deadline or cancellation.

    File-descriptor subscriptions are reported ready at once (no descriptor here can block);
    otherwise it sleeps until the earliest clock subscription fires.
    """
    try:
        if count == 0:
            return _ERRNO_INVAL
        memory = caller.get("memory")
        if not isinstance(memory, wasmtime.Memory):
            return _ERRNO_NOTSUP
        raw = bytes(memory.read(caller, subs_ptr, subs_ptr + count * _SUB_SIZE))
        ready: list[bytes] = []
        clocks: list[tuple[float, int]] = []  # (seconds to wait, userdata)
        for i in range(count):
            offset = i * _SUB_SIZE
            userdata, tag = _SUB_HEAD.unpack_from(raw, offset)
            if tag == _TAG_CLOCK:
                clock_id, timeout_ns, _precision, flags = _SUB_CLOCK.unpack_from(raw, offset + 16)
                if flags & _ABSTIME:
                    now_ns = time.time_ns() if clock_id == _CLOCK_REALTIME else time.monotonic_ns()
                    timeout_ns = max(0, timeout_ns - now_ns)
                clocks.append((timeout_ns / 1e9, userdata))
            elif tag in (_TAG_FD_READ, _TAG_FD_WRITE):
                ready.append(_EVENT.pack(userdata, 0, tag, 0, 0))
            else:
                return _ERRNO_INVAL
        if not ready:
            wait_s, userdata = min(clocks)
            state = current_state()
            if state is None:
                time.sleep(wait_s)
            elif not _sleep_unless_stopped(state, wait_s):
                stop_at_next_check(caller)
                return _ERRNO_INTR
            ready = [_EVENT.pack(u, 0, _TAG_CLOCK, 0, 0) for s, u in clocks if s <= wait_s]
        memory.write(caller, b"".join(ready), events_ptr)
        memory.write(caller, struct.pack("<I", len(ready)), nevents_ptr)
        return 0
    except Exception:  # an exception must not cross into wasmtime (it is kept in a global there)
        return _ERRNO_IO


def _sleep_unless_stopped(state: RunState, wait_s: float) -> bool:
    """Sleeps ``wait_s``, returning early when the call is to stop. True when the whole sleep
    passed with the call still running (only then did the guest's clock fire)."""
    began = time.monotonic()
    wake_at = began + wait_s
    try:
        while not state.should_stop():
            # Never past the deadline or the budget; ``wait`` returns at once on cancellation.
            remaining = min(wake_at, state.stop_by()) - time.monotonic()
            if remaining <= 0:
                return wake_at <= time.monotonic() and not state.should_stop()
            state.cancel.wait(remaining)
        return False
    finally:
        state.waited_s += time.monotonic() - began


def install_poll_oneoff(linker: wasmtime.Linker) -> None:
    """Shadows WASI's ``poll_oneoff`` on a linker that already has WASI defined."""
    i32 = wasmtime.ValType.i32()
    linker.allow_shadowing = True
    linker.define_func(
        "wasi_snapshot_preview1", "poll_oneoff",
        wasmtime.FuncType([i32, i32, i32, i32], [i32]), _poll_oneoff, access_caller=True,
    )
    linker.allow_shadowing = False
