"""What the README promises about `serve`, checked as a user meets it: a real `python -m server`
process driven by the SDK's own client (stdio, streamable HTTP, SSE) or the real CLI.

Configuration precedence (flags > environment > file > defaults), `Keywords:` in a tool's
`_meta`, `Execution: background`, the periodic purge of expired jobs, `log_file`,
`--transport sse` and `[chain.auth] anonymous_scopes`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import FIXTURE_WASM, REPO_ROOT

WAIT_S = 60
# report declares `Keywords: quarterly, summary, analytics`, `PermissionLevel: read` and
# `Execution: background` in its help; echo declares nothing (so it needs tools:exec);
# slow sleeps as long as it is told.
TOOLS = ("report", "echo", "slow")
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


@pytest.fixture(scope="module")
def extensions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("serve-e2e-extensions")
    for name in TOOLS:
        shutil.copy(FIXTURE_WASM / f"{name}.wasm", folder / f"{name}.wasm")
    return folder


def write_config(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def stdio_server(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "toolbay", "serve", *args],
                                 cwd=str(REPO_ROOT), env=ENV)


@asynccontextmanager
async def http_process(*args: str) -> AsyncIterator[str]:
    """`serve ARGS --port 0` as a process; yields its base URL once its log says where it listens."""
    command = [sys.executable, "-m", "toolbay", "serve", "--port", "0", *args]
    async with await anyio.open_process(command, cwd=str(REPO_ROOT), env=ENV,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        assert process.stderr is not None
        log = b""
        try:
            with anyio.fail_after(WAIT_S):
                while not (found := re.search(rb"serving MCP on (http://\S+)/mcp", log)):
                    log += await process.stderr.receive()
            async with anyio.create_task_group() as group:
                async def drain() -> None:  # a full pipe must never block the server
                    async for _ in process.stderr:  # type: ignore[union-attr]
                        pass

                group.start_soon(drain)
                yield found.group(1).decode()
                group.cancel_scope.cancel()
        finally:
            process.terminate()
            with anyio.move_on_after(15, shield=True):
                await process.wait()


# -- configuration precedence -----------------------------------------------------------------


def toolbay(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolbay", *args], cwd=REPO_ROOT, env={**ENV, **(env or {})},
                          capture_output=True, text=True, timeout=WAIT_S * 2, check=False)


def test_the_data_folder_comes_from_the_flag_then_the_environment_then_the_file_then_the_default(
        extensions: Path, tmp_path: Path) -> None:
    in_file, in_env, in_flag = tmp_path / "from-file", tmp_path / "from-env", tmp_path / "from-flag"
    config = write_config(tmp_path / "toolbay.toml", f"data_dir = {str(in_file)!r}")
    # A data home of this test's own: other tests may have used the session's default folder.
    home = {"XDG_DATA_HOME": str(tmp_path / "data-home")}
    default = tmp_path / "data-home" / "toolbay"
    listing = ["list", "--json", "--extensions", str(extensions)]
    env = {**home, "TOOLBAY_DATA_DIR": str(in_env)}
    runs = [  # each run adds one data folder: the one its winning source names
        ("default", [], home, default),
        ("file over default", ["--config", str(config)], home, in_file),
        ("environment over file", ["--config", str(config)], env, in_env),
        ("flag over environment", ["--config", str(config), "--data-dir", str(in_flag)], env, in_flag),
    ]
    folders = (default, in_file, in_env, in_flag)
    for name, args, run_env, winner in runs:
        before = {folder for folder in folders if (folder / "hashes.json").exists()}
        run = toolbay(*listing, *args, env=run_env)
        assert run.returncode == 0, (name, run.stderr)
        assert {tool["name"] for tool in json.loads(run.stdout)["tools"]} >= set(TOOLS), name
        after = {folder for folder in folders if (folder / "hashes.json").exists()}
        assert after - before == {winner}, name


def test_a_nested_setting_from_the_environment_wins_over_the_file(extensions: Path, tmp_path: Path) -> None:
    # The run limit must pass the inline budget (else every call would stop before it could be a
    # job): the call goes on as a job, which `toolbay call` waits for.
    config = write_config(tmp_path / "toolbay.toml", f"data_dir = {str(tmp_path / 'data')!r}",
                          "[jobs]", "sync_budget_s = 0.1", "[sandbox]", "timeout_s = 0.4")
    call = ["call", "slow", "--args", '{"ms": 60000}', "--extensions", str(extensions), "--config", str(config)]
    from_file = toolbay(*call)
    from_env = toolbay(*call, env={"TOOLBAY_SANDBOX__TIMEOUT_S": "0.7"})
    assert from_file.returncode == 1 and "timed out after 0.4 s" in from_file.stderr, from_file.stderr
    assert from_env.returncode == 1 and "timed out after 0.7 s" in from_env.stderr, from_env.stderr


# -- what a tool's help declares ---------------------------------------------------------------


@pytest.mark.anyio
async def test_keywords_and_execution_background_in_a_tools_help_reach_the_client(
        extensions: Path, tmp_path: Path) -> None:
    server = stdio_server("--extensions", str(extensions), "--data-dir", str(tmp_path / "data"))
    with anyio.fail_after(WAIT_S):
        async with Client(server, mode="legacy") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            # A quick run (no work at all): it is a job all the same, because its help says so.
            accepted = await client.call_tool("report", {"ms": 0, "title": "Q3"})
            job_id = (accepted.structured_content or {}).get("job_id")
            waited = await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": WAIT_S})
            result = await client.call_tool("job_result", {"job_id": job_id})
    assert (tools["report"].meta or {}).get("toolbay/keywords") == ["quarterly", "summary", "analytics"]
    assert "toolbay/keywords" not in (tools["echo"].meta or {})
    assert accepted.is_error is False and job_id, text(accepted)
    assert "goes on in the background as job" in text(accepted)
    assert (waited.structured_content or {}).get("status") == "completed", text(waited)
    assert text(result).strip() == "Q3"


# -- jobs: the periodic purge, and the log file -------------------------------------------------


@pytest.mark.anyio
async def test_a_finished_job_is_purged_after_its_retention_and_the_log_file_says_so(
        extensions: Path, tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "toolbay.log"
    config = write_config(tmp_path / "toolbay.toml", f"data_dir = {str(tmp_path / 'data')!r}",
                          f"log_file = {str(log_file)!r}", "[jobs]", "retention_s = 1")
    server = stdio_server("--extensions", str(extensions), "--config", str(config))
    with anyio.fail_after(WAIT_S):
        async with Client(server, mode="legacy") as client:
            # Still running when job_wait asks for it: a job that ended at once could be purged
            # before job_wait came on a busy machine (the purge follows its end by a second).
            accepted = await client.call_tool("report", {"ms": 1500, "title": "kept a second"})
            job_id = (accepted.structured_content or {}).get("job_id")
            waited = await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": WAIT_S})
            # The purge runs every max(retention / 4, 1 s) and logs what it removed: wait for
            # that line in the log file (the server's stdout is the protocol's alone).
            while "removed 1 expired job(s)" not in (log_file.read_text() if log_file.exists() else ""):
                await anyio.sleep(0.05)
            after = await client.call_tool("job_status", {"job_id": job_id})
            listed = await client.call_tool("job_list", {})
    assert (waited.structured_content or {}).get("status") == "completed", text(waited)
    assert after.is_error is True and job_id in text(after)
    assert (listed.structured_content or {}).get("jobs") == []
    logged = log_file.read_text()
    # The start names what it serves, not as "added" (a warm start added nothing).
    [started] = [line for line in logged.splitlines() if "catalog_keeper: serving " in line]
    assert "report" in started and "added" not in logged


# -- transports and callers ---------------------------------------------------------------------


@pytest.mark.anyio
async def test_serve_transport_sse_answers_the_sdks_sse_client(extensions: Path, tmp_path: Path) -> None:
    with anyio.fail_after(WAIT_S):
        async with http_process("--transport", "sse", "--extensions", str(extensions),
                                "--data-dir", str(tmp_path / "data")) as base_url, \
                Client(sse_client(f"{base_url}/sse"), mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            echoed = await client.call_tool("echo", {"stdin": "over sse\n"})
    assert set(TOOLS) <= names
    assert echoed.is_error is False and text(echoed) == "over sse\n"


@pytest.mark.anyio
async def test_anonymous_scopes_limit_what_an_unauthenticated_http_caller_sees_and_calls(
        extensions: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "toolbay.toml", f"data_dir = {str(tmp_path / 'data')!r}",
                          "[chain.auth]", 'anonymous_scopes = ["tools:read"]')
    with anyio.fail_after(WAIT_S):
        async with http_process("--transport", "http", "--extensions", str(extensions),
                                "--config", str(config)) as base_url, \
                httpx2.AsyncClient(timeout=WAIT_S) as http, \
                Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            refused = await client.call_tool("echo", {"stdin": "x"})
            allowed = await client.call_tool("report", {"ms": 0})
    assert "report" in names and "echo" not in names and "slow" not in names  # echo, slow: exec tier
    assert refused.is_error is True
    assert "needs the 'exec' permission tier, which your scopes (tools:read) do not grant" in text(refused)
    assert allowed.is_error is False, text(allowed)


def test_sigterm_stops_a_server_started_by_a_script_in_the_background(tmp_path: Path) -> None:
    """`toolbay serve &` in a script starts with Ctrl-C ignored (so the event loop installs no
    handler of its own), and SIGTERM, which stops the server as Ctrl-C would, did nothing: it
    served on. Sent while a tool is being described (its help never ends), before serving."""
    import signal
    import time

    extensions = tmp_path / "tools"
    extensions.mkdir()
    shutil.copy(FIXTURE_WASM / "spin.wasm", extensions / "spin.wasm")
    log = tmp_path / "toolbay.log"
    help_timeout_s = 120  # longer than this test waits: the stop must not wait for it
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0",
         "--extensions", str(extensions), "--data-dir", str(tmp_path / "data")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO_ROOT,
        env={**os.environ, "TOOLBAY_LOG_FILE": str(log), "TOOLBAY_DISCOVERY__HELP_TIMEOUT_S": str(help_timeout_s)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # noqa: PLW1509 - before exec, on purpose
    try:
        deadline = time.monotonic() + WAIT_S
        while "compiling and describing" not in (log.read_text(errors="replace") if log.exists() else ""):
            assert process.poll() is None and time.monotonic() < deadline, "the server never began describing"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        assert help_timeout_s > WAIT_S
        process.wait(timeout=WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in log.read_text(errors="replace")


def test_sigterm_to_an_http_server_started_with_ctrl_c_ignored_ends_it_quietly_once_serving(
        tmp_path: Path) -> None:
    """Serving, the same SIGTERM printed a 63-line traceback and exit 1: uvicorn, once shut down,
    raises the signal again, and the KeyboardInterrupt it is said as came inside a task group's
    exception group, which the server did not take for a stop."""
    import signal
    import time

    extensions = tmp_path / "tools"
    extensions.mkdir()
    log, errors = tmp_path / "toolbay.log", tmp_path / "stderr.txt"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0",
             "--extensions", str(extensions), "--data-dir", str(tmp_path / "data")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, cwd=REPO_ROOT,
            env={**os.environ, "TOOLBAY_LOG_FILE": str(log)},
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # noqa: PLW1509 - before exec, on purpose
        try:
            deadline = time.monotonic() + WAIT_S
            while "serving MCP on" not in (log.read_text(errors="replace") if log.exists() else ""):
                assert process.poll() is None and time.monotonic() < deadline, errors.read_text()
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            code = process.wait(timeout=WAIT_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert code == 0 and "Traceback" not in errors.read_text(errors="replace"), errors.read_text()


def _serving_over_stdio(tmp_path: Path, stderr: IO[bytes], *, ctrl_c_ignored: bool) -> subprocess.Popen[bytes]:
    """A stdio server on an empty folder of tools that has answered its client's initialize;
    with Ctrl-C ignored, as a script's `cmd &` starts it."""
    import signal

    extensions = tmp_path / "tools"
    extensions.mkdir(exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir",
         str(tmp_path / "data")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=REPO_ROOT,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ctrl_c_ignored else None)  # noqa: PLW1509
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}).encode() + b"\n")
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 0  # serving
    return process


