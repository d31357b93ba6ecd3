"""A call that outlives its budget becomes a job, seen through the SDK's real client over
stdio (a `python -m server serve` subprocess) and streamable HTTP (uvicorn on loopback)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client

from tests.conftest import FIXTURE_WASM
from tests.jobs_e2e.conftest import (
    Progress,
    Stopwatch,
    call,
    http_client,
    http_server,
    output,
    settings_for,
    start_job,
    stdio_params,
    structured,
    text,
    write_config,
)
from toolbay.config import load_settings

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def connect(transport: str, config: Path) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with Client(stdio_params(config), mode="legacy") as client:
            yield client
    else:
        async with http_server(settings_for(config)) as (url, _), http_client(url) as client:
            yield client


def _one_tool_and_a_workspace(tmp_path: Path, fixture: str) -> tuple[Path, Path]:
    """A folder holding the fixture program ``fixture`` alone, and an empty workspace beside it
    (where a gated fixture waits for the files the test touches)."""
    tools, workspace = tmp_path / fixture.removesuffix(".wasm"), tmp_path / "workspace"
    for folder in (tools, workspace):
        folder.mkdir()
    shutil.copy2(FIXTURE_WASM / fixture, tools / fixture)
    return tools, workspace


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_slow_call_becomes_a_job_that_job_wait_and_job_result_follow(
    transport: str, tmp_path: Path, data_dir: Path
) -> None:
    # The progress fixture with --gate: its call runs until the test touches a file in the
    # workspace, so it outlives the sync budget (0.2 s) however busy the machine, and nothing
    # waits on time.
    tools, workspace = _one_tool_and_a_workspace(tmp_path, "progress.wasm")
    config = write_config(tmp_path / "toolbay.toml", tools, data_dir, workspace=workspace)
    progress, waiting = Progress(), Progress()
    with anyio.fail_after(60):
        async with connect(transport, config) as client:
            accepted = await call(client, "progress", {"steps": 1, "step_ms": 0, "gate": "/workspace/go"},
                                  progress_callback=progress)
            job = structured(accepted)
            answers: list[types.CallToolResult] = []

            async def wait_for_the_job() -> None:
                answers.append(await call(client, "job_wait", {"job_id": job["job_id"], "timeout_s": 60},
                                          progress_callback=waiting))

            async with anyio.create_task_group() as group:
                group.start_soon(wait_for_the_job)
                while not waiting.heard:  # job_wait says the job's status as it begins to wait
                    await waiting.changed.wait()
                (workspace / "go1").touch()
            result = await call(client, "job_result", {"job_id": job["job_id"]})
            listed = structured(await call(client, "job_list", {}))

    # Answered while the tool still ran (it waits for its file; the sync budget is 0.2 s).
    assert accepted.is_error is False
    assert set(job) >= {"job_id", "status", "poll_interval_s"} and job["status"] == "running"
    assert job["job_id"] in text(accepted) and "job_wait" in text(accepted)
    assert any(job["job_id"] in message for message in progress.messages), progress.heard

    # Completed, not still running: job_wait, begun while the job ran, returned as it ended, not
    # at its 60 s timeout.
    [waited] = answers
    assert structured(waited)["status"] == "completed"
    assert result.is_error is False and output(result) == "done 1 steps\n"
    assert [entry["job_id"] for entry in listed["jobs"]] == [job["job_id"]]


@pytest.fixture
async def server_url(tmp_path: Path, extensions: Path, data_dir: Path) -> AsyncIterator[str]:
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, jobs={"max_concurrent": 1},
                          background_tools=("textkit_*",))
    async with http_server(settings_for(config)) as (url, _):
        yield url


async def test_a_declared_background_tool_is_a_job_at_once_and_its_result_keeps_structured_content(
    server_url: str,
) -> None:
    with anyio.fail_after(30):
        async with http_client(server_url) as client:
            accepted = await call(client, "textkit_count", {"json": True, "stdin": "one two\nthree\n"})
            job_id = structured(accepted)["job_id"]
            await call(client, "job_wait", {"job_id": job_id, "timeout_s": 30})
            result = await call(client, "job_result", {"job_id": job_id})
    assert structured(accepted)["status"] in ("queued", "running")
    assert result.is_error is False, text(result)
    assert structured(result).items() >= {"lines": 2, "words": 3, "chars": 14, "bytes": 14}.items()


async def test_an_erroring_job_ends_failed_and_its_result_is_an_error(server_url: str) -> None:
    with anyio.fail_after(30):
        async with http_client(server_url) as client:
            job_id = await start_job(client, {"pattern": "(unclosed", "stdin": "x\n"}, tool="textkit_grep")
            waited = await call(client, "job_wait", {"job_id": job_id, "timeout_s": 30})
            result = await call(client, "job_result", {"job_id": job_id})
    assert structured(waited)["status"] == "failed"
    assert result.is_error is True
    assert "textkit_grep failed" in text(result)


async def test_a_second_job_queues_with_its_place_and_job_cancel_stops_the_first_within_a_second(
    server_url: str,
) -> None:
    with anyio.fail_after(30):
        async with http_client(server_url) as client:
            first = await start_job(client, {"ms": 60_000, "busy": True})
            second_accepted = await call(client, "slow", {"ms": 100, "message": "second"})
            second = structured(second_accepted)
            status = structured(await call(client, "job_status", {"job_id": second["job_id"]}))
            clock = Stopwatch()
            cancelled = await call(client, "job_cancel", {"job_id": first, "reason": "enough"})
            cancel_took = clock.elapsed
            first_result = await call(client, "job_result", {"job_id": first})
            waited = await call(client, "job_wait", {"job_id": second["job_id"], "timeout_s": 30})
            second_result = await call(client, "job_result", {"job_id": second["job_id"]})

    assert second["status"] == "queued" and second["position"] == 1
    assert "number 1 in the queue" in text(second_accepted)
    assert status["status"] == "queued" and status["position"] == 1
    assert structured(cancelled)["status"] == "cancelled" and structured(cancelled)["reason"] == "enough"
    # The guest would run 60 s: stopped long before, on a machine however busy. That it stops
    # within a second of its own time is tests/wasm/test_cancellation.py's to show.
    assert cancel_took < 15, "the busy guest stopped at once"
    assert first_result.is_error is True and "enough" in text(first_result)
    assert structured(waited)["status"] == "completed"
    assert text(second_result).strip() == "second"


async def test_job_wait_reports_the_jobs_progress_while_it_waits(
    tmp_path: Path, extensions: Path, data_dir: Path
) -> None:
    gated, workspace = _one_tool_and_a_workspace(tmp_path, "progress_bg.wasm")
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir)
    settings = load_settings(config, extensions=[extensions, gated], workspace=workspace)
    progress = Progress()
    with anyio.fail_after(60):
        async with http_server(settings) as (url, _), http_client(url) as client:
            # The job ends only once job_wait has said it waits (a file it waits for): still
            # running when job_wait arrives however busy the machine (a job of 800 ms was not,
            # on one busy with two test suites, and job_wait answered at once).
            job_id = await start_job(client, {"steps": 1, "step_ms": 0, "gate": "/workspace/go"}, tool="progress_bg")
            async with anyio.create_task_group() as group:
                group.start_soon(partial(call, client, "job_wait", {"job_id": job_id, "timeout_s": 30},
                                         progress_callback=progress))
                while not progress.heard:
                    await progress.changed.wait()
                (workspace / "go1").touch()
    assert progress.heard, "job_wait sent no progress notification"
    assert any("completed" in message for message in progress.messages), progress.heard
    values = [value for value, _, _ in progress.heard]
    assert values == sorted(values) and len(set(values)) == len(values), "progress only increases"


async def test_job_wait_with_a_zero_timeout_answers_at_once(server_url: str) -> None:
    with anyio.fail_after(30):
        async with http_client(server_url) as client:
            job_id = await start_job(client, {"ms": 60_000})
            clock = Stopwatch()
            waited = await call(client, "job_wait", {"job_id": job_id, "timeout_s": 0})
            took = clock.elapsed
            await call(client, "job_cancel", {"job_id": job_id})
    assert structured(waited)["status"] == "running"
    assert took < 15  # not the 60 s the job runs, nor job_wait's default wait


async def test_long_jobs_do_not_hold_up_a_short_call_while_slots_are_free(
    tmp_path: Path, extensions: Path, data_dir: Path
) -> None:
    # More sleeping jobs than CPUs: the guests' worker threads must follow the job limits,
    # or a quick call waits behind them (for the minute they sleep) and turns into a job
    # itself. The sleepers are declared background, so they are jobs at once; the sync
    # budget is long, so only starved workers (not a busy machine) can make the quick call a
    # job; and no tool runs on the event loop, so the quick call needs a worker thread.
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, background_tools=("slow",),
                          jobs={"max_concurrent": 8, "max_per_caller": 8, "sync_budget_s": 30},
                          quick_budget_ms=0)
    with anyio.fail_after(60):
        async with http_server(settings_for(config)) as (url, _), http_client(url) as client:
            long_jobs = [await start_job(client, {"ms": 60_000}) for _ in range(4)]
            quick = await call(client, "textkit_count", {"words": True, "stdin": "one two three\n"})
            for job_id in long_jobs:
                await call(client, "job_cancel", {"job_id": job_id})
    assert quick.is_error is False, text(quick)
    assert quick.structured_content is None or "job_id" not in quick.structured_content, text(quick)
    assert text(quick).split()[0] == "3"


async def test_job_wait_takes_a_timeout_longer_than_it_waits_without_refusing_it(server_url: str) -> None:
    with anyio.fail_after(30):
        async with http_client(server_url) as client:
            job_id = await start_job(client, {"ms": 400})
            waited = await call(client, "job_wait", {"job_id": job_id, "timeout_s": 3600})
    assert waited.is_error is False, text(waited)
    assert structured(waited)["status"] == "completed"
