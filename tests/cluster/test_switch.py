"""Without ``[cluster] redis`` nothing of the cluster runs: no Redis client is even imported,
and jobs stay in SQLite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import as_if_run_before

PROGRAM = """
import sys, anyio
from pathlib import Path
from toolbay.assembly import assemble
from toolbay.config import load_settings

async def main():
    settings = load_settings(None, data_dir=Path(sys.argv[1]), transport="http",
                             chain={"rate_limits": {"global": "5/second"}})
    async with assemble(settings, watch=False) as app:
        print(type(app.jobs.store).__name__)
    print(sorted(m for m in sys.modules if m.split(".")[0] in ("redis", "coredis") or m.startswith("toolbay.cluster")))

anyio.run(main)
"""


def test_without_the_switch_no_redis_code_is_imported_and_jobs_stay_in_sqlite(tmp_path: Path,
                                                                            shared_data_dir: Path) -> None:
    data_dir = as_if_run_before(tmp_path / "data", shared_data_dir)
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(data_dir)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["SqliteJobStore", "[]"]


STDIO_PROGRAM = """
import sys, anyio
from pathlib import Path
from toolbay.assembly import assemble
from toolbay.config import load_settings

async def main():
    async with assemble(load_settings(None, data_dir=Path(sys.argv[1])), watch=False) as app:
        print(app.metrics)
    print("prometheus_client" in sys.modules)

anyio.run(main)
"""


def test_a_stdio_server_counts_nothing_and_does_not_load_prometheus_client(tmp_path: Path,
                                                                          shared_data_dir: Path) -> None:
    data_dir = as_if_run_before(tmp_path / "data", shared_data_dir)
    done = subprocess.run([sys.executable, "-c", STDIO_PROGRAM, str(data_dir)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "False"]