def _stopped(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait()
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    process.stdout.close()


@pytest.mark.parametrize("ctrl_c", ["default", "ignored"])
def test_sigterm_said_twice_to_a_stdio_server_stops_it_once_quietly(tmp_path: Path, ctrl_c: str) -> None:
    """A client's SIGTERM to the process group of `uv run toolbay serve` reaches the server
    twice (uv passes it on too): the second, said as a second Ctrl-C, printed a traceback of
    about 60 lines, and with Ctrl-C ignored (a script's `cmd &`) the server could hang for good."""
    import contextlib
    import signal
    import time

    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as stderr:
        process = _serving_over_stdio(tmp_path, stderr, ctrl_c_ignored=ctrl_c == "ignored")
        try:
            # Said again and again until it has stopped, so that a second one falls in every
            # stage of the stop: uv passes it on a moment after the client's.
            deadline = time.monotonic() + WAIT_S
            while process.poll() is None and time.monotonic() < deadline:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
                time.sleep(0.01)
            code = process.poll()  # the stdin is still open: the signal alone must stop it
        finally:
            _stopped(process)
    assert code == 0 and "Traceback" not in errors.read_text(errors="replace"), errors.read_text()


def test_one_sigterm_to_a_stdio_server_with_ctrl_c_ignored_leaves_nothing_unfinished_on_stderr(
        tmp_path: Path) -> None:
    """Stopped this way (a script's `cmd &`, then `kill`), the server printed "coroutine
    '_Inbox.end_of_input.<locals>.answered' was never awaited" about one time in five: the end
    of input (the client closing its end just after the signal) started two tasks that the stop
    then gave no first step. Several stops, the signal coming at various moments after the
    server answered (on the old code, about two runs of this test in three saw it)."""
    import signal
    import time

    for attempt, delay_s in enumerate((0.0, 0.1, 0.3, 0.3, 0.6, 1.0)):
        errors = tmp_path / f"stderr-{attempt}.txt"
        with errors.open("wb") as stderr:
            process = _serving_over_stdio(tmp_path, stderr, ctrl_c_ignored=True)
            assert process.stdin is not None
            try:
                time.sleep(delay_s)  # not a wait for the machine: a moment of the stop to fall in
                process.send_signal(signal.SIGTERM)
                process.stdin.close()  # and the client closes its end, as it goes
                code = process.wait(timeout=WAIT_S)
            finally:
                _stopped(process)
        said = errors.read_text(errors="replace")
        # 0, or once in a few hundred such stops beside another test run 143: ended by the SIGTERM
        # it was sent (left, see the stop's note); what this test is about is what it says.
        assert code in (0, 128 + signal.SIGTERM) and "never awaited" not in said and "Traceback" not in said, (
            delay_s, code, said)
