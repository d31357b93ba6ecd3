"""Jobs outlive the session: a stdio server whose client has gone runs its jobs to their end,
while a new server on the same data folder answers for them; after kill -9, a read-tier job
runs again under its own id and a write-tier one stays interrupted with a text saying what to do.

The `progress` fixture with --gate waits for a file in the workspace before it ends, so each
job ends exactly when the test lets it.
"""

from __future__ import annotations

import os
import shutil
import sys
from functools import partial
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters, types

from tests.conftest import FIXTURE_WASM, REPO_ROOT
from tests.jobs_e2e.conftest import call, http_client, output, sse_client, structured, text
from tests.jobs_e2e.test_crash_restart import server_process
from toolbay.commands import AFTER_CLIENT_LOG

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    made = {name: tmp_path / name for name in ("extensions", "data", "workspace", "cwd")}
    for folder in made.values():
        folder.mkdir()
    shutil.copy2(FIXTURE_WASM / "progress_bg.wasm", made["extensions"] / "progress_bg.wasm")
    # The same program as a write-tier tool (tiers below): not safe to run twice.
    shutil.copy2(FIXTURE_WASM / "progress_bg.wasm", made["extensions"] / "progress_w.wasm")
    return made


def stdio(folders: dict[str, Path]) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLBAY_")}
    return StdioServerParameters(
        command=sys.executable, cwd=str(folders["cwd"]), env={**env, "PYTHONPATH": str(REPO_ROOT)},
        args=["-m", "toolbay", "serve", "--extensions", str(folders["extensions"]),
              "--data-dir", str(folders["data"]), "--workspace", str(folders["workspace"])])


