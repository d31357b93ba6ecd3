"""A slow first description does not hold the server back: after ``[discovery] start_wait_s``
it answers with the tools described so far, and announces the rest when they are ready."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM, REPO_ROOT, as_if_run_before
from tests.reload.conftest import WAIT_S, ListChanged, text_of
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.discovery import Discovery
from toolbay.protocol.mcp_server import build_mcp_server
from toolbay.wasm import WasmRuntime

pytestmark = pytest.mark.anyio


def _tool_names(listing: Any) -> set[str]:
    return {tool.name for tool in listing.tools}


# The events of the files held back by the test running (see ``_held_back``, ``_first_start``).
_HELD: dict[str, threading.Event] = {}


def _held_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               files: dict[str, threading.Event | None]) -> Any:
    """Settings for a folder of ``files`` (echo.wasm's copies, or slow.wasm's for ``held.wasm``),
    each described only once its event is set (at once for None), however fast the machine is."""
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    for name in files:
        shutil.copy(FIXTURE_WASM / ("slow.wasm" if name == "held.wasm" else "echo.wasm"), extensions / name)
    _HELD.update({name: event for name, event in files.items() if event is not None})
    describe = Discovery.describe_file_sync

    def held_back(self: Discovery, path: str | Path, *args: Any, **kwargs: Any) -> Any:
        let_go = files.get(Path(path).name)
        if let_go is not None:
            let_go.wait(WAIT_S * 4)
        return describe(self, path, *args, **kwargs)

    monkeypatch.setattr(Discovery, "describe_file_sync", held_back)
    return load_settings(None, extensions=[extensions], data_dir=tmp_path / "data")


@asynccontextmanager
async def _first_start(settings: Any, heard: Callable[[Any], Awaitable[None]]) -> AsyncIterator[Client]:
    """A server started on ``settings`` with a short ``start_wait_s``, and a client of it; the
    files held back (``_held_back``) are let go as it ends, whatever happened."""
    try:
        with anyio.fail_after(WAIT_S * 4):
            async with assemble(settings, watch=False, start_wait_s=0.2) as app, \
                    Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=heard) as client:
                yield client
    finally:
        for event in _HELD.values():
            event.set()
        _HELD.clear()


async def test_tools_still_being_described_are_announced_when_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One file's description is held back by the test until it lets go, however fast the
    # machine describes: the server must answer before it and announce it afterwards.
    let_go = threading.Event()
    heard = ListChanged()
    async with _first_start(_held_back(tmp_path, monkeypatch, {"echo.wasm": None, "held.wasm": let_go}),
                            heard) as client:
        first = _tool_names(await client.list_tools())
        let_go.set()
        while True:  # echo may be announced on its own before held
            seen = heard.count
            later = _tool_names(await client.list_tools())
            if "held" in later:
                break
            await heard.after(seen)
        said = await client.call_tool("held", {"ms": 0, "message": "ready"})
    assert "held" not in first and "job_status" in first
    assert {"held", "echo"} <= later
    assert said.is_error is False and text_of(said).strip() == "ready"


async def test_the_prompt_list_is_not_told_changed_when_tools_described_after_the_start_arrive(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The role files read at the first scan's start are served with its first listing; the
    scan told every client the prompt list had changed as it ended all the same, whenever a
    file was described after the start (an outside check)."""
    let_go = threading.Event()
    scan_ended = anyio.Event()
    drop_early_compiles = WasmRuntime.drop_early_compiles

    def then_say_so(self: WasmRuntime) -> None:  # called as the first scan returns, its listeners told
        drop_early_compiles(self)
        scan_ended.set()

    monkeypatch.setattr(WasmRuntime, "drop_early_compiles", then_say_so)
    tools, prompts = ListChanged(), ListChanged(types.PromptListChangedNotification)

    async def heard(message: Any) -> None:
        await tools(message)
        await prompts(message)

    async with _first_start(_held_back(tmp_path, monkeypatch, {"held.wasm": let_go}), heard) as client:
        first = _tool_names(await client.list_tools())
        offered = {prompt.name for prompt in (await client.list_prompts()).prompts}
        let_go.set()
        await scan_ended.wait()
        later = _tool_names(await client.list_tools())
    assert "held" not in first and "held" in later and tools.count >= 1
    assert offered and prompts.count == 0


