"""Guests' memories come from a pool made once per engine; where the system refuses the pool's
address space, guests still run, without it."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import FIXTURE_WASM, REPO_ROOT, as_if_run_before
from toolbay.cli import app as cli_app
from toolbay.wasm.runtime import WasmRuntime
from toolbay.wasm.types import RunRequest


def test_the_runtime_pools_its_guests_and_runs_more_of_them_than_it_has_slots() -> None:
    runtime = WasmRuntime(max_workers=1)  # 4 * 1 + 16 = 20 slots
    try:
        assert runtime.optimising.pooled and runtime.baseline is not None and runtime.baseline.pooled
        module = runtime.load(FIXTURE_WASM / "echo.wasm")
        outputs = {runtime.run(module, RunRequest(argv=["echo"], stdin=f"call {n}".encode())).stdout
                   for n in range(60)}
    finally:
        runtime.close()
    assert outputs == {f"call {n}".encode() for n in range(60)}


def test_under_an_address_space_limit_guests_run_without_a_pool() -> None:
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (12 << 30, 12 << 30))
        from pathlib import Path
        from toolbay.wasm.runtime import WasmRuntime
        from toolbay.wasm.types import RunRequest
        runtime = WasmRuntime(max_workers=8)
        module = runtime.load(Path({str(FIXTURE_WASM / "echo.wasm")!r}))
        result = runtime.run(module, RunRequest(argv=["echo"], stdin=b"still answered"))
        print(runtime.optimising.pooled, result.stdout.decode())
        runtime.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False still answered"
    assert "refuses" in done.stderr and "address space" in done.stderr


def test_under_a_limit_too_low_for_any_guest_the_reason_names_the_limit() -> None:
    """Under `ulimit -v` of about 4 GB every guest failed "wasm error: Cannot allocate memory (os
    error 12)", which sent an operator nowhere (an outside check)."""
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 << 10, 4_000_000 << 10))
        from pathlib import Path
        from toolbay.wasm.runtime import WasmRuntime
        from toolbay.wasm.types import RunRequest
        runtime = WasmRuntime(max_workers=1)
        module = runtime.load(Path({str(FIXTURE_WASM / "echo.wasm")!r}))
        result = runtime.run(module, RunRequest(argv=["echo"], stdin=b"x"))
        print(result.trap)
        runtime.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Cannot allocate memory" in done.stdout and "see ulimit -v" in done.stdout, done.stdout


def test_a_help_run_refused_address_space_is_not_remembered(tmp_path: Path, shared_data_dir: Path) -> None:
    """Under the limit the bundled tools were skipped ("its --help crashed ... Cannot allocate
    memory"), and so they stayed once the limit was raised: the failure was remembered as the
    file's own (a re-check)."""
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 << 10, 4_000_000 << 10))

    data = as_if_run_before(tmp_path / "data", shared_data_dir)  # not about compiling
    command = [sys.executable, "-m", "toolbay", "list", "--json", "--data-dir", str(data)]
    under = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert "see ulimit -v" in under.stdout + under.stderr
    # Once the limit is gone, the same listing in the test process (the command python -m toolbay runs): it reads
    # what the limited process left in the data folder, and no limit is set on the test process.
    after = CliRunner().invoke(cli_app, ["list", "--json", "--data-dir", str(data)])
    assert after.exit_code == 0, (after.stderr, after.exception)
    listed = json.loads(after.stdout)
    assert "hashsum" in {tool["name"] for tool in listed["tools"]} and not listed.get("skipped"), listed.get("skipped")