def servers_on(data: Path) -> list[int]:
    """The processes whose command line names this data folder (toolbay servers of this test)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(data).encode() in command and b"serve" in command:
                found.append(int(entry.name))
    return found


def after_client_log(folders: dict[str, Path]) -> str:
    log = folders["data"] / AFTER_CLIENT_LOG
    return log.read_text(encoding="utf-8", errors="replace") if log.exists() else "(no after-client log)"


async def test_a_stdio_server_whose_client_left_finishes_its_job_and_a_new_server_returns_the_result(
        folders: dict[str, Path]) -> None:
    async with Client(stdio(folders), mode="legacy") as client:
        job = structured(await call(client, "progress_bg", {"steps": 1, "step_ms": 0, "gate": "/workspace/go"}))
        assert job["status"] in ("queued", "running"), job
    # The SDK's client has closed stdin, then signalled the server's process group: the job runs on.
    assert servers_on(folders["data"]), "the server should still be running its job"

    async with Client(stdio(folders), mode="legacy") as client:
        status = structured(await call(client, "job_status", {"job_id": job["job_id"]}))
        assert status["status"] == "running", status  # not taken for a crash by the new server
        (folders["workspace"] / "go1").touch()
        waited = structured(await call(client, "job_wait", {"job_id": job["job_id"], "timeout_s": 50}))
        assert waited["status"] == "completed", (waited, after_client_log(folders))
        result = await call(client, "job_result", {"job_id": job["job_id"]})
        assert (result.is_error, output(result)) == (False, "done 1 steps\n")

    with anyio.fail_after(30):  # both servers end: the first once its job is done, the second at once
        while servers_on(folders["data"]):
            await anyio.sleep(0.1)
    # What the first server did after its client left is in the data folder, not lost.
    assert "every job has ended and is recorded" in after_client_log(folders)


async def test_a_job_outlives_its_stdio_client_even_after_the_client_gave_up_waiting_for_it(
        folders: dict[str, Path]) -> None:
    """A job_wait the client cancelled (Esc in a client) was counted as a request still to
    answer: the server waited for it 30 s after the client left, the client killed it after 2,
    and the running job was lost (still 'running' in the folder, run again later)."""
    waiting = anyio.Event()

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        waiting.set()  # job_wait says the job's status as it begins to wait

    async with Client(stdio(folders), mode="legacy") as client:
        job = structured(await call(client, "progress_bg", {"steps": 1, "step_ms": 0, "gate": "/workspace/go"}))
        async with anyio.create_task_group() as group:
            group.start_soon(partial(call, client, "job_wait", {"job_id": job["job_id"], "timeout_s": 50},
                                     progress_callback=heard))
            with anyio.fail_after(60):
                await waiting.wait()
            group.cancel_scope.cancel()  # the client stops waiting: the SDK sends notifications/cancelled
    assert servers_on(folders["data"]), ("the server should still be running its job", after_client_log(folders))
    (folders["workspace"] / "go1").touch()
    with anyio.fail_after(60):
        while servers_on(folders["data"]):
            await anyio.sleep(0.1)
    assert "every job has ended and is recorded" in after_client_log(folders)


async def test_after_kill_9_a_read_job_runs_again_and_a_write_job_stays_interrupted(
        folders: dict[str, Path], tmp_path: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text("\n".join([
        f"extensions = [{str(folders['extensions'])!r}]", f"data_dir = {str(folders['data'])!r}",
        f"workspace = {str(folders['workspace'])!r}", 'tiers = {"progress_w" = "write"}', "",
    ]), encoding="utf-8")
    log = tmp_path / "toolbay.log"
    gate = {"steps": 1, "step_ms": 0}
    with server_process(config, log) as (process, url):
        async with http_client(url) as client:
            read_job = structured(await call(client, "progress_bg", {**gate, "gate": "/workspace/read"}))["job_id"]
            write_job = structured(await call(client, "progress_w", {**gate, "gate": "/workspace/write"}))["job_id"]
        process.kill()
        process.wait(timeout=30)
    # Commands that are no server leave the jobs to the next server: `toolbay list` and `toolbay
    # call` took them up, ran the read job again, and left both interrupted as they ended, so no
    # server ran it again (an outside check).
    import subprocess

    for command in (["list", "--json"], ["call", "job_list", "{}"]):
        done = subprocess.run([sys.executable, "-m", "toolbay", *command, "--config", str(config)],
                              capture_output=True, text=True, check=False, cwd=REPO_ROOT, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
        assert done.returncode == 0 and "started again" not in done.stderr, done

    with server_process(config, log) as (process, url):
        async with http_client(url) as client:
            again = structured(await call(client, "job_status", {"job_id": read_job}))
            assert again["status"] in ("queued", "running"), again
            (folders["workspace"] / "read1").touch()
            waited = structured(await call(client, "job_wait", {"job_id": read_job, "timeout_s": 50}))
            assert waited["status"] == "completed", waited
            assert output(await call(client, "job_result", {"job_id": read_job})) == "done 1 steps\n"

            stopped = await call(client, "job_status", {"job_id": write_job})
            assert structured(stopped)["status"] == "interrupted"
            assert "call progress_w again to run it anew" in text(stopped)
            assert "check first what it already changed" in text(stopped)
            result = await call(client, "job_result", {"job_id": write_job})
            assert result.is_error and "call progress_w again" in text(result)


async def test_after_kill_9_the_jobs_commands_say_no_server_runs_the_job_and_cancel_records_it(
        folders: dict[str, Path], tmp_path: Path) -> None:
    """With its server killed, `toolbay jobs status` said the job "is running", `wait` waited to
    its timeout, and `cancel` said it had asked the server: the next server then ran the job
    again and cancelled it only a second later (an outside probe)."""
    import json
    import subprocess

    config = tmp_path / "toolbay.toml"
    config.write_text("\n".join([
        f"extensions = [{str(folders['extensions'])!r}]", f"data_dir = {str(folders['data'])!r}",
        f"workspace = {str(folders['workspace'])!r}", "",
    ]), encoding="utf-8")
    log = tmp_path / "toolbay.log"
    with server_process(config, log) as (process, url):
        async with http_client(url) as client:
            job = structured(await call(client, "progress_bg", {"steps": 1, "step_ms": 0, "gate": "/workspace/g"}))
        process.kill()
        process.wait(timeout=30)

    def jobs(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "toolbay", "jobs", *words, job["job_id"], "--owner",
                               "anonymous:anonymous", "--data-dir", str(folders["data"])],
                              capture_output=True, text=True, check=False)

    status, waited = jobs("status"), jobs("wait", "--timeout", "600")
    assert "no server is running it now" in status.stdout, status
    assert json.loads(jobs("status", "--json").stdout)["unattended"] is True
    assert waited.returncode == 1 and "no server is running it now" in waited.stdout, waited  # at once
    cancelled = jobs("cancel")
    assert "no server was running it, so it is recorded cancelled here" in cancelled.stdout, cancelled
    with server_process(config, log) as (process, url):
        async with http_client(url) as client:
            after = structured(await call(client, "job_status", {"job_id": job["job_id"]}))
            listed = structured(await call(client, "job_list", {}))
    assert after["status"] == "cancelled", after
    assert "started again" not in log.read_text(errors="replace")
    assert [j["status"] for j in listed["jobs"] if j["job_id"] == job["job_id"]] == ["cancelled"]


async def test_sigterm_stops_an_http_server_through_its_shutdown_as_ctrl_c_does(
        folders: dict[str, Path], tmp_path: Path) -> None:
    """docker stop, systemd and Kubernetes send SIGTERM. uvicorn raised it again once it had
    stopped serving, and Python's default action ended the process before toolbay's shutdown:
    its jobs stayed 'running' in the folder, and the next server ran the read-tier one again."""
    import json
    import signal
    import subprocess

    config = tmp_path / "toolbay.toml"
    config.write_text("\n".join([
        f"extensions = [{str(folders['extensions'])!r}]", f"data_dir = {str(folders['data'])!r}",
        f"workspace = {str(folders['workspace'])!r}", 'tiers = {"progress_w" = "write"}', "",
    ]), encoding="utf-8")
    gate = {"steps": 1, "step_ms": 0}
    with server_process(config, tmp_path / "toolbay.log") as (process, url):
        async with http_client(url) as client:
            read_job = structured(await call(client, "progress_bg", {**gate, "gate": "/workspace/r"}))["job_id"]
            write_job = structured(await call(client, "progress_w", {**gate, "gate": "/workspace/w"}))["job_id"]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, (tmp_path / "toolbay.log").read_text(errors="replace")[-2000:]
    log = (tmp_path / "toolbay.log").read_text(errors="replace")
    for job_id in (read_job, write_job):
        shown = subprocess.run(
            [sys.executable, "-m", "toolbay", "jobs", "status", job_id, "--json", "--owner", "anonymous:anonymous",
             "--data-dir", str(folders["data"])], capture_output=True, text=True, check=False)
        assert json.loads(shown.stdout)["status"] == "interrupted", (shown.stdout, shown.stderr, log[-2000:])


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
@pytest.mark.parametrize("stalled", [False, True], ids=["at-once", "stalled"])
async def test_sigterm_answers_a_job_wait_in_flight_over_http_before_the_server_stops(
        folders: dict[str, Path], tmp_path: Path, stalled: bool, transport: str) -> None:
    """The wait went on through the two seconds open requests get, and its connection was then
    closed: the client had no answer at all, only a dropped connection.

    Stalled: the server is told to stop while it is not being run (stopped, as a busy machine can
    leave a process for a while), longer than the half second in which sse_starlette looks for a
    stop. It ended the wait's stream as soon as it ran again, before the answer was sent: "SSE
    stream ended without a response" (every time; on a busy machine once in a while unstalled)."""
    import signal

    config = tmp_path / "toolbay.toml"
    config.write_text(f"extensions = [{str(folders['extensions'])!r}]\ndata_dir = {str(folders['data'])!r}\n"
                      f"workspace = {str(folders['workspace'])!r}\n", encoding="utf-8")
    waiting = anyio.Event()

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        waiting.set()  # job_wait says the job's status as it begins to wait

    with server_process(config, tmp_path / "toolbay.log") as (process, url):
        async with (http_client(url) if transport == "streamable-http" else sse_client(url)) as client:
            job = structured(await call(client, "progress_bg", {"steps": 1, "step_ms": 0, "gate": "/workspace/never"}))
            answers: list[types.CallToolResult] = []

            async def wait_for_the_job() -> None:
                answers.append(await call(client, "job_wait", {"job_id": job["job_id"], "timeout_s": 300},
                                          progress_callback=heard))

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    group.start_soon(wait_for_the_job)
                    await waiting.wait()
                    if stalled:
                        process.send_signal(signal.SIGSTOP)  # SIGTERM waits until it runs again
                    process.send_signal(signal.SIGTERM)
                    if stalled:
                        # Not a wait for anything: the stall itself, past sse_starlette's look every 0.5 s.
                        await anyio.sleep(1)
                        process.send_signal(signal.SIGCONT)
        assert process.wait(timeout=60) == 0
    [answer] = answers
    assert not answer.is_error and "told to stop" in text(answer), text(answer)
    assert structured(answer)["status"] == "running"


