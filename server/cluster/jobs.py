"""RedisJobStore: jobs shared by every replica that names the same Redis.

Why not a job library (pydocket, arq, saq, taskiq): they queue *serialisable* work for any
worker to pick up. toolbay's jobs are calls that began inline on one replica (a wasm guest
already running, with its cancel flag and progress relays in that process) and went on in
the background when their budget ran out; the work cannot move, only its record can. What
the replicas must share is the record, the result, the cancel request and the end — the
``JobStore`` contract — so this is that contract on Redis, with the manager unchanged.

Keys (all under ``toolbay:``)::

    job:<id>               hash: the record, the result (JSON), the replica running it
    job:<id>:events        list of JSON events, oldest first
    jobs:owner:<owner>     sorted set of the owner's job ids by creation time (job_list)
    jobs:unfinished        sorted set of unfinished job ids (take-over)
    jobs:finished          sorted set of finished job ids by end time (purge)
    replica:<replica id>   the replica's lease: exists while it renews it (PX lease_s)

Channels: ``toolbay:job-ended`` (a job id, published in the same script that records the
end, so a waiter wakes on any replica without polling, and every replica tells its own
``subscriptions/listen`` streams subscribed to the job's result: ``on_ended``) and ``toolbay:job-cancel`` (a JSON
request the running replica acts on).

A change that must not undo an end (a status change, the end itself, a take-over) is one Lua
script that checks the job is unfinished first, as the SQLite store's ``WHERE status IN
('queued','running')``. Redis errors become ``StorageError`` (the app answers the call with
a tool error saying so); the background loop outlives outages and wakes every waiter to look
again when it reconnects, so no end is missed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar

import anyio
import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from toolbay.cluster.connection import Subscription
from toolbay.deep_json import read_outside_json
from toolbay.errors import JobStoreUnavailable, StorageDamaged, StorageError, StorageGone
from toolbay.jobs.store import (
    DAMAGED_RECORD,
    EARLIEST_TIME,
    JOB_STATUSES,
    LATEST_TIME,
    NOT_UTF8,
    RESULT_LOST,
    TERMINAL,
    JobEvent,
    JobRecord,
    JobStatus,
    JobStore,
    OnCancel,
    result_from_json,
    result_to_json,
)
from toolbay.words import ToolResult

logger = logging.getLogger(__name__)

# A job's end is written again after a failed attempt, a few times with a growing pause: the
# script leaves a job that has already ended alone, so repeating a write that timed out after it
# ran is harmless, and the end (the result) is not lost to a moment when Redis could not be
# reached (a connection that timed out on a busy host, Redis restarting or paused).
FINISH_ATTEMPTS = 4
FINISH_FIRST_PAUSE_S = 0.5

PREFIX = "toolbay:"
ENDED_CHANNEL = PREFIX + "job-ended"
CANCEL_CHANNEL = PREFIX + "job-cancel"
UNFINISHED = PREFIX + "jobs:unfinished"
FINISHED = PREFIX + "jobs:finished"
# After an outage, the background loop tries Redis again after this long.
RECONNECT_S = 1.0

# A job's event list holding another kind of value (set by hand, or by another program using the
# database) is replaced by a fresh list before anything is written: Redis runs a script's commands
# up to the one that fails, so the RPUSH at the end left a job's end recorded but not published
# (its waiters on other replicas never woke) and the replica running it saying it could not record it.
# ``_FINISH`` mends the two indexes it writes so too (a sorted set is all toolbay keeps there).
_EVENTS_MENDED = """
local kind = redis.call('TYPE', KEYS[2])['ok']
if kind ~= 'list' and kind ~= 'none' then redis.call('DEL', KEYS[2]) end
"""

_SET_STATUS = """
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'queued' and s ~= 'running' then return 0 end
""" + _EVENTS_MENDED + """
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2], 'replica', ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'reason', ARGV[3]) end
local started = redis.call('HGET', KEYS[1], 'started_at')
if ARGV[1] == 'running' and (not started or started == '') then
  redis.call('HSET', KEYS[1], 'started_at', ARGV[2])
