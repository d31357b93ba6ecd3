"""A Python tool is held to its tier by the kernel: Landlock for files, a seccomp filter for
their metadata and UNIX sockets, its own network namespace for the network. Each test skips,
saying why, where this kernel cannot confine."""

from __future__ import annotations

import contextlib
import socket
import threading
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
    assert "TOOL_TIER" not in outside.text  # a read refused outside the workspace is no matter of the tier
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
        # The tier is named only of the workspace: outside it no tier may write, and the note
        # would send the module's author to widen its tier for nothing.
        named = "declares TOOL_TIER = 'read', so it sees the workspace read-only" in result.text
        assert named is (target.parent == workspace), result.text
        assert not target.exists()


async def test_a_module_without_a_tier_is_told_it_has_no_workspace_when_a_file_is_not_found(
    python_dir: Path, make_settings: Callable[..., Settings], workspace: Path,
) -> None:
    """It said only "[Errno 2] No such file or directory: 'notes.txt'", of a file that is in the
    workspace: the module's missing TOOL_TIER looked like a bug in the tool."""
    (python_dir / "tierless.py").write_text(
        "def get_tool_schemas():\n"
        "    return [{'name': 'tierless_read', 'description': 'reads a file', 'input_schema': {'type': 'object', "
        "'properties': {'path': {'type': 'string'}}}}]\n\n"
        "def tierless_read(path):\n    return open(path).read()\n", encoding="utf-8")
    assert (workspace / "notes.txt").exists()
    async with assemble(make_settings(), watch=False) as app:
        result = await call(app, "tierless_read", {"path": "notes.txt"})
        other = await call(app, "tierless_read", {"path": 7})
    assert result.is_error and "No such file or directory" in result.text
    assert "declares no TOOL_TIER (read, write or exec), so it is given no workspace folder" in result.text
    assert "TOOL_TIER" not in other.text  # an error that is not about a file gets no such note


async def test_a_tool_not_granted_the_network_cannot_connect_even_to_loopback(pyapp: Toolbay) -> None:
    reported = await enforced(pyapp)
    if not (reported.get("netns") or reported.get("tcp")):
        pytest.skip("this server may neither make a network namespace nor use Landlock's TCP rules")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        result = await call(pyapp, "confine_connect", {"port": port})
    assert result.is_error
    assert result.meta["error_type"] in {"OSError", "PermissionError", "ConnectionRefusedError"}
    # A refused connection is no matter of the files the tool may touch, nor of its tier (no
    # tier gives the network): said so, it misled.
    assert "confines this tool's files" not in result.text
    assert "TOOL_TIER" not in result.text, result.text
    # Said as what it is: a bare "[Errno 13] Permission denied" left its author to guess.
    assert "toolbay gives this tool no network: [python] network_allow" in result.text, result.text


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


async def metadata_held(app: Toolbay) -> None:
    reported = await enforced(app)
    if "seccomp_error" in reported:
        pytest.skip(f"this kernel refused the worker's seccomp filter: {reported['seccomp_error']}")


def fingerprint(path: Path) -> tuple[int, int, int, float]:
    status = path.stat()
    return status.st_mode, status.st_uid, status.st_gid, status.st_mtime


async def test_a_read_tool_changes_no_file_s_mode_owner_times_or_attributes_anywhere(
    pyapp: Toolbay, workspace: Path, tmp_path: Path,
) -> None:
    """Landlock does not govern chmod, chown, utime or setxattr: as root a read tool could make
    any file setuid or unreadable (found by an outside probe)."""
    await metadata_held(pyapp)
    outside = tmp_path / "outside.txt"
    outside.write_text("not for tools", encoding="utf-8")
    for target in (outside, workspace / "notes.txt"):
        before = fingerprint(target)
        for change in ("chmod", "chown", "utime", "setxattr"):
            result = await call(pyapp, "confine_change", {"path": str(target), "change": change})
            assert result.is_error and "Operation not permitted" in result.text, (change, result.text)
        assert fingerprint(target) == before


@pytest.mark.parametrize("door", ["io_uring_setup", "unshare", "clone_newuser", "mknod"])
async def test_a_tool_gets_no_io_uring_and_no_user_namespace(pyapp: Toolbay, door: str) -> None:
    """io_uring does socket(), connect() and setxattr() inside the kernel, past the filter: an
    outside check reached a UNIX socket file from a read tool, and set security.capability on
    a copy of /bin/true. A new user namespace is a kernel surface no tool needs."""
    await metadata_held(pyapp)
    result = await call(pyapp, "confine_side_door", {"call": door})
    # A device node in its own temp folder read and wrote the kernel's log: Landlock refuses
    # making it now (EACCES), as dropping CAP_MKNOD would (EPERM).
    assert result.text in ("Operation not permitted", "Permission denied"), result.text


async def test_a_tool_of_a_server_run_as_root_keeps_only_the_capabilities_to_read_and_write_files(
        pyapp: Toolbay) -> None:
    """It kept all of root's: an outside check changed the machine's host name, watched the
    whole disk (fanotify) and held the right to reboot, from a read tool. Landlock still says
    which files: CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH only pass the files' own modes."""
    await metadata_held(pyapp)
    effective = int((await call(pyapp, "confine_side_door", {"call": "capabilities"})).text, 16)
    assert effective & ~0b110 == 0, hex(effective)


async def test_a_write_tool_sets_modes_and_times_of_what_it_writes_but_no_owner_or_attributes(
    make_settings: Callable[..., Settings], workspace: Path,
) -> None:
    async with assemble(make_settings(tiers={"confine_*": "write"}), watch=False) as app:
        await metadata_held(app)
        copied = await call(app, "confine_copy", {"source": str(workspace / "notes.txt"),
                                                  "dest": str(workspace / "copy.txt")})
        modes = [await call(app, "confine_change", {"path": str(workspace / "copy.txt"), "change": change})
                 for change in ("chmod", "utime")]
        refused = [await call(app, "confine_change", {"path": str(workspace / "copy.txt"), "change": change})
                   for change in ("chown", "setxattr")]
    assert copied.text == "copied", copied.text
    assert [result.text for result in modes] == ["changed", "changed"]
    assert all(result.is_error and "Operation not permitted" in result.text for result in refused), refused


def answering_unix_socket(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def answer() -> None:
        with contextlib.suppress(OSError):
            connection, _ = server.accept()
            with connection:
                connection.sendall(b"host secret")

    threading.Thread(target=answer, daemon=True).start()
    return server


async def test_a_tool_without_the_network_cannot_talk_to_a_local_service_s_unix_socket(
    pyapp: Toolbay, make_settings: Callable[..., Settings], tmp_path: Path,
) -> None:
    await metadata_held(pyapp)
    with answering_unix_socket(tmp_path / "service.sock"):
        refused = await call(pyapp, "confine_unix", {"path": str(tmp_path / "service.sock")})
    assert refused.is_error and "Operation not permitted" in refused.text, refused.text
    assert "no network: [python] network_allow" in refused.text, refused.text
    assert "host secret" not in refused.text
    async with assemble(make_settings(python={"network_allow": ["confine"]}), watch=False) as app:
        with answering_unix_socket(tmp_path / "allowed.sock"):
            allowed = await call(app, "confine_unix", {"path": str(tmp_path / "allowed.sock")})
    assert allowed.text == "host secret", allowed.text