async def test_sigterm_with_a_streamed_call_past_the_grace_logs_no_traceback(
        folders: dict[str, Path], tmp_path: Path) -> None:
    """A call still running inline on its event stream when uvicorn's two seconds of grace ran out
    (uvicorn then cancels it) wrote "Exception in ASGI application" and a traceback of the
    cancellation into the log of a stop the operator asked for (since 9cef98be a POST's stream
    waits for the grace: it was ended, silently, half a second after the stop)."""
    import signal

    shutil.copy2(FIXTURE_WASM / "progress.wasm", folders["extensions"] / "progress.wasm")
    config = tmp_path / "toolbay.toml"
    config.write_text(f"extensions = [{str(folders['extensions'])!r}]\ndata_dir = {str(folders['data'])!r}\n"
                      f"workspace = {str(folders['workspace'])!r}\n[jobs]\nsync_budget_s = 300\n"
                      "run_limit_s = 600\n", encoding="utf-8")
    log = tmp_path / "toolbay.log"
    running = anyio.Event()

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        running.set()  # its first step reported: the call runs, and waits for a file that never comes

    with server_process(config, log) as (process, url):
        async with http_client(url) as client:

            async def call_until_the_stop() -> None:
                with pytest.raises(Exception):  # noqa: B017, PT011 - how the client is told it is gone is the SDK's
                    await call(client, "progress", {"steps": 2, "step_ms": 0, "gate": "/workspace/never"},
                               progress_callback=heard)

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    group.start_soon(call_until_the_stop)
                    await running.wait()
                    process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    said = log.read_text(errors="replace")
    assert "Traceback" not in said and "Exception in ASGI application" not in said, said[-3000:]


