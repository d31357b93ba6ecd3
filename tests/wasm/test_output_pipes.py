"""Guest output through FIFOs: complete beyond the pipe's capacity, nothing carried from one
call into the next, and calls still answered when the FIFOs vanish."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from tests.conftest import FIXTURE_WASM
from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime
from toolbay.wasm.pipes import PIPE_CAPACITY

Run = Callable[..., RunResult]


def test_output_several_times_the_pipe_capacity_arrives_whole_and_in_order(run: Run) -> None:
    # 4 MiB through a 1 MiB pipe: the guest blocks on the full pipe until the ticker drains it.
    payload = hashlib.sha256(b"seed").hexdigest().encode() * (4 * PIPE_CAPACITY // 64)
    limits = SandboxLimits(timeout_s=20, stdout_limit_bytes=8 * PIPE_CAPACITY)
    result = run("echo", stdin=payload, limits=limits)
    assert result.ok
    assert result.stdout == payload and not result.stdout_truncated


def test_a_flood_stopped_mid_write_leaves_nothing_for_the_next_call(run: Run) -> None:
    flooded = run("flood", limits=SandboxLimits(timeout_s=0.3, stdout_limit_bytes=1000, stderr_limit_bytes=1000))
    # Stopped for the flood, or by the clock first on a slow machine.
    assert flooded.trap is not None and ("far past its output limit" in flooded.trap or
                                         flooded.trap == "timed out after 0.3 s"), flooded.trap
    assert flooded.stdout_truncated
    for _ in range(3):  # whichever pipes the next calls borrow, they hold only their own output
        quiet = run("echo", stdin=b"just this")
        assert quiet.stdout == b"just this" and quiet.stderr == b""


def test_the_pipes_are_closed_with_the_runtime(tmp_path: Path) -> None:
    runtime = WasmRuntime(tmp_path / "cache")
    module: WasmModule = runtime.load(FIXTURE_WASM / "echo.wasm")
    before = _open_pipes()
    assert runtime.run(module, RunRequest(argv=["echo"], stdin=b"first")).stdout == b"first"
    assert len(_open_pipes() - before) == 4  # two pipes, both ends, kept for the next call
    runtime.close()
    assert not _open_pipes() - before


def _open_pipes() -> set[str]:
    """This process's descriptors that are pipes, as "fd -> pipe:[inode]"."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("pipe:"):
            found.add(f"{fd} -> {target}")
    return found
