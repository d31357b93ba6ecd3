"""What a job is on disk, and the interface every job store implements.

A store keeps jobs, their events and their results, always scoped by the owner who
started them. It is an async interface so that a shared store (Redis) serving several
replicas can replace the embedded SQLite default (``toolbay.jobs.sqlite``) without the
manager or the MCP wiring changing.

Statuses::

    queued ──► running ──► completed | failed | cancelled
       │          │
       └──────────┴──────► cancelled | interrupted (the server stopped under it)
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self

import anyio

from toolbay.deep_json import read_outside_json
from toolbay.words import ToolResult

JobStatus = Literal["queued", "running", "completed", "failed", "cancelled", "interrupted"]
# The reason of a job whose record could not be read whole, before what was wrong with it.
DAMAGED_RECORD = "its stored record is damaged"
# Times a job can have (seconds since 1970): past these, no date can be written of it.
EARLIEST_TIME = 0.0
LATEST_TIME = 253_402_300_799.0  # 9999-12-31T23:59:59Z
# What text that is not UTF-8 in a stored record is read as, rather than failing every read of it.
NOT_UTF8 = "\ufffd"
JOB_STATUSES: tuple[JobStatus, ...] = ("queued", "running", "completed", "failed", "cancelled", "interrupted")
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled", "interrupted"})

INTERRUPTED_BY_RESTART = "the server stopped before the job ended"  # queued or running
# An event asking the server that runs a job to stop it (from the CLI, or another server).
CANCEL_REQUESTED = "cancel_requested"
# How often the default ``wait_finished`` looks at the store.
STORE_POLL_S = 0.25
# A finished job's result that cannot be given back (its stored copy damaged or gone): the
# ``reason`` in the meta of the error result a store answers instead.
RESULT_LOST = "result_lost"
# The largest offset into a listing a store takes: SQLite's largest integer.
MAX_OFFSET = 2**63 - 1

# Told by a shared store when another replica asks for one of this replica's jobs to stop:
# (job id, reason).
OnCancel = Callable[[str, str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class JobRecord:
    """One job as stored. Times are seconds since the epoch."""

    id: str
    owner: str
    tool: str
    status: JobStatus
    created_at: float
    updated_at: float
    arguments: Mapping[str, Any] = field(default_factory=dict)
    started_at: float | None = None
    finished_at: float | None = None
    # Why it ended the way it did (cancelled or interrupted), in words for a model.
    reason: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL


@dataclass(frozen=True, slots=True)
class JobEvent:
    """Something that happened to a job: started, progress, output, finished..."""

    job_id: str
    at: float
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)


def result_to_json(result: ToolResult) -> str:
    return json.dumps(
        {"text": result.text, "structured": result.structured, "is_error": result.is_error,
         "meta": result.meta},
        separators=(",", ":"), default=str,
    )


def result_from_json(text: str) -> ToolResult:
    """Raises ``ValueError``, ``KeyError``, ``TypeError`` or ``RecursionError`` (nested too deeply
    to read) for a text that is not one ``result_to_json`` wrote."""
    data = read_outside_json(text)
    return ToolResult(text=data["text"], structured=data.get("structured"),
                      is_error=bool(data.get("is_error")), meta=dict(data.get("meta") or {}))


class JobStore(ABC):
    """Where jobs live. Every method is safe to call from concurrent tasks.

    Used as ``async with store:`` (or ``await store.open()`` / ``await store.aclose()``).

    A store that several servers (replicas) share sets ``shared``: each replica then ends only
    its own jobs when it stops, takes over a dead replica's jobs (``claim_orphans``), and the
    store carries cancel requests and job ends between them (``run_background``,
    ``request_cancel``, ``wait_finished``) so nobody polls.
    """

    shared: ClassVar[bool] = False

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    @abstractmethod
    async def open(self) -> None:
        """Connects and prepares the schema. Called once before any other method."""

    @abstractmethod
    async def aclose(self) -> None:
        """Releases connections and threads. Idempotent."""

    @abstractmethod
    async def create(self, job: JobRecord, events: list[JobEvent] | None = None) -> None:
        """Stores a new job, durably, before its id is handed to anyone.

        Args:
            job: the job as it is now (``queued`` or ``running``).
            events: events that happened before the job was stored (a call that ran
                inline for a while before it became a job), stored in the same write.
        """

    @abstractmethod
    async def set_status(self, job_id: str, status: JobStatus, *, at: float, reason: str | None = None,
                         events: list[JobEvent] | None = None) -> None:
        """Moves a job that has not finished to ``status`` (``running`` sets ``started_at``).

        Args:
            job_id: the job.
            status: the new, non-terminal status.
            at: when it changed.
            reason: why, in words for a model, if there is something to say.
            events: events to store in the same write (started).
        """

    @abstractmethod
    async def finish(self, job_id: str, status: JobStatus, result: ToolResult, *, at: float,
                     reason: str | None = None, events: list[JobEvent] | None = None) -> None:
        """Ends a job and saves its result in one atomic write: a job is never seen
        finished without its result. A job that has already ended is left as it is.

        Args:
            job_id: the job.
            status: ``completed``, ``failed``, ``cancelled`` or ``interrupted``.
            result: what the tool produced, or what the model should read instead.
            at: when it ended.
            reason: why it ended this way (cancellation reason), if any.
            events: events to store in the same write (output size, finished).
        """

    @abstractmethod
    async def append_event(self, event: JobEvent) -> None:
        """Records one event of a stored job.

        Args:
            event: the event; its ``job_id`` must name a stored job.
        """

    @abstractmethod
    async def get(self, owner: str, job_id: str) -> JobRecord | None:
        """Reads one job.

        Args:
            owner: who is asking; a job started by anyone else is not found.
            job_id: the job.

        Returns:
            The job, its ``arguments`` left empty (a status shows none), or None when there is
            no such job for this owner.
        """

    @abstractmethod
    async def get_result(self, owner: str, job_id: str) -> ToolResult | None:
        """Reads the result of a finished job.

        Returns:
            The result, or None when the job is unknown, not the owner's, or not finished.
        """

    @abstractmethod
    async def events(self, owner: str, job_id: str) -> list[JobEvent]:
        """Reads a job's events, oldest first (empty for an unknown or foreign job)."""

    @abstractmethod
    async def list_jobs(self, owner: str, status: JobStatus | None = None, *, limit: int = 100,
                   offset: int = 0) -> list[JobRecord]:
        """Lists an owner's jobs, newest first.

        Args:
            owner: whose jobs.
            status: only jobs with this status, if given.
            limit: at most this many.
            offset: skip this many (for paging).

        Returns:
            The jobs, newest first, their ``arguments`` left empty (a listing shows none).
        """

    async def list_unfinished(self) -> list[JobRecord]:
        """Every job not yet finished, of every owner, oldest first (for crash recovery).

        A store that cannot list them recovers nothing: its unfinished jobs are interrupted.
        """
        return []

    @abstractmethod
    async def interrupt_unfinished(self, reason: str, *, at: float) -> int:
        """Marks every job that is not finished as ``interrupted`` (crash recovery).

        A store shared by several replicas must scope this to the calling replica.

        Args:
            reason: why, e.g. ``INTERRUPTED_BY_RESTART``; also becomes the job's result.
            at: when.

        Returns:
            How many jobs were marked.
        """

    async def wait_finished(self, owner: str, job_id: str, timeout_s: float | None) -> None:
        """Returns once the job has ended (or is not the owner's), or after ``timeout_s``.

        This default looks at the store every ``STORE_POLL_S`` (a job run by another server on
        the same SQLite file); a shared store wakes its waiters when a job ends.
        """
        with anyio.move_on_after(timeout_s):
            while True:
                record = await self.get(owner, job_id)
                if record is None or record.finished:
                    return
                await anyio.sleep(STORE_POLL_S)

    async def request_cancel(self, job_id: str, reason: str, *, at: float) -> None:
        """Asks whichever server runs the job to stop it. This default records a
        ``CANCEL_REQUESTED`` event, which that server looks for; a shared store tells it at once."""
        await self.append_event(JobEvent(job_id=job_id, at=at, kind=CANCEL_REQUESTED, data={"reason": reason}))

    async def run_background(self, on_cancel: OnCancel) -> None:
        """The store's own upkeep for as long as the manager runs (a shared store renews this
        replica's lease and hears cancel requests and job ends). Must never raise for an
        outage: it waits and tries again. This default has nothing to do."""
        return None

    async def check_usable(self) -> None:
        """Raises ``StorageError`` when the store can no longer record jobs (a database file
        deleted or replaced under the server). Asked before answering for a job held in memory,
        which the store is not read for: a job running when its database went was said to be
        running for ever. This default has nothing to check."""
        return None

    async def claim_orphans(self) -> list[JobRecord]:
        """Unfinished jobs of servers that have died (their lease ran out), now this server's
        to run again or mark interrupted. Only shared stores have any."""
        return []

    async def unfinished_of_this_server(self) -> list[JobRecord]:
        """The unfinished jobs the store says this server runs. Only shared stores keep that
        apart (a store of one server's: all of them)."""
        return await self.list_unfinished()

    @abstractmethod
    async def delete_finished_before(self, cutoff: float) -> int:
        """Removes finished jobs (with their events and results) that ended before ``cutoff``.

        Returns:
            How many jobs were removed.
        """
