"""The SQLite job store on its own: scoping by owner, large results, atomic ends."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest

from toolbay.errors import StorageDamaged, StorageError
from toolbay.jobs import JobEvent, JobManager, JobRecord, SqliteJobStore
from toolbay.jobs.serving import ServingLock, serving_lock_beside
from toolbay.words import ToolResult

pytestmark = pytest.mark.anyio


def job(job_id: str = "job_1", owner: str = "alice", at: float = 100.0) -> JobRecord:
    return JobRecord(id=job_id, owner=owner, tool="cat", status="running", created_at=at, updated_at=at,
                     arguments={"path": "a.txt"}, started_at=at)


async def test_the_database_runs_in_wal_mode(store: SqliteJobStore, db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


async def test_the_database_and_its_wal_are_readable_by_their_owner_alone(db_path: Path) -> None:
    # They hold every caller's arguments and results, unredacted: made under a umask of 022 they
    # were readable by every local user. One made so before is narrowed as it is opened.
    db_path.touch(mode=0o644)
    db_path.chmod(0o644)
    old = os.umask(0o022)
    try:
        async with SqliteJobStore(db_path) as store:
            await store.create(job(), [JobEvent("job_1", 100.0, "started")])
            modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in db_path.parent.glob("jobs.sqlite3*")}
    finally:
        os.umask(old)
    assert modes == {"jobs.sqlite3": 0o600, "jobs.sqlite3-wal": 0o600, "jobs.sqlite3-shm": 0o600}


async def test_a_job_is_read_back_only_by_its_owner(store: SqliteJobStore) -> None:
    await store.create(job(), [JobEvent("job_1", 100.0, "started")])
    # A status shows no arguments, and reads none (a 4 MB call's were read at every poll).
    assert (await store.get("alice", "job_1")) == dataclasses.replace(job(), arguments={})
    assert await store.get("mallory", "job_1") is None
    assert await store.events("mallory", "job_1") == []
    assert [e.kind for e in await store.events("alice", "job_1")] == ["started"]


async def test_a_result_is_saved_with_the_end_of_the_job(store: SqliteJobStore) -> None:
    await store.create(job())
    assert await store.get_result("alice", "job_1") is None
    result = ToolResult(text="hello", structured={"lines": 1}, is_error=False, meta={"exit_code": 0})
    await store.finish("job_1", "completed", result, at=101.0, events=[JobEvent("job_1", 101.0, "finished")])
    assert await store.get_result("alice", "job_1") == result
    assert await store.get_result("mallory", "job_1") is None
    record = await store.get("alice", "job_1")
    assert record is not None and record.status == "completed" and record.finished_at == 101.0


async def test_a_job_that_has_ended_cannot_end_again(store: SqliteJobStore) -> None:
    await store.create(job())
    await store.finish("job_1", "cancelled", ToolResult.error("stop"), at=101.0, reason="asked")
    await store.finish("job_1", "completed", ToolResult("late"), at=102.0)
    record = await store.get("alice", "job_1")
    assert record is not None and (record.status, record.reason) == ("cancelled", "asked")
    assert [e.kind for e in await store.events("alice", "job_1")] == []


async def test_a_result_over_the_size_limit_is_kept_in_a_file_beside_the_database(db_path: Path) -> None:
    big = ToolResult(text="y" * 5000)
    async with SqliteJobStore(db_path, large_result_bytes=1000) as store:
        await store.create(job())
        await store.finish("job_1", "completed", big, at=101.0)
        files = list(store.results_dir.iterdir())
        assert [f.name.split(".")[0] for f in files] == ["job_1"]
        assert store.results_dir.stat().st_mode & 0o777 == 0o700  # the files' names are job ids
        assert await store.get_result("alice", "job_1") == big
        assert await store.delete_finished_before(200.0) == 1
        assert list(store.results_dir.iterdir()) == []
        store.results_dir.chmod(0o755)  # as made before toolbay made it 700
        await store.create(job("job_2"))
        await store.finish("job_2", "completed", big, at=101.0)
        assert store.results_dir.stat().st_mode & 0o777 == 0o700


async def test_a_status_that_ends_a_job_must_go_through_finish(store: SqliteJobStore) -> None:
    await store.create(job())
    with pytest.raises(ValueError, match="finish"):
        await store.set_status("job_1", "completed", at=1.0)


async def test_a_queued_job_records_when_it_starts_running(store: SqliteJobStore) -> None:
    queued = JobRecord(id="job_q", owner="alice", tool="cat", status="queued", created_at=1.0, updated_at=1.0)
    await store.create(queued)
    await store.set_status("job_q", "running", at=2.0)
    record = await store.get("alice", "job_q")
    assert record is not None and (record.status, record.started_at) == ("running", 2.0)


async def test_a_job_queued_again_to_run_after_a_crash_records_its_new_start(store: SqliteJobStore) -> None:
    """Run again, it showed its new start while it ran and its first one once it had ended
    (found by an outside probe)."""
    await store.create(JobRecord(id="job_r", owner="alice", tool="cat", status="queued", created_at=1.0,
                                 updated_at=1.0))
    await store.set_status("job_r", "running", at=2.0)
    await store.set_status("job_r", "queued", at=10.0)  # the server died; the next one runs it again
    await store.set_status("job_r", "running", at=11.0)
    await store.finish("job_r", "completed", ToolResult("done"), at=12.0)
    record = await store.get("alice", "job_r")
    assert record is not None and (record.started_at, record.finished_at) == (11.0, 12.0)


async def test_opening_marks_unfinished_jobs_interrupted_and_keeps_finished_ones(db_path: Path) -> None:
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_a"))
        await store.create(job("job_b"))
        await store.finish("job_b", "completed", ToolResult("fine"), at=101.0)
    async with SqliteJobStore(db_path) as store:
        assert await store.interrupt_unfinished("the server stopped", at=200.0) == 1
        a, b = await store.get("alice", "job_a"), await store.get("alice", "job_b")
        assert a is not None and (a.status, a.reason) == ("interrupted", "the server stopped")
        assert b is not None and b.status == "completed"
        assert (await store.get_result("alice", "job_b")) == ToolResult("fine")


async def test_listing_is_newest_first_per_owner_with_paging(store: SqliteJobStore) -> None:
    for i in range(5):
        await store.create(job(f"job_{i}", at=float(i)))
    await store.create(job("job_bob", owner="bob"))
    assert [r.id for r in await store.list_jobs("alice", limit=2)] == ["job_4", "job_3"]
    assert [r.id for r in await store.list_jobs("alice", limit=2, offset=2)] == ["job_2", "job_1"]
    assert [r.id for r in await store.list_jobs("alice", "completed")] == []


async def test_concurrent_writes_from_many_tasks_all_land(store: SqliteJobStore) -> None:
    async with anyio.create_task_group() as tg:
        for i in range(100):
            tg.start_soon(store.create, job(f"job_{i}", at=float(i)))
    assert len(await store.list_jobs("alice", limit=1000)) == 100


async def test_closing_twice_is_harmless(db_path: Path) -> None:
    store = SqliteJobStore(db_path)
    await store.open()
    await store.aclose()
    await store.aclose()
    with pytest.raises(RuntimeError, match="not open"):
        await store.get("alice", "job_1")


async def _store_with_jobs(db_path: Path, count: int) -> None:
    async with SqliteJobStore(db_path) as store:
        for n in range(count):
            await store.create(job(f"job_{n}"))
            await store.finish(f"job_{n}", "completed", ToolResult("x" * 2000), at=101.0)


def _damaged_copies(db_path: Path) -> list[Path]:
    names = (p for p in db_path.parent.iterdir() if ".damaged-" in p.name)
    return sorted(p for p in names if not p.name.endswith(("-wal", "-shm")))


@pytest.mark.parametrize("damage", ["garbage header", "malformed pages"])
async def test_a_damaged_database_is_moved_aside_kept_and_replaced_by_a_fresh_one(
    db_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    await _store_with_jobs(db_path, 200)
    data = bytearray(db_path.read_bytes())
    if damage == "garbage header":
        data[:100] = b"\xde\xad\xbe\xef" * 25
    else:  # the pages after the first (the schema) overwritten: "database disk image is malformed"
        data[4096:4096 * 4] = b"\x5a" * (4096 * 3)
    db_path.write_bytes(bytes(data))
    # Listen on the store's own logger: whatever an earlier test did to the root logger (its
    # level, its handlers), the warning is heard where it is logged.
    logger = logging.getLogger("toolbay.jobs.sqlite")
    heard: list[logging.LogRecord] = []
    listener = logging.Handler(logging.WARNING)
    listener.emit = heard.append  # type: ignore[method-assign]
    level, disabled = logger.level, logger.disabled
    logger.addHandler(listener)
    logger.setLevel(logging.WARNING)
    logger.disabled = False
    try:
        async with SqliteJobStore(db_path) as store:
            await store.create(job("job_new"))
            assert await store.get("alice", "job_new") is not None
            assert await store.get("alice", "job_1") is None
    finally:
        logger.removeHandler(listener)
        logger.setLevel(level)
        logger.disabled = disabled
    [kept] = _damaged_copies(db_path)
    assert kept.read_bytes() == bytes(data)  # the damaged file is kept as it was
    warnings = [r.getMessage() for r in heard]
    assert len(warnings) == 1
    assert f"moved it to {kept}" in warnings[0] and "started a fresh one" in warnings[0]


async def test_a_damaged_database_a_server_is_using_is_left_in_place_and_said_so(db_path: Path) -> None:
    """Moved aside from under a running server (by toolbay jobs list, or a second server), the
    file went on taking that server's jobs where nobody else looked (found by an outside probe)."""
    await _store_with_jobs(db_path, 200)
    data = bytearray(db_path.read_bytes())
    data[4096:4096 * 4] = b"\x5a" * (4096 * 3)
    db_path.write_bytes(bytes(data))
    server = ServingLock(serving_lock_beside(db_path))
    server.take()  # a server serving this folder
    try:
        with pytest.raises(StorageError) as refused:
            async with SqliteJobStore(db_path):
                pass
    finally:
        server.release()
    assert "damaged" in str(refused.value) and "a server on this data folder is using it" in str(refused.value)
    assert "Stop the servers using this data folder" in str(refused.value)
    assert not _damaged_copies(db_path) and db_path.read_bytes() == bytes(data)
    async with SqliteJobStore(db_path) as store:  # the server has gone: kept aside, a fresh one
        assert await store.get("alice", "job_1") is None
    assert len(_damaged_copies(db_path)) == 1


