"""Deny by default: files only inside a granted workspace, environment only from the allow-list."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolbay.wasm import Preopen, RunResult, sandbox_for
from toolbay.words import PermissionTier

Run = Callable[..., RunResult]


def preopens_for(tier: PermissionTier | None, workspace: Path) -> tuple[Preopen, ...]:
    return sandbox_for(tier, workspace, (), {})[0]


def test_a_read_tool_sees_the_workspace_read_only_as_its_working_directory(workspace: Path) -> None:
    assert preopens_for(PermissionTier.READ, workspace) == (
        Preopen(workspace.resolve(), "/workspace", False), Preopen(workspace.resolve(), ".", False))
    assert sandbox_for(PermissionTier.READ, workspace, (), {})[1] == {"PWD": "/workspace"}


@pytest.mark.parametrize("tier", [PermissionTier.WRITE, PermissionTier.EXEC])
def test_write_and_exec_tools_see_the_workspace_read_write(tier: PermissionTier, workspace: Path) -> None:
    assert preopens_for(tier, workspace) == (
        Preopen(workspace.resolve(), "/workspace", True), Preopen(workspace.resolve(), ".", True))


def test_a_tool_without_a_declared_tier_sees_no_files(workspace: Path) -> None:
    assert preopens_for(None, workspace) == ()


def test_without_a_configured_workspace_no_tier_sees_files() -> None:
    assert all(sandbox_for(tier, None, (), {})[0] == () for tier in PermissionTier)


def test_the_environment_holds_only_allow_listed_names_the_host_has() -> None:
    host = {"LANG": "C.UTF-8", "HOME": "/root", "AWS_SECRET_ACCESS_KEY": "hunter2"}
    assert sandbox_for(None, None, ["LANG", "TZ"], host)[1] == {"LANG": "C.UTF-8"}


def test_a_read_tool_reads_the_workspace(run: Run, workspace: Path) -> None:
    result = run("files", "read", "/workspace/notes.txt", preopens=preopens_for(PermissionTier.READ, workspace))
    assert result.ok and result.stdout == b"inside the workspace\n"


@pytest.mark.parametrize("guest", ["files", "readrel"])  # C and Rust (std), both through wasi-libc
@pytest.mark.parametrize("path", ["notes.txt", "./notes.txt", "sub/../notes.txt"])
def test_a_tool_that_opens_a_relative_path_as_given_reads_it_from_the_workspace(
        run: Run, workspace: Path, path: str, guest: str) -> None:
    (workspace / "sub").mkdir(exist_ok=True)
    args = ["read", path] if guest == "files" else [path]
    preopens, env = sandbox_for(PermissionTier.READ, workspace, (), {})
    result = run(guest, *args, preopens=preopens, env=env)
    assert result.ok, result.stderr
    assert result.stdout == b"inside the workspace\n"



def test_a_write_tool_writes_a_relative_path_into_the_workspace(run: Run, workspace: Path) -> None:
    result = run("files", "write", "made.txt", "data", preopens=preopens_for(PermissionTier.WRITE, workspace))
    assert result.ok and (workspace / "made.txt").read_text() == "data"


def test_a_read_tool_cannot_write_the_workspace(run: Run, workspace: Path) -> None:
    result = run("files", "write", "/workspace/new.txt", "data",
                 preopens=preopens_for(PermissionTier.READ, workspace))
    assert result.exit_code == 1 and b"cannot create" in result.stderr
    assert not (workspace / "new.txt").exists()


def test_a_write_tool_writes_the_workspace(run: Run, workspace: Path) -> None:
    result = run("files", "write", "/workspace/new.txt", "data",
                 preopens=preopens_for(PermissionTier.WRITE, workspace))
    assert result.ok and (workspace / "new.txt").read_text() == "data"


ESCAPES = [
    "/workspace/../secret.txt",
    "/workspace/../../../../etc/passwd",
    "/etc/passwd",
    "../secret.txt",
    "secret.txt",
    "/secret.txt",
    "/proc/self/environ",
]


@pytest.mark.parametrize("tier", [PermissionTier.READ, PermissionTier.WRITE, None])
@pytest.mark.parametrize("path", ESCAPES)
def test_no_path_reads_outside_the_workspace(run: Run, workspace: Path, tier: PermissionTier | None,
                                             path: str) -> None:
    result = run("files", "read", path, preopens=preopens_for(tier, workspace))
    assert result.exit_code == 1 and result.stdout == b""


def test_the_host_path_of_the_secret_is_not_readable_either(run: Run, workspace: Path) -> None:
    secret = workspace.parent / "secret.txt"
    result = run("files", "read", str(secret), preopens=preopens_for(PermissionTier.EXEC, workspace))
    assert result.exit_code == 1 and result.stdout == b""


@pytest.mark.parametrize("path", ["/workspace/../escaped.txt", "/escaped.txt", "/tmp/escaped.txt"])
def test_no_path_writes_outside_the_workspace(run: Run, workspace: Path, path: str) -> None:
    run("files", "write", path, "x", preopens=preopens_for(PermissionTier.WRITE, workspace))
    # wasi-libc may resolve "/escaped.txt" through the working-directory preopen (into the
    # workspace); nothing may land anywhere else.
    assert not (workspace.parent / "escaped.txt").exists()
    assert not Path("/escaped.txt").exists() and not Path("/tmp/escaped.txt").exists()


def test_a_symlink_out_of_the_workspace_is_not_followed(run: Run, workspace: Path) -> None:
    (workspace / "link").symlink_to(workspace.parent / "secret.txt")
    result = run("files", "read", "/workspace/link", preopens=preopens_for(PermissionTier.READ, workspace))
    assert result.exit_code == 1 and result.stdout == b""


def test_the_root_lists_nothing_but_the_workspace(run: Run, workspace: Path) -> None:
    root = run("files", "list", "/", preopens=preopens_for(PermissionTier.READ, workspace))
    # Either nothing, or the workspace itself (wasi-libc resolves "/" through the "." preopen).
    assert root.exit_code == 1 or set(root.stdout.split()) == {b".", b"..", b"notes.txt"}
    listing = run("files", "list", "/workspace", preopens=preopens_for(PermissionTier.READ, workspace))
    assert b"notes.txt" in listing.stdout
