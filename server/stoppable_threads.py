"""Blocking work on a worker thread that is told to stop when the task awaiting it is cancelled.

anyio's ``to_thread.run_sync`` either waits for the thread however long it takes (a Ctrl-C
waited out a tool's whole ``--help`` timeout) or abandons it (the work goes on unseen, and may
still write what it found). Here the work is handed an event that is set on cancellation; the
work must end soon once it is set, and the cancelled task waits for that before it goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")


async def run_stoppable(work: Callable[[threading.Event], T], *, stop: threading.Event | None = None,
                        limiter: anyio.CapacityLimiter | None = None, wait_s: float | None = None,
                        daemon: bool = False) -> T:
    """``work(stop)`` on a worker thread. Cancelled, this sets ``stop``, waits (shielded) for the
    work to return, at most ``wait_s`` when given, and lets the cancellation go on. Work whose
    thread had not taken it up yet returns at once when it does (it finds ``stop`` set) and is
    not waited for. ``daemon``: on a thread of its own that the process does not wait for at
    exit (anyio's worker threads it does), for work that may not stop (a compile)."""
    stop = stop if stop is not None else threading.Event()
    entered = threading.Event()
    finished = threading.Event()

    def on_thread() -> T:
        entered.set()
        try:
            return work(stop)
        finally:
            finished.set()

    try:
        if daemon:
            async with limiter if limiter is not None else contextlib.nullcontext():
                return await _on_daemon_thread(on_thread)
        return await anyio.to_thread.run_sync(on_thread, limiter=limiter, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        stop.set()
        # Set before ``entered`` is read: work entering after this read sees ``stop`` already.
        if entered.is_set():
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(finished.wait, wait_s)
        raise


async def _on_daemon_thread(function: Callable[[], T]) -> T:
    """``function()`` on a new daemon thread, awaited; cancelled, the thread is left to end alone.
    The thread wakes the loop with a plain callback, which fails quietly once the loop is gone."""
    done = anyio.Event()
    loop = asyncio.get_running_loop()
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting task
            outcome.append((False, error))
        with contextlib.suppress(RuntimeError):  # the event loop has gone: nobody awaits it
            loop.call_soon_threadsafe(done.set)

    threading.Thread(target=run, name="toolbay-describe", daemon=True).start()
    await done.wait()
    returned, value = outcome[0]
    if returned:
        return value
    raise value


class WorkStopped(Exception):
    """Raised by work that found its stop event set: what it had done is not worth keeping."""
