"""A server whose callers must search has the search engine loaded before the first search:
the search sums with numpy, which used to load with the first ``search_tools`` call and made
it wait (over a second on a busy machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import as_if_run_before

# Generous: a limit against hanging, not a speed test (the machine may be busy).
WAIT_S = 60

pytestmark = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps (Linux)")


def _server_pid(launched: int) -> int:
    """The serving process: a stdio ``serve`` forks, and its child is the server (toolbay.detach)."""
    children = Path(f"/proc/{launched}/task/{launched}/children").read_text().split()
    return int(children[0]) if children else launched


def _has_numpy(pid: int) -> bool:
    return "numpy" in Path(f"/proc/{pid}/maps").read_text()


def _request(process: subprocess.Popen[bytes], message: dict[str, object]) -> dict[str, object]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()
    while line := process.stdout.readline():
        answer = json.loads(line)
        if answer.get("id") == message["id"]:
            return answer
    raise AssertionError("the server closed its output")


def test_a_search_first_server_loads_its_search_engine_before_the_first_search(
        tmp_path: Path, shared_data_dir: Path) -> None:
    data_dir = as_if_run_before(tmp_path / "data", shared_data_dir)
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--data-dir", str(data_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, "TOOLBAY_DISCLOSURE__MODE": "search-first"}, cwd=tmp_path)
    try:
        _request(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
        server = _server_pid(process.pid)
        # No search has been asked for: only the start can have loaded it.
        deadline = time.monotonic() + WAIT_S
        while not _has_numpy(server):
            assert time.monotonic() < deadline, "numpy was not loaded before any search"
            time.sleep(0.05)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=60)
        assert process.stdout is not None
        process.stdout.close()
