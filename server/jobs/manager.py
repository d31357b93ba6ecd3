"""The job manager: every call starts inline; one that outlives its budget goes on as a job.

    result = await manager.run_or_background(owner, tool, arguments, work, context,
                                             background=definition.background)

The work runs as a task in the manager's own task group, so it outlives the request
that started it. The caller waits up to ``sync_budget_s``: finished by then, it gets
the tool's own result; otherwise it gets ``views.accepted(...)`` (job id, status, poll
interval) at once and the work goes on.

What is recorded: only calls that become jobs. A call that finishes inside its budget
never had an id anyone could poll, so writing it would cost a database write per call
for nothing. A call becomes a job (and is written, with the events it had so far)
the moment its budget runs out or at once when declared background; from then on every
change is written before anyone can observe it from outside.

Progress: while a request waits on a job (the call itself within its budget, or a
``job_wait``), the job's progress reaches it as MCP progress notifications: the tool's
own reports, and the job's steps (queued with its place, started, gone background,
ended), so a client hears something even from a tool that reports nothing. A plain
call stops hearing once it is answered (its progress token dies with the request); a
task-augmented one hears until the job ends, as MCP Tasks allow.

Limits: at most ``max_concurrent`` calls run at once, and ``max_per_caller`` for one
caller; the rest wait in one queue. A freed slot goes to the caller with the fewest calls
running, to their earliest queued call (a caller at its own limit, or one that queued many
calls, does not hold up others); a queued call's position is its place in arrival order.
The limits count inline calls too, since any call may become a job.
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import dataclasses
import errno
import logging
import math
import secrets
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Self

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup

from toolbay.errors import (
    CallRefused,
    NoSuchJob,
    QueueFull,
    StorageDamaged,
    StorageError,
    StorageGone,
    StoreUnavailable,
)
from toolbay.jobs.progress import ProgressRelay
from toolbay.jobs.serving import ServingLock
from toolbay.jobs.store import (
    CANCEL_REQUESTED,
    DAMAGED_RECORD,
    INTERRUPTED_BY_RESTART,
    RESULT_LOST,
    TERMINAL,
    JobEvent,
    JobRecord,
    JobStatus,
    JobStore,
)
from toolbay.jobs.views import JobView, accepted, interrupted_next_step, progress_text
from toolbay.logs import add_call_fields
from toolbay.words import CallContext, ProgressCallback, ToolResult

logger = logging.getLogger(__name__)

Work = Callable[[CallContext], Awaitable[ToolResult]]
Recover = Callable[[JobRecord], Work | None]

# One sentence for a job the server stopped under, whether it is seen at the stop or at the next start.
SERVER_STOPPING = INTERRUPTED_BY_RESTART
# A job stopped because it could not be recorded, whose record landed after all.
STOPPED_UNRECORDED = "stopped: it could not be recorded when it went on as a job"
_STOPPED_UNRECORDED_KEPT = 1024
CANCELLED_BY_CALLER = "cancelled by the caller"
# How often the server looks for a request to cancel from outside (the CLI), on a store that
# cannot tell it at once.
CANCEL_WATCH_S = 1.0
# How often a waiter on a job another server runs looks for its progress in the store.
STORED_PROGRESS_POLL_S = 1.0
# The event that says which server runs a job (servers sharing a data folder, ``ServingLock``).
RUNNER = "runner"
# A job's end that the store refused is written again after these pauses, doubling.
END_RETRY_FIRST_S = 0.1
END_RETRY_MAX_S = 5.0


@dataclasses.dataclass(slots=True)
class JobTicket:
    """Filled in by ``run_or_background`` inside ``as_job()``: the id of the job it made."""

    job_id: str | None = None
    owner: str | None = None


_ticket: contextvars.ContextVar[JobTicket | None] = contextvars.ContextVar("toolbay_job_ticket", default=None)
# The job whose work is running in this context: set around ``work`` in ``_run``.
_current_job: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolbay_current_job", default=None)


@contextlib.contextmanager
def as_job() -> Iterator[JobTicket]:
    """Makes the next ``run_or_background`` in this context a job at once and reports its id.

    The MCP Tasks middleware wraps a task-augmented ``tools/call`` in this, so the whole
    call chain (authentication, limits, validation) runs as usual and only the dispatch
    differs.
    """
    ticket = JobTicket()
    token = _ticket.set(ticket)
    try:
        yield ticket
    finally:
        _ticket.reset(token)


def job_asked_for() -> bool:
    """True inside ``as_job()`` before its job is made: this call must answer with a job."""
    ticket = _ticket.get()
    return ticket is not None and ticket.job_id is None


def _is_progress(data: Mapping[str, Any]) -> bool:
    def number(value: Any) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)

    return number(data.get("progress")) and (data.get("total") is None or number(data.get("total"))) \
        and isinstance(data.get("message", ""), str | None)


def _refusal_words(exc: BaseException) -> str:
    """Why the store refused a write, in a few words for the caller (no paths: they are the
    server's, for its log)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc) if isinstance(exc, sqlite3.Error) else type(exc).__name__
    return text[:120]


@dataclasses.dataclass(eq=False, slots=True)
class _LiveJob:
    id: str
    owner: str
    tool: str
    arguments: Mapping[str, Any]
    work: Work
    context: CallContext
    created_at: float
    status: JobStatus = "queued"
    updated_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    reason: str | None = None
    cancel_reason: str | None = None
    background: bool = False
    recorded_as: JobStatus | None = None
    outcome: ToolResult | None = None
    error: BaseException | None = None
    progress: dict[str, Any] | None = None
    last_progress_write: float = 0.0
    log: list[JobEvent] = dataclasses.field(default_factory=list)
    # Requests waiting on the job that hear its progress (the call itself, job_wait...).
    relays: list[ProgressRelay] = dataclasses.field(default_factory=list)
    waited_in_queue: bool = False
    # Why the store has not taken its end yet (a full disk), while it is written again.
    end_refused: str | None = None
    scope: anyio.CancelScope | None = None
    done: anyio.Event = dataclasses.field(default_factory=anyio.Event)
    recorded: anyio.Event = dataclasses.field(default_factory=anyio.Event)

    def record(self) -> JobRecord:
        return JobRecord(id=self.id, owner=self.owner, tool=self.tool, status=self.status,
                         created_at=self.created_at, updated_at=self.updated_at, arguments=self.arguments,
                         started_at=self.started_at, finished_at=self.finished_at, reason=self.reason)

    async def announce(self, message: str) -> None:
        for relay in list(self.relays):
            await relay.step(message)

    def event(self, kind: str, at: float, **data: Any) -> JobEvent:
        event = JobEvent(job_id=self.id, at=at, kind=kind, data=data)
        if len(self.log) < 200:  # the in-memory log only feeds the first write
            self.log.append(event)
        return event


class JobManager:
    """Runs calls inline or as jobs, and answers for jobs by owner.

    Use ``async with JobManager(store, ...) as manager:`` for the server's lifetime (in
    the server lifespan): entering opens the store and marks jobs left unfinished by a
    previous process ``interrupted``; leaving stops running work and marks it
    interrupted too. The manager opens and closes the store.
    """

    def __init__(self, store: JobStore, *, sync_budget_s: float = 5.0, max_concurrent: int = 8,
                 max_per_caller: int = 4, max_queued_per_caller: int = 16,
                 retention_s: float = 7 * 24 * 3600, poll_interval_s: float = 2.0,
                 cancel_grace_s: float = 5.0, progress_write_interval_s: float = 0.5,
                 clock: Callable[[], float] = time.time, serving_lock: Path | None = None,
                 recover: Recover | None = None, takeover_interval_s: float = 5.0,
                 adopts_orphans: bool = True) -> None:
        if max_concurrent < 1 or max_per_caller < 1:
            raise ValueError("max_concurrent and max_per_caller must be at least 1")
        self.store = store
        self.sync_budget_s = sync_budget_s
        self.max_concurrent = max_concurrent
        self.max_per_caller = max_per_caller
        # Calls of one caller waiting for a place: each holds its arguments in memory until it
        # runs (a caller at max_per_caller queued hundreds of 4 MB calls: 5 GB, an outside check).
        self.max_queued_per_caller = max_queued_per_caller
        self.retention_s = retention_s
        self.poll_interval_s = poll_interval_s
        self.cancel_grace_s = cancel_grace_s
        self.progress_write_interval_s = progress_write_interval_s
        self.clock = clock
        # With a lock, several servers can share the store: each ends only its own jobs, and
        # unfinished jobs found at start are recovered only by a server that is alone.
        self._serving = ServingLock(serving_lock) if serving_lock is not None else None
        # What to run again for a job left unfinished by a server that died (None: nothing,
        # the job is marked interrupted).
        self.recover = recover
        # On a shared store: how often this server looks for jobs of replicas that died.
        self.takeover_interval_s = takeover_interval_s
        # False for a command that is no server (``toolbay list``, ``toolbay call``): it runs its own
        # jobs and leaves those a dead server left unfinished to the next server, which runs a
        # read-tier one again. Taken up by such a command and ended with it, they were marked
        # interrupted, and no server ran them again.
        self.adopts_orphans = adopts_orphans
        # The server last seen running each unfinished job of another server on the folder.
        self._runners: dict[str, str] = {}
        # Jobs whose end the store could never take (a damaged database), answered from memory.
        self._ended_unrecorded: dict[str, _LiveJob] = {}
        self._jobs: dict[str, _LiveJob] = {}  # jobs that went background and are not yet stored as ended
        # Jobs whose recording failed, so they were stopped and their caller told so; the write may
        # still land (a Redis that timed out runs it once it answers), and must not then be run
        # again as a job left unfinished. Bounded: the oldest are let go.
        self._stopped_unrecorded: dict[str, None] = {}
        self._queue: list[_LiveJob] = []
        self._running: set[_LiveJob] = set()
        self._running_per_owner: Counter[str] = Counter()
        self._tg: TaskGroup | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._closing = False
        # The waits of job_wait under way, ended at once when the server is told to stop.
        self._waits: set[anyio.CancelScope] = set()
        self._told_to_stop = False

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        async with contextlib.AsyncExitStack() as stack:
            await self.store.open()
            stack.push_async_callback(self.store.aclose)
            alone = True
            if self._serving is not None:
                alone = await anyio.to_thread.run_sync(self._serving.take)
                stack.callback(self._serving.release)
            # Unwound in reverse: the task group ends (running work stops), then what it
            # left unfinished is marked interrupted, then the store closes.
            stack.push_async_callback(self._interrupt_stored)
            self._tg = await stack.enter_async_context(anyio.create_task_group())
            if self.store.shared:
                # Replicas on one store: each runs its own jobs; a dead one's are taken over
                # once its lease runs out, and cancels and ends travel through the store.
                self._tg.start_soon(self.store.run_background, self._cancel_asked_elsewhere)
                if self.adopts_orphans:
                    self._tg.start_soon(self._take_over_orphans_periodically)
            elif alone and self.adopts_orphans:
                await self._recover_orphans()
            elif not alone:
                logger.info("another server runs on this data folder: the jobs it runs are left to it")
            if self._serving is not None:
                self._serving.share()
                if not self.store.shared and self.adopts_orphans:
                    self._tg.start_soon(self._take_over_once_alone)
            self._tg.start_soon(self._purge_periodically)
            if not self.store.shared:
                self._tg.start_soon(self._heed_cancel_requests)
            self._stack = stack.pop_all()

    async def _recover_orphans(self) -> None:
        """Jobs left unfinished by a server that died: run again what ``recover`` gives work
        for (under the same id, so the caller's job id still answers), mark the rest interrupted."""
        at = self.clock()
        if self.recover is None:
            interrupted = await self.store.interrupt_unfinished(INTERRUPTED_BY_RESTART, at=at)
            if interrupted:
                logger.warning("%d job(s) left unfinished by the last run were marked interrupted", interrupted)
            return
        await self._recover(await self.store.list_unfinished())

    async def _recover(self, records: builtins.list[JobRecord]) -> None:
        at = self.clock()
        recover = self.recover or (lambda record: None)
        resumed = interrupted = 0
        for record in records:
            if (asked := await self._cancel_asked(record)) is not None:
                # Its cancel was asked of a server that died before it heeded it: it is not run again.
                await self.store.finish(record.id, "cancelled", _cancelled_record_result(record, asked), at=at,
                                        reason=asked)
                continue
            if record.id in self._stopped_unrecorded:
                # Its caller was told it could not be recorded and was stopped: so it stays.
                del self._stopped_unrecorded[record.id]
                await self.store.finish(record.id, "cancelled", _stopped_unrecorded_result(record), at=at,
                                        reason=STOPPED_UNRECORDED)
                continue
            work = recover(record)
            if work is not None:
                await self._resume(record, work)
                resumed += 1
            else:
                await self.store.finish(record.id, "interrupted", _left_unfinished_result(record), at=at,
                                        reason=INTERRUPTED_BY_RESTART)
                interrupted += 1
        if resumed:
            logger.warning("%d job(s) left unfinished by a server that stopped were started again", resumed)
        if interrupted:
            logger.warning("%d job(s) left unfinished by the last run were marked interrupted", interrupted)

    async def _cancel_asked(self, record: JobRecord) -> str | None:
        """Why a job was asked to stop (``request_cancel``), if it was; None otherwise, or when the
        store cannot say (the job is then recovered as any other)."""
        try:
            events = await self.store.events(record.owner, record.id)
        except Exception:  # noqa: BLE001 - recovering goes on without it
            logger.debug("could not read the events of job %s", record.id, exc_info=True)
            return None
        asked = [event for event in events if event.kind == CANCEL_REQUESTED]
        return str(asked[-1].data.get("reason") or CANCELLED_BY_CALLER) if asked else None

    async def _resume(self, record: JobRecord, work: Work) -> None:
        now = self.clock()
        job = _LiveJob(id=record.id, owner=record.owner, tool=record.tool, arguments=dict(record.arguments),
                       work=work, context=CallContext(caller=record.owner), created_at=record.created_at,
                       updated_at=now, background=True, recorded_as="queued")
        job.context = dataclasses.replace(job.context, report_progress=self._progress_recorder(job))
        await self.store.set_status(job.id, "queued", at=now, events=[
            JobEvent(job_id=job.id, at=now, kind="restarted", data={"reason": INTERRUPTED_BY_RESTART}),
            *self._runner_events(job.id)])
        job.recorded.set()
        self._jobs[job.id] = job
        self._queue.append(job)
        self._admit()

    def _runner_events(self, job_id: str) -> builtins.list[JobEvent]:
        """Which server runs the job, for servers beside it on the folder (``ServingLock``)."""
        if self._serving is None or not self._serving.holds_its_own_lock:
            return []
        return [JobEvent(job_id=job_id, at=self.clock(), kind=RUNNER, data={"server": self._serving.server_id})]

    def counts(self) -> dict[str, int]:
        """Calls held here now: ``queued`` (waiting for a slot), ``running`` (inline or as jobs),
        ``background`` (gone on as jobs and not yet ended). For metrics; costs nothing to keep."""
        return {"queued": len(self._queue), "running": len(self._running), "background": len(self._jobs)}

    @property
    def running_jobs(self) -> int:
        """Jobs (calls gone background) queued or running in this server now."""
        return len(self._jobs)

    @property
    def ended_unrecorded(self) -> int:
        """Jobs that ended here whose end the store could never take (its file deleted or
        damaged): this server answers for them from memory until it stops."""
        return len(self._ended_unrecorded)

    async def drain(self, timeout_s: float) -> int:
        """Waits until every job running or queued here has ended, ``timeout_s`` at most
        (the client has gone; its jobs may still be read by the next server). Returns how
        many had not ended."""
        with anyio.move_on_after(timeout_s):
            while self._jobs:
                await next(iter(self._jobs.values())).done.wait()
                await anyio.sleep(0)  # the job leaves ``_jobs`` right after it is done
        return len(self._jobs)

    async def aclose(self) -> None:
        if self._stack is None:
            return
        self._closing = True
        for job in [*self._queue, *self._running]:
            job.context.cancelled.set()
        for job in self._queue:
            self._end_in_memory(job, "interrupted", _stopped_result(job), SERVER_STOPPING)
        self._queue.clear()
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        stack, self._stack = self._stack, None
        await stack.aclose()

    async def _take_over_orphans_periodically(self) -> None:
        lost_before: set[str] = set()
        while True:
            try:
                orphans = await self.store.claim_orphans()
                if orphans:
                    logger.warning("taking over %d job(s) of a server that stopped renewing its lease", len(orphans))
                    await self._recover(orphans)
                lost_before = await self._recover_lost(lost_before)
            except Exception as exc:
                # Said in one line every time (an outage repeats it each interval); the
                # traceback only at debug level.
                logger.warning("could not look for jobs of stopped servers (the store is unreachable?): %s: %s",
                               type(exc).__name__, exc)
                logger.debug("looking for jobs of stopped servers failed", exc_info=True)
            await anyio.sleep(self.takeover_interval_s)

    async def _recover_lost(self, lost_before: set[str]) -> set[str]:
        """Jobs the shared store says this server runs, but it does not: a Redis brought back
        from an older copy (a snapshot taken while they ran) brings them back unfinished. No
        other server takes them over while this one keeps its lease, so they would stay
        "running" for ever. A job missing here at two looks in a row is recovered as an
        orphan is; one look is not enough, since a job that ends leaves ``_jobs`` just before
        its end is stored. Returns the ids missing at this look."""
        lost = {r.id: r for r in await self.store.unfinished_of_this_server() if r.id not in self._jobs}
        again = [record for job_id, record in lost.items() if job_id in lost_before]
        if again:
            logger.warning("%d job(s) the job store says this server runs are not running here (the store "
                           "came back from an older copy?): recovering them", len(again))
            await self._recover(again)
        return set(lost) - {record.id for record in again}

    async def _take_over_once_alone(self) -> None:
        """Servers on one data folder without a shared store: unfinished jobs are left to the
        server that runs them. When that server has died (``kill -9`` while it ran its jobs on
        after its client left), they would stay unfinished for as long as this one runs. So
        whenever the store shows unfinished jobs not run here, this server looks whether the
        server marked as running each is still there (its own lock, ``ServingLock``), or, for a
        job with no such mark (written by an older server), whether it is the only one left;
        the jobs of a server gone are its to recover, as at a start."""
        assert self._serving is not None
        last_said: str | None = None
        while True:
            await anyio.sleep(self.takeover_interval_s)
            try:
                if not [r for r in await self.store.list_unfinished() if r.id not in self._jobs]:
                    last_said = None
                    continue
                await self._take_over_orphans_of_gone_servers()
            except BlockingIOError:
                continue  # another server is deciding: it takes them, or this one asks again
            except Exception as exc:
                # Said once while it lasts (a damaged store fails every round, every few seconds).
                said = f"{type(exc).__name__}: {exc}"
                if said != last_said:
                    logger.warning("could not look for jobs of stopped servers (%s)", said,
                                   exc_info=not isinstance(exc, StorageError | sqlite3.Error | OSError))
                last_said = said
            else:
                last_said = None

    async def _take_over_orphans_of_gone_servers(self) -> None:
        serving = self._serving
        assert serving is not None
        unmarked = False
        with serving.deciding():  # no other server takes the same jobs meanwhile
            # Read under the gate: a server that ended or took jobs over meanwhile recorded it.
            orphans = []
            others = [r for r in await self.store.list_unfinished() if r.id not in self._jobs]
            # A job's runner changes only when it is taken over, after its runner has gone: the
            # one seen last is asked again, and the events read only when it has gone (a long
            # job's events are thousands of progress reports, and this runs every few seconds).
            known = {r.id: self._runners[r.id] for r in others if r.id in self._runners}
            self._runners = known
            for record in others:
                runner = known.get(record.id)
                if runner is None or not await anyio.to_thread.run_sync(serving.runner_alive, runner):
                    runner = await self.runner_of(record)
                    if runner is None:
                        unmarked = True
                        continue
                    if not await anyio.to_thread.run_sync(serving.runner_alive, runner):
                        orphans.append(record)
                        continue
                self._runners[record.id] = runner
            if orphans:
                logger.warning("the server that ran %d unfinished job(s) on this data folder has stopped: this "
                               "one takes them over", len(orphans))
                await self._recover(orphans)
        if unmarked and await anyio.to_thread.run_sync(serving.alone_now):
            try:
                # Read again, alone: a server that ended meanwhile recorded its jobs' ends.
                left = [r for r in await self.store.list_unfinished() if r.id not in self._jobs]
                if left:
                    logger.warning("the server that ran %d unfinished job(s) on this data folder has stopped: "
                                   "this one takes them over", len(left))
                    await self._recover(left)
            finally:
                serving.share()

    async def runner_of(self, record: JobRecord) -> str | None:
        """The server the job was last marked as run by (its last ``runner`` event), if any."""
        runners = [e.data.get("server") for e in await self.store.events(record.owner, record.id) if e.kind == RUNNER]
        runner = runners[-1] if runners else None
        return runner if isinstance(runner, str) else None

    async def _cancel_asked_elsewhere(self, job_id: str, reason: str) -> None:
        """Another server was asked to cancel a job this one runs."""
        job = self._jobs.get(job_id)
        if job is not None and not job.done.is_set() and self._tg is not None:
            self._tg.start_soon(self.cancel, job.owner, job_id, reason)

    async def _interrupt_stored(self) -> None:
        with anyio.CancelScope(shield=True):
            if self._serving is None and not self.store.shared:
                try:
                    for record in await self.store.list_unfinished():  # each said with what to do now
                        await self.store.finish(record.id, "interrupted", _left_unfinished_result(record),
                                                at=self.clock(), reason=SERVER_STOPPING)
                except Exception as exc:  # a damaged store: the next start finds them unfinished and says so
                    logger.error("could not record that the unfinished jobs were interrupted (%s)", exc)
                return
            # Only this server's own jobs: another one may be running on the same store.
            handed_over = 0
            for job in list(self._jobs.values()):
                if self.store.shared and self.recover is not None and self.recover(job.record()) is not None:
                    # Safe to run again: left unfinished for another replica to take over once
                    # this one's lease is gone (a rolling deploy drops no read-tier job).
                    handed_over += 1
                    continue
                try:
                    await self.store.finish(job.id, "interrupted", _stopped_result(job), at=self.clock(),
                                            reason=SERVER_STOPPING)
                except StorageError as exc:  # said as what it is (a full disk, a database gone): no traceback
                    logger.error("could not record that job %s was interrupted: %s", job.id, exc)
                except Exception:
                    logger.exception("could not record that job %s was interrupted", job.id)
            if handed_over:
                logger.warning("%d job(s) safe to run again are left for another replica to take over", handed_over)

    # -- running calls --------------------------------------------------------------------

    async def run_or_background(self, owner: str, tool_name: str, arguments: Mapping[str, Any], work: Work,
                                context: CallContext, *, background: bool = False) -> ToolResult:
        """Runs ``work(context)`` and answers within the budget.

        Args:
            owner: who is calling (``context.caller``); only they can see the job.
            tool_name: the tool, for listings and messages.
            arguments: the call's arguments, stored with the job.
            work: the dispatch step, e.g. ``lambda ctx: handler.handle(arguments, ctx)``.
            context: the call's context; the work receives a copy whose
                ``report_progress`` also records progress (same ``cancelled`` Event).
            background: declared long: become a job at once.

        Returns:
            The tool's own result when it finished within ``sync_budget_s``, else the
            "now job J" result (``views.accepted``). If the work raised while the caller
            still waited, the exception is raised here, as if there were no manager.
        """
        if self._tg is None or self._closing:
            raise RuntimeError("the job manager is not running")
        if _current_job.get() is not None:
            # A call made by a running job's own work (a sub-agent's tool calls) runs within
            # that job: a slot of its own could wait forever behind the job that waits on it.
            return await work(context)
        ticket = _ticket.get()
        if ticket is not None and ticket.job_id is None:
            background = True
        if (waiting := sum(1 for queued in self._queue if queued.owner == owner)) >= self.max_queued_per_caller:
            raise QueueFull(waiting)
        now = self.clock()
        job = _LiveJob(id="job_" + secrets.token_hex(8), owner=owner, tool=tool_name,
                       arguments=dict(arguments), work=work, context=context, created_at=now, updated_at=now)
        job.context = dataclasses.replace(context, report_progress=self._progress_recorder(job))
        caller = ProgressRelay(context.report_progress)
        job.relays.append(caller)
        self._queue.append(job)
        self._admit()
        if job in self._queue:
            job.waited_in_queue = True
            await caller.step(f"queued, number {self._queue.index(job) + 1} in the queue")
        if not background:
            try:
                with anyio.move_on_after(self.sync_budget_s):
                    await job.done.wait()
            except anyio.get_cancelled_exc_class():
                # The caller gave up (client cancelled the request): nobody can reach this work.
                self._stop(job, "the request was cancelled")
                raise
            if job.done.is_set():
                if job.error is not None:
                    raise job.error
                assert job.outcome is not None
                return job.outcome
        await self._go_background(job, declared=background)
        if ticket is not None:
            ticket.job_id, ticket.owner = job.id, owner
        view = self._view(job)
        await caller.step(f"goes on in the background as job {job.id} ({job.status})")
        if ticket is None:  # answered now: its progress token ends with the request
            job.relays.remove(caller)
        else:
            caller.until_end = True
        return accepted(view)

    async def _go_background(self, job: _LiveJob, declared: bool = False) -> None:
        """``declared``: the tool is one that goes on as a job from its start (not past a budget)."""
        # One synchronous step: from here on every change is written by whoever makes it,
        # and everything before is in the snapshot.
        job.background = True
        job.recorded_as = job.status
        self._jobs[job.id] = job
        snapshot, events = job.record(), [*job.log, *self._runner_events(job.id)]
        try:
            await self.store.create(snapshot, events)
        except BaseException as exc:
            self._stop(job, "the job could not be recorded")
            self._jobs.pop(job.id, None)
            job.background = False
            self._stopped_unrecorded[job.id] = None
            while len(self._stopped_unrecorded) > _STOPPED_UNRECORDED_KEPT:
                del self._stopped_unrecorded[next(iter(self._stopped_unrecorded))]
            why = f"{job.tool} runs as a job from its start" if declared else \
                f"{job.tool} ran past {self.sync_budget_s:g} s and had to go on as a job"
            if isinstance(exc, StoreUnavailable):
                # Said as the outage it is (its code, jobs_unavailable, and when to try again),
                # and that the call was stopped.
                retry_after = float(exc.meta.get("retry_after", 5.0))
                refusal = type(exc)(retry_after)
                refusal.message = (f"{why}, but the server cannot reach its shared job store right now, so it was "
                                   f"stopped. Retry after {retry_after:.0f} seconds.")
                raise refusal from exc
            if isinstance(exc, sqlite3.Error | OSError | StorageError):
                full = isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "full" in str(exc).lower()
                hint = " The server's data folder may be full." if full else ""
                raise StorageError(
                    f"{why}, but the job could not be recorded ({exc}), so it was stopped.{hint}"
                ) from exc
            raise
        finally:
            job.recorded.set()

    def _admit(self) -> None:
        while len(self._running) < self.max_concurrent and not self._closing:
            job = self._next_to_run()
            if job is None:
                return
            self._queue.remove(job)
            self._running.add(job)
            self._running_per_owner[job.owner] += 1
            job.status, job.started_at = "running", self.clock()
            job.updated_at = job.started_at
            job.event("started", job.started_at)
            assert self._tg is not None
            self._tg.start_soon(self._run, job, name=f"job {job.id} ({job.tool})")

    def _next_to_run(self) -> _LiveJob | None:
        """The queued job of the caller with the fewest calls running, the earliest of theirs;
        none of a caller at ``max_per_caller``. In arrival order alone, two busy callers took
        every slot that freed in turn and a third waited behind all their queued calls."""
        best: _LiveJob | None = None
        fewest = self.max_per_caller
        for job in self._queue:
            running = self._running_per_owner[job.owner]
            if running < fewest:
                best, fewest = job, running
                if running == 0:
                    break
        return best

    async def _run(self, job: _LiveJob) -> None:
        try:
            if job.recorded_as == "queued":  # stored while it waited: now it runs
                started = [e for e in job.log[-1:] if e.kind == "started"]
                await self._write(job, lambda: self.store.set_status(job.id, "running", at=job.updated_at,
                                                                     events=started))
            if job.waited_in_queue:
                await job.announce("started")
            with anyio.CancelScope() as job.scope:
                _current_job.set(job.id)  # this task's own context: the job's work only
                add_call_fields(job_id=job.id)  # JSON logs name the job
                if job.cancel_reason is None:
                    try:
                        result = await job.work(job.context)
                        status: JobStatus = "failed" if result.is_error else "completed"
                    except Exception as exc:
                        result, status = self._crashed(job, exc), "failed"
            reason = job.cancel_reason
            if reason is not None:
                result, status = _cancelled_result(job), "cancelled"
            elif status == "failed" and isinstance(result.meta.get("trap"), str):
                reason = result.meta["trap"]  # e.g. "timed out after 900 s": a runaway, stopped
            # Its tool has ended: its place goes to the next call before its end is recorded,
            # which a full disk may hold off for long (its caller's next calls waited in the
            # queue meanwhile, and were refused as having "run past" the budget they waited out).
            self._release_place(job)
            await self._finish(job, status, result, reason)
        finally:
            if not job.done.is_set():  # stopped by the server closing
                self._end_in_memory(job, "interrupted", _stopped_result(job), SERVER_STOPPING)
            self._release_place(job)

    def _release_place(self, job: _LiveJob) -> None:
        """Gives the running place ``job`` held to the next queued call (once)."""
        if job in self._running:
            self._running.discard(job)
            self._running_per_owner[job.owner] -= 1
            self._admit()

    def _crashed(self, job: _LiveJob, exc: Exception) -> ToolResult:
        job.error = exc
        if isinstance(exc, CallRefused):
            return ToolResult.error(exc.message, **exc.meta)
        if job.background:
            logger.error("job %s (%s) failed", job.id, job.tool, exc_info=exc)
        return ToolResult.error(f"The tool {job.tool} failed unexpectedly; the server log has the details.")

    def _end_in_memory(self, job: _LiveJob, status: JobStatus, result: ToolResult, reason: str | None, *,
                       done: bool = True) -> None:
        job.status, job.outcome, job.reason = status, result, reason
        job.finished_at = job.updated_at = self.clock()
        if done:
            job.done.set()

    async def _finish(self, job: _LiveJob, status: JobStatus, result: ToolResult, reason: str | None) -> None:
        # A job is announced done only once the store has its end, so whatever a waiter
        # reads next (result, events, list) agrees.
        self._end_in_memory(job, status, result, reason, done=not job.background)
        if not job.background:
            return
        at = job.finished_at or self.clock()
        size = len(result.text.encode()) + (len(str(result.structured)) if result.structured else 0)
        events = [job.event("output", at, bytes=size, is_error=result.is_error),
                  job.event("finished", at, status=status, **({"reason": reason} if reason else {}))]
        try:
            await self._write(job, lambda: self.store.finish(job.id, status, result, at=at, reason=reason,
                                                             events=events), until_taken=True)
        except (StorageDamaged, StorageGone) as exc:
            # Never to be recorded: this server answers for the job from memory while it runs.
            logger.error("the end of job %s cannot be recorded (%s); this server answers for it until it stops",
                         job.id, exc)
            self._ended_unrecorded[job.id] = job
        finally:
            job.done.set()
            self._jobs.pop(job.id, None)
            for relay in job.relays:
                if relay.until_end and self._tg is not None:
                    self._tg.start_soon(partial(relay.step, f"job {job.id} {status}", final=True))

    async def _write(self, job: _LiveJob, write: Callable[[], Awaitable[None]], *,
                     until_taken: bool = False) -> None:
        """Writes a change of a job that went background, after its first write. A lost change
        (a progress event, a status its end overwrites) is logged; its end (``until_taken``) is
        written again until the store takes it."""
        await job.recorded.wait()
        if not job.background:
            return
        if until_taken:
            await self._write_until_taken(job, write)
            return
        try:
            await write()
        except Exception:
            logger.exception("could not record a change of job %s", job.id)

    async def _write_until_taken(self, job: _LiveJob, write: Callable[[], Awaitable[None]]) -> None:
        """An end that is lost leaves the job running in the store for ever: its caller, or the
        next server on the same data folder, would wait on it in vain. So a store that refuses
        for a while (another process holding the SQLite file locked past its busy timeout, a
        full disk, Redis away) delays the end, and the job's waiters with it, but loses nothing.
        A server that stops meanwhile makes one last try."""
        delay, failures = END_RETRY_FIRST_S, 0
        while True:
            try:
                await write()
            except Exception as exc:
                if isinstance(exc, StorageDamaged | StorageGone):
                    raise  # writing again will not mend it, nor bring a deleted database back
                failures += 1
                job.end_refused = _refusal_words(exc)
                if failures == 1:
                    logger.warning("could not record the end of job %s (%s); trying again until it is recorded",
                                   job.id, exc, exc_info=not isinstance(exc, StorageError | sqlite3.Error | OSError))
            else:
                job.end_refused = None
                if failures:
                    logger.info("recorded the end of job %s after %d failed tries", job.id, failures)
                return
            try:
                await anyio.sleep(delay)
            except anyio.get_cancelled_exc_class():
                with anyio.CancelScope(shield=True):
                    try:
                        await write()
                    except Exception:
                        logger.exception("the end of job %s is lost: the server stopped before the store "
                                         "took it", job.id)
                raise
            delay = min(delay * 2, END_RETRY_MAX_S)

    def _progress_recorder(self, job: _LiveJob) -> ProgressCallback:
        async def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
            now = self.clock()
            job.progress = {"progress": done, "total": total, "message": message}
            job.progress = {k: v for k, v in job.progress.items() if v is not None}
            final = total is not None and done >= total
            if final or now - job.last_progress_write >= self.progress_write_interval_s:
                job.last_progress_write = now
                event = job.event("progress", now, **job.progress)
                if job.background:
                    await self._write(job, lambda: self.store.append_event(event))
            for relay in list(job.relays):
                await relay.tool(done, total, message)

        return report_progress

    def _stop(self, job: _LiveJob, reason: str) -> None:
        job.cancel_reason = job.cancel_reason or reason
        job.context.cancelled.set()
        if job.scope is not None:
            job.scope.cancel()
        if job in self._queue:
            self._queue.remove(job)
            self._end_in_memory(job, "cancelled", _cancelled_result(job), job.cancel_reason)

    # -- answering for jobs ---------------------------------------------------------------

    def _live(self, owner: str, job_id: str) -> _LiveJob | None:
        job = self._jobs.get(job_id) or self._ended_unrecorded.get(job_id)
        return job if job is not None and job.owner == owner else None

    async def _usable_live(self, owner: str, job_id: str) -> _LiveJob | None:
        """``_live``, once the store has been asked whether it can still record the job: a job
        answered from memory alone was said to be running after its database was deleted, its
        end never to be recorded (``JobStore.check_usable`` raises then)."""
        job = self._live(owner, job_id)
        if job is not None:
            await self.store.check_usable()
        return job

    def _view(self, job: _LiveJob) -> JobView:
        position = self._queue.index(job) + 1 if job in self._queue else None
        record = job.record()
        if record.status in TERMINAL and not job.done.is_set():
            # Its end is still being written (a busy store can take a while): until the store
            # has it, it has not ended for anyone, so a caller who sees it ended finds its result.
            record = dataclasses.replace(record, status="running" if job.started_at is not None else "queued",
                                         finished_at=None, reason=None)
            # Said, with why: a job whose end a full disk refused looked running for as long.
            return dataclasses.replace(JobView.of(record, self.poll_interval_s), position=position,
                                       progress=job.progress, end_refused=job.end_refused)
        return dataclasses.replace(JobView.of(record, self.poll_interval_s), position=position,
                                   progress=job.progress)

    async def status(self, owner: str, job_id: str) -> JobView:
        """Where the job is now. Raises ``NoSuchJob`` for an unknown job or another owner's."""
        job = await self._usable_live(owner, job_id)
        if job is not None:
            return self._view(job)
        record = await self.store.get(owner, job_id)
        if record is None:
            raise NoSuchJob(job_id)
        view = JobView.of(record, self.poll_interval_s)
        if view.finished:
            return view
        # Run by another server: its progress is in the store.
        reports = await self._stored_progress(owner, job_id)
        return dataclasses.replace(view, progress=dict(reports[-1].data)) if reports else view

    async def _stored_progress(self, owner: str, job_id: str) -> builtins.list[JobEvent]:
        """The job's progress reports in the store, oldest first: those that are one (a number
        done, perhaps a total and a message); a damaged one ({"total": 5}, "half", 1e999) made
        job_status an internal error and `toolbay jobs status` a traceback."""
        return [e for e in await self.store.events(owner, job_id) if e.kind == "progress" and _is_progress(e.data)]

    @property
    def stopping(self) -> bool:
        """Whether the server was told to stop (``stop_waiting``)."""
        return self._told_to_stop

    def stop_waiting(self) -> None:
        """The server was told to stop: every ``wait`` under way, and any begun from now, returns
        what it knows at once. An HTTP server gives open requests a short grace before it closes
        their connections, and a job_wait cut off there was answered with nothing."""
        self._told_to_stop = True
        for scope in self._waits:
            scope.cancel()

    async def wait(self, owner: str, job_id: str, timeout_s: float | None,
                   on_progress: ProgressCallback | None = None) -> JobView:
        """Returns as soon as the job has ended, or after ``timeout_s`` (None: no limit), or
        at once when the server is told to stop (``stop_waiting``).

        ``on_progress`` (the waiting request's ``report_progress``) hears the job's progress
        while it waits: its status now, the tool's reports and steps, and how it ended.
        """
        with anyio.CancelScope() as waiting:
            if self._told_to_stop:
                waiting.cancel()
            self._waits.add(waiting)
            try:
                await self._wait_for_end(owner, job_id, timeout_s, on_progress)
            finally:
                self._waits.discard(waiting)
        return await self.status(owner, job_id)

    async def _wait_for_end(self, owner: str, job_id: str, timeout_s: float | None,
                            on_progress: ProgressCallback | None) -> None:
        job = await self._usable_live(owner, job_id)
        if job is None:
            # Not running here: ended, or run by another server on the same store (a replica,
            # or one draining its jobs after its client left): the store says when it ends.
            view = await self.status(owner, job_id)
            if not view.finished:
                if on_progress is None:
                    await self.store.wait_finished(owner, job_id, timeout_s)
                else:
                    await self._relay_stored_progress(owner, view, timeout_s, ProgressRelay(on_progress))
            return
        if not job.done.is_set():
            relay = ProgressRelay(on_progress) if on_progress is not None else None
            if relay is not None:
                job.relays.append(relay)
                await relay.step(f"{job.status}" + (f" — {progress_text(job.progress)}" if job.progress else ""))
            try:
                with anyio.move_on_after(timeout_s):
                    await job.done.wait()
            finally:
                if relay is not None:
                    job.relays.remove(relay)
            if relay is not None and job.done.is_set():
                await relay.step(f"job {job.id} {job.status}", final=True)

    async def _relay_stored_progress(self, owner: str, view: JobView, timeout_s: float | None,
                                     relay: ProgressRelay) -> None:
        """``wait`` for a job another server runs: the progress it stores is sent on as it comes
        (looked for every ``STORED_PROGRESS_POLL_S``), then how the job ended."""
        # The first step says the progress so far, read once with the time of its report: only
        # later reports are sent on (one stored between two reads would be neither).
        reported = await self._stored_progress(owner, view.id)
        progress = dict(reported[-1].data) if reported else view.progress
        seen = len(reported)  # the store gives them oldest first, and only ever adds
        await relay.step(f"{view.status}" + (f" — {progress_text(progress)}" if progress else ""))
        with anyio.move_on_after(timeout_s):
            while True:
                await self.store.wait_finished(owner, view.id, STORED_PROGRESS_POLL_S)
                reports = await self._stored_progress(owner, view.id)
                for report in reports[seen:]:
                    data = report.data
                    if isinstance(data.get("progress"), int | float):
                        total = data.get("total")
                        await relay.tool(float(data["progress"]), float(total) if isinstance(total, int | float)
                                         else None, data.get("message") if isinstance(data.get("message"), str)
                                         else None)
                seen = max(seen, len(reports))
                now = await self.status(owner, view.id)
                if now.finished:
                    await relay.step(f"job {view.id} {now.status}", final=True)
                    return

    async def result(self, owner: str, job_id: str) -> ToolResult | None:
        """The job's result once it has ended; None while it has not. Raises ``NoSuchJob``."""
        job = await self._usable_live(owner, job_id)
        if job is not None:
            return job.outcome if job.done.is_set() else None
        view = await self.status(owner, job_id)
        if not view.finished:
            return None
        result = await self.store.get_result(owner, job_id)
        if result is None:
            # Ended, and no result kept (a row edited or damaged): said as lost, not as "not
            # ended yet", which sent a caller back to wait for a job that had ended.
            return ToolResult.error(f"The result of job {job_id} was lost: its stored record holds none. Run the "
                                    "tool again.", reason=RESULT_LOST)
        if view.status == "failed" and view.reason is not None and view.reason.startswith(DAMAGED_RECORD) \
                and not result.is_error:
            # job_status says such a job failed and to read its error here: a result read back as
            # a success contradicted it (an outside check). What the record holds is kept, said
            # for what it is.
            return ToolResult.error(f"Job {job_id} cannot be trusted to have ended well: {view.reason}. What its "
                                    f"record holds as its result follows; run the tool again to be sure.\n\n"
                                    f"{result.text}", reason=RESULT_LOST)
        return result

    async def cancel(self, owner: str, job_id: str, reason: str = CANCELLED_BY_CALLER) -> JobView:
        """Stops a job (its ``CallContext.cancelled`` is set, so a wasm guest stops) and
        records why; waits up to ``cancel_grace_s`` for it to end. A job that has already
        ended is left as it is. Raises ``NoSuchJob``."""
        job = await self._usable_live(owner, job_id)
        if job is not None and not job.done.is_set():
            queued = job in self._queue
            self._stop(job, reason)
            if queued:
                await self._finish(job, "cancelled", _cancelled_result(job), job.cancel_reason)
                self._admit()
            with anyio.move_on_after(self.cancel_grace_s):
                await job.done.wait()
        elif job is None:
            # Run by another server (a replica, or a server on the same data folder): it is told
            # through the store, and ends it there.
            view = await self.status(owner, job_id)
            if not view.finished:
                await self.store.request_cancel(job_id, reason, at=self.clock())
                await self.store.wait_finished(owner, job_id, self.cancel_grace_s)
        return await self.status(owner, job_id)

    async def list(self, owner: str, status: JobStatus | None = None, *, limit: int = 100,
                   offset: int = 0) -> list[JobView]:
        """The owner's jobs, newest first, optionally only those with ``status``."""
        records = await self.store.list_jobs(owner, status, limit=limit, offset=offset)
        views = [self._view(job) if (job := self._live(owner, r.id)) else JobView.of(r, self.poll_interval_s)
                 for r in records]
        return [v for v in views if status is None or v.status == status]

    async def events(self, owner: str, job_id: str) -> builtins.list[JobEvent]:
        """What happened to the job so far, oldest first. Raises ``NoSuchJob``."""
        await self.status(owner, job_id)
        return await self.store.events(owner, job_id)

    async def request_cancel(self, owner: str, job_id: str, reason: str) -> JobView:
        """Asks for a job to stop from outside the server that runs it (``toolbay jobs cancel``):
        an event in the store, which that server heeds within ``CANCEL_WATCH_S``. Raises
        ``NoSuchJob``."""
        view = await self.status(owner, job_id)
        if not view.finished:
            await self.store.request_cancel(job_id, reason, at=self.clock())
        return view

    async def _heed_cancel_requests(self) -> None:
        while True:
            await anyio.sleep(CANCEL_WATCH_S)
            for job in [j for j in self._jobs.values() if not j.done.is_set() and j.recorded.is_set()]:
                try:
                    events = await self.store.events(job.owner, job.id)
                except Exception:
                    logger.debug("could not read the events of job %s", job.id, exc_info=True)
                    continue
                asked = [e for e in events if e.kind == CANCEL_REQUESTED]
                if asked and job.cancel_reason is None:
                    await self.cancel(job.owner, job.id, str(asked[-1].data.get("reason") or CANCELLED_BY_CALLER))

    async def purge_expired(self) -> int:
        """Removes jobs that ended more than ``retention_s`` ago; returns how many."""
        return await self.store.delete_finished_before(self.clock() - self.retention_s)

    async def _purge_periodically(self) -> None:
        interval = min(max(self.retention_s / 4, 1.0), 3600.0)
        while True:
            try:
                removed = await self.purge_expired()
                if removed:
                    logger.info("removed %d expired job(s)", removed)
            except Exception as exc:
                # Often passing (another process holding the file locked): said, and tried again.
                logger.warning("could not remove expired jobs (%s: %s); trying again in %g s", type(exc).__name__,
                               exc, interval, exc_info=logger.isEnabledFor(logging.DEBUG))
            await anyio.sleep(interval)


def _cancelled_record_result(record: JobRecord, reason: str) -> ToolResult:
    return ToolResult.error(f"Job {record.id} ({record.tool}) was cancelled: {reason}.", job_id=record.id,
                            reason=reason)


def _cancelled_result(job: _LiveJob) -> ToolResult:
    return ToolResult.error(f"Job {job.id} ({job.tool}) was cancelled: {job.cancel_reason}.",
                            job_id=job.id, reason=job.cancel_reason)


def _stopped_unrecorded_result(record: JobRecord) -> ToolResult:
    return ToolResult.error(
        f"Job {record.id} ({record.tool}) was stopped when it went on as a job: it could not be recorded then "
        f"(its caller was told so). Call {record.tool} again if you still need its result.",
        job_id=record.id, reason=STOPPED_UNRECORDED)


def _stopped_result(job: _LiveJob) -> ToolResult:
    """Stopped with its server (Ctrl-C, SIGTERM): said as a job left unfinished by a crash is."""
    return _interrupted_result(job.id, job.tool, started=job.started_at is not None)


def _left_unfinished_result(record: JobRecord) -> ToolResult:
    return _interrupted_result(record.id, record.tool, started=record.started_at is not None)


def _interrupted_result(job_id: str, tool: str, *, started: bool) -> ToolResult:
    return ToolResult.error(
        f"Job {job_id} ({tool}) was interrupted: {INTERRUPTED_BY_RESTART}. {interrupted_next_step(tool, started)}",
        job_id=job_id, reason=INTERRUPTED_BY_RESTART)
