"""A first start writes the baseline compiler's code to the cache after its first listing, not
while the client waits for it, and in any case before long: a real ``serve`` over stdio pipes,
driven with raw JSON-RPC, its data folder's ``modules/`` watched."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_WASM, REPO_ROOT, patient_start

WAIT_S = 60
TOOLS = ("echo", "report")
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "first-start-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


@pytest.fixture
def extensions(tmp_path: Path) -> Path:
    folder = tmp_path / "extensions"
    folder.mkdir()
    for name in TOOLS:
        shutil.copy(FIXTURE_WASM / f"{name}.wasm", folder / f"{name}.wasm")
    return folder


@contextmanager
def serving(extensions: Path, data_dir: Path, quiet_s: float) -> Iterator[subprocess.Popen[bytes]]:
    """``serve`` on an empty data folder; ``quiet_s``: ``[discovery] optimise_after_quiet_s``,
    how long it serves without a listing before it caches the code all the same."""
    env = patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT),
                         "TOOLBAY_DISCOVERY__OPTIMISE_AFTER_QUIET_S": str(quiet_s)})
    with subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", str(data_dir)],
        cwd=REPO_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    ) as process:  # its pipes closed and the process waited for on the way out
        try:
            yield process
        finally:
            process.kill()  # a server the test did not stop (nothing once it has ended)


def send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def answer(process: subprocess.Popen[bytes], request_id: int) -> dict[str, object]:
    assert process.stdout is not None
    while line := process.stdout.readline():
        message = json.loads(line)
        if message.get("id") == request_id:
            return message  # type: ignore[no-any-return]
    raise AssertionError("the server closed its output")


def handshake(process: subprocess.Popen[bytes]) -> None:
    """Answered once the tools are described and the MCP SDK has loaded: describing ended a
    while before (the SDK's import is the longer), when the cache was written before."""
    send(process, INITIALIZE)
    assert "result" in answer(process, 0)
    send(process, INITIALIZED)


def cached_tools(extensions: Path, data_dir: Path) -> set[str]:
    """The tools whose compiled code is in the cache (the baseline's, or the optimised code
    that replaced it)."""
    by_hash = {hashlib.sha256(path.read_bytes()).hexdigest(): path.stem for path in extensions.glob("*.wasm")}
    return {by_hash[path.name.partition("-")[0]] for path in (data_dir / "modules").glob("*.cwasm")
            if path.name.partition("-")[0] in by_hash}


def wait_until_cached(extensions: Path, data_dir: Path) -> set[str]:
    deadline = time.monotonic() + WAIT_S
    while (found := cached_tools(extensions, data_dir)) != set(TOOLS) and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def written_so_far(data_dir: Path) -> list[str]:
    """Every file of the compiled-module cache, a write under way (its temporary file) too."""
    modules = data_dir / "modules"
    return sorted(path.name for path in modules.iterdir()) if modules.is_dir() else []


def test_a_first_start_caches_its_compiled_code_only_once_its_first_listing_has_been_answered(
        extensions: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    # No listing-less release for 600 s, nor any optimising: only the listing lets the code out.
    with serving(extensions, data_dir, quiet_s=600) as process:
        handshake(process)
        assert written_so_far(data_dir) == []
        send(process, LIST)
        assert {tool["name"] for tool in answer(process, 1)["result"]["tools"]} >= set(TOOLS)  # type: ignore[index]
        assert wait_until_cached(extensions, data_dir) == set(TOOLS)
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=WAIT_S) == 0


def test_a_server_stopped_before_any_listing_still_leaves_its_compiled_code_in_the_cache(
        extensions: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(extensions, data_dir, quiet_s=600) as process:
        handshake(process)
        assert process.stdin is not None
        process.stdin.close()  # the client goes without listing: the server stops
        assert process.wait(timeout=WAIT_S) == 0
    assert cached_tools(extensions, data_dir) == set(TOOLS)


def test_a_server_no_client_asks_for_its_tools_caches_its_compiled_code_after_the_quiet_spell(
        extensions: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    # A short spell, so that the test need not wait for the default's 5 s: the client stays, and never lists.
    with serving(extensions, data_dir, quiet_s=0.2) as process:
        handshake(process)
        assert wait_until_cached(extensions, data_dir) == set(TOOLS)
