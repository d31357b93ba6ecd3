"""A Python tool is held to its tier by the kernel: Landlock for files, its own network
namespace for the network. Each test skips, saying why, where this kernel cannot confine."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.pytools.conftest import call
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import Settings
from toolbay.handlers.python import PythonHandler

pytestmark = pytest.mark.anyio


async def enforced(app: Toolbay) -> dict[str, object]:
    """What the confine module's worker reported, after one call started it."""
    assert not (await call(app, "confine_env")).is_error
    handler = app.catalog.current.get("confine_read")
    assert isinstance(handler, PythonHandler)
    return handler.pool.last_confinement


async def test_a_read_tool_reads_the_workspace_but_nothing_outside_it(
    pyapp: Toolbay, workspace: Path, tmp_path: Path,
) -> None:
    if not (await enforced(pyapp)).get("files"):
        pytest.skip("this kernel offers no Landlock: files are not confined (toolbay list says so)")
    inside = await call(pyapp, "confine_read", {"path": str(workspace / "notes.txt")})
    assert inside.text == "alpha\nbeta\ngamma\n"
    secret = tmp_path / "outside.txt"
    secret.write_text("not for tools", encoding="utf-8")
    outside = await call(pyapp, "confine_read", {"path": str(secret)})
    assert outside.is_error
    assert "Permission denied" in outside.text
    assert "toolbay confines this tool's files" in outside.text  # not the file's own permissions
    assert "not for tools" not in outside.text
    etc = await call(pyapp, "confine_read", {"path": "/etc/passwd"})
    assert etc.is_error and "Permission denied" in etc.text


async def test_everyday_standard_library_calls_work_in_a_confined_worker(pyapp: Toolbay) -> None:
    if not (await enforced(pyapp)).get("files"):
        pytest.skip("this kernel offers no Landlock: files are not confined (toolbay list says so)")
    # /dev/null written (subprocess.DEVNULL), a child started, /etc/mime.types read.
    result = await call(pyapp, "confine_everyday")
    assert not result.is_error, result.text
    assert result.structured == {"mime": "image/png", "child": 0}


async def test_a_read_tool_writes_neither_the_workspace_nor_anywhere_else(
    pyapp: Toolbay, workspace: Path, tmp_path: Path,
) -> None:
    if not (await enforced(pyapp)).get("files"):
        pytest.skip("this kernel offers no Landlock: files are not confined (toolbay list says so)")
    for target in (workspace / "new.txt", tmp_path / "elsewhere.txt"):
        result = await call(pyapp, "confine_write", {"path": str(target)})
        assert result.is_error and "Permission denied" in result.text
        assert not target.exists()


async def test_a_tool_not_granted_the_network_cannot_connect_even_to_loopback(pyapp: Toolbay) -> None:
    reported = await enforced(pyapp)
    if not (reported.get("netns") or reported.get("tcp")):
        pytest.skip("this server may neither make a network namespace nor use Landlock's TCP rules")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        result = await call(pyapp, "confine_connect", {"port": port})
    assert result.is_error
    assert result.meta["error_type"] in {"OSError", "PermissionError", "ConnectionRefusedError"}


async def test_a_tool_sees_only_the_environment_it_is_granted(
    pyapp: Toolbay, monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = (await call(pyapp, "confine_env")).structured
    assert seen is not None
    assert set(seen) <= {"PATH", "LANG", "HOME", "TMPDIR", "LC_CTYPE"}


async def test_a_write_tool_writes_the_workspace_and_still_nothing_outside_it(
    make_settings: Callable[..., Settings], workspace: Path, tmp_path: Path,
) -> None:
    async with assemble(make_settings(tiers={"confine_*": "write"}), watch=False) as app:
        if not (await enforced(app)).get("files"):
            pytest.skip("this kernel offers no Landlock: files are not confined (toolbay list says so)")
        inside = await call(app, "confine_write", {"path": str(workspace / "new.txt")})
        outside = await call(app, "confine_write", {"path": str(tmp_path / "elsewhere.txt")})
    assert inside.text == "written" and (workspace / "new.txt").read_text(encoding="utf-8") == "written"
    assert outside.is_error and not (tmp_path / "elsewhere.txt").exists()


async def test_a_module_granted_the_network_may_connect(make_settings: Callable[..., Settings]) -> None:
    async with assemble(make_settings(python={"network_allow": ["confine"]}), watch=False) as app:
        with socket.create_server(("127.0.0.1", 0)) as server:
            result = await call(app, "confine_connect", {"port": server.getsockname()[1]})
    assert result.text == "connected"
