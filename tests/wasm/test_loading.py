"""Discovery-time checks with reasons, and the compiled-module cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_WASM
from toolbay.errors import WasmRejected
from toolbay.wasm import RunRequest, WasmRuntime, inspect_module

REJECTED = {
    "junk": "not a WebAssembly file (no \\0asm header)",
    "truncated": "not a valid module: unexpected end-of-file",
    "component": "a WebAssembly component (WASI preview 2), not a WASI preview 1 module",
    "nostart": "no _start export: a library (reactor), not a command",
    "foreign_import": "imports env.launch_missiles, which is not WASI preview 1",
    "unknown_wasi": "imports what WASI preview 1 does not provide: unknown import: "
                    "`wasi_snapshot_preview1::sock_launch`",
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_a_file_that_is_not_a_wasi_command_is_rejected_with_a_one_line_reason(runtime: WasmRuntime,
                                                                              name: str) -> None:
    with pytest.raises(WasmRejected) as caught:
        runtime.load(FIXTURE_WASM / f"{name}.wasm")
    assert caught.value.reason.startswith(REJECTED[name])
    assert "\n" not in str(caught.value)
    assert caught.value.path == str(FIXTURE_WASM / f"{name}.wasm")


@pytest.mark.parametrize("name", ["junk", "truncated", "component", "nostart", "foreign_import"])
def test_inspect_module_gives_the_same_reasons_without_a_runtime(name: str) -> None:
    with pytest.raises(WasmRejected) as caught:
        inspect_module(FIXTURE_WASM / f"{name}.wasm")
    assert caught.value.reason.startswith(REJECTED[name])


def test_a_missing_file_is_rejected_not_raised(runtime: WasmRuntime, tmp_path: Path) -> None:
    with pytest.raises(WasmRejected, match="cannot read"):
        runtime.load(tmp_path / "gone.wasm")


def test_a_rejected_file_does_not_stop_the_runtime(runtime: WasmRuntime) -> None:
    with pytest.raises(WasmRejected):
        runtime.load(FIXTURE_WASM / "junk.wasm")
    assert runtime.run(runtime.load(FIXTURE_WASM / "args.wasm"), RunRequest(argv=["args"])).ok


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    target = tmp_path / "tool.wasm"
    shutil.copy(FIXTURE_WASM / "args.wasm", target)
    return target


def fresh_runtime(cache: Path) -> WasmRuntime:
    return WasmRuntime(cache)


def test_the_first_load_compiles_and_the_next_runtime_loads_the_cache(tmp_path: Path, copied: Path) -> None:
    first = fresh_runtime(tmp_path / "cache")
    first.load(copied)
    assert (first.cache_stats.misses, first.cache_stats.hits) == (1, 0)
    second = fresh_runtime(tmp_path / "cache")
    module = second.load(copied)
    assert (second.cache_stats.misses, second.cache_stats.hits, second.cache_stats.rebuilds) == (0, 1, 0)
    assert second.run(module, RunRequest(argv=["args"])).ok
    first.close()
    second.close()


def test_the_cache_is_keyed_by_content_version_and_settings(tmp_path: Path, copied: Path) -> None:
    runtime = fresh_runtime(tmp_path / "cache")
    module = runtime.load(copied)
    [entry] = (tmp_path / "cache").glob("*.cwasm")
    assert entry.name == f"{module.sha256}-{runtime.fingerprint}.cwasm"
    no_fuel = WasmRuntime(tmp_path / "cache", consume_fuel=False)
    assert no_fuel.fingerprint != runtime.fingerprint
    no_fuel.load(copied)
    assert no_fuel.cache_stats.misses == 1
    runtime.close()
    no_fuel.close()


@pytest.mark.parametrize("damage", ["flip-a-byte", "truncate", "empty", "wrong-header"])
def test_a_corrupt_cache_entry_is_rebuilt_not_trusted(tmp_path: Path, copied: Path, damage: str) -> None:
    WasmRuntime(tmp_path / "cache").load(copied)
    [entry] = (tmp_path / "cache").glob("*.cwasm")
    blob = bytearray(entry.read_bytes())
    if damage == "flip-a-byte":
        blob[len(blob) // 2] ^= 0xFF
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "empty":
        blob = bytearray()
    else:
        blob[:8] = b"XXXXXXXX"
    entry.write_bytes(bytes(blob))
    runtime = WasmRuntime(tmp_path / "cache")
    module = runtime.load(copied)
    assert runtime.cache_stats.rebuilds == 1
    assert runtime.run(module, RunRequest(argv=["args"])).ok
    # The rebuilt entry is good again.
    again = WasmRuntime(tmp_path / "cache")
    again.load(copied)
    assert again.cache_stats.hits == 1
    runtime.close()
    again.close()


def test_a_changed_file_is_compiled_again(tmp_path: Path, copied: Path) -> None:
    runtime = fresh_runtime(tmp_path / "cache")
    before = runtime.load(copied)
    shutil.copy(FIXTURE_WASM / "echo.wasm", copied)
    after = runtime.load(copied)
    assert before.sha256 != after.sha256
    assert runtime.run(after, RunRequest(argv=["echo", "hi"])).stdout == b"hi\n"
    runtime.close()


def test_cache_writes_leave_no_temporary_files(tmp_path: Path, copied: Path) -> None:
    fresh_runtime(tmp_path / "cache").load(copied)
    assert [p.suffix for p in (tmp_path / "cache").iterdir()] == [".cwasm"]