async def test_each_file_described_after_the_start_is_announced_when_it_is_ready_not_with_the_slowest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files described after ``start_wait_s`` were taken in together once the last was:
    one module slow to import held back the tools of every other (an outside check: a tool
    ready at 3 s was listed at 12 s, with the slow one)."""
    quick, held = threading.Event(), threading.Event()
    heard = ListChanged()
    async with _first_start(_held_back(tmp_path, monkeypatch, {"quick.wasm": quick, "held.wasm": held}),
                            heard) as client:
        first = _tool_names(await client.list_tools())
        seen = heard.count
        quick.set()
        await heard.after(seen)
        while_held = _tool_names(await client.list_tools())
        seen = heard.count
        held.set()
        await heard.after(seen)
        at_last = _tool_names(await client.list_tools())
    assert not {"quick", "held"} & first
    assert "quick" in while_held and "held" not in while_held
    assert {"quick", "held"} <= at_last


async def test_serve_with_the_default_start_wait_lists_tools_described_for_the_first_time(
        tmp_path: Path) -> None:
    # No TOOLBAY_DISCOVERY__START_WAIT_S here: the default wait (10 s) covers small tools
    # described for the first time (a cold data folder), so the first listing has them.
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    for name in ("echo", "greet_v1", "slow"):
        shutil.copy(FIXTURE_WASM / f"{name}.wasm", extensions / f"{name}.wasm")
    env = {key: value for key, value in os.environ.items() if key != "TOOLBAY_DISCOVERY__START_WAIT_S"}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", str(tmp_path / "data")],
        cwd=str(REPO_ROOT), env={**env, "PYTHONPATH": str(REPO_ROOT)},
    )
    with anyio.fail_after(90):
        async with Client(server, mode="legacy") as client:
            first = _tool_names(await client.list_tools())
    assert {"echo", "greet_v1", "slow"} <= first


@pytest.mark.parametrize("wait_s", [None, 5.0])
async def test_an_error_while_the_app_is_open_comes_out_as_itself(tmp_path: Path, wait_s: float | None) -> None:
    from toolbay.catalog_keeper import CatalogKeeper

    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", extensions / "echo.wasm")
    settings = load_settings(None, extensions=[extensions], data_dir=tmp_path / "data")
    with pytest.raises(LookupError, match="not an exception group"):
        async with CatalogKeeper.open(settings, start_wait_s=wait_s) as app:
            assert app.catalog.current.get("echo") is not None
            raise LookupError("not an exception group")


@pytest.mark.parametrize("set_elsewhere", [
    {},  # the command line says all: the compiles begin before the settings are read
    {"TOOLBAY_JOBS__MAX_CONCURRENT": "3"},  # may change them: they begin once the settings are read
])
def test_a_first_serve_compiles_its_tools_while_it_loads_and_lists_them_all(
        tmp_path: Path, set_elsewhere: dict[str, str]) -> None:
    # An empty data folder: the modules are handed to the early compiles before the server is
    # assembled (toolbay.first_start), and the runtime takes every one of them.
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    for name in ("echo", "greet_v1", "slow"):
        shutil.copy(FIXTURE_WASM / f"{name}.wasm", extensions / f"{name}.wasm")
    stderr = tmp_path / "stderr.log"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TOOLBAY_LOG_LEVEL": "debug", **set_elsewhere}
    with stderr.open("wb") as log, subprocess.Popen(
            [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions),
             "--data-dir", str(tmp_path / "data")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=REPO_ROOT, env=env) as process:
        try:
            listing = _first_listing(process)
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=60)
    assert {"echo", "greet_v1", "slow"} <= {tool["name"] for tool in listing}
    said = stderr.read_text(encoding="utf-8")
    assert all(f"{name}.wasm was compiled early" in said for name in ("echo", "greet_v1", "slow")), said
    guessed = "the settings are as guessed before they were read: the compiles begun then go on" in said
    assert guessed == (not set_elsewhere), said


def _first_listing(process: subprocess.Popen[bytes]) -> list[dict[str, Any]]:
    """initialize, then the first tools/list, in raw JSON-RPC over the server's pipes."""
    assert process.stdin is not None and process.stdout is not None
    for message in (
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ):
        process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()
    while line := process.stdout.readline():
        answer = json.loads(line)
        if answer.get("id") == 1:
            return list(answer["result"]["tools"])
    raise AssertionError("the server closed its output before listing its tools")


