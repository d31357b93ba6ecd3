"""kill -9 the real server with 50 jobs in it, start it again on the same data folder:
every job is still listed, every finished result is intact, the rest are interrupted."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from tests.conftest import REPO_ROOT
from tests.jobs_e2e.conftest import call, http_client, structured, text, write_config

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

JOBS = 50
SERVING = re.compile(r"serving MCP on (http://\S+/mcp)")


@contextmanager
def server_process(config: Path, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`python -m server serve --transport http --port 0`; yields the process and its /mcp URL."""
    start = log.stat().st_size if log.exists() else 0  # a restart appends to the same log
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0", "--config", str(config)],
            cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink,
        )
    try:
        deadline = time.monotonic() + 60
        while not (found := SERVING.findall(log.read_bytes()[start:].decode(errors="replace"))):
            assert process.poll() is None, f"the server exited:\n{log.read_text(errors='replace')[-3000:]}"
            assert time.monotonic() < deadline, "the server did not start in time"
            time.sleep(0.05)
        yield process, found[-1]
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


async def test_after_kill_9_every_job_is_listed_finished_results_are_intact_and_the_rest_interrupted(
    tmp_path: Path, extensions: Path, data_dir: Path
) -> None:
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, timeout_s=120,
                          jobs={"max_concurrent": 64, "max_per_caller": 64})
    log = tmp_path / "toolbay.log"
    quick = {f"quick-{n}" for n in range(JOBS // 2)}
    jobs: dict[str, str] = {}  # job id -> the message its tool prints

    with server_process(config, log) as (process, url):
        async with http_client(url) as client:
            with anyio.fail_after(60):

                async def start(message: str, ms: int) -> None:
                    result = await call(client, "slow", {"ms": ms, "message": message})
                    jobs[structured(result)["job_id"]] = message

                async with anyio.create_task_group() as group:
                    for n in range(JOBS // 2):
                        group.start_soon(start, f"quick-{n}", 400)
                        group.start_soon(start, f"long-{n}", 60_000)
                finished = await _wait_for_quick_jobs(client, {j for j, m in jobs.items() if m in quick})
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL

    with server_process(config, log) as (_, url):
        async with http_client(url) as client:
            with anyio.fail_after(60):
                listed = structured(await call(client, "job_list", {"limit": 100}))["jobs"]
                results = {job_id: await call(client, "job_result", {"job_id": job_id}) for job_id in jobs}

    assert len(jobs) == JOBS and len(finished) == JOBS // 2
    statuses = {entry["job_id"]: entry for entry in listed}
    assert set(statuses) == set(jobs), "every job is listed after the restart"
    for job_id, message in jobs.items():
        entry, result = statuses[job_id], results[job_id]
        if message in quick:
            assert entry["status"] == "completed", entry
            assert result.is_error is False and text(result).strip() == message
        else:
            assert entry["status"] == "interrupted" and "server stopped" in entry["reason"], entry
            assert result.is_error is True and "server stopped" in text(result)


async def _wait_for_quick_jobs(client, job_ids: set[str]) -> set[str]:  # type: ignore[no-untyped-def]
    finished: set[str] = set()
    for job_id in job_ids:
        view = structured(await call(client, "job_wait", {"job_id": job_id, "timeout_s": 30}))
        assert view["status"] == "completed", view
        finished.add(job_id)
    return finished