async def test_damage_found_while_serving_is_said_as_damage_not_as_an_internal_error(
        db_path: Path, tmp_path: Path) -> None:
    """A page overwritten while the server ran: job_list failed as an internal error, and a new
    job was refused as if the data folder were full (found by an outside probe). A connection
    finds such damage only once it reads the page from the file; here a real read of a damaged
    copy, through the store's own way of running a query."""
    await _store_with_jobs(db_path, 200)
    copy = tmp_path / "damaged.sqlite3"
    data = bytearray(db_path.read_bytes())
    data[4096:] = b"\x5a" * (len(data) - 4096)  # every page but the first (the schema)
    copy.write_bytes(bytes(data))
    damaged_file = sqlite3.connect(copy, check_same_thread=False)
    try:
        async with SqliteJobStore(db_path) as store:
            with pytest.raises(StorageError) as damaged:
                await store._run(lambda _: damaged_file.execute("SELECT * FROM jobs").fetchall())
    finally:
        damaged_file.close()
    assert "is damaged" in str(damaged.value) and "start one again" in str(damaged.value)


async def test_a_damaged_result_file_is_a_clear_result_lost(db_path: Path) -> None:
    async with SqliteJobStore(db_path, large_result_bytes=1000) as store:
        await store.create(job())
        await store.finish("job_1", "completed", ToolResult("y" * 5000), at=101.0)
        [result_file] = list(store.results_dir.iterdir())
        whole = result_file.read_bytes()
        # Changed in the middle, still JSON and UTF-8 (a bad sector, a stray write): it was served.
        middle = len(whole) // 2
        result_file.write_bytes(whole[:middle] + b"DAMAGED-BY-DISK" + whole[middle + 15:])
        changed = await store.get_result("alice", "job_1")
        result_file.write_bytes(b'{"text": "yyy')  # cut short
        damaged = await store.get_result("alice", "job_1")
        result_file.write_bytes(b"\xff\xfe\x00")  # not text
        unreadable = await store.get_result("alice", "job_1")
        result_file.unlink()
        missing = await store.get_result("alice", "job_1")
    assert changed is not None and "its stored copy has been damaged" in changed.text
    for result in (changed, damaged, unreadable, missing):
        assert result is not None and result.is_error
        assert result.text.startswith("The result of this job was lost: ")
        assert str(db_path.parent) not in result.text  # the server's own paths stay in its log
    assert missing is not None and "its stored copy cannot be read (No such file or directory)" in missing.text


