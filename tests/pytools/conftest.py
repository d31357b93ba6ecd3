"""Python tool modules served by a real app from a folder of real modules (tests/fixtures/python)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.chain.call import ToolCall
from toolbay.config import Settings, load_settings
from toolbay.words import CallContext, ToolResult

FIXTURE_PYTHON = REPO_ROOT / "tests" / "fixtures" / "python"


@pytest.fixture
def python_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tools"
    shutil.copytree(FIXTURE_PYTHON, folder)
    return folder


@pytest.fixture
def make_settings(python_dir: Path, shared_data_dir: Path, workspace: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {"extensions": [python_dir], "data_dir": shared_data_dir, "workspace": workspace}
        values.update(overrides)
        return load_settings(None, **values)

    return make


@pytest.fixture
async def pyapp(make_settings: Callable[..., Settings]) -> AsyncIterator[Toolbay]:
    # A call may run 5 s in all; past 2 s it goes on as a job (which `call` below waits for).
    settings = make_settings(sandbox={"timeout_s": 5, "memory_mb": 128, "output_limit_kb": 256},
                             jobs={"sync_budget_s": 2})
    async with assemble(settings, watch=False) as app:
        yield app


async def call(app: Toolbay, name: str, arguments: dict[str, Any] | None = None, caller: str = "local",
               *, follow_jobs: bool = True) -> ToolResult:
    """The call's final result: a call that runs past the inline budget goes on as a job, and
    this waits for that job as a client polling job_wait would (``follow_jobs=False``: the
    answer the caller got at once)."""
    context = CallContext()
    result = await app.call(ToolCall(name=name, arguments=arguments or {}, context=context, transport="memory"))
    job_id = result.meta.get("job_id")
    if follow_jobs and isinstance(job_id, str) and not result.is_error and app.jobs is not None:
        await app.jobs.wait(context.caller, job_id, None)
        ended = await app.jobs.result(context.caller, job_id)
        assert ended is not None
        return ended
    return result