elseif ARGV[1] == 'queued' then
  redis.call('HSET', KEYS[1], 'started_at', '')
end
for i = 5, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
return 1
"""

# Records a job's end, by the replica running it (ARGV[7]). A replica cut off from Redis, or
# stalled, past its lease is taken for dead and its jobs taken over while it may still run them
# (``_CLAIM`` notes it in ``taken_from``): its end of a job another replica now runs is not
# recorded (2: that replica's run records its own), and its end of a job the takeover recorded
# as interrupted (a write, not run again) is: the job did run to its end (3).
_FINISH = """
local s = redis.call('HGET', KEYS[1], 'status')
local ran_here = 1
if not s then return -1 end
""" + _EVENTS_MENDED + """
for i = 3, 4 do
  local kind = redis.call('TYPE', KEYS[i])['ok']
  if kind ~= 'zset' and kind ~= 'none' then redis.call('DEL', KEYS[i]) end
end
if s == 'queued' or s == 'running' then
  local r = redis.call('HGET', KEYS[1], 'replica')
  if r and r ~= ARGV[7] then return 2 end
elseif s == 'interrupted' and redis.call('HGET', KEYS[1], 'taken_from') == ARGV[7] then
  ran_here = 3
  redis.call('HDEL', KEYS[1], 'taken_from')
else
  return 0
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2], 'finished_at', ARGV[2], 'result', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'reason', ARGV[4])
elseif ran_here == 3 then redis.call('HDEL', KEYS[1], 'reason') end  -- not the takeover's "interrupted"
redis.call('ZREM', KEYS[3], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[5])
for i = 8, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('PUBLISH', ARGV[6], ARGV[5])
return ran_here
"""

# Takes a job over when the replica recorded as running it still is the one read before and
# its lease is gone.
_CLAIM = """
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'queued' and s ~= 'running' then return 0 end
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[1] then return 0 end
local lease = false
if redis.call('TYPE', KEYS[2])['ok'] == 'string' then lease = redis.call('GET', KEYS[2]) end
if lease and lease ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], 'replica', ARGV[2], 'taken_from', ARGV[1])
return 1
"""
# A stopped replica's lease says so (rather than vanishing): its jobs are taken over at once,
# not a whole lease_s later, as a lease gone in a Redis outage would be.
GONE = "gone"


def _job_key(job_id: str) -> str:
    return f"{PREFIX}job:{job_id}"


def _events_key(job_id: str) -> str:
    return f"{PREFIX}job:{job_id}:events"


def _owner_key(owner: str) -> str:
    return f"{PREFIX}jobs:owner:{owner}"


def _lease_key(replica: str) -> str:
    return f"{PREFIX}replica:{replica}"


def _event_json(event: JobEvent) -> str:
    return json.dumps({"at": event.at, "kind": event.kind, "data": dict(event.data)}, default=str)


def _event(job_id: str, row: Any) -> JobEvent:
    """An event as ``_event_json`` wrote it. One that is not (pushed onto the list by hand or by
    another program) is read as a damaged event, as the SQLite store reads a damaged row's data:
    it made every job_status, job_wait and job_result of the job on the replicas not running it an
    internal error, for as long as the job was kept."""
    try:
        fields = read_outside_json(row)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to read
        fields = None
    if not isinstance(fields, dict):
        return JobEvent(job_id=job_id, at=0.0, kind="damaged", data={"damaged": True})
    at, kind, data = fields.get("at"), fields.get("kind"), fields.get("data")
    return JobEvent(job_id=job_id, at=_event_time(at),
                    kind=kind if isinstance(kind, str) else "damaged",
                    data=data if isinstance(data, dict) else {} if data is None else {"damaged": True})


def _event_time(at: Any) -> float:
    """An event's time as written, or 0.0 for anything else: a string, NaN, the infinities, or an
    integer too large for a float (JSON allows one; ``float`` of it raised OverflowError)."""
    if isinstance(at, bool) or not isinstance(at, int | float):
        return 0.0
    try:
        value = float(at)
    except OverflowError:
        return 0.0
    return value if math.isfinite(value) else 0.0


def _optional_float(value: Any) -> float | None:
    return float(value) if value not in (None, b"", "") else None


def _s(value: Any) -> str:
    """Text of what redis-py read (bytes: the client does not decode); bytes that are not UTF-8
    (a record edited by hand) as U+FFFD, which ``_record`` says is damage, rather than an error
    that failed every listing of the job's caller."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