async def test_a_write_abandoned_by_an_asyncio_cancel_keeps_the_connection_until_it_ends(
        store: SqliteJobStore) -> None:
    """``Task.cancel()`` gets through anyio's shield and frees the store's queue while the
    operation still runs on its thread. The next write must wait for it, not start a second
    transaction on the same connection ("cannot start a transaction within a transaction").
    The first operation is handed to ``_run``, the store's one door to its connection, so
    that it can be held inside its transaction."""
    await store.create(job())
    inside, release = threading.Event(), threading.Event()

    def held_inside_a_transaction(conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        inside.set()
        release.wait(30)
        conn.execute("COMMIT")

    first = asyncio.get_running_loop().create_task(store._run(held_inside_a_transaction))
    await anyio.to_thread.run_sync(inside.wait, 30)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    second = asyncio.get_running_loop().create_task(
        store.finish("job_1", "completed", ToolResult("done"), at=102.0,
                     events=[JobEvent("job_1", 102.0, "finished")]))
    while not second.done() and _threads_in_store_code() < 2:  # it failed, or it waits its turn
        await asyncio.sleep(0.01)
    release.set()
    await second
    record = await store.get("alice", "job_1")
    assert record is not None and record.status == "completed"
    assert [e.kind for e in await store.events("alice", "job_1")] == ["finished"]


def _threads_in_store_code() -> int:
    """How many threads other than this one are inside the job store's module."""
    store_file = sys.modules[SqliteJobStore.__module__].__file__
    found = 0
    for thread_id, frame in sys._current_frames().items():
        while thread_id != threading.get_ident() and frame is not None:
            if frame.f_code.co_filename == store_file:
                found += 1
                break
            frame = frame.f_back
    return found


@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_a_database_deleted_or_replaced_under_the_server_is_said_not_written_where_nobody_reads(
        db_path: Path, caplog: pytest.LogCaptureFixture, how: str) -> None:
    # The connection went on writing to the unlinked file: a second server on the folder made a
    # new one and saw none of its jobs, and a restart lost every job recorded after the delete.
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_1"))
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        if how == "replaced":
            async with SqliteJobStore(db_path) as other:  # another server starts a new one there
                await other.create(job("job_9", owner="bob"))
        with caplog.at_level(logging.ERROR, logger="toolbay.jobs.sqlite"), pytest.raises(StorageError) as refused:
            await store.create(job("job_2"))
        with pytest.raises(StorageError):
            await store.get("alice", "job_1")
    assert f"the job database {db_path} was {how} while this server was using it" in str(refused.value)
    assert "Restart the server" in str(refused.value)
    assert [record.message for record in caplog.records].count(str(refused.value)) == 1  # said once in the log
    async with SqliteJobStore(db_path) as restarted:  # what a restart sees: nothing recorded unseen
        assert await restarted.get("alice", "job_2") is None


async def test_a_database_written_over_in_place_under_the_server_is_said_at_its_next_use(
        db_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Garbage written over the file (the same file: its identity unchanged) went unnoticed:
    SQLite reads its pages from its cache and its log, so jobs went on being recorded, into a
    file a restart then found damaged and moved aside, with them."""
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_1"))
        await store.get("alice", "job_1")
        size = db_path.stat().st_size
        with open(db_path, "r+b") as file:  # in place: not a new file under the name
            file.write(os.urandom(max(size, 4096)))
        with caplog.at_level(logging.ERROR, logger="toolbay.jobs.sqlite"), pytest.raises(StorageDamaged) as refused:
            await store.create(job("job_2"))
        with pytest.raises(StorageDamaged):
            await store.get("alice", "job_1")
    assert f"the job database {db_path} was written over while this server was using it" in str(refused.value)
    assert [record.message for record in caplog.records].count(str(refused.value)) == 1  # said once in the log


# SQL for a JSON text of 100,000 nested arrays (hex of a zero blob is "00" a byte).
NESTED_TOO_DEEPLY = "replace(hex(zeroblob(100000)), '00', '[') || replace(hex(zeroblob(100000)), '00', ']')"
DAMAGES = {
    "arguments that are not JSON": "UPDATE jobs SET arguments = '{not json' WHERE id = ?",
    "a status no job has": "UPDATE jobs SET status = 'weird' WHERE id = ?",
    "a time that is not a number": "UPDATE jobs SET created_at = 'abc' WHERE id = ?",
    # A number past any date (found by the re-check: job_status and job_list failed on it)
    "a time past any date": "UPDATE jobs SET updated_at = 9e999 WHERE id = ?",
    "a time far in the future": "UPDATE jobs SET created_at = 1e20 WHERE id = ?",
    # Text that is not UTF-8: every query that fetched the row failed, the server's start among them
    "a name that is not UTF-8": "UPDATE jobs SET tool = CAST(X'FF41' AS TEXT) WHERE id = ?",
    "a tool's name as bytes": "UPDATE jobs SET tool = X'636174' WHERE id = ?",
    # 100,000 brackets, more than Python's JSON reader can nest: RecursionError, which no reader caught
    "arguments nested too deeply to read": f"UPDATE jobs SET arguments = {NESTED_TOO_DEEPLY} WHERE id = ?",
}


@pytest.mark.parametrize("damage", [name for name in DAMAGES if "arguments" not in name])
async def test_a_damaged_finished_row_is_listed_saying_so_beside_the_others(db_path: Path, damage: str) -> None:
    """One such row made the caller's whole job_list an internal error, and its job_status too."""
    async with SqliteJobStore(db_path) as store:
        for job_id in ("job_a", "job_b", "job_c"):
            await store.create(job(job_id))
            await store.finish(job_id, "completed", ToolResult(f"{job_id} done"), at=101.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute(DAMAGES[damage], ("job_b",))
    async with SqliteJobStore(db_path) as store:
        listed = {record.id: record for record in await store.list_jobs("alice")}
        assert set(listed) == {"job_a", "job_b", "job_c"}
        damaged = await store.get("alice", "job_b")
        assert damaged is not None and damaged.reason is not None
        assert damaged.reason.startswith("its stored record is damaged (")
        from toolbay.jobs.views import JobView

        assert JobView.of(damaged, 1.0).structured()["reason"] == damaged.reason  # its times can be written
        assert damaged.status == ("failed" if "status" in damage else "completed")
        assert listed["job_a"].reason is None and listed["job_a"].status == "completed"
        assert await store.get_result("alice", "job_b") == ToolResult("job_b done")


async def test_a_listing_and_a_status_read_no_arguments(db_path: Path) -> None:
    """Neither shows them, and a hundred jobs of 4 MB arguments took two seconds of CPU a page:
    a finished job whose stored arguments are damaged is listed as it ended, its result given."""
    async with SqliteJobStore(db_path) as store:
        for job_id in ("job_a", "job_b"):
            await store.create(job(job_id))
            await store.finish(job_id, "completed", ToolResult(f"{job_id} done"), at=101.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute(DAMAGES["arguments that are not JSON"], ("job_b",))
    async with SqliteJobStore(db_path) as store:
        listed = await store.list_jobs("alice")
        assert [(r.id, r.status, r.reason, r.arguments) for r in listed] == [
            ("job_a", "completed", None, {}), ("job_b", "completed", None, {})]
        status = await store.get("alice", "job_b")
        assert status is not None and (status.status, status.reason, status.arguments) == ("completed", None, {})
        assert await store.get_result("alice", "job_b") == ToolResult("job_b done")


@pytest.mark.parametrize("damage", ["arguments that are not JSON", "a name that is not UTF-8",
                                    "arguments nested too deeply to read"])
async def test_an_unfinished_row_whose_arguments_cannot_be_read_is_recorded_failed_not_run_again(
        db_path: Path, damage: str) -> None:
    """The server could not start at all on such a folder, nor `toolbay jobs list` read it."""
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_a"))
        await store.create(job("job_b"))
    with sqlite3.connect(db_path) as conn:
        conn.execute(DAMAGES[damage], ("job_b",))
    async with SqliteJobStore(db_path) as store:
        assert [record.id for record in await store.list_unfinished()] == ["job_a"]
        failed = await store.get("alice", "job_b")
        assert failed is not None and failed.status == "failed" and failed.finished_at is not None
        result = await store.get_result("alice", "job_b")
        assert result is not None and result.is_error
        assert "The job cannot be run again or answered for: its stored record is damaged (" in result.text


async def test_a_result_and_events_nested_too_deeply_to_read_are_answered_as_damaged(db_path: Path) -> None:
    """Written by hand or by another program: Python's JSON reader raised RecursionError, which
    the store did not catch, and job_result and job_status of the job were internal errors."""
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_a"))
        await store.finish("job_a", "completed", ToolResult("done"), at=101.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"UPDATE jobs SET result = {NESTED_TOO_DEEPLY} WHERE id = 'job_a'")
        conn.execute(f"INSERT INTO job_events (job_id, at, kind, data) VALUES ('job_a', 101.0, 'progress', "
                     f"{NESTED_TOO_DEEPLY})")
    async with SqliteJobStore(db_path) as store:
        result = await store.get_result("alice", "job_a")
        assert result is not None and result.is_error and "its stored copy is damaged" in result.text
        events = await store.events("alice", "job_a")
        assert events and all(event.data == {"damaged": True} for event in events)


async def test_a_database_whose_tables_lack_a_column_is_refused_at_start_naming_it(db_path: Path) -> None:
    """Taken as it was, every job's end failed on the missing column and was retried for ever."""
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_a"))
    with sqlite3.connect(db_path) as conn:
        conn.execute("ALTER TABLE jobs DROP COLUMN result_file")
    with pytest.raises(StorageError) as refused:
        async with SqliteJobStore(db_path):
            pass
    assert "its table jobs has no column result_file" in str(refused.value)
    assert "Move it aside" in str(refused.value)
    with sqlite3.connect(db_path) as conn:  # one an index names: the index was made first, and failed
        conn.executescript("DROP INDEX jobs_by_owner; ALTER TABLE jobs DROP COLUMN created_at;")
    with pytest.raises(StorageError) as refused:
        async with SqliteJobStore(db_path):
            pass
    assert "its table jobs has no column created_at, result_file" in str(refused.value)


async def test_a_database_file_that_cannot_be_written_is_refused_at_start(db_path: Path) -> None:
    """It was opened without a word, then every long call failed: "could not be recorded
    (attempt to write a readonly database)". Made immutable, which holds even for root."""
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_a"))
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(db_path)], capture_output=True).returncode:
        pytest.skip("chattr +i is not possible here (not root, or a file system without the flag)")
    try:
        with pytest.raises(StorageError) as refused:
            async with SqliteJobStore(db_path):
                pass
    finally:
        subprocess.run(["chattr", "-i", str(db_path)], check=True)
    assert "readonly database" in str(refused.value) and "writable" in str(refused.value)


async def test_a_result_whose_stored_place_is_damaged_is_said_lost_not_an_internal_error(db_path: Path) -> None:
    """A result_file stored as bytes made job_result an internal error and `toolbay jobs result` a
    traceback (the second re-check of this session's fix)."""
    async with SqliteJobStore(db_path, large_result_bytes=10) as store:
        await store.create(job("job_a"))
        await store.finish("job_a", "completed", ToolResult("a result longer than ten bytes"), at=101.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE jobs SET result_file = X'6a6f625f61' WHERE id = 'job_a'")
    async with SqliteJobStore(db_path) as store:
        result = await store.get_result("alice", "job_a")
        assert result is not None and result.is_error and "its stored record is damaged" in result.text
        assert await store.delete_finished_before(10_000.0) == 1


async def test_a_result_file_named_as_a_path_is_neither_read_nor_deleted(db_path: Path, tmp_path: Path) -> None:
    """A row naming '/some/where/victim.txt' had that file read as the job's result, and deleted
    with the job (the third re-check of this session's store fixes)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("not a result of this job")
    async with SqliteJobStore(db_path, large_result_bytes=10) as store:
        await store.create(job("job_a"))
        await store.finish("job_a", "completed", ToolResult("a result longer than ten bytes"), at=101.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE jobs SET result_file = ? WHERE id = 'job_a'", (str(victim),))
    async with SqliteJobStore(db_path) as store:
        result = await store.get_result("alice", "job_a")
        assert result is not None and result.is_error and "not a result" not in result.text
        assert await store.delete_finished_before(10_000.0) == 1
    assert victim.read_text() == "not a result of this job"


async def test_a_finished_job_whose_row_holds_no_result_is_said_lost_not_still_running(db_path: Path) -> None:
    """"Job job_b has completed; it has not ended yet, so there is no result": a caller told to
    wait for a job that had ended (a row edited or damaged; an outside check)."""
    from toolbay.jobs import JobManager
    from toolbay.jobs.store import RESULT_LOST

    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_b"))
        await store.finish("job_b", "completed", ToolResult("done"), at=101.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE jobs SET result = NULL, result_file = NULL WHERE id = 'job_b'")
    async with JobManager(SqliteJobStore(db_path)) as manager:
        result = await manager.result("alice", "job_b")
    assert result is not None and result.is_error and result.meta["reason"] == RESULT_LOST
    assert result.text == "The result of job job_b was lost: its stored record holds none. Run the tool again."


async def test_a_large_result_that_cannot_be_kept_beside_the_database_is_kept_in_it(
        db_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A file where the results folder goes: the job's end was refused and tried again for
    ever, its caller told it was still being recorded, its server never stopping (an outside
    check). A full disk still refuses it: that passes, and the end is written again."""
    results = db_path.with_name(db_path.stem + "-results")
    results.write_text("in the way")
    big = ToolResult("x" * 5000)
    async with SqliteJobStore(db_path, large_result_bytes=1024) as store:
        await store.create(job("job_big"))
        await store.finish("job_big", "completed", big, at=101.0)
        assert await store.get_result("alice", "job_big") == big
    assert results.read_text() == "in the way"
    assert f"cannot keep the result of job job_big in {results}" in caplog.text


@pytest.mark.parametrize("removed", [("-wal", "-shm"), ("-wal",)])
async def test_a_write_ahead_log_deleted_under_a_running_server_is_said_not_split_from_the_others(
        db_path: Path, removed: tuple[str, ...], caplog: pytest.LogCaptureFixture) -> None:
    """Deleted while a server ran, the next server on the folder made a new log, and each wrote
    its jobs where the other never looked; once both had stopped, one's were gone, with nothing
    said (an outside check). A reader that comes and goes changes nothing of it."""
    async with SqliteJobStore(db_path) as store:
        await store.create(job("job_a"))
        async with SqliteJobStore(db_path, as_server=False) as reader:
            assert await reader.get("alice", "job_a") is not None
        await store.create(job("job_b"))  # the reader leaves the files as they were
        for suffix in removed:
            Path(f"{db_path}{suffix}").unlink()
        with pytest.raises(StorageError) as refused:
            await store.create(job("job_c"))
    assert f"the job database's file {db_path}-wal was deleted or replaced while this server was using it" \
        in str(refused.value)
    assert "Stop the servers using this data folder and start one again" in str(refused.value)
    assert caplog.text.count(str(refused.value)) == 1


async def test_a_server_on_an_existing_database_keeps_its_locks_when_a_reader_comes_and_goes(db_path: Path) -> None:
    """Making an existing database private opened and closed the file after SQLite had: that
    drops every lock the process holds on it, so a reader that came and went (`toolbay jobs`,
    sqlite3, a second server stopping) deleted the write-ahead log under the server, which then
    refused every job (a re-check)."""
    async with SqliteJobStore(db_path) as first_run:
        await first_run.create(job("job_a"))
    db_path.chmod(0o644)  # as a copy or a restore may leave it: narrowed again at the next start
    async with SqliteJobStore(db_path) as store:
        # Another process: within one, SQLite knows its own connections apart from the locks.
        read = subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                               "print(c.execute('SELECT count(*) FROM jobs').fetchone()[0]); c.close()", str(db_path)],
                              capture_output=True, text=True, timeout=60, check=True)
        assert read.stdout.strip() == "1"
        await store.create(job("job_b"))
        assert Path(f"{db_path}-wal").exists() and await store.get("alice", "job_b") is not None
    assert stat.S_IMODE(db_path.stat().st_mode) == 0o600


async def test_a_write_ahead_log_left_readable_by_others_is_narrowed_at_the_next_start(db_path: Path) -> None:
    """A crash leaves the log and shared memory as they were made (an older version made them
    644), and the log holds callers' arguments: only the database itself was narrowed (a
    re-check). Another connection holds them open here, as a crashed server's files stay."""
    async with SqliteJobStore(db_path) as first:
        await first.create(job("job_a"))
    with contextlib.closing(sqlite3.connect(db_path)) as left:
        left.execute("INSERT INTO job_events (job_id, at, kind, data) VALUES ('job_a', 1, 'x', '{}')")
        left.commit()
        for name in ("jobs.sqlite3", "jobs.sqlite3-wal", "jobs.sqlite3-shm"):
            (db_path.parent / name).chmod(0o644)
        async with SqliteJobStore(db_path) as store:
            await store.create(job("job_b"))
            modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in db_path.parent.glob("jobs.sqlite3*")}
    assert modes == {"jobs.sqlite3": 0o600, "jobs.sqlite3-wal": 0o600, "jobs.sqlite3-shm": 0o600}


