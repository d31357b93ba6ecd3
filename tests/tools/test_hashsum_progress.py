"""The bundled hashsum reports its progress on big files by toolbay's convention."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.wasm import Preopen, RunRequest, SandboxLimits, WasmRuntime
from toolbay.wasm.progress import ProgressReport

MiB = 1 << 20


@pytest.mark.slow
def test_hashsum_reports_progress_on_a_big_file_and_keeps_stderr_clean(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    with path.open("wb") as handle:
        handle.truncate(80 * MiB)  # 80 MiB of zeros, made without writing them
    runtime = WasmRuntime()
    try:
        module = runtime.load(BUNDLED_EXTENSIONS / "hashsum.wasm")
        reports: list[ProgressReport] = []
        result = runtime.run(module, RunRequest(
            argv=["hashsum", "--file", "big.bin"], preopens=[Preopen(tmp_path, "/workspace", writable=False)],
            limits=SandboxLimits(timeout_s=120), on_progress=reports.append))
    finally:
        runtime.close()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.decode().strip() == hashlib.sha256(bytes(80 * MiB)).hexdigest()
    assert result.stderr == b""
    assert [r.done for r in reports] == [16, 32, 48, 64, 80]
    assert reports[-1] == ProgressReport(80, 80, "MiB hashed")