# The fields a status or a listing reads: neither the arguments nor the result, which they do not
# show (a job's whole hash was read at each job_status, a large result with it).
_FIELDS_SHOWN = ("id", "owner", "tool", "status", "created_at", "updated_at", "started_at", "finished_at", "reason")


def _shown(values: list[Any]) -> dict[str, Any]:
    """The fields of an HMGET of ``_FIELDS_SHOWN``, empty when the job is not there."""
    return {} if values[0] is None else {name: value for name, value in zip(_FIELDS_SHOWN, values, strict=True)
                                          if value is not None}


def _record(fields: Mapping[Any, Any]) -> JobRecord:
    """The job a hash holds. One damaged in a field (a status no job has, a time that is not a
    number, arguments that are not a JSON object: an edit by hand) is read as far as it can be,
    its reason saying what is wrong, as the SQLite store reads a damaged row: it was an internal
    error for its caller's every listing, for good."""
    text = {_s(key): _s(value) for key, value in fields.items()}
    problems: list[str] = []
    status = text.get("status", "")
    if status not in JOB_STATUSES:
        problems.append(f"status {status[:40]!r} is no job's")
        status = "failed"
    times: dict[str, float | None] = {}
    for name in ("created_at", "updated_at", "started_at", "finished_at"):
        try:
            times[name] = _optional_float(text.get(name))
        except ValueError:
            times[name] = math.nan
        if times[name] is not None and not EARLIEST_TIME <= times[name] <= LATEST_TIME:  # type: ignore[operator]
            # not a number, or "inf", "nan", 1e300: no date can be written of it (a re-check)
            problems.append(f"{name} is not a time")
            times[name] = None
    if any(NOT_UTF8 in value for value in text.values()):
        problems.append("a text that is not UTF-8")
    try:
        arguments = read_outside_json(text.get("arguments") or "{}")
        if not isinstance(arguments, dict):
            raise TypeError(f"a JSON {type(arguments).__name__}, not an object")
    except (ValueError, TypeError, RecursionError) as exc:  # RecursionError: nested too deeply to read
        problems.append(f"arguments: {exc}")
        arguments = {}
    missing = [name for name in ("id", "owner", "tool") if name not in text]
    if missing:
        problems.append(f"no {', '.join(missing)}")
    reason = f"{DAMAGED_RECORD} ({'; '.join(problems)})" if problems else text.get("reason") or None
    return JobRecord(
        id=text.get("id", ""), owner=text.get("owner", ""), tool=text.get("tool", ""),
        status=status,  # type: ignore[arg-type]
        created_at=times["created_at"] or 0.0, updated_at=times["updated_at"] or 0.0,
        arguments=arguments, started_at=times["started_at"], finished_at=times["finished_at"], reason=reason,
    )


# When a caller refused because Redis is down is told to try again.
_RETRY_AFTER_S = 5.0
# At most one log line per this many seconds while Redis stays down.
_OUTAGE_LOG_EVERY_S = 10.0


