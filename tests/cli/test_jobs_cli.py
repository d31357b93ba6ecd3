"""`toolbay jobs ...` over a data folder while a server runs, and `toolbay call` on a call that
becomes a job: it waits for it, and Ctrl-C cancels it. Real subprocesses, no configuration file."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import FIXTURE_WASM, REPO_ROOT

pytestmark = [pytest.mark.slow]


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    made = {name: tmp_path / name for name in ("extensions", "data", "workspace", "cwd")}
    for folder in made.values():
        folder.mkdir()
    for tool in ("progress.wasm", "progress_bg.wasm"):
        shutil.copy2(FIXTURE_WASM / tool, made["extensions"] / tool)
    return made


def env() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("TOOLBAY_")}, "PYTHONPATH": str(REPO_ROOT)}


def toolbay(folders: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolbay", *args, "--data-dir", str(folders["data"])],
                          cwd=folders["cwd"], env=env(), capture_output=True, text=True, timeout=120)


def tool_flags(folders: dict[str, Path]) -> list[str]:
    return ["--extensions", str(folders["extensions"]), "--workspace", str(folders["workspace"])]


def job_ids(folders: dict[str, Path]) -> list[str]:
    listed = toolbay(folders, "jobs", "list", "--json")
    return [job["job_id"] for job in json.loads(listed.stdout)] if listed.returncode == 0 else []


@pytest.mark.anyio
async def test_the_jobs_commands_work_on_the_folder_of_a_running_server(folders: dict[str, Path]) -> None:
    params = StdioServerParameters(command=sys.executable, cwd=str(folders["cwd"]), env=env(),
                                   args=["-m", "toolbay", "serve", "--data-dir", str(folders["data"]),
                                         *tool_flags(folders)])
    async with Client(params, mode="legacy") as client:
        gated = {"steps": 1, "step_ms": 0}
        done = (await client.call_tool("progress_bg", {**gated, "gate": "/workspace/done"})).structured_content
        held = (await client.call_tool("progress_bg", {**gated, "gate": "/workspace/held"})).structured_content
        assert done is not None and held is not None
        (folders["workspace"] / "done1").touch()
        await client.call_tool("job_wait", {"job_id": done["job_id"], "timeout_s": 50})

        # Narrow, as a small terminal or a pipe is: the ids are still whole, ready to copy.
        listed = subprocess.run([sys.executable, "-m", "toolbay", "jobs", "list", "--data-dir", str(folders["data"])],
                                cwd=folders["cwd"], env={**env(), "COLUMNS": "50"}, capture_output=True, text=True,
                                timeout=120)
        assert listed.returncode == 0 and done["job_id"] in listed.stdout and held["job_id"] in listed.stdout
        assert toolbay(folders, "jobs", "status", held["job_id"]).stdout.startswith(
            f"Job {held['job_id']} (progress_bg) is running")
        result = toolbay(folders, "jobs", "result", done["job_id"])
        assert (result.returncode, result.stdout) == (0, "done 1 steps\n")
        early = toolbay(folders, "jobs", "result", held["job_id"])
        assert early.returncode == 1 and "has not ended yet" in early.stderr

        cancelled = toolbay(folders, "jobs", "cancel", held["job_id"])
        assert cancelled.returncode == 0, cancelled.stderr
        # The command it suggests, run as written: with the folder that found the job (an outside
        # check: without --owner, another caller's job was "no job" to it).
        suggested = shlex.split(cancelled.stdout.split("`")[1])
        assert suggested[:3] == ["toolbay", "jobs", "wait"] and str(folders["data"]) in suggested
        waited = subprocess.run([sys.executable, "-m", "toolbay", *suggested[1:]], cwd=folders["cwd"], env=env(),
                                capture_output=True, text=True, timeout=120)
        assert waited.returncode == 1 and "was cancelled: cancelled with toolbay jobs cancel" in waited.stdout
    unknown = toolbay(folders, "jobs", "status", "job_0000")
    assert unknown.returncode == 2 and "job_0000" in unknown.stderr


def test_call_waits_for_a_call_that_became_a_job_and_prints_its_result(folders: dict[str, Path]) -> None:
    called = toolbay(folders, "call", "progress_bg", "--args", '{"steps": 2, "step_ms": 100}', *tool_flags(folders))
    assert (called.returncode, called.stdout) == (0, "done 2 steps\n"), called.stderr


@pytest.mark.anyio
@pytest.mark.parametrize(("stop", "said"), [(signal.SIGINT, "cancelled with Ctrl-C"),
                                            (signal.SIGTERM, "cancelled: toolbay call was stopped (SIGTERM)")])
async def test_ctrl_c_or_sigterm_cancels_the_job_a_call_is_waiting_for(
        folders: dict[str, Path], stop: signal.Signals, said: str) -> None:
    """SIGTERM ended the command at once and left its job 'running' with nothing running it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "call", "progress_bg", "--args",
         '{"steps": 1, "step_ms": 0, "gate": "/workspace/never"}', "--data-dir", str(folders["data"]),
         *tool_flags(folders)], cwd=folders["cwd"], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        assert process.stderr is not None
        with anyio.fail_after(60):  # the call says when it waits (and Ctrl-C cancels)
            while "waiting for it (Ctrl-C cancels it)" not in await anyio.to_thread.run_sync(process.stderr.readline):
                pass
        ids = job_ids(folders)
        process.send_signal(stop)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1 and f"was cancelled: {said}" in out + err
    assert "was cancelled" in toolbay(folders, "jobs", "status", ids[0]).stdout
