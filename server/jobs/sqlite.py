"""The embedded job store: one SQLite file in the data folder, results too large for a
row in files beside it.

Durability. The database runs in WAL mode with ``synchronous=NORMAL``: a commit is
written to the WAL before ``finish`` returns, so it survives the process being killed
(``kill -9``) at any moment; only a power cut or kernel crash can lose the last few
commits, and never corrupts the file. ``FULL`` would add an fsync per commit for that
case only. A large result file is fsynced and renamed into place *before* the row that
names it is committed, so a committed row never points at a missing file.

Concurrency. All sqlite work runs on worker threads, one operation at a time, so the event
loop never blocks and the connection is never used by two threads at once. A
``CapacityLimiter(1)`` keeps the callers in line; a lock taken on the worker thread is what
keeps the connection to one thread, because an asyncio ``Task.cancel()`` (which anyio's
shielding does not stop) releases the limiter while the abandoned operation still runs, and
a second ``BEGIN`` on the connection would then fail.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from toolbay.atomic_files import write_whole
from toolbay.deep_json import read_outside_json
from toolbay.errors import StorageDamaged, StorageError, StorageGone
from toolbay.jobs.serving import held_exclusively, serving_lock_beside
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
    result_from_json,
    result_to_json,
)
from toolbay.words import ToolResult

logger = logging.getLogger(__name__)

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    tool        TEXT NOT NULL,
    arguments   TEXT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    started_at  REAL,
    finished_at REAL,
    result      TEXT,
    result_file TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs (owner, created_at);
CREATE INDEX IF NOT EXISTS jobs_by_finish ON jobs (finished_at);
CREATE TABLE IF NOT EXISTS job_events (
    seq     INTEGER PRIMARY KEY,
    job_id  TEXT NOT NULL,
    at      REAL NOT NULL,
    kind    TEXT NOT NULL,
    data    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_events_by_job ON job_events (job_id, seq);
"""

_COLUMNS = "id, owner, tool, arguments, status, reason, created_at, updated_at, started_at, finished_at"
# The columns a status or a listing reads: all but the arguments, which neither shows and which
# only a run needs. Read, a hundred jobs of 4 MB arguments took two seconds of CPU a listing page.
_COLUMNS_SHOWN = _COLUMNS.replace("arguments", "'{}'")
_UNFINISHED = "status IN ('queued', 'running')"
_INSERT_EVENT = "INSERT INTO job_events (job_id, at, kind, data) VALUES (?, ?, ?, ?)"


def _event_rows(events: list[JobEvent] | None) -> list[tuple[str, float, str, str]]:
    return [(e.job_id, e.at, e.kind, json.dumps(dict(e.data), default=str)) for e in events or ()]


# Every column a table must have: a table from elsewhere (another version, an edit by hand)
# that lacks one failed each job's end, which was then retried for ever.
_COLUMNS_NEEDED = {
    "jobs": ("id", "owner", "tool", "arguments", "status", "reason", "created_at", "updated_at", "started_at",
             "finished_at", "result", "result_file"),
    "job_events": ("seq", "job_id", "at", "kind", "data"),
}
# Errors of a disk with no room left: passing, unlike a file where a folder should be.
_OUT_OF_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})


def _text(data: bytes) -> str:
    """A text column as Python reads it: text that is not UTF-8 (a bad disk, an edit by hand)
    failed every query that fetched its row ("Could not decode to UTF-8"), the server's start
    among them; its bad bytes are read as U+FFFD, and ``_record`` says the row is damaged."""
    return data.decode("utf-8", "replace")