async def test_the_bundled_tools_are_described_before_a_folder_of_the_users_that_comes_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_data_dir: Path) -> None:
    """A folder of the user's large tools, named first, took every worker thread: the bundled
    tools waited behind it and were missing from a client's first listing (an outside probe,
    32 large tools). Here the user's files are held back until the bundled ones are described."""
    from toolbay.first_start import runtime_sizing

    settings = load_settings(None, extensions=[tmp_path / "mine", BUNDLED_EXTENSIONS],
                             data_dir=as_if_run_before(tmp_path / "data", shared_data_dir))
    mine = settings.extensions[0]
    mine.mkdir()
    for number in range(runtime_sizing(settings)[1] + 1):  # one more than the threads that describe
        shutil.copy(FIXTURE_WASM / "echo.wasm", mine / f"mine{number}.wasm")
    bundled = {os.fspath(path) for path in BUNDLED_EXTENSIONS.iterdir() if path.suffix in (".wasm", ".py")}
    let_go, bundled_done = threading.Event(), threading.Event()
    described: set[str] = set()
    describe = Discovery.describe_file_sync

    def users_held_back(self: Discovery, path: str | Path, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) not in bundled:
            let_go.wait(WAIT_S * 4)
            return describe(self, path, *args, **kwargs)
        outcome = describe(self, path, *args, **kwargs)
        described.add(os.fspath(path))
        if described == bundled:
            bundled_done.set()
        return outcome

    monkeypatch.setattr(Discovery, "describe_file_sync", users_held_back)
    try:
        with anyio.fail_after(WAIT_S * 4):
            async with anyio.create_task_group() as group:

                async def serve() -> None:
                    async with assemble(settings, watch=False) as app:
                        assert {"hashsum", "jsonkit_get", "mine0"} <= set(app.catalog.current.names())

                group.start_soon(serve)
                before_the_users = await anyio.to_thread.run_sync(bundled_done.wait, WAIT_S * 2)
                let_go.set()
    finally:
        let_go.set()
    assert before_the_users, f"described while the user's files were held: {sorted(described)}"


async def test_a_server_stopped_while_a_file_compiles_does_not_wait_for_the_compile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compile cannot be stopped: Ctrl-C during a first start of large tools waited 4 to 24 s
    for the compiles under way (an outside probe). Here a file's description is held back, as a
    compile would hold it, for as long as the test likes; stopping the server must not wait."""
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", extensions / "held.wasm")
    entered, let_go = threading.Event(), threading.Event()
    describe = Discovery.describe_file_sync

    def like_a_compile(self: Discovery, path: str | Path, *args: Any, **kwargs: Any) -> Any:
        entered.set()
        let_go.wait(WAIT_S * 4)  # deaf to the stop event, as wasmtime's compile is
        return describe(self, path, *args, **kwargs)

    monkeypatch.setattr(Discovery, "describe_file_sync", like_a_compile)
    settings = load_settings(None, extensions=[extensions], data_dir=tmp_path / "data")
    try:
        with anyio.fail_after(WAIT_S * 2):
            async with anyio.create_task_group() as group:

                async def serve() -> None:
                    async with assemble(settings, watch=False, start_wait_s=WAIT_S * 10):
                        pass

                group.start_soon(serve)
                await anyio.to_thread.run_sync(entered.wait, WAIT_S)
                group.cancel_scope.cancel()  # the server stops (Ctrl-C, SIGTERM)
        stopped_while_held = not let_go.is_set()
    finally:
        let_go.set()
    assert stopped_while_held


HELD_AT_EXIT = """
import sys, threading
from pathlib import Path
import anyio
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.discovery import Discovery

entered = threading.Event()
describe = Discovery.describe_file_sync

def like_a_compile(self, path, *args, **kwargs):
    entered.set()
    threading.Event().wait(3600)  # deaf to the stop event, as wasmtime's compile is
    return describe(self, path, *args, **kwargs)

Discovery.describe_file_sync = like_a_compile
settings = load_settings(None, extensions=[Path(sys.argv[1])], data_dir=Path(sys.argv[2]))

async def main():
    async with anyio.create_task_group() as group:
        async def serve():
            async with assemble(settings, watch=False, start_wait_s=3600):
                pass
        group.start_soon(serve)
        await anyio.to_thread.run_sync(entered.wait)
        group.cancel_scope.cancel()  # the server stops (Ctrl-C, SIGTERM)

anyio.run(main)
print("stopped", flush=True)
"""


def test_a_process_whose_server_stopped_during_a_compile_ends_without_waiting_for_it(tmp_path: Path) -> None:
    """The server let go of a compile under way, but the process then waited for it at exit:
    anyio's worker threads are not daemons (Ctrl-C ended a first start 1.4 to 2.5 s late)."""
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", extensions / "held.wasm")
    done = subprocess.run([sys.executable, "-c", HELD_AT_EXIT, str(extensions), str(tmp_path / "data")],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=WAIT_S * 4,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert (done.returncode, done.stdout) == (0, "stopped\n"), done.stderr
