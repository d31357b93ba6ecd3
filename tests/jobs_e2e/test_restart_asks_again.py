"""A read-tier job a stopped server left is run again only for a caller that may still use its
tool: not once the operator disabled the tool, or took the caller's token or scope away.

An outside check: a job of ``slow_sleep`` begun with bob's token, the server killed with
``kill -9``, ``deny = ["slow_*"]`` added and the tokens emptied, then the server started again:
a direct call was refused ("disabled on this server"), the job ran again to completed.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.conftest import as_if_run_before
from toolbay.assembly import assemble
from toolbay.auth.tokens import new_token
from toolbay.config import BUNDLED_EXTENSIONS, load_settings
from toolbay.jobs import JobRecord, SqliteJobStore

pytestmark = pytest.mark.anyio

OWNER = "token:alice"


async def _left_by_a_stopped_server(data_dir: Path) -> str:
    """A running job of textkit_count (read tier) owned by alice's token, in the data folder of
    a server that is no longer there (nothing holds its serving lock)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    now = time.time()
    async with SqliteJobStore(data_dir / "jobs.sqlite3") as store:
        await store.create(JobRecord(id="job_left", owner=OWNER, tool="textkit_count", status="running",
                                     created_at=now, updated_at=now, started_at=now,
                                     arguments={"stdin": "one two three"}))
    return "job_left"


@pytest.mark.parametrize(("change", "runs_again"), [
    ("", True),
    ('[chain.access]\ndeny = ["textkit_*"]\n', False),
    ("alice's token taken out", False),
    ("alice's scope cut to another tool", False),
])
async def test_a_job_left_by_a_stopped_server_runs_again_only_if_its_caller_may_still_use_the_tool(
        tmp_path: Path, shared_data_dir: Path, change: str, runs_again: bool) -> None:
    _, digest = new_token()
    scopes = '["tool:hashsum"]' if change == "alice's scope cut to another tool" else '["tools:read"]'
    entry = f'[[tokens]]\nclient_id = "alice"\nsha256 = "{digest}"\nscopes = {scopes}\n'
    (tmp_path / "tokens.toml").write_text("" if change == "alice's token taken out" else entry, encoding="utf-8")
    config = tmp_path / "toolbay.toml"
    config.write_text('transport = "http"\n[chain.auth]\ntokens_file = "tokens.toml"\n'
                      + (change if change.startswith("[") else ""), encoding="utf-8")
    data_dir = as_if_run_before(tmp_path / "data", shared_data_dir)  # not about compiling
    job_id = await _left_by_a_stopped_server(data_dir)
    settings = load_settings(config, extensions=[BUNDLED_EXTENSIONS], data_dir=data_dir, port=0)
    async with assemble(settings, watch=False) as app:
        with anyio.fail_after(60):
            view = await app.jobs.wait(OWNER, job_id, timeout_s=None)
    assert view.status == ("completed" if runs_again else "interrupted"), view
