"""Progress relaying: a job's progress, as MCP progress notifications to the requests waiting on it.

Each waiting request (the call itself within its budget, a ``job_wait``, a task's call)
has one ``ProgressRelay`` on the job; the manager hands it the tool's own reports and
the job's steps (queued, started, gone background, ended).
"""

from __future__ import annotations

import logging
import math

import anyio

from toolbay.words import ProgressCallback

logger = logging.getLogger(__name__)

# A client that does not read its notifications must not hold up the job that sends them.
PROGRESS_SEND_TIMEOUT_S = 1.0


class ProgressRelay:
    """Progress notifications for one waiting request.

    MCP asks that the values sent under one progress token only ever increase; the tool's
    own reports and the job's steps share the token, so the relay keeps them in order: a
    tool report that does not move forward is dropped, and a step takes the next value (the
    next whole number, or the next float above the tool's last report while it counts
    towards a total).
    """

    def __init__(self, send: ProgressCallback, *, until_end: bool = False) -> None:
        self.send = send
        # Hears the job's end from the job itself (a task's call), not from a waiter.
        self.until_end = until_end
        self.last: float | None = None
        self.total: float | None = None

    async def tool(self, done: float, total: float | None, message: str | None) -> None:
        if self.last is not None and done <= self.last:
            return
        self.last, self.total = done, total
        await self._send(done, total, message)

    async def step(self, message: str, *, final: bool = False) -> None:
        if final and self.total is not None and (self.last is None or self.total > self.last):
            value = self.total
        elif self.last is None:
            value = 0.0
        elif self.total is not None:
            # The tool counts towards a total: a step moves on by a thousandth, so that the tool's
            # next report (say 2 of 3 after 1 of 3) still moves forward and is sent, and a client
            # shows "16.001 of 25", not the least float above 16 (16.000000000000004).
            value = _next_thousandth(self.last)
        else:
            value = self.last + 1
        self.last = value
        await self._send(value, self.total if self.total is not None and value <= self.total else None, message)

    async def _send(self, done: float, total: float | None, message: str | None) -> None:
        with anyio.move_on_after(PROGRESS_SEND_TIMEOUT_S):
            try:
                await self.send(done, total, message)
            except Exception:  # the client may be gone; the job goes on
                logger.debug("could not send a progress notification", exc_info=True)


def _next_thousandth(value: float) -> float:
    """The first thousandth above ``value``; past the precision of floats, the next float."""
    above = math.floor(value * 1000 + 1) / 1000
    return above if above > value else math.nextafter(value, math.inf)
