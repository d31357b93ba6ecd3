"""Help runs at once: the cores a batch of files shares are counted as its files are described.

On a first start the bundled Go tool's compile ends last, after the other tools are described;
its eight help runs then ran one at a time, as they were shared out when the batch began.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import anyio
import pytest

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.config import load_settings
from toolbay.discovery import CORES, Discovery, FileOutcome
from toolbay.wasm import RunRequest, RunResult, WasmModule, WasmRuntime

pytestmark = pytest.mark.anyio

# Bounds each wait: a file's help runs that never overlap fail the test after this long.
PATIENCE_S = 5


@pytest.mark.skipif(CORES < 2, reason="one core: help runs go one at a time")
async def test_the_last_file_of_a_batch_to_be_ready_runs_its_helps_side_by_side(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("hashsum.wasm", "textkit.wasm"):
        shutil.copy(BUNDLED_EXTENSIONS / name, tools / name)
    settings = load_settings(None, extensions=[tools], agents=[], data_dir=tmp_path / "data")
    runtime = WasmRuntime(cache_dir=tmp_path / "data" / "modules")
    discovery = Discovery(settings, runtime)
    hashsum_described = threading.Event()
    two_in_flight = threading.Event()
    in_flight = 0
    lock = threading.Lock()
    load, run = runtime.load, runtime.run

    def load_textkit_last(path: Path, *, sha256: str | None = None) -> WasmModule:
        # As the Go tool's compile on a first start: textkit's module is ready once hashsum is described.
        if path.name == "textkit.wasm":
            hashsum_described.wait(PATIENCE_S)
        return load(path, sha256=sha256)

    def run_counted(module: WasmModule, request: RunRequest, cancel: threading.Event | None = None) -> RunResult:
        nonlocal in_flight
        if request.argv[0] != "textkit":
            return run(module, request, cancel)
        with lock:
            in_flight += 1
            if in_flight == 2:
                two_in_flight.set()
        try:
            two_in_flight.wait(PATIENCE_S)  # its runs are short: held until another is under way beside it
            return run(module, request, cancel)
        finally:
            with lock:
                in_flight -= 1

    def described(outcome: FileOutcome) -> None:
        if outcome.path.endswith("hashsum.wasm"):
            hashsum_described.set()

    monkeypatch.setattr(runtime, "load", load_textkit_last)
    monkeypatch.setattr(runtime, "run", run_counted)
    try:
        paths = sorted(str(path) for path in tools.glob("*.wasm"))
        with anyio.fail_after(10 * PATIENCE_S):
            outcomes = await discovery.describe_files(paths, on_done=described)
    finally:
        runtime.close()
    assert two_in_flight.is_set(), "textkit, alone by the time its module was ready, ran its helps one at a time"
    assert [len(outcome.handlers) for outcome in outcomes] == [1, 7]