def test_sigterm_to_a_stdio_server_over_pipes_stops_it_through_its_shutdown(folders: dict[str, Path]) -> None:
    """Over pipes (as clients start it) the server forks; SIGTERM to the process the client
    started killed it, which took the server with it (SIGKILL): no shutdown, its job left
    'running' until the next start. And SIGINT did nothing."""
    import getpass
    import json
    import signal
    import subprocess

    params = stdio(folders)
    with subprocess.Popen([params.command, *params.args], cwd=params.cwd, env=params.env,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        assert process.stdin is not None and process.stdout is not None

        def ask(message: dict[str, object]) -> dict[str, object]:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
            while True:
                answer = json.loads(process.stdout.readline())
                if answer.get("id") == message["id"]:
                    return answer  # type: ignore[no-any-return]

        try:
            ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            called = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "progress_bg", "arguments": {"steps": 1, "step_ms": 0, "gate": "/workspace/never"}}})
            job_id = called["result"]["structuredContent"]["job_id"]  # type: ignore[index]
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()
    shown = subprocess.run(
        [sys.executable, "-m", "toolbay", "jobs", "status", job_id, "--json", "--owner", getpass.getuser(),
         "--data-dir", str(folders["data"])], capture_output=True, text=True, check=False, cwd=REPO_ROOT)
    assert json.loads(shown.stdout)["status"] == "interrupted", (shown.stdout, shown.stderr)


async def test_a_server_whose_job_database_was_deleted_does_not_say_at_its_end_that_every_job_is_recorded(
        folders: dict[str, Path]) -> None:
    """It logged that the end could not be recorded, then "every job has ended and is recorded;
    the server stops" (an outside check)."""
    async with Client(stdio(folders), mode="legacy") as client:
        job = structured(await call(client, "progress_bg", {"steps": 1, "step_ms": 0, "gate": "/workspace/go"}))
        assert job["status"] in ("queued", "running"), job
    assert servers_on(folders["data"]), "the server should still be running its job"
    for name in ("jobs.sqlite3", "jobs.sqlite3-wal", "jobs.sqlite3-shm"):
        (folders["data"] / name).unlink(missing_ok=True)
    (folders["workspace"] / "go1").touch()
    with anyio.fail_after(60):
        while servers_on(folders["data"]):
            await anyio.sleep(0.1)
    log = after_client_log(folders)
    assert "every job has ended and is recorded" not in log, log
    assert "every job has ended, but the ends of 1 could not be recorded (see above)" in log, log
