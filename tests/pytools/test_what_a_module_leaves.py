"""What a Python tool leaves after its call: no symbolic link leading out of the workspace (as
for WebAssembly tools), no credential in a later call's result, when the module kept one it
was handed in an earlier call (an API client made at the first call), and no process it
detached once its worker is gone."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.pytools.conftest import call
from toolbay.assembly import assemble
from toolbay.config import Settings

pytestmark = pytest.mark.anyio

LINKER = '''
import os
TOOL_TIER = "write"


def get_tool_schemas():
    return [{"name": "linker_make", "description": "Makes a link",
             "input_schema": {"type": "object", "properties": {"target": {"type": "string"},
                                                                "path": {"type": "string"}}}}]


def linker_make(target, path):
    os.symlink(target, path)
    return "made " + path
'''

KEEPER = '''
from toolbay_tools import get_credential

TOOL_TIER = "read"
_client = {}


def get_tool_schemas():
    return [{"name": f"keeper_{name}", "description": name, "input_schema": {"type": "object"}}
            for name in ("connect", "fetch")]


def keeper_connect():
    _client["key"] = get_credential("weather")
    return "connected"


def keeper_fetch():
    raise RuntimeError("GET https://api.example/forecast?key=" + _client["key"] + " failed: 503")
'''
SECRET = "wk-7f3a9c2e5b1d4a6f8e0c"

# Starts a process that leaves the worker's process group and session (a double fork and
# setsid, as a daemon does) and answers with its process id as the server sees it.
DETACHER = '''
import os, time

TOOL_TIER = "read"


def get_tool_schemas():
    return [{"name": "detacher_start", "description": "Leaves a process behind", "input_schema": {"type": "object"}}]


def detacher_start():
    read, write = os.pipe()
    if os.fork() == 0:
        try:
            try:
                os.setsid()
                detached = "detached"
            except OSError as error:
                detached = error.strerror
            if os.fork() == 0:
                os.write(write, (os.readlink("/proc/self") + " " + detached).encode())
                time.sleep(600)
        finally:
            os._exit(0)
    os.close(write)
    os.wait()
    pid, detached = os.read(read, 200).decode().split(" ", 1)
    return {"pid": int(pid), "setsid": detached}
'''


# Forks without end, each child (and grandchild: orphans stay in the group) noting its pid in
# the workspace and sleeping: a fork bomb, slowed so the test machine never feels it.
FORKER = '''
import os, time

TOOL_TIER = "write"


def get_tool_schemas():
    return [{"name": "forker_bomb", "description": "Forks without end", "input_schema": {"type": "object"}}]


def forker_bomb():
    while True:
        if os.fork() == 0:
            if os.fork() == 0:
                with open("pids.txt", "a") as pids:
                    pids.write(f"{os.getpid()}\\n")
                time.sleep(600)
            os._exit(0)
        os.wait()
        time.sleep(0.002)
'''


@pytest.fixture
def settings(python_dir: Path, make_settings: Callable[..., Settings]) -> Settings:
    (python_dir / "linker.py").write_text(LINKER, encoding="utf-8")
    (python_dir / "keeper.py").write_text(KEEPER, encoding="utf-8")
    (python_dir / "detacher.py").write_text(DETACHER, encoding="utf-8")
    (python_dir / "forker.py").write_text(FORKER, encoding="utf-8")
    return make_settings(credentials={"weather": {"tools": ["keeper_*"], "api_key": SECRET}},
                         python={"max_processes": 24})


async def test_a_write_tool_s_link_leading_out_of_the_workspace_is_removed(settings: Settings,
                                                                          workspace: Path) -> None:
    outside = workspace.parent / "outside"
    outside.mkdir()
    async with assemble(settings, watch=False) as app:
        relative = await call(app, "linker_make", {"target": "../outside", "path": "relative"})
        absolute = await call(app, "linker_make", {"target": str(outside), "path": "absolute"})
        inside = await call(app, "linker_make", {"target": ".", "path": "here"})
    if "Permission denied" in relative.text:
        # Landlock confines the worker: it may make no link in the workspace at all.
        for result in (relative, absolute, inside):
            assert result.is_error and "Permission denied" in result.text, result.text
        assert not any((workspace / name).is_symlink() for name in ("relative", "absolute", "here"))
    else:  # not confined: the links leading out are removed after the call
        for result, name in ((relative, "relative"), (absolute, "absolute")):
            assert result.is_error and "symbolic links leading out of the workspace" in result.text, result.text
            assert f"{name} -> " in result.text and not (workspace / name).is_symlink()
        assert not inside.is_error and os.path.realpath(workspace / "here") == str(workspace.resolve())


async def test_a_credential_a_module_kept_from_an_earlier_call_is_redacted_in_a_later_one(
        settings: Settings) -> None:
    async with assemble(settings, watch=False) as app:
        assert (await call(app, "keeper_connect")).text == "connected"
        fetched = await call(app, "keeper_fetch")
    assert fetched.is_error and "failed: 503" in fetched.text, fetched.text
    assert SECRET not in repr((fetched.text, fetched.structured, fetched.meta))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    return True


async def test_a_process_a_tool_detached_ends_with_its_worker(settings: Settings) -> None:
    async with assemble(settings, watch=False) as app:
        started = await call(app, "detacher_start")
        assert not started.is_error and started.structured is not None, started.text
        pid = started.structured["pid"]
        assert alive(pid)
    # Refused by the worker's seccomp filter, so the process stays in the worker's process group.
    assert started.structured["setsid"] == "Operation not permitted"
    try:  # the server has stopped, and its workers with it
        with anyio.fail_after(30):
            while alive(pid):
                await anyio.sleep(0.02)
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def test_a_tool_running_more_processes_than_its_cap_is_stopped_with_all_of_them(
        settings: Settings, workspace: Path) -> None:
    """Nothing capped how many processes a Python tool ran: a fork bomb ran on to the call's time
    limit (15 minutes by default), and RLIMIT_NPROC does not bind root."""
    async with assemble(settings, watch=False) as app:
        result = await call(app, "forker_bomb")
        assert result.is_error, result.text
        assert "over the limit of 24 ([python] max_processes)" in result.text, result.text
        assert (await call(app, "keeper_connect")).text == "connected"  # the server carries on
        pids = [int(line) for line in (workspace / "pids.txt").read_text().split()]
        assert len(pids) >= 20
        with anyio.fail_after(30):
            while any(alive(pid) for pid in pids):
                await anyio.sleep(0.02)