async def test_a_database_another_program_holds_locked_at_start_says_to_end_the_lock(db_path: Path) -> None:
    """Told to choose another data folder, which would split the jobs off from this one's
    (an outside check held an exclusive transaction from another process)."""
    first = SqliteJobStore(db_path)
    await first.open()
    await first.aclose()
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        store = SqliteJobStore(db_path, busy_timeout_s=0.1)
        with pytest.raises(StorageError) as refused:
            await store.open()
        assert "locked" in str(refused.value) and "Another program held it locked" in str(refused.value)
        assert "--data-dir" not in str(refused.value)
    finally:
        holder.close()


async def test_a_job_whose_status_is_damaged_is_read_back_as_the_failure_its_status_says(db_path: Path) -> None:
    """job_status said "failed: its stored record is damaged ... call job_result to read its
    error", and job_result then answered its stored output as a success (an outside check)."""
    async with SqliteJobStore(db_path) as store, JobManager(store) as manager:
        await store.create(job("job_a"))
        await store.finish("job_a", "completed", ToolResult("all went well"), at=101.0)
        with sqlite3.connect(db_path) as conn:
            conn.execute("UPDATE jobs SET status = 'weird' WHERE id = 'job_a'")
        view = await manager.status("alice", "job_a")
        assert view.status == "failed" and view.reason is not None and "status 'weird' is no job's" in view.reason
        result = await manager.result("alice", "job_a")
        assert result is not None and result.is_error
        assert "its stored record is damaged" in result.text and result.text.endswith("all went well")
