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


def test_a_read_tool_sees_the_workspace_read_only(workspace: Path) -> None:
    assert preopens_for(PermissionTier.READ, workspace) == (Preopen(workspace.resolve(), "/workspace", False),)


@pytest.mark.parametrize("tier", [PermissionTier.WRITE, PermissionTier.EXEC])
def test_write_and_exec_tools_see_the_workspace_read_write(tier: PermissionTier, workspace: Path) -> None:
    assert preopens_for(tier, workspace) == (Preopen(workspace.resolve(), "/workspace", True),)


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
    result = run("files", "write", path, "x", preopens=preopens_for(PermissionTier.WRITE, workspace))
    assert result.exit_code == 1
    assert not (workspace.parent / "escaped.txt").exists()


def test_a_symlink_out_of_the_workspace_is_not_followed(run: Run, workspace: Path) -> None:
    (workspace / "link").symlink_to(workspace.parent / "secret.txt")
    result = run("files", "read", "/workspace/link", preopens=preopens_for(PermissionTier.READ, workspace))
    assert result.exit_code == 1 and result.stdout == b""


def test_the_root_lists_nothing_but_the_workspace(run: Run, workspace: Path) -> None:
    assert run("files", "list", "/", preopens=preopens_for(PermissionTier.READ, workspace)).exit_code == 1
    listing = run("files", "list", "/workspace", preopens=preopens_for(PermissionTier.READ, workspace))
    assert b"notes.txt" in listing.stdout
