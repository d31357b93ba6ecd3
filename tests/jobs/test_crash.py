"""A server killed with SIGKILL loses no job: finished ones keep their results, the rest
are interrupted with a reason."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import pytest

from tests.jobs.conftest import ready_words
from toolbay.jobs import JobManager, SqliteJobStore

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


async def test_after_kill_9_all_50_jobs_are_listed_finished_intact_the_rest_interrupted(
        db_path: Path) -> None:
    worker = [sys.executable, "-m", "tests.jobs.crash_worker", str(db_path)]
    with anyio.fail_after(60):
        async with await anyio.open_process(worker, cwd=ROOT, stderr=None) as process:
            ids = await ready_words(process)
            os.kill(process.pid, signal.SIGKILL)
            assert await process.wait() == -signal.SIGKILL
    assert len(ids) == 50

    async with JobManager(SqliteJobStore(db_path, large_result_bytes=1024)) as manager:
        views = {v.id: v for v in await manager.list("alice", limit=1000)}
        assert set(views) == set(ids)
        for i, job_id in enumerate(ids):
            result = await manager.result("alice", job_id)
            assert result is not None
            if i % 2 == 0:
                assert views[job_id].status == "completed"
                assert result.text == (("x" * 300_000) if i % 10 == 0 else f"result {i}")
                assert result.structured == {"i": i}
            else:
                assert views[job_id].status == "interrupted"
                assert views[job_id].reason == "the server stopped before the job ended"
                assert result.is_error
    assert len(list((db_path.parent / "jobs-results").glob("*.json"))) == 5
