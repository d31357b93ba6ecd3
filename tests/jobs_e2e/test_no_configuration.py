"""Jobs as a new user meets them: no configuration file, the default budgets, the SDK's client
over stdio (a real `serve` subprocess) and HTTP. The `progress` fixture reports its steps by the
progress convention and, with --gate, waits after each step until the test lets it go on (a file
in the workspace), so a call lasts exactly as long as the test wants, without sleeping on time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import FIXTURE_WASM, REPO_ROOT
from tests.jobs_e2e.conftest import Progress, call, http_client, http_server, output, structured, text
from toolbay.config import Settings, load_settings

pytestmark = pytest.mark.anyio

TOOLS = ("progress.wasm", "progress_bg.wasm")
DEFAULT_BUDGET_S = Settings().jobs.sync_budget_s
# The old default wall-clock limit, which stopped every call before it could become a job.
OLD_LIMIT_S = 10.0


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    folders = {name: tmp_path / name for name in ("extensions", "data", "workspace", "cwd")}
    for folder in folders.values():
        folder.mkdir()
    for tool in TOOLS:
        shutil.copy2(FIXTURE_WASM / tool, folders["extensions"] / tool)
    return folders


def flags(setup: dict[str, Path]) -> list[str]:
    return ["--extensions", str(setup["extensions"]), "--data-dir", str(setup["data"]),
            "--workspace", str(setup["workspace"])]


def clean_env() -> dict[str, str]:
    """This environment without any TOOLBAY_* setting: the defaults are what is tested."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLBAY_")}
    return {**env, "PYTHONPATH": str(REPO_ROOT)}


@asynccontextmanager
async def stdio_client(setup: dict[str, Path]) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "toolbay", "serve", *flags(setup)],
                                   cwd=str(setup["cwd"]), env=clean_env())
    async with Client(params, mode="legacy") as client:
        yield client


@asynccontextmanager
async def http_client_without_config(setup: dict[str, Path]) -> AsyncIterator[Client]:
    settings = load_settings(None, extensions=[setup["extensions"]], data_dir=setup["data"],
                             workspace=setup["workspace"])
    async with http_server(settings) as (url, _), http_client(url) as client:
        yield client


TRANSPORTS: dict[str, Callable[[dict[str, Path]], object]] = {
    "stdio": stdio_client, "http": http_client_without_config}


async def heard(progress: Progress, message: str) -> None:
    """Waits until a progress notification with ``message`` has arrived."""
    with anyio.fail_after(60):
        while message not in progress.messages:
            await progress.changed.wait()


def let_go(setup: dict[str, Path], step: int) -> None:
    (setup["workspace"] / f"go{step}").touch()


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_long_call_becomes_a_job_at_the_default_budget_and_its_result_comes_back(
        setup: dict[str, Path], transport: str) -> None:
    async with TRANSPORTS[transport](setup) as client:  # type: ignore[attr-defined]
        progress = Progress()
        started = time.perf_counter()
        answer = await call(client, "progress", {"steps": 2, "step_ms": 0, "gate": "/workspace/go"},
                            progress_callback=progress)
        waited = time.perf_counter() - started
        job = structured(answer)
        assert answer.is_error is False, text(answer)
        assert job["status"] == "running" and DEFAULT_BUDGET_S <= waited < OLD_LIMIT_S, (job, waited)
        assert "step 1" in progress.messages  # the guest's own report, heard while it waits

        status = structured(await call(client, "job_status", {"job_id": job["job_id"]}))
        assert status["status"] == "running"
        assert status["progress"] == {"progress": 1, "total": 2, "message": "step 1"}

        if transport == "stdio":  # a job outlives the old 10 s limit
            await anyio.sleep(max(0.0, OLD_LIMIT_S + 1 - (time.perf_counter() - started)))
        let_go(setup, 1)
        let_go(setup, 2)
        waited_for = structured(await call(client, "job_wait", {"job_id": job["job_id"], "timeout_s": 50}))
        assert waited_for["status"] == "completed", waited_for
        result = await call(client, "job_result", {"job_id": job["job_id"]})
        # The exact output, then the guest's stderr without its progress lines.
        blocks = [block.text for block in result.content if isinstance(block, types.TextContent)]
        assert (result.is_error, blocks) == (False, ["done 2 steps\n", "stderr:\nstarting\nfinished\n"])


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_tool_declared_background_runs_to_completion(setup: dict[str, Path], transport: str) -> None:
    async with TRANSPORTS[transport](setup) as client:  # type: ignore[attr-defined]
        started = time.perf_counter()
        answer = await call(client, "progress_bg", {"steps": 3, "step_ms": 0, "gate": "/workspace/go"})
        job = structured(answer)
        assert job["status"] in ("queued", "running") and time.perf_counter() - started < DEFAULT_BUDGET_S
        for step in (1, 2, 3):
            let_go(setup, step)
        waited_for = structured(await call(client, "job_wait", {"job_id": job["job_id"], "timeout_s": 50}))
        assert waited_for["status"] == "completed", waited_for
        assert output(await call(client, "job_result", {"job_id": job["job_id"]})) == "done 3 steps\n"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_progress_reaches_the_client_in_order_while_the_guest_runs_and_stderr_stays_clean(
        setup: dict[str, Path], transport: str) -> None:
    async with TRANSPORTS[transport](setup) as client:  # type: ignore[attr-defined]
        progress = Progress()
        async with anyio.create_task_group() as group:
            answers = []

            async def make_the_call() -> None:
                answers.append(await call(client, "progress", {
                    "steps": 3, "step_ms": 0, "gate": "/workspace/go", "exit": 3}, progress_callback=progress))

            group.start_soon(make_the_call)
            for step in (1, 2, 3):
                # The guest waits for the test after each report: heard now means heard while it runs.
                await heard(progress, f"step {step}")
                let_go(setup, step)
        steps = [(done, total) for done, total, message in progress.heard if (message or "").startswith("step")]
        assert steps == [(1, 3), (2, 3), (3, 3)]
        answer = answers[0]
        assert answer.is_error is True
        assert "stderr:\nstarting\nfinished" in text(answer) and "toolbay:progress" not in text(answer)


@pytest.mark.parametrize(("environment", "names"), [
    ({"TOOLBAY_JOBS__RUN_LIMIT_S": "3"}, ("[jobs] run_limit_s (3 s)", "[jobs] sync_budget_s (5 s)")),
    ({"TOOLBAY_SANDBOX__TIMEOUT_S": "5"}, ("[sandbox] timeout_s (5 s)", "[jobs] sync_budget_s (5 s)")),
])
def test_a_configuration_that_keeps_calls_from_becoming_jobs_is_refused_at_start(
        setup: dict[str, Path], environment: dict[str, str], names: tuple[str, ...]) -> None:
    done = subprocess.run([sys.executable, "-m", "toolbay", "serve", *flags(setup)], cwd=setup["cwd"],
                          env={**clean_env(), **environment}, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert all(name in done.stderr for name in names), done.stderr
    assert done.stdout == ""
