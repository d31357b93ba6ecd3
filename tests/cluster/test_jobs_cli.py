"""``toolbay jobs`` under ``[cluster] redis`` reads the cluster's jobs, not the data folder's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolbay.cluster.connection import open_checked
from toolbay.cluster.jobs import RedisJobStore
from toolbay.jobs import JobRecord

pytestmark = pytest.mark.anyio


async def test_jobs_status_and_list_read_the_cluster_s_jobs(redis_url: str, tmp_path: Path) -> None:
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client)
        now = time.time()
        await store.create(JobRecord(id="job_0123456789abcdef", owner="alice", tool="slow", status="running",
                                     created_at=now, updated_at=now, started_at=now))
    finally:
        await client.aclose()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("TOOLBAY_")},
           "TOOLBAY_CLUSTER__REDIS": redis_url}
    common = ["--owner", "alice", "--data-dir", str(tmp_path), "--json"]
    status = subprocess.run([sys.executable, "-m", "toolbay", "jobs", "status", "job_0123456789abcdef", *common],
                            capture_output=True, text=True, env=env, timeout=120)
    listed = subprocess.run([sys.executable, "-m", "toolbay", "jobs", "list", *common],
                            capture_output=True, text=True, env=env, timeout=120)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["status"] == "running"
    assert "job_0123456789abcdef" in listed.stdout
