"""Fixtures for the wasm runner tests: one runtime per module, fixture programs by name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM
from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime

FAST = SandboxLimits(timeout_s=2.0, memory_mb=64, stdout_limit_bytes=64 * 1024, stderr_limit_bytes=4096)


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WasmRuntime]:
    rt = WasmRuntime(tmp_path_factory.mktemp("wasm-cache"))
    yield rt
    rt.close()


@pytest.fixture(scope="module")
def program(runtime: WasmRuntime) -> Callable[[str], WasmModule]:
    """A fixture program (tests/fixtures/wasm/NAME.wasm), compiled once."""
    return lambda name: runtime.load(FIXTURE_WASM / f"{name}.wasm")


@pytest.fixture(scope="module")
def bundled(runtime: WasmRuntime) -> Callable[[str], WasmModule]:
    """A bundled tool from extensions/, or a skip when it has not been built."""

    def load(name: str) -> WasmModule:
        path = BUNDLED_EXTENSIONS / f"{name}.wasm"
        if not path.exists():
            pytest.skip(f"bundled tool {name} is not built")
        return runtime.load(path)

    return load


@pytest.fixture(scope="module")
def run(runtime: WasmRuntime, program: Callable[[str], WasmModule]) -> Callable[..., RunResult]:
    """run("args", "a", "b", stdin=b"...", limits=...): a fixture program with argv[0] = its name."""

    def go(name: str, *args: str, limits: SandboxLimits = FAST, **request: object) -> RunResult:
        return runtime.run(program(name), RunRequest(argv=[name, *args], limits=limits, **request))  # type: ignore[arg-type]

    return go


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace folder with one file, next to a secret the guest must never see."""
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "notes.txt").write_text("inside the workspace\n")
    (tmp_path / "secret.txt").write_text("outside the workspace\n")
    return tmp_path / "workspace"