def _record(row: tuple[Any, ...]) -> JobRecord:
    """The job a row holds. A row damaged in any field (arguments that are not JSON, a status no
    job has, a time that is not a number: an edit by hand, a bad disk) is read as far as it can
    be, its reason saying what is wrong (a status no job has is ``failed``): one bad row
    stopped the server at start, and made a caller's whole listing an internal error."""
    problems: list[str] = []
    try:
        arguments = read_outside_json(row[3])
        if not isinstance(arguments, dict):
            raise TypeError(f"a JSON {type(arguments).__name__}, not an object")
    except (ValueError, TypeError, RecursionError) as exc:  # RecursionError: nested too deeply to read
        problems.append(f"arguments: {exc}")
        arguments = {}
    status = row[4]
    if status not in JOB_STATUSES:
        problems.append(f"status {str(status)[:40]!r} is no job's")
        status = "failed"
    times: list[float | None] = []
    for name, value, optional in (("created_at", row[6], False), ("updated_at", row[7], False),
                                  ("started_at", row[8], True), ("finished_at", row[9], True)):
        if (value is None and optional) or (isinstance(value, int | float) and not isinstance(value, bool)
                                             and EARLIEST_TIME <= value <= LATEST_TIME):
            times.append(value)
        else:
            problems.append(f"{name} is not a time")
            times.append(None if optional else 0.0)
    texts = [value if isinstance(value, str) else str(value) for value in (row[0], row[1], row[2])]
    if any(NOT_UTF8 in text for text in (*texts, str(status))):
        problems.append("a text that is not UTF-8")
    if not all(isinstance(value, str) for value in (row[0], row[1], row[2])):
        problems.append("an id, owner or tool that is not text")
    reason = row[5] if row[5] is None or isinstance(row[5], str) else str(row[5])
    if problems:
        reason = f"{DAMAGED_RECORD} ({'; '.join(problems)})"
    return JobRecord(id=texts[0], owner=texts[1], tool=texts[2], arguments=arguments, status=status,
                     reason=reason, created_at=times[0] or 0.0, updated_at=times[1] or 0.0, started_at=times[2],
                     finished_at=times[3])


_SQLITE_HEADER = b"SQLite format 3\x00"


def _sqlites_descriptor(identity: tuple[int, int] | None) -> int | None:
    """SQLite's own descriptor of the file ``identity`` names, found among the process's (Linux),
    or None. Its header is read through that one: a descriptor of toolbay's own, once closed,
    would release every lock SQLite holds on the file (POSIX locks belong to the process, and any
    close of the file drops them all), and another server or ``toolbay jobs`` would then take
    the database for unused and delete its log."""
    if identity is None:
        return None
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for name in names:
        with contextlib.suppress(OSError, ValueError):
            found = os.fstat(int(name))
            if (found.st_dev, found.st_ino) == identity:
                return int(name)
    return None


