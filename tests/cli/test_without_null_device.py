"""Where /dev/null cannot be opened (some containers leave it mode 600 to their users, a
chroot may have no /dev), toolbay serves and its commands end as they do elsewhere: no
traceback. Each test runs the real command in a mount namespace where /dev/null is a UNIX
socket, which no one can open (ENXIO), as the container's refused its non-root user (EACCES)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import BUNDLED_EXTENSIONS, REPO_ROOT, as_if_run_before, patient_start

WAIT_S = 120
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
# A private mount namespace: as root, or as a user in a user namespace of their own.
UNSHARE = ["unshare", "--mount", "--propagation", "private", *([] if os.geteuid() == 0 else ["--map-root-user"])]
# Mounts the socket ("$0") on /dev/null, then runs the command ("$@") there.
OVER_DEV_NULL = 'mount --bind "$0" /dev/null && exec "$@"'


@pytest.fixture
def no_null(tmp_path: Path) -> Iterator[list[str]]:
    """The words that run a command where /dev/null cannot be opened; skips where no mount
    namespace can be made."""
    path = tmp_path / "null.sock"
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(path))
    prefix = [*UNSHARE, "sh", "-c", OVER_DEV_NULL, str(path)]
    try:
        check = subprocess.run([*prefix, sys.executable, "-c", "import os; os.open(os.devnull, os.O_RDWR)"],
                               capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        check = None
    if check is None or "No such device or address" not in check.stderr:
        listening.close()
        pytest.skip("no mount namespace can be made here (unshare)")
    yield prefix
    listening.close()


def toolbay(no_null: list[str], *args: str, stdout: IO[str] | int = subprocess.PIPE,
            stderr: IO[str] | int = subprocess.PIPE, shell_first: str = 'exec "$@"',
            ) -> subprocess.CompletedProcess[str]:
    """``toolbay ARGS`` run there, by the shell words ``shell_first`` (to close a stream first)."""
    command = [*no_null, "sh", "-c", shell_first, "sh", sys.executable, "-m", "toolbay", *args]
    return subprocess.run(command, cwd=REPO_ROOT, env=ENV, stdout=stdout, stderr=stderr, text=True, timeout=WAIT_S)


@pytest.fixture
def extensions(tmp_path: Path) -> Path:
    """A wasm tool and a Python tool (run by a worker process of its own)."""
    folder = tmp_path / "extensions"
    folder.mkdir()
    for name in ("hashsum.wasm", "dates.py"):
        shutil.copy(BUNDLED_EXTENSIONS / name, folder / name)
    return folder


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.anyio
async def test_a_stdio_server_over_pipes_serves_its_tools(
        no_null: list[str], extensions: Path, shared_data_dir: Path, tmp_path: Path) -> None:
    # Over pipes it forks, and the parent let go of the client's pipes by opening /dev/null: it
    # died at start with a traceback, and the Python tool's worker died the same way.
    data = as_if_run_before(tmp_path / "data", shared_data_dir)
    command = [*no_null, sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions),
               "--data-dir", str(data)]
    server = StdioServerParameters(command=command[0], args=command[1:], cwd=str(REPO_ROOT), env=patient_start(ENV))
    with (tmp_path / "stderr.txt").open("w+") as stderr:
        with anyio.fail_after(WAIT_S):
            async with Client(stdio_client(server, errlog=stderr), mode="legacy") as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                digest = await client.call_tool("hashsum", {"text": "abc"})
                week = await client.call_tool("dates_info", {"date": "2026-12-07"})
        stderr.seek(0)
        log = stderr.read()
    assert {"hashsum", "dates_info"} <= names, log
    assert "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" in text(digest), log
    assert '"iso_week": "2026-W50"' in text(week), log
    assert "Traceback" not in log and "skipping" not in log, log


CHILD = """
import sys
from pathlib import Path
from toolbay.detach import stay_after_client
print("to the client", file=sys.stderr, flush=True)
stay_after_client(Path(sys.argv[1]))
print("after the client", file=sys.stderr, flush=True)
"""


def test_a_server_that_outlives_its_client_writes_its_log(no_null: list[str], tmp_path: Path) -> None:
    log = tmp_path / "after-client.log"
    child = subprocess.run([*no_null, sys.executable, "-c", CHILD, str(log)], cwd=REPO_ROOT, env=ENV,
                           capture_output=True, text=True, timeout=WAIT_S)
    assert (child.returncode, child.stderr, child.stdout) == (0, "to the client\n", "")
    assert log.read_text() == "after the client\n"


def test_output_to_a_full_disk_is_said_in_one_line(no_null: list[str], extensions: Path, tmp_path: Path) -> None:
    # After saying so, its unwritten output was dropped by pointing stdout at /dev/null: a traceback.
    with open("/dev/full", "w") as full:
        listed = toolbay(no_null, "list", "--extensions", str(extensions), "--data-dir", str(tmp_path / "data"),
                         stdout=full)
    assert (listed.returncode, listed.stderr) == (1, "toolbay: cannot write the output: No space left on device\n")


def test_a_closed_standard_input_reads_as_empty(no_null: list[str], extensions: Path, tmp_path: Path) -> None:
    # A closed stream is opened on /dev/null before anything runs: that raised first.
    called = toolbay(no_null, "call", "hashsum", "--stdin", "--extensions", str(extensions),
                     "--data-dir", str(tmp_path / "data"), shell_first='exec "$@" <&-')
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", called.stderr


def test_parse_help_with_a_full_stderr_keeps_its_status(no_null: list[str], tmp_path: Path) -> None:
    # The note it could not write was dropped by pointing stderr at /dev/null: exit 1, not 2.
    (tmp_path / "help.txt").write_text("Usage: x [-v]\n\n  -v  verbose\n")
    with open("/dev/full", "w") as full:
        parsed = toolbay(no_null, "parse-help", str(tmp_path / "help.txt"), "--short", str(tmp_path / "missing"),
                         stderr=full)
    assert parsed.returncode == 2
