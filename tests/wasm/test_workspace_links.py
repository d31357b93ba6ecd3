"""A tool that may write leaves no symbolic link leading out of its workspace: not one it made,
not one an earlier call made that leads out only after what this call changed, not one made
at the bottom of folders nested deeper than Python recurses, not one made by a call that was
cancelled. A person's own link that led out before the call stays."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from tests.wasm.test_handler import call, make
from toolbay.wasm import SandboxLimits, WasmRuntime
from toolbay.words import CallContext, PermissionTier

pytestmark = pytest.mark.anyio


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """(workspace, the secret beside it)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("outside", encoding="utf-8")
    return workspace, secret


async def file_clock_past(moment: float, probe: Path) -> None:
    """Until the file clock passes ``moment``: what was made before it is then told apart from
    what a call makes by the change times of the files."""
    with anyio.fail_after(10):
        while probe.write_text("tick", encoding="utf-8") and os.stat(probe).st_ctime < moment:
            await anyio.sleep(0.01)


def fsops(runtime: WasmRuntime, program, workspace: Path, timeout_s: float = 10):  # type: ignore[no-untyped-def]
    return make(runtime, program("fsops"), "fsops", tier=PermissionTier.WRITE, workspace=workspace,
                limits=SandboxLimits(timeout_s=timeout_s, stdout_limit_bytes=4096))


async def test_a_link_an_earlier_call_made_is_removed_by_the_call_that_turns_it_outward(  # type: ignore[no-untyped-def]
    runtime: WasmRuntime, program, folders: tuple[Path, Path]
) -> None:
    workspace, _ = folders
    (workspace / "a" / "b").mkdir(parents=True)
    handler = fsops(runtime, program, workspace)
    # x -> d/../../secret is the workspace's own secret while d is a link two levels down...
    made = await call(handler, {"ops": ["link:a/b:/workspace/d", "link:d/../../secret:/workspace/x"]})
    assert not made.is_error, made.text
    assert os.path.realpath(workspace / "x") == str(workspace.resolve() / "secret")
    await file_clock_past(os.lstat(workspace / "x").st_ctime + 0.2, workspace / "tick")
    # ...and the secret beside the workspace once d is a folder.
    swapped = await call(handler, {"ops": ["unlink:/workspace/d", "mkdir:/workspace/d"]})
    assert swapped.is_error and "x -> d/../../secret" in swapped.text, swapped.text
    assert not (workspace / "x").is_symlink()
    assert (workspace / "d").is_dir()


async def test_a_person_s_own_link_leading_out_stays_through_a_writing_call(  # type: ignore[no-untyped-def]
    runtime: WasmRuntime, program, folders: tuple[Path, Path]
) -> None:
    workspace, secret = folders
    (workspace / "data").symlink_to(os.path.relpath(secret.parent, workspace))
    await file_clock_past(os.lstat(workspace / "data").st_ctime + 0.2, folders[1].parent / "tick")
    made = await call(fsops(runtime, program, workspace), {"ops": ["mkdir:/workspace/out"]})
    assert not made.is_error, made.text
    assert (workspace / "data").is_symlink()


async def test_a_link_at_the_bottom_of_folders_nested_deeper_than_python_recurses_is_removed(  # type: ignore[no-untyped-def]
    runtime: WasmRuntime, program, folders: tuple[Path, Path]
) -> None:
    workspace, _ = folders
    levels = 1100
    handler = fsops(runtime, program, workspace)
    climb = "../" * (levels + 2) + "secret"
    try:
        nested = await call(handler, {"ops": [f"nest:{levels}:/workspace", f"link:{climb}:escape"]})
        assert nested.is_error and "escape -> ../../" in nested.text, nested.text[:300]
        bottom = workspace / Path(*["d"] * levels)
        assert bottom.is_dir() and not (bottom / "escape").is_symlink()
        later = await call(handler, {"ops": ["mkdir:/workspace/later"]})  # and the workspace stays usable
        assert not later.is_error, later.text
    finally:
        remove_without_recursion(workspace / "d")


def remove_without_recursion(top: Path) -> None:
    """Removes the tree ``top``: pytest's clean-up of old temporary folders recurses, and
    fails on a tree this deep in every later run."""
    if not top.is_dir():
        return
    folders = [top]
    pending = [top]
    while pending:
        for entry in pending.pop().iterdir():
            if entry.is_dir() and not entry.is_symlink():
                folders.append(entry)
                pending.append(entry)
            else:
                entry.unlink()
    for folder in reversed(folders):
        folder.rmdir()


async def test_a_cancelled_call_leaves_no_link_leading_out(  # type: ignore[no-untyped-def]
    runtime: WasmRuntime, program, folders: tuple[Path, Path]
) -> None:
    workspace, _ = folders
    handler = fsops(runtime, program, workspace, timeout_s=60)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(handler.handle, {"ops": ["link:../secret:/workspace/escape", "sleep:50000"]},
                             CallContext())
            while not (workspace / "escape").is_symlink():  # the guest has made it and sleeps
                await anyio.sleep(0.01)
            group.cancel_scope.cancel()
    assert not (workspace / "escape").is_symlink()