def _begins_as_sqlite(fd: int, identity: tuple[int, int] | None) -> bool | None:
    """Whether the file open as ``fd`` begins with SQLite's header; None when ``fd`` is no longer
    that file (closed, or its number taken by another): nothing can be said."""
    try:
        found = os.fstat(fd)
        if (found.st_dev, found.st_ino) != identity:
            return None
        return os.pread(fd, len(_SQLITE_HEADER), 0) == _SQLITE_HEADER
    except OSError:
        return None


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` names now (device, inode), None when none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _check_shape(conn: sqlite3.Connection, *, new_allowed: bool) -> None:
    """Raises ``_NotThisShape`` unless the database holds toolbay's tables, each with every
    column it must have; with ``new_allowed``, a database with no tables at all (a new one, to
    be given them) passes too. Another program's (tables, but no ``jobs``) never does: the
    server added toolbay's tables to it, made it private and switched its journal."""
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    if new_allowed and not tables:
        return
    for table, needed in _COLUMNS_NEEDED.items():
        has = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not has and table == "jobs":
            others = f" but others ({', '.join(tables[:3])})" if tables else ""
            raise _NotThisShape(f"it has no table {table}{others}: it is not a toolbay job database")
        if has and (missing := [column for column in needed if column not in has]):
            raise _NotThisShape(f"its table {table} has no column {', '.join(missing)} (was it made by "
                                "another program, or edited?)")


def _is_result_name(file_name: Any) -> bool:
    """A result file's name as this store writes it: a name in the results folder, never a path
    (a damaged or edited row naming '/etc/x' had that file read as a job's result, and deleted)."""
    return isinstance(file_name, str) and file_name not in ("", ".", "..") \
        and os.path.basename(file_name) == file_name and "\x00" not in file_name


def _is_damaged(record: JobRecord) -> bool:
    return record.reason is not None and record.reason.startswith(DAMAGED_RECORD)


def _event_data(text: Any) -> dict[str, Any]:
    try:
        data = read_outside_json(text)
    except (ValueError, TypeError, RecursionError):  # RecursionError: nested too deeply to read
        return {"damaged": True}
    return data if isinstance(data, dict) else {"damaged": True}


class SqliteJobStore(JobStore):
    """Jobs in the SQLite file ``path``; results over ``large_result_bytes`` (serialised)
    go to ``<path stem>-results/<job id>.json`` beside it."""

    def __init__(self, path: str | os.PathLike[str], *, large_result_bytes: int = 256 * 1024,
                 busy_timeout_s: float = 5.0, on_ended: Callable[[str, str], Awaitable[object]] | None = None,
                 as_server: bool = True) -> None:
        """``on_ended``: told the id and owner of every job this store records the end of.
        ``as_server``: a damaged file found at ``open`` is moved aside and a fresh one started,
        and a file without the job tables gets them. Otherwise (``toolbay jobs``, which only
        reads and cancels) either is said, and the file left as it is."""
        self.path = Path(path)
        self.as_server = as_server
        self.on_ended = on_ended
        # How long a write waits for another process's lock on the file before it fails.
        self.busy_timeout_s = busy_timeout_s
        self.results_dir = self.path.with_name(self.path.stem + "-results")
        self.large_result_bytes = large_result_bytes
        self._conn: sqlite3.Connection | None = None
        # The file the connection opened (device, inode): deleted or replaced under a running
        # server, its jobs would go on into a file nobody else sees (see ``_alone``).
        self._opened: tuple[int, int] | None = None
        # Its write-ahead log and shared memory as opened: deleted under a running server, the
        # next server on the folder made new ones, and each wrote its jobs where the other never
        # looked, those of one lost when both had stopped (an outside check).
        self._opened_beside: dict[str, tuple[int, int]] = {}
        self._said_gone = False
        self._header_read_by: int | None = None  # SQLite's descriptor of the file, to read its header by
        self._limiter = anyio.CapacityLimiter(1)
        self._connection_in_use = threading.Lock()
        self._opening: Future[sqlite3.Connection] | None = None  # ``begin_opening``

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn
        if conn is None:
            raise RuntimeError("the job store is not open")
        return await anyio.to_thread.run_sync(self._alone, fn, conn, limiter=self._limiter)

    def _alone(self, fn: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection) -> T:
        with self._connection_in_use:
            self._check_still_there()
            try:
                return fn(conn)
            except sqlite3.DatabaseError as exc:
                if not _is_damage(exc):
                    raise  # a lock held, a full disk: passing, and retried where that matters
                # Found damaged while serving (a bad page read now): said as such, not as an
                # internal error, nor as a full data folder.
                raise StorageDamaged(
                    f"the job database {self.path} is damaged ({exc}). Stop the servers using this data folder and "
                    "start one again: the damaged file is then kept aside and a fresh one started") from exc

    async def check_usable(self) -> None:
        self._check_still_there()  # a stat of the file: no thread, no query

    def _check_still_there(self) -> None:
        """Raises ``StorageGone`` once the database file has been deleted or replaced since it
        was opened: the connection would go on writing to the old file, which another server on
        this data folder (and this one, once restarted) never sees; its jobs would be lost
        without a word; ``StorageDamaged`` once it has been written over in place. Said once in
        the log, and on each use after."""
        if self._opened is None:
            return
        now = _identity(self.path)
        if now == self._opened and self._header_read_by is not None \
                and _begins_as_sqlite(self._header_read_by, now) is False:
            # Written over in place (``cp``, ``dd``, a program writing the wrong file): SQLite
            # would notice only when it next read a page not in its cache; meanwhile the jobs
            # recorded went into a file no restart could open, and were lost with it.
            raise StorageDamaged(self._said_once(
                f"the job database {self.path} was written over while this server was using it (it no longer "
                "begins as an SQLite database): the jobs recorded from now on would be lost. Stop the servers "
                "using this data folder and start one again: the damaged file is then kept aside and a fresh "
                "one started"))
        if now == self._opened:
            gone = next((suffix for suffix, opened in self._opened_beside.items()
                         if _identity(Path(f"{self.path}{suffix}")) != opened), None)
            if gone is None:
                return
            message = (f"the job database's file {self.path}{gone} was deleted or replaced while this server was "
                       "using it: the jobs this server records from now on would be seen by no other server on "
                       "this data folder, nor by the next one. Stop the servers using this data folder and start "
                       "one again")
        else:
            message = (f"the job database {self.path} was {'deleted' if now is None else 'replaced'} while this "
                       "server was using it: the jobs it recorded are in a file no longer there. Restart the "
                       "server (it opens the database there, or starts a new one)")
        raise StorageGone(self._said_once(message))

    def _said_once(self, message: str) -> str:
        """``message``, written to the log the first time the store is found unusable (each use
        after is refused with it, unlogged)."""
        if not self._said_gone:
            self._said_gone = True
            logger.error("%s", message)
        return message

    def begin_opening(self) -> None:
        """Begins what ``open`` does on a thread of its own, so that ``open`` finds it done or
        under way. A server's job manager opens the store once the tools are described; a new
        database's file, its log and its tables (eight syncs to disk, 10 to 45 ms) are then made
        meanwhile, not while the first listing waits. ``open`` says what failed here, or
        ``aclose`` closes what opened if ``open`` never comes."""
        if self._conn is not None or self._opening is not None:
            return
        opening: Future[sqlite3.Connection] = Future()
        opening.set_running_or_notify_cancel()

        def connect() -> None:
            try:
                opening.set_result(self._connect_or_start_afresh())
            except BaseException as error:  # noqa: BLE001 - open() raises it
                opening.set_exception(error)

        self._opening = opening
        threading.Thread(target=connect, name="toolbay-job-store-open", daemon=True).start()

    async def open(self) -> None:
        if self._conn is not None:
            return
        opening, self._opening = self._opening, None
        try:
            if opening is None:
                self._conn = await anyio.to_thread.run_sync(self._connect_or_start_afresh, limiter=self._limiter)
            else:
                self._conn = opening.result() if opening.done() else \
                    await anyio.to_thread.run_sync(opening.result, limiter=self._limiter)
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(f"cannot open the job database {self.path}: {exc}. {_remedy(exc)}") from exc

    def _connect_or_start_afresh(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not _is_damage(exc):
                raise
            if not self.as_server:
                if _in_use(self.path):  # a new server would refuse it too (an outside check)
                    raise _DamagedInUse(f"it is damaged ({exc}), and a server on this data folder is using it") \
                        from exc
                raise _DamagedLeft(f"it is damaged ({exc})") from exc
            # Not from under a server still using it (it would go on writing to the file
            # moved aside, and its jobs would be seen by nobody else): said, and left.
            try:
                with held_exclusively(serving_lock_beside(self.path), blocking=False):
                    kept = self._move_aside()
            except BlockingIOError:
                in_use = f"it is damaged ({exc}), and a server on this data folder is using it"
                raise _DamagedInUse(in_use) from exc
            logger.warning("the job database %s is damaged (%s): moved it to %s and started a fresh one; "
                           "the jobs it held are lost", self.path, exc, kept)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        if not self.as_server:
            return self._connect_to_read()
        _made_private(self.path)
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE below).
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.text_factory = _text
        try:
            conn.execute(f"PRAGMA busy_timeout={round(self.busy_timeout_s * 1000)}")
            # Before anything is changed (its mode, its journal, its tables), and before the
            # schema's script, whose indexes would fail first on a column they name.
            _check_shape(conn, new_allowed=True)
            _narrowed(self.path)
            conn.execute("PRAGMA journal_mode=WAL")
            for beside in ("-wal", "-shm"):  # a crash left them as they were made (an older version: 644)
                _narrowed(Path(f"{self.path}{beside}"))
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(_SCHEMA)
            # Damage found now, not by the first query that touches a bad page (a jobs
            # database holds days of jobs, which quick_check reads in a moment).
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                raise _Damaged(str(verdict))
            # A write that changes nothing, once the file is known whole: a database that cannot be
            # written (read-only to this user, or immutable) is said now, not by every long call
            # failing to be recorded.
            conn.execute(f"PRAGMA user_version = {int(conn.execute('PRAGMA user_version').fetchone()[0])}")
        except BaseException:
            conn.close()
            raise
        return self._noted_as_opened(conn)

    def _noted_as_opened(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        """``conn``, the file it opened noted (see ``_check_still_there``)."""
        self._opened = _identity(self.path)
        # A database made just now may have no page in its file yet (they are in the log until
        # a checkpoint); one that began with the header must go on beginning with it.
        fd = _sqlites_descriptor(self._opened)
        self._header_read_by = fd if fd is not None and _begins_as_sqlite(fd, self._opened) else None
        self._opened_beside = {suffix: found for suffix in ("-wal", "-shm")
                               if (found := _identity(Path(f"{self.path}{suffix}"))) is not None}
        return conn

    def _connect_to_read(self) -> sqlite3.Connection:
        """``toolbay jobs``'s connection, which changes nothing of the file (its mode, its
        journal, its tables: another program's database was left changed though said not to be
        toolbay's) and reads a file it may not write (a read-only mount, a file of another user's
        server) read-only: a cancel there is refused when it is written."""
        if not self.path.is_file():
            raise _NotThisShape("it is not a file")
        conn: sqlite3.Connection | None = None
        # Read-write where this user may; else read-only; and where even that cannot open it (a
        # WAL database in a folder this user may not write: its shared memory cannot be made),
        # as a file no one changes, which it is then (a clean stop leaves no log behind).
        for query in ("mode=rw", "mode=ro", "mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?{query}", uri=True, isolation_level=None,
                                       check_same_thread=False)
                conn.execute(f"PRAGMA busy_timeout={round(self.busy_timeout_s * 1000)}")
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                break
            except sqlite3.OperationalError:
                if conn is not None:
                    conn.close()
                conn = None
                if "immutable" in query:
                    raise
        assert conn is not None
        conn.text_factory = _text
        try:
            _check_shape(conn, new_allowed=False)
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                raise _Damaged(str(verdict))
        except BaseException:
            conn.close()
            raise
        return self._noted_as_opened(conn)

    def _move_aside(self) -> Path:
        """Keeps the damaged database (and its WAL) under a new name beside it; returns it."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        kept = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{self.path}{suffix}")
            if source.exists():
                source.replace(Path(f"{kept}{suffix}"))
        return kept

    async def aclose(self) -> None:
        opening, self._opening = self._opening, None
        if opening is not None and self._conn is None:  # begun, and never taken by ``open``
            with contextlib.suppress(Exception):
                self._conn = await anyio.to_thread.run_sync(opening.result, limiter=self._limiter)
        conn, self._conn = self._conn, None
        self._opened, self._opened_beside = None, {}  # closing needs no file
        self._header_read_by = None
        if conn is not None:
            await anyio.to_thread.run_sync(self._alone, sqlite3.Connection.close, conn, limiter=self._limiter)

    # -- writes ---------------------------------------------------------------------------

    async def create(self, job: JobRecord, events: list[JobEvent] | None = None) -> None:
        row = (job.id, job.owner, job.tool, json.dumps(dict(job.arguments), default=str), job.status,
               job.reason, job.created_at, job.updated_at, job.started_at, job.finished_at)
        event_rows = _event_rows(events)

        def write(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                conn.execute(f"INSERT INTO jobs ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)", row)
                conn.executemany(_INSERT_EVENT, event_rows)

        await self._run(write)

    async def set_status(self, job_id: str, status: JobStatus, *, at: float, reason: str | None = None,
                         events: list[JobEvent] | None = None) -> None:
        if status in TERMINAL:
            raise ValueError(f"{status!r} ends a job: use finish()")
        event_rows = _event_rows(events)

        def write(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                conn.execute(
                    "UPDATE jobs SET status = ?, updated_at = ?, reason = COALESCE(?, reason),"
                    # Queued again (run again after a crash): it starts anew, and says when.
                    " started_at = CASE WHEN ? = 'running' THEN COALESCE(started_at, ?)"
                    " WHEN ? = 'queued' THEN NULL ELSE started_at END"
                    f" WHERE id = ? AND {_UNFINISHED}",
                    (status, at, reason, status, at, status, job_id),
                )
                conn.executemany(_INSERT_EVENT, event_rows)

        await self._run(write)

    async def finish(self, job_id: str, status: JobStatus, result: ToolResult, *, at: float,
                     reason: str | None = None, events: list[JobEvent] | None = None) -> None:
        if status not in TERMINAL:
            raise ValueError(f"{status!r} does not end a job")
        payload = result_to_json(result)
        event_rows = _event_rows(events)

        def write(conn: sqlite3.Connection) -> str | None:
            """Records the end; the job's owner when it was this write that ended it."""
            inline: str | None = payload
            file_name: str | None = None
            if len(payload.encode()) > self.large_result_bytes:
                data = payload.encode()
                # Named by what it holds: a copy damaged since (a bad sector, a stray write) no
                # longer matches its name and reads as lost, where it was served as the result.
                file_name = f"{job_id}.{hashlib.sha256(data).hexdigest()}.json"
                # Its callers' alone, as each file in it is: under a data folder made by hand
                # (755), it showed every large result's job id to the machine's other users.
                try:
                    self.results_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
                    _owners_only(self.results_dir)  # one made 755 before toolbay made it 700
                    write_whole(self.results_dir / file_name, data, durable=True, prefix=file_name)
                    inline = None
                except OSError as error:
                    if error.errno in _OUT_OF_SPACE:
                        raise  # passing: the end is written again once there is room
                    # A file or an unwritable folder where the results go: the end was retried
                    # for ever, the job running to its caller and its server never stopping. The
                    # result goes into the database, as a small one does.
                    logger.warning("cannot keep the result of job %s in %s (%s); it is kept in the job database",
                                   job_id, self.results_dir, error.strerror or error)
                    file_name = None
            with _transaction(conn):
                ended = conn.execute(
                    "UPDATE jobs SET status = ?, reason = COALESCE(?, reason), updated_at = ?,"
                    " finished_at = ?, result = ?, result_file = ?"
                    f" WHERE id = ? AND {_UNFINISHED}",
                    (status, reason, at, at, inline, file_name, job_id),
                ).rowcount
                if not ended:
                    return None
                conn.executemany(_INSERT_EVENT, event_rows)
                row = conn.execute("SELECT owner FROM jobs WHERE id = ?", (job_id,)).fetchone()
                return str(row[0]) if row is not None else None

        owner = await self._run(write)
        if owner is not None and self.on_ended is not None:
            try:
                await self.on_ended(job_id, owner)
            except Exception:
                logger.exception("telling listeners that job %s ended failed", job_id)

    async def append_event(self, event: JobEvent) -> None:
        rows = _event_rows([event])

        def write(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                conn.executemany(_INSERT_EVENT, rows)

        await self._run(write)

    async def list_unfinished(self) -> list[JobRecord]:
        """The jobs queued or running. One whose row is damaged is not run again (what it
        was asked to do cannot be read): it is recorded failed, saying why, and left out."""
        def read(conn: sqlite3.Connection) -> list[JobRecord]:
            records = [_record(row) for row in conn.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE {_UNFINISHED} ORDER BY created_at")]
            damaged = [record for record in records if _is_damaged(record)]
            if damaged:
                at = time.time()
                with _transaction(conn):
                    for record in damaged:
                        said = f"The job cannot be run again or answered for: {record.reason}."
                        payload = result_to_json(ToolResult.error(said, reason=record.reason))
                        conn.execute("UPDATE jobs SET status = 'failed', reason = ?, updated_at = ?, finished_at = ?,"
                                     " result = ?, result_file = NULL WHERE id = ?",
                                     (record.reason, at, at, payload, record.id))
                        logger.warning("job %s left unfinished is not run again: %s; recorded failed",
                                       record.id, record.reason)
            return [record for record in records if not _is_damaged(record)]

        return await self._run(read)

    async def interrupt_unfinished(self, reason: str, *, at: float) -> int:
        payload = result_to_json(ToolResult.error(f"The job was interrupted: {reason}.", reason=reason))

        def write(conn: sqlite3.Connection) -> int:
            with _transaction(conn):
                ids = [r[0] for r in conn.execute(f"SELECT id FROM jobs WHERE {_UNFINISHED}")]
                conn.execute(
                    "UPDATE jobs SET status = 'interrupted', reason = ?, updated_at = ?, finished_at = ?,"
                    f" result = ? WHERE {_UNFINISHED}",
                    (reason, at, at, payload),
                )
                conn.executemany(_INSERT_EVENT, [(job_id, at, "interrupted", json.dumps({"reason": reason}))
                                                 for job_id in ids])
            return len(ids)

        return await self._run(write)

    async def delete_finished_before(self, cutoff: float) -> int:
        def write(conn: sqlite3.Connection) -> int:
            with _transaction(conn):
                old = conn.execute(
                    "SELECT id, result_file FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?",
                    (cutoff,),
                ).fetchall()
                ids = [(job_id,) for job_id, _ in old]
                conn.executemany("DELETE FROM job_events WHERE job_id = ?", ids)
                conn.executemany("DELETE FROM jobs WHERE id = ?", ids)
            # Files go after the commit: a crash in between leaves an orphan file, never a
            # row without its file.
            for _, file_name in old:
                if file_name and _is_result_name(file_name):  # not a damaged row's
                    (self.results_dir / file_name).unlink(missing_ok=True)
            return len(old)

        return await self._run(write)

    # -- reads ----------------------------------------------------------------------------

    async def get(self, owner: str, job_id: str) -> JobRecord | None:
        def read(conn: sqlite3.Connection) -> JobRecord | None:
            row = conn.execute(f"SELECT {_COLUMNS_SHOWN} FROM jobs WHERE id = ? AND owner = ?",
                               (job_id, owner)).fetchone()
            return _record(row) if row else None

        return await self._run(read)

    async def get_result(self, owner: str, job_id: str) -> ToolResult | None:
        def read(conn: sqlite3.Connection) -> str | _Lost | None:
            row = conn.execute("SELECT result, result_file FROM jobs WHERE id = ? AND owner = ?",
                               (job_id, owner)).fetchone()
            if row is None:
                return None
            inline, file_name = row
            if file_name is not None and not _is_result_name(file_name) or not isinstance(inline, str | None):
                return _Lost("its stored record is damaged")
            if file_name:
                try:
                    data = (self.results_dir / file_name).read_bytes()
                    if not _holds_what_it_is_named_for(file_name, data):
                        logger.warning("the result of job %s: %s does not hold what it was written with",
                                       job_id, self.results_dir / file_name)
                        return _Lost("its stored copy has been damaged")
                    return data.decode("utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    # The server's own paths are for its log, not for the caller.
                    logger.warning("the result of job %s: %s cannot be read (%s)", job_id, self.results_dir / file_name,
                                   exc)
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
                    return _Lost(f"its stored copy cannot be read ({reason})")
            return inline

        payload = await self._run(read)
        if payload is None:
            return None
        try:
            return payload.result() if isinstance(payload, _Lost) else result_from_json(payload)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:  # RecursionError: nested too deeply
            return _Lost(f"its stored copy is damaged ({exc.__class__.__name__}: {exc})").result()

    async def events(self, owner: str, job_id: str) -> list[JobEvent]:
        def read(conn: sqlite3.Connection) -> list[JobEvent]:
            rows = conn.execute(
                "SELECT e.job_id, e.at, e.kind, e.data FROM job_events e JOIN jobs j ON j.id = e.job_id"
                " WHERE e.job_id = ? AND j.owner = ? ORDER BY e.seq",
                (job_id, owner),
            )
            return [JobEvent(job_id=r[0], at=r[1], kind=r[2], data=_event_data(r[3])) for r in rows]

        return await self._run(read)

    async def list_jobs(self, owner: str, status: JobStatus | None = None, *, limit: int = 100,
                   offset: int = 0) -> list[JobRecord]:
        def read(conn: sqlite3.Connection) -> list[JobRecord]:
            where, args = "owner = ?", [owner]
            if status is not None:
                where, args = where + " AND status = ?", [*args, status]
            rows = conn.execute(
                f"SELECT {_COLUMNS_SHOWN} FROM jobs WHERE {where} ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                (*args, limit, offset),
            )
            return [_record(r) for r in rows]

        return await self._run(read)


class _Damaged(sqlite3.DatabaseError):
    """quick_check found the database damaged."""


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Damage (a bad page, a header that is not SQLite's) rather than a full disk or a lock."""
    if isinstance(exc, _Damaged):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _holds_what_it_is_named_for(file_name: str, data: bytes) -> bool:
    """Whether a result file's content has the digest its name gives ("JOB.DIGEST.json"); a file
    named by an earlier version ("JOB.json") has none, and is taken as it is."""
    parts = file_name.split(".")
    return len(parts) != 3 or hashlib.sha256(data).hexdigest() == parts[1]


class _Lost:
    """Why a finished job's result cannot be given back."""

    def __init__(self, why: str) -> None:
        self.why = why

    def result(self) -> ToolResult:
        logger.warning("a job result was lost: %s", self.why)
        return ToolResult.error(f"The result of this job was lost: {self.why}. Run the tool again.",
                                reason=RESULT_LOST)


class _transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        try:
            if exc_type is None:
                self.conn.execute("COMMIT")
        finally:
            # Left open (an error, or a COMMIT that failed), the transaction would make every
            # later write on this connection fail; SQLite may have rolled it back already.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")


class _NotThisShape(sqlite3.DatabaseError):
    """The database's tables are not the ones toolbay writes: nothing is moved or changed."""


class _DamagedInUse(OSError):
    """The database is damaged, and another server has it open: it is not moved aside."""


class _DamagedLeft(OSError):
    """The database is damaged, and this store does not move it aside (``toolbay jobs``)."""


def _in_use(database: Path) -> bool:
    """Whether a server on this data folder holds the job database ``database`` now."""
    try:
        with held_exclusively(serving_lock_beside(database), blocking=False):
            return False
    except BlockingIOError:
        return True
    except OSError:
        return False  # no lock to be had: nobody can hold it either


def _remedy(error: BaseException) -> str:
    """What to do about a database that cannot be opened: said for the cause, not guessed."""
    if isinstance(error, _NotThisShape):
        return ("Move it aside (toolbay then starts a fresh one) or choose another data folder (--data-dir); "
                "the jobs it holds are not read.")
    if isinstance(error, _DamagedLeft):
        return ("Start `toolbay serve` on this data folder: the damaged file is then kept aside and a fresh one "
                "started (the jobs it held are lost).")
    if isinstance(error, _DamagedInUse):
        return ("Stop the servers using this data folder (or let them finish), then start again: the damaged "
                "file is then kept aside and a fresh one started.")
    text = str(error).lower()
    if "full" in text or getattr(error, "errno", None) == 28:  # ENOSPC
        return "Free some space there or choose another data folder (--data-dir)."
    if "readonly" in text or "read-only" in text or "permission" in text or isinstance(error, PermissionError):
        return "Make the data folder writable by this user or choose another (--data-dir)."
    if "locked" in text or "busy" in text:
        # Another folder would split the jobs off from this one's: the lock is what to end.
        return ("Another program held it locked past the wait (an sqlite3 shell in a transaction, a backup "
                "running): let it finish or close it, then start again.")
    return "Choose another data folder (--data-dir) if this one cannot hold it."


def _made_private(path: Path) -> None:
    """Makes the database file at ``path``, where there is none yet, readable by its owner
    alone, as the audit log and the large results beside it are: it holds every caller's
    arguments and results, unredacted. Made under the process's umask, it was readable by every
    local user (SQLite gives its WAL and shared-memory files the database's own permissions).
    An existing file is left to ``_narrowed``, once it is known to be toolbay's."""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except FileExistsError:
        pass
    except OSError as error:  # read-only: SQLite says what it can of it
        logger.debug("could not make %s: %s", path, error)


def _narrowed(path: Path) -> None:
    """An existing database (or its write-ahead log, which holds job rows too) made readable by
    its owner alone, where this user may. By its mode
    alone, never by opening it: closing any handle this process has on the file drops every
    lock SQLite holds on it (POSIX locks are the process's), and then a reader that came and
    went deleted the write-ahead log under the server."""
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError as error:  # not this user's, or read-only
        logger.debug("could not make %s private: %s", path, error)


def _owners_only(folder: Path) -> None:
    """``folder`` made 700 if others may read or enter it (where its owner may change that)."""
    with contextlib.suppress(OSError):
        if folder.stat().st_mode & 0o077:
            os.chmod(folder, 0o700)
