"""Over stdio, through the real command and the SDK's client: a module that prints, even from
C to file descriptor 1, never reaches the protocol, and one that crashes leaves the server serving."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.chain_e2e.conftest import text_of
from tests.conftest import REPO_ROOT
from tests.pytools.conftest import FIXTURE_PYTHON

pytestmark = pytest.mark.anyio


def _served_over_stdio(tools: Path, tmp_path: Path) -> StdioServerParameters:
    """The real ``toolbay serve`` over stdio on the folder ``tools``."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(tools), "--data-dir", str(tmp_path / "data")],
        cwd=str(REPO_ROOT), env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # module-wide, for the one server the tests that only call tools share


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """One real server over stdio on a copy of the Python tools, for the tests that only call its tools
    (each starts ~0.6 s of processor time of imports and its modules' workers)."""
    tmp_path = tmp_path_factory.mktemp("served")
    tools = tmp_path / "tools"
    shutil.copytree(FIXTURE_PYTHON, tools)
    async with Client(_served_over_stdio(tools, tmp_path), mode="legacy") as client:
        yield client


async def test_printing_and_crashing_modules_leave_the_stdio_wire_clean(served: Client) -> None:
    with anyio.fail_after(120):
        names = {tool.name for tool in (await served.list_tools()).tools}
        assert {"greet", "crashy_print", "mathx_add"} <= names
        printed = await served.call_tool("crashy_print", {})
        assert text_of(printed) == "printed and returned"
        crashed = await served.call_tool("crashy_segfault", {})
        assert crashed.is_error and "SIGSEGV" in text_of(crashed)
        again = await served.call_tool("greet", {"name": "wire"})
        assert text_of(again) == "Hello, wire!"


async def test_a_module_cannot_write_into_the_channel_its_worker_reads_calls_from(served: Client) -> None:
    """uvloop gives a worker's standard input as a socket: a module that wrote into the worker's
    copy of it (fd 3) wrote to the server, which dropped that worker's channel with an asyncio
    traceback in its log, and the next call failed ("the worker process exited with status 0")."""
    with anyio.fail_after(120):
        pid = text_of(await served.call_tool("crashy_pid", {}))
        written = await served.call_tool("crashy_scribble_in", {})
        assert not written.is_error and text_of(written).startswith("refused"), text_of(written)
        after = await served.call_tool("crashy_pid", {})
        assert not after.is_error and text_of(after) == pid  # the same worker, unharmed


async def test_a_worker_dies_with_its_server_even_when_the_server_is_killed(python_dir: Path, tmp_path: Path) -> None:
    """After kill -9 of the server, a worker in the middle of a call ran it to the end on its own,
    which the next server then reported unfinished or ran again beside it."""
    import signal

    from tests.jobs_e2e.conftest import http_client
    from tests.jobs_e2e.test_crash_restart import server_process

    config = tmp_path / "toolbay.toml"
    config.write_text(f"extensions = [{str(python_dir)!r}]\ndata_dir = {str(tmp_path / 'data')!r}\n"
                      "[jobs]\nsync_budget_s = 0.1\n[python]\nconfine = false\n", encoding="utf-8")
    with server_process(config, tmp_path / "toolbay.log") as (process, url):
        async with http_client(url) as client:
            looping = await client.call_tool("crashy_loop", {})  # never ends: goes on as a job
            assert "job" in text_of(looping), text_of(looping)
        workers = _children(process.pid)
        assert workers, "the looping call's worker should be running"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    with anyio.fail_after(30):
        while any(_state_of(pid) not in ("gone", "Z") for pid in workers):
            await anyio.sleep(0.05)


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return "gone"


async def test_over_stdio_a_worker_that_exits_after_forking_in_its_call_ends_the_call_with_its_status(
        tmp_path: Path) -> None:
    """The forked child kept the worker's pipes open, and the served process (uvloop's event loop)
    saw the worker's end only with them: the call became a job that waited out its time limit,
    then said it had timed out, where the same exit without the fork was answered at once."""
    from tests.pytools.test_isolation import FORK_THEN_EXIT

    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "fc.py").write_text(FORK_THEN_EXIT, encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(folder), "--data-dir", str(tmp_path / "data")],
        cwd=str(REPO_ROOT), env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "TOOLBAY_JOBS__RUN_LIMIT_S": "60"},
    )
    with anyio.fail_after(50):
        async with Client(params, mode="legacy") as client:
            alone = await client.call_tool("fc_crash", {})
            forked = await client.call_tool("fc_fork_crash", {})
    assert alone.is_error and "exited with status 1" in text_of(alone)
    assert forked.is_error and "exited with status 1" in text_of(forked), text_of(forked)