class _Unreachable:
    """Turns Redis's errors into ``JobStoreUnavailable`` (a ``StorageError``): the call is
    refused with when to try again, the server lives. Where Redis is, and why it failed, go to
    the log, not to callers."""

    def __init__(self) -> None:
        self._logged_at = -_OUTAGE_LOG_EVERY_S

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if _wrong_kind(exc):
            # Redis answers, but a key of toolbay's holds another kind of value (set by hand, or
            # by another program sharing the database): no retry will mend it. Said as a
            # reachability problem, it was "retry after 5 seconds", for good.
            logger.warning("a key of the shared job store (Redis) holds the wrong kind of value (set by hand, or by "
                           "another program using this database?): %s", exc)
            raise StorageDamaged("The shared job store holds a damaged record, so this cannot be done; tell the "
                                 "server's operator (its log says more).") from exc
        if exc is not None and isinstance(exc, RedisError | OSError):
            now = time.monotonic()
            if now - self._logged_at >= _OUTAGE_LOG_EVERY_S:
                self._logged_at = now
                logger.warning("the shared job store (Redis) cannot be reached: %s", exc)
            raise JobStoreUnavailable(_RETRY_AFTER_S) from exc


_unreachable = _Unreachable()


def _wrong_kind(error: BaseException | None) -> bool:
    """Whether Redis refused a command because a key holds another kind of value than it works on."""
    return isinstance(error, ResponseError) and "WRONGTYPE" in str(error)


def _cancel_request(data: str) -> tuple[str, str] | None:
    """The job id and reason of a cancel request published by a replica; None (logged) for
    anything else on the channel, published by another program or by hand, which ended the
    listener, and with it every replica's job manager, at once."""
    try:
        request = read_outside_json(data)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to read
        request = None
    if isinstance(request, dict) and isinstance(request.get("job_id"), str):
        reason = request.get("reason")
        return request["job_id"], reason if isinstance(reason, str) and reason else f"cancelled on {CANCEL_CHANNEL}"
    logger.warning("ignored a message on %s that is no cancel request of toolbay's: %.200r", CANCEL_CHANNEL, data)
    return None


def _log_left_out(job_id: str) -> None:
    logger.warning("the job %s is left out: its key %s in the shared job store (Redis) holds the wrong kind "
                   "of value", job_id, _job_key(job_id))


def _without_wrong_kinds(ids: list[str], rows: list[Any]) -> list[tuple[str, Any]]:
    """Each id with its row of a pipeline run with ``raise_on_error=False``, but those whose key
    holds the wrong kind of value, logged and left out: one damaged key is left out of a listing
    or a takeover, not every job with it. Any other error is raised as ``_unreachable`` says it."""
    kept = []
    for job_id, row in zip(ids, rows, strict=True):
        if _wrong_kind(row):
            _log_left_out(job_id)
        elif isinstance(row, Exception):
            with _unreachable:
                raise row
        else:
            kept.append((job_id, row))
    return kept


