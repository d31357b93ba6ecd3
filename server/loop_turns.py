"""Quick runs take turns on the event loop: at most one a turn of the loop, in order of arrival.

A quick run (``Handler.answer_at_once``) runs to its end on the loop's thread, with no await
inside. Without turns, the loop runs every request that became ready since its last poll one
after another, and a request that arrives just after that poll waits for the whole batch and
then for its own place in the next one: with eight connections each sending its next request
as soon as its answer comes, some calls waited two batches where the others waited one, and the
99th percentile of latency was about 2.7 times the median (``bench/bench_calls.py``, HTTP, 8
connections). With turns, a run that finds another run already done in this turn waits in line,
and the line is served one run a turn, polling the sockets between runs, so every request
waits for exactly those that arrived before it.

One connection, or calls that come one at a time, never wait: the loop polls between them anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque


class LoopTurns:
    """One per event loop (an app serves on one). Used from the loop's thread only."""

    def __init__(self) -> None:
        self._taken = False  # a run has had this turn of the loop
        self._line: deque[asyncio.Future[None]] = deque()

    async def turn(self) -> None:
        """Returns when the caller may run: at once when nobody ran in this turn of the loop and
        nobody waits, else when its turn in the line comes. The caller runs without awaiting."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on asyncio (another anyio backend): no turns to keep
            return
        if self._taken or self._line:
            waiting: asyncio.Future[None] = loop.create_future()
            self._line.append(waiting)
            try:
                await waiting
            except BaseException:
                # Cancelled in line: leave it. Cancelled just after its turn came: the turn
                # passes on as if it had run (the next ``_next`` is already scheduled).
                self._forget(waiting)
                raise
        else:
            self._taken = True
            loop.call_soon(self._next)

    def _next(self) -> None:
        """A new turn of the loop: the first in line, if any, has it (it resumes in the next turn,
        holding it meanwhile so that nobody arriving now cuts in)."""
        while self._line:
            waiting = self._line.popleft()
            if not waiting.done():
                self._taken = True
                waiting.set_result(None)
                # Scheduled after the woken caller, so it runs once that caller has run.
                asyncio.get_running_loop().call_soon(self._next)
                return
        self._taken = False

    def _forget(self, waiting: asyncio.Future[None]) -> None:
        with contextlib.suppress(ValueError):  # its turn had come: it is out of the line already
            self._line.remove(waiting)
