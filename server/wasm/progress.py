"""Progress reported by a guest: lines of its own on standard error.

The convention, for any WASI program in any language::

    toolbay:progress DONE[/TOTAL] [MESSAGE]

one whole line on stderr, at the start of a line: ``DONE`` and ``TOTAL`` are non-negative
numbers (``3``, ``2.5``), ``MESSAGE`` the rest of the line (up to ``MAX_MESSAGE`` characters
are kept). Such lines are taken out of the stderr the model reads; other lines pass through
untouched. A line that starts with ``toolbay:progress`` but is malformed is taken out too and
reports nothing.

``GuestStderr`` is the stderr sink of one run: the output pipes hand it what the guest wrote,
chunk by chunk, every epoch tick (``server.wasm.pipes``); it removes the convention's lines
with one regular-expression pass per chunk (no Python work per line, so a guest printing a
million lines costs a few hundred passes) and hands only the newest report of each chunk to
``on_report``. Reports reach only the run's own callback: a guest reports its own progress and
nothing else. ``ProgressForwarder`` carries them from the draining thread to the event loop,
sending the newest one at most every ``min_interval_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from toolbay.kept_patterns import compiled
from toolbay.wasm.streams import CappedOutput

log = logging.getLogger(__name__)

MARK = b"toolbay:progress"
MAX_MESSAGE = 200
# A held partial line longer than this is no progress line: it goes to stderr as it is.
_MAX_LINE = 4096
# Lines that belong to the convention: the mark, then a blank or the end of the line.
_CONVENTION_LINE = re.compile(rb"^toolbay:progress(?:[ \t][^\n]*)?\n", re.MULTILINE)
_NUMBER = rb"(\d{1,15}(?:\.\d{1,9})?)"
_REPORT = re.compile(rb"toolbay:progress[ \t]+" + _NUMBER + rb"(?:[ \t]*/[ \t]*" + _NUMBER + rb")?"
                     rb"(?:[ \t]+(.*?))?[ \t\r]*")
_CONTROL = compiled(r"[\x00-\x1f\x7f]+")
# A line of a flood, as every guest writes it ("toolbay:progress 3/10 ..."): counting these
# and the newlines tells, in two passes in C, that a chunk holds nothing else.
_FLOOD_LINE = b"\n" + MARK + b" "
# How many malformed lines, newest first, are passed over looking for a good report in a chunk.
_LOOK_BACK = 8

OnReport = Callable[["ProgressReport"], None]
SendProgress = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class ProgressReport:
    done: float
    total: float | None = None
    message: str | None = None


def parse_report(line: bytes) -> ProgressReport | None:
    """The report one line (without its newline) makes, or None when it is malformed."""
    match = _REPORT.fullmatch(line)
    if match is None:
        return None
    done = float(match.group(1))
    total = float(match.group(2)) if match.group(2) is not None else None
    message = None
    if match.group(3):
        message = _CONTROL.sub(" ", match.group(3).decode("utf-8", errors="replace")).strip()[:MAX_MESSAGE] or None
    return ProgressReport(done, total if total else None, message)


class GuestStderr:
    """A run's stderr sink: keeps what is not progress in ``output``, reports the rest.

    Writes come from one thread at a time (the pipe's lock, or wasmtime's callback thread).
    """

    __slots__ = ("output", "on_report", "_carry", "_mid_line", "lines", "last")

    def __init__(self, output: CappedOutput, on_report: OnReport | None = None) -> None:
        self.output = output
        self.on_report = on_report
        self._carry = b""  # the start of a line that may be a progress line, waiting for its end
        self._mid_line = False  # the last byte kept was not a newline
        self.lines = 0  # the convention's lines seen, good or not
        self.last: ProgressReport | None = None

    def write(self, data: bytes | memoryview) -> int:
        size = len(data)
        chunk = self._carry + data if self._carry else bytes(data)
        self._carry = b""
        if self._mid_line:
            end = chunk.find(b"\n")
            if end < 0:
                self.output.write(chunk)
                return size
            self.output.write(chunk[:end + 1])
            chunk = chunk[end + 1:]
            self._mid_line = False
        last_newline = chunk.rfind(b"\n")
        whole, tail = chunk[:last_newline + 1], chunk[last_newline + 1:]
        if whole:
            if MARK in whole:
                count = whole.count(_FLOOD_LINE) + whole.startswith(_FLOOD_LINE[1:])
                if count == whole.count(b"\n"):
                    kept = b""  # a flood: nothing but report lines, no per-line work at all
                else:
                    kept, count = _CONVENTION_LINE.subn(b"", whole)
                if count:
                    self.lines += count
                    self._report_newest(whole)
                self.output.write(kept)
            else:
                self.output.write(whole)
        if tail:
            if len(tail) <= _MAX_LINE and (tail.startswith(MARK) or MARK.startswith(tail)):
                self._carry = tail
            else:
                self.output.write(tail)
                self._mid_line = True
        return size

    def close(self) -> None:
        """The guest has ended: a last progress line without its newline still counts."""
        carry, self._carry = self._carry, b""
        if not carry:
            return
        if _CONVENTION_LINE.fullmatch(carry + b"\n"):
            self.lines += 1
            self._report_newest(carry + b"\n")
        else:
            self.output.write(carry)
            self._mid_line = True

    def _report_newest(self, lines: bytes) -> None:
        end = len(lines) - 1
        for _ in range(_LOOK_BACK):
            start = lines.rfind(MARK, 0, end)
            if start < 0:
                return
            if start == 0 or lines[start - 1] == 10:  # at the start of a line
                line_end = lines.find(b"\n", start)
                report = parse_report(lines[start:line_end])
                if report is not None:
                    self.last = report
                    if self.on_report is not None:
                        self.on_report(report)
                    return
            end = start


# How long the end of a run waits for a report that is being sent (the sends it makes are
# bounded well below this: a second per client, the job store's own timeouts).
FINISH_SENDING_S = 10.0


class ProgressForwarder:
    """Carries a run's reports from the thread that drains its output to ``send`` on the loop.

    ``from_thread`` is the run's ``on_report``: it keeps the newest report and wakes the loop at
    most once until that wake-up is handled. The loop side sends the newest report, then waits
    ``min_interval_s`` before the next, so a flood becomes a few notifications a second.
    """

    def __init__(self, send: SendProgress, min_interval_s: float = 0.05) -> None:
        self.send = send
        self.min_interval_s = min_interval_s
        self._newest: ProgressReport | None = None
        self._lock = threading.Lock()
        self._pending = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sent: ProgressReport | None = None
        self._sending = False
        self._closing = False
        self.sent = 0

    def from_thread(self, report: ProgressReport) -> None:
        with self._lock:
            self._newest = report
            if self._pending or self._loop is None:
                return
            self._pending = True
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody to tell
            self._loop.call_soon_threadsafe(self._wake_up)

    def _wake_up(self) -> None:
        # The forwarding task starts with the first report: a run that reports nothing (most
        # runs) costs no task.
        if self._loop is None:
            return
        if self._task is None:
            self._task = self._loop.create_task(self._forward())
        self._wake.set()

    @contextlib.asynccontextmanager
    async def forwarding(self) -> AsyncIterator[ProgressForwarder]:
        """Forwards while the block runs; the newest report not yet sent is sent at the end."""
        self._loop = asyncio.get_running_loop()
        try:
            yield self
        finally:
            self._loop = None
            task, self._task = self._task, None
            if task is not None:
                self._closing = True
                # A report being sent is let finish (for a while): cancelling it midway would
                # cut the send short wherever it is, e.g. while the job store records it.
                if self._sending:
                    await asyncio.wait({task}, timeout=FINISH_SENDING_S)
                if not task.done():
                    task.cancel()  # it waits for a report or rests between two: nothing is lost
                    await asyncio.wait({task})
            with self._lock:
                report = self._newest
            if report is not None and report is not self._sent:  # the end of the run's output
                await self._send(report)

    async def _forward(self) -> None:
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            with self._lock:
                self._pending = False
                report = self._newest
            if report is None or report is self._sent:
                continue
            self._sending = True
            try:
                await self._send(report)
            finally:
                self._sending = False
            if not self._closing:
                await asyncio.sleep(self.min_interval_s)

    async def _send(self, report: ProgressReport) -> None:
        self._sent = report
        try:
            await self.send(report.done, report.total, report.message)
            self.sent += 1
        except Exception:  # the client may be gone; the run goes on
            log.debug("could not forward a guest's progress", exc_info=True)