class RedisJobStore(JobStore):
    """Jobs in Redis, shared by replicas. ``lease_s``: how long a replica that stops renewing
    its lease keeps its jobs before another takes them over."""

    shared: ClassVar[bool] = True

    def __init__(self, client: aioredis.Redis, *, lease_s: float = 10.0, replica_id: str | None = None,
                 on_ended: Callable[[str, str], Awaitable[object]] | None = None) -> None:
        """``on_ended``: told the id and owner of every job that ends on any replica (as the
        end is published), so each replica can tell its own listeners (the owner's alone)."""
        self.client = client
        self.on_ended = on_ended
        self.lease_s = lease_s
        self.replica_id = replica_id or secrets.token_hex(6)
        self._set_status = client.register_script(_SET_STATUS)
        self._finish = client.register_script(_FINISH)
        self._claim = client.register_script(_CLAIM)
        # Waiters on jobs run elsewhere, by job id: woken when the end is published.
        self._ended: dict[str, set[anyio.Event]] = {}
        # Since when this replica has renewed its lease without a failure (None: failing now).
        # After a Redis outage every lease may have run out; a replica takes nothing over until
        # it has been back for a whole lease_s, by which time the live ones have renewed theirs.
        self._renewing_since: float | None = None
        # Replicas whose lease this one found gone, and since when: a lease that ran out in a
        # Redis outage comes back within lease_s / 3 of Redis's return, so a replica is taken
        # for dead only when its lease stays gone for a whole lease_s as seen from here.
        self._missing_since: dict[str, float] = {}
        # The jobs this replica has recorded as its own and not yet ended: after a spell without
        # renewing its lease, it looks whether another replica took any of them over.
        self._mine: set[str] = set()

    async def open(self) -> None:
        with _unreachable:
            await self._renew_lease()
        self._renewing_since = time.monotonic()

    async def aclose(self) -> None:
        # The lease says at once that this replica has stopped: the jobs the manager left
        # unfinished (read-tier ones, safe to run again) are taken over by another replica at
        # its next look. Kept a while, then gone as any lease.
        try:
            await self.client.set(_lease_key(self.replica_id), GONE, px=int(self.lease_s * 3000))
        except (RedisError, OSError):
            logger.debug("could not say that this replica has stopped", exc_info=True)

    async def _renew_lease(self) -> None:
        await self.client.set(_lease_key(self.replica_id), "1", px=int(self.lease_s * 1000))

    # -- writes ---------------------------------------------------------------------------

    async def create(self, job: JobRecord, events: list[JobEvent] | None = None) -> None:
        fields = {"id": job.id, "owner": job.owner, "tool": job.tool, "status": job.status,
                  "arguments": json.dumps(dict(job.arguments), default=str), "created_at": job.created_at,
                  "updated_at": job.updated_at, "replica": self.replica_id, "reason": job.reason or "",
                  "started_at": job.started_at if job.started_at is not None else "", "finished_at": ""}
        self._mine.add(job.id)
        try:
            with _unreachable:
                async with self.client.pipeline(transaction=True) as pipe:
                    pipe.hset(_job_key(job.id), mapping=fields)  # type: ignore[arg-type]
                    pipe.zadd(_owner_key(job.owner), {job.id: job.created_at})
                    pipe.zadd(UNFINISHED, {job.id: job.created_at})
                    if events:
                        pipe.rpush(_events_key(job.id), *[_event_json(e) for e in events])
                    await pipe.execute()
        except StorageDamaged:
            # Redis runs every command of a transaction, even after one fails (a key of the wrong
            # kind): the record landed without its index, and the job its caller was told had
            # stopped was listed as running for ever. What landed is taken back.
            self._mine.discard(job.id)
            with contextlib.suppress(RedisError, OSError):
                async with self.client.pipeline(transaction=True) as pipe:
                    pipe.delete(_job_key(job.id), _events_key(job.id))
                    pipe.zrem(_owner_key(job.owner), job.id)
                    pipe.zrem(UNFINISHED, job.id)
                    await pipe.execute(raise_on_error=False)
            raise

    async def set_status(self, job_id: str, status: JobStatus, *, at: float, reason: str | None = None,
                         events: list[JobEvent] | None = None) -> None:
        if status in TERMINAL:
            raise ValueError(f"{status!r} ends a job: use finish()")
        self._mine.add(job_id)
        with _unreachable:
            await self._set_status(keys=[_job_key(job_id), _events_key(job_id)],
                                   args=[status, at, reason or "", self.replica_id,
                                         *[_event_json(e) for e in events or ()]])

    async def finish(self, job_id: str, status: JobStatus, result: ToolResult, *, at: float,
                     reason: str | None = None, events: list[JobEvent] | None = None) -> None:
        if status not in TERMINAL:
            raise ValueError(f"{status!r} does not end a job")
        args = [status, at, result_to_json(result), reason or "", job_id, ENDED_CHANNEL, self.replica_id,
                *[_event_json(e) for e in events or ()]]
        for attempt in range(1, FINISH_ATTEMPTS + 1):
            try:
                with _unreachable:
                    recorded = await self._finish(keys=[_job_key(job_id), _events_key(job_id), UNFINISHED, FINISHED],
                                                  args=args)
                self._mine.discard(job_id)
                if recorded == -1:
                    # Redis restarted empty (no persistence), or the record was deleted: the result
                    # was dropped without a word, and its caller told there was no such job.
                    raise StorageGone(f"its record is gone from the shared job store (Redis restarted without its "
                                      f"data, or the key {_job_key(job_id)} was deleted)")
                if recorded == 2:
                    logger.warning("job %s ended here after another replica took it over (this one had not renewed "
                                   "its lease in time): that replica's run records its end, not this one", job_id)
                elif recorded == 3:
                    logger.warning("job %s ended here after another replica took it over and recorded it as "
                                   "interrupted: its end here is recorded instead", job_id)
                return
            except (StorageDamaged, StorageGone):
                raise  # trying again will not bring the record back, nor mend its key
            except StorageError as exc:
                if attempt == FINISH_ATTEMPTS:
                    raise
                pause = FINISH_FIRST_PAUSE_S * 2 ** (attempt - 1)
                logger.warning("could not record the end of job %s (attempt %d of %d: %s); trying again in %gs",
                               job_id, attempt, FINISH_ATTEMPTS, exc.__cause__ or exc, pause)
                await anyio.sleep(pause)

    async def append_event(self, event: JobEvent) -> None:
        with _unreachable:
            await self.client.rpush(_events_key(event.job_id), _event_json(event))

    async def interrupt_unfinished(self, reason: str, *, at: float) -> int:
        """Only this replica's own unfinished jobs: the others' belong to them."""
        result = ToolResult.error(f"The job was interrupted: {reason}.", reason=reason)
        count = 0
        for record in await self._unfinished(only_mine=True):
            await self.finish(record.id, "interrupted", result, at=at, reason=reason,
                              events=[JobEvent(job_id=record.id, at=at, kind="interrupted", data={"reason": reason})])
            count += 1
        return count

    async def delete_finished_before(self, cutoff: float) -> int:
        with _unreachable:
            old = [_s(i) for i in await self.client.zrangebyscore(FINISHED, "-inf", f"({cutoff}")]
            for job_id in old:
                owner = await self.client.hget(_job_key(job_id), "owner")
                async with self.client.pipeline(transaction=True) as pipe:
                    pipe.delete(_job_key(job_id), _events_key(job_id))
                    pipe.zrem(FINISHED, job_id)
                    if owner is not None:
                        pipe.zrem(_owner_key(_s(owner)), job_id)
                    await pipe.execute()
        return len(old)

    # -- reads ----------------------------------------------------------------------------

    async def _read(self, job_id: str) -> JobRecord | None:
        with _unreachable:
            fields = _shown(await self.client.hmget(_job_key(job_id), list(_FIELDS_SHOWN)))
        return _record(fields) if fields else None

    async def get(self, owner: str, job_id: str) -> JobRecord | None:
        record = await self._read(job_id)
        return record if record is not None and record.owner == owner else None

    async def get_result(self, owner: str, job_id: str) -> ToolResult | None:
        with _unreachable:
            found_owner, payload = await self.client.hmget(_job_key(job_id), ["owner", "result"])
        if found_owner is None or _s(found_owner) != owner or not payload:
            return None
        try:
            return result_from_json(_s(payload))
        except (ValueError, KeyError, TypeError, RecursionError) as exc:  # RecursionError: nested too deeply
            return ToolResult.error(f"The result of this job was lost: its stored copy is damaged ({exc}). "
                                    "Run the tool again.", reason=RESULT_LOST)

    async def events(self, owner: str, job_id: str) -> list[JobEvent]:
        if await self.get(owner, job_id) is None:
            return []
        try:
            with _unreachable:
                rows = await self.client.lrange(_events_key(job_id), 0, -1)
        except StorageDamaged:
            # The list holds another kind of value: read as one damaged event, as a damaged entry
            # is, and replaced at the job's next change (``_EVENTS_MENDED``); the job's status
            # and result on the replicas not running it were "a damaged record" meanwhile.
            return [JobEvent(job_id=job_id, at=0.0, kind="damaged", data={"damaged": True})]
        return [_event(job_id, row) for row in rows]

    async def list_jobs(self, owner: str, status: JobStatus | None = None, *, limit: int = 100,
                        offset: int = 0) -> list[JobRecord]:
        found: list[JobRecord] = []
        skipped = 0
        start, page = 0, max(limit + offset, 100)
        while len(found) < limit:
            with _unreachable:
                ids = await self.client.zrevrange(_owner_key(owner), start, start + page - 1)
            if not ids:
                break
            start += len(ids)
            for record in await self._records([_s(i) for i in ids], whole=False):
                if record.owner != owner or (status is not None and record.status != status):
                    continue
                if skipped < offset:
                    skipped += 1
                    continue
                found.append(record)
                if len(found) == limit:
                    break
        return found

    async def _records(self, ids: list[str], *, whole: bool = True) -> list[JobRecord]:
        """The jobs ``ids`` names that are there; with ``whole`` false, only their ``_FIELDS_SHOWN``."""
        with _unreachable:
            async with self.client.pipeline(transaction=False) as pipe:
                for job_id in ids:
                    if whole:
                        pipe.hgetall(_job_key(job_id))
                    else:
                        pipe.hmget(_job_key(job_id), list(_FIELDS_SHOWN))
                rows = await pipe.execute(raise_on_error=False)
        found = [row for _, row in _without_wrong_kinds(ids, rows)]
        found = found if whole else [_shown(values) for values in found]
        return [_record(fields) for fields in found if fields]

    async def _unfinished(self, *, only_mine: bool) -> list[JobRecord]:
        with _unreachable:
            ids = [_s(i) for i in await self.client.zrange(UNFINISHED, 0, -1)]
            async with self.client.pipeline(transaction=False) as pipe:
                for job_id in ids:
                    pipe.hget(_job_key(job_id), "replica")
                replicas = await pipe.execute(raise_on_error=False)
        mine = [job_id for job_id, replica in _without_wrong_kinds(ids, replicas)
                if not only_mine or (replica is not None and _s(replica) == self.replica_id)]
        return [r for r in await self._records(mine) if not r.finished]

    async def list_unfinished(self) -> list[JobRecord]:
        return await self._unfinished(only_mine=False)

    async def unfinished_of_this_server(self) -> list[JobRecord]:
        return await self._unfinished(only_mine=True)

    # -- between replicas -------------------------------------------------------------------

    async def claim_orphans(self) -> list[JobRecord]:
        since = self._renewing_since
        # Just started or just back from an outage: the others may not have renewed yet, so
        # only the jobs of replicas that said they stopped are taken.
        settled = since is not None and time.monotonic() - since >= self.lease_s
        with _unreachable:
            ids = [_s(i) for i in await self.client.zrange(UNFINISHED, 0, -1)]
            claimed = []
            now = time.monotonic()
            for job_id in ids:
                try:
                    replica = await self.client.hget(_job_key(job_id), "replica")
                except ResponseError as exc:
                    if not _wrong_kind(exc):
                        raise
                    # One damaged key among the unfinished stopped every takeover, for good (a re-check).
                    _log_left_out(job_id)
                    continue
                if replica is None or _s(replica) == self.replica_id:
                    continue
                try:
                    lease = await self.client.get(_lease_key(_s(replica)))
                except ResponseError as exc:
                    if not _wrong_kind(exc):
                        raise
                    # Another kind of value (set by hand, or by another program) stopped every
                    # takeover: read as no lease, which a live replica writes again within lease_s / 3.
                    lease = None
                if lease is not None and _s(lease) != GONE:
                    self._missing_since.pop(_s(replica), None)
                    continue
                if lease is None and (not settled or now - self._missing_since.setdefault(_s(replica), now)
                                      < self.lease_s):
                    continue
                if await self._claim(keys=[_job_key(job_id), _lease_key(_s(replica))],
                                     args=[_s(replica), self.replica_id, GONE]):
                    claimed.append(job_id)
        return [r for r in await self._records(claimed) if not r.finished]

    async def request_cancel(self, job_id: str, reason: str, *, at: float) -> None:
        await super().request_cancel(job_id, reason, at=at)  # recorded too, for job events
        with _unreachable:
            await self.client.publish(CANCEL_CHANNEL, json.dumps({"job_id": job_id, "reason": reason}))

    async def wait_finished(self, owner: str, job_id: str, timeout_s: float | None) -> None:
        """Wakes when the end is published (or the listener reconnects after an outage and
        every waiter looks again); never polls."""
        with anyio.move_on_after(timeout_s):
            while True:
                woken = anyio.Event()
                self._ended.setdefault(job_id, set()).add(woken)
                try:
                    record = await self.get(owner, job_id)
                    if record is None or record.finished:
                        return
                    await woken.wait()
                finally:
                    waiters = self._ended.get(job_id)
                    if waiters is not None:
                        waiters.discard(woken)
                        if not waiters:
                            del self._ended[job_id]

    async def run_background(self, on_cancel: OnCancel) -> None:
        """Renews this replica's lease and listens for job ends and cancel requests, for as
        long as the manager runs, through any number of Redis outages."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._keep_lease, on_cancel)
            while True:
                try:
                    await self._listen(on_cancel)
                except (RedisError, OSError) as exc:
                    logger.warning("lost the job channel to Redis (%s); trying again", exc)
                self._wake_all()  # an end may have been published while we were not listening
                await anyio.sleep(RECONNECT_S)

    async def _listen(self, on_cancel: OnCancel) -> None:
        # Reconnected by the pool's retry after Redis closed the connection: an end may have
        # been published in between, so every waiter looks again.
        async with Subscription(self.client, on_reconnect=self._wake_all_soon) as pubsub:
            await pubsub.subscribe(ENDED_CHANNEL, CANCEL_CHANNEL)
            self._wake_all()  # subscribed: anything that ended before this is in the store
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                channel, data = _s(message["channel"]), _s(message["data"])
                if channel == ENDED_CHANNEL:
                    for woken in self._ended.get(data, ()):
                        woken.set()
                    await self._tell_ended(data)
                elif channel == CANCEL_CHANNEL and (request := _cancel_request(data)) is not None:
                    await on_cancel(*request)

    async def _tell_ended(self, job_id: str) -> None:
        if self.on_ended is None:
            return
        try:
            owner = await self.client.hget(_job_key(job_id), "owner")
            if owner is not None:
                await self.on_ended(job_id, _s(owner))
        except Exception:
            logger.exception("telling listeners that job %s ended failed", job_id)

    async def _wake_all_soon(self) -> None:
        self._wake_all()

    def _wake_all(self) -> None:
        for waiters in self._ended.values():
            for woken in waiters:
                woken.set()

    async def _keep_lease(self, on_cancel: OnCancel | None = None) -> None:
        renewed = time.monotonic()
        while True:
            try:
                await self._renew_lease()
                if self._renewing_since is None:
                    self._renewing_since = time.monotonic()
                    logger.warning("Redis answers again; this replica's lease is renewed")
                if time.monotonic() - renewed > self.lease_s and on_cancel is not None:
                    # Cut off from Redis, or stalled, past its lease: it may have been taken for
                    # dead, and its jobs run again elsewhere while they still ran here.
                    await self._stop_taken_over(on_cancel)
                renewed = time.monotonic()
            except (RedisError, OSError) as exc:
                if self._renewing_since is not None:
                    logger.warning("could not renew this replica's lease in Redis (%s)", exc)
                self._renewing_since = None
            await anyio.sleep(self.lease_s / 3)

    async def _stop_taken_over(self, on_cancel: OnCancel) -> None:
        """Stops here the jobs another replica took over and runs again (a job the takeover
        recorded as interrupted runs on here: its end is still recorded, see ``_FINISH``)."""
        for job_id in list(self._mine):
            replica, status = await self.client.hmget(_job_key(job_id), ["replica", "status"])
            if replica is not None and _s(replica) != self.replica_id and _s(status) in ("queued", "running"):
                logger.warning("job %s was taken over by replica %s while this one could not renew its lease: "
                               "it is stopped here and runs there", job_id, _s(replica))
                self._mine.discard(job_id)
                await on_cancel(job_id, "another replica took it over while this one could not renew its lease")
