"""Servers on one data folder (no shared store): the jobs of one that dies are taken over by
one still running, once it is the only one left, not before."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from tests.jobs.conftest import ready_words
from toolbay.jobs import JobManager, SqliteJobStore
from toolbay.jobs.manager import INTERRUPTED_BY_RESTART
from toolbay.jobs.serving import ServingLock
from toolbay.jobs.store import JobRecord
from toolbay.words import CallContext, ToolResult

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


def test_a_server_is_alone_only_once_every_other_has_gone(tmp_path: Path) -> None:
    path = tmp_path / "jobs.serving"
    first, second, third = ServingLock(path), ServingLock(path), ServingLock(path)
    assert first.take() is True
    first.share()
    assert second.take() is False
    assert second.alone_now() is False  # the first still serves
    assert first.alone_now() is False
    first.release()
    assert second.alone_now() is True
    second.share()
    assert third.take() is False  # the second kept its place after asking
    third.release()
    second.release()


@asynccontextmanager
async def other_server(db_path: Path, lock: Path) -> AsyncIterator[tuple[anyio.abc.Process, list[str]]]:
    worker = [sys.executable, "-m", "tests.jobs.serving_worker", str(db_path), str(lock)]
    async with await anyio.open_process(worker, cwd=ROOT, stderr=None) as process:
        with anyio.fail_after(60):
            ids = await ready_words(process)
        yield process, ids


async def rerun(context: CallContext) -> ToolResult:
    return ToolResult(text="ran again")


def recover(record: JobRecord):  # noqa: ANN201
    return rerun if record.tool == "read" else None


async def test_the_jobs_of_a_server_killed_beside_this_one_are_taken_over_once_it_is_gone(
        db_path: Path, tmp_path: Path) -> None:
    lock = tmp_path / "jobs.serving"
    async with other_server(db_path, lock) as (process, (read_job, write_job)):
        manager = JobManager(SqliteJobStore(db_path), serving_lock=lock, recover=recover, takeover_interval_s=0.05)
        async with manager:
            # Many rounds of asking while the other server lives: its jobs stay its own.
            view = await manager.wait("alice", read_job, timeout_s=0.5)
            assert view.status == "running"
            assert (await manager.status("alice", write_job)).status == "running"

            os.kill(process.pid, signal.SIGKILL)
            assert await process.wait() == -signal.SIGKILL
            with anyio.fail_after(30):
                read = await manager.wait("alice", read_job, timeout_s=None)
                write = await manager.wait("alice", write_job, timeout_s=None)
            assert read.status == "completed"  # run again here, under its own id
            result = await manager.result("alice", read_job)
            assert result is not None and result.text == "ran again"
            assert (write.status, write.reason) == ("interrupted", INTERRUPTED_BY_RESTART)


async def test_with_two_servers_left_beside_one_killed_one_of_them_takes_its_jobs_over_once(
        db_path: Path, tmp_path: Path) -> None:
    """Neither of two survivors is ever alone: the dead server's jobs stayed running for as long
    as both ran (found by an outside probe). Each job is marked with the server running it, and
    a server's own lock says whether it is still there."""
    lock = tmp_path / "jobs.serving"
    runs: list[str] = []

    def counting(record: JobRecord):  # noqa: ANN202
        async def run_again(context: CallContext) -> ToolResult:
            runs.append(record.id)
            return ToolResult(text="ran again")

        return run_again if record.tool == "read" else None

    async with other_server(db_path, lock) as (process, (read_job, write_job)):
        first = JobManager(SqliteJobStore(db_path), serving_lock=lock, recover=counting, takeover_interval_s=0.05)
        second = JobManager(SqliteJobStore(db_path), serving_lock=lock, recover=counting, takeover_interval_s=0.05)
        async with first, second:
            view = await first.wait("alice", read_job, timeout_s=0.5)
            assert view.status == "running"  # its server lives: left to it
            os.kill(process.pid, signal.SIGKILL)
            assert await process.wait() == -signal.SIGKILL
            with anyio.fail_after(30):
                read = await second.wait("alice", read_job, timeout_s=None)
                write = await second.wait("alice", write_job, timeout_s=None)
            assert read.status == "completed"
            assert (write.status, write.reason) == ("interrupted", INTERRUPTED_BY_RESTART)
            await anyio.sleep(0.3)  # several more rounds of both servers looking
    assert runs == [read_job]  # run again once, by one of them
