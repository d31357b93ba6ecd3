"""Discovery-time checks with reasons, and the compiled-module cache."""

from __future__ import annotations

import gc
import os
import shutil
import threading
import time
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
    # Code from the baseline compiler is never taken for optimised code, nor the other way.
    optimised_only = WasmRuntime(tmp_path / "cache", quick_compile=False)
    assert optimised_only.fingerprint != runtime.fingerprint
    assert optimised_only.load(copied).compiler == "cranelift"
    assert optimised_only.cache_stats.misses == 1
    for opened in (runtime, no_fuel, optimised_only):
        opened.close()


def test_a_new_module_runs_on_baseline_code_until_optimised_code_is_swapped_in_and_cached(
        tmp_path: Path, copied: Path) -> None:
    runtime = WasmRuntime(tmp_path / "cache", optimise_in_background=True)
    module = runtime.load(copied)
    assert runtime.run(module, RunRequest(argv=["args", "first"])).ok
    assert runtime.wait_optimised(timeout=120)
    assert module.compiler == "cranelift"
    assert runtime.run(module, RunRequest(argv=["args", "after"])).stdout.startswith(b'["args","after"]')
    # Only the optimised code is kept: the next start loads it and has nothing to optimise.
    [entry] = (tmp_path / "cache").glob("*.cwasm")
    assert entry.name == f"{module.sha256}-{runtime.optimising.fingerprint}.cwasm"
    again = WasmRuntime(tmp_path / "cache", optimise_in_background=True)
    assert again.load(copied).compiler == "cranelift"
    assert again.cache_stats.hits == 1
    runtime.close()
    again.close()


def test_the_baseline_code_of_modules_loaded_together_is_cached_before_the_first_optimisation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first start does not write baseline code while its tools are described (the help runs
    would wait for it): the optimiser writes it for every module loaded so far, then optimises.
    A server stopped during an optimisation (seconds for a large module) still leaves that
    code for its next start."""
    cache = tmp_path / "cache"
    runtime = WasmRuntime(cache, optimise_in_background=True)
    optimising, release = threading.Event(), threading.Event()
    read_for_optimising = runtime._read_as  # what the optimiser compiles from, once it has begun

    def held_while_optimising(path: Path, sha256: str) -> bytes:
        optimising.set()
        release.wait(120)
        return read_for_optimising(path, sha256)

    monkeypatch.setattr(runtime, "_read_as", held_while_optimising)
    try:
        with runtime.first_uses():  # as a first start's compiles, which a client waits for
            modules = [runtime.load(FIXTURE_WASM / name) for name in ("args.wasm", "echo.wasm")]
        assert optimising.wait(120)
        baseline = {f"{module.sha256}-{runtime.fingerprint}.cwasm" for module in modules}
        assert {entry.name for entry in cache.glob("*.cwasm")} == baseline
        # A next start takes that code and compiles nothing.
        again = WasmRuntime(cache)
        assert [again.load(module.path).compiler for module in modules] == ["winch", "winch"]
        assert again.cache_stats.hits == 2
        again.close()
    finally:
        release.set()
    assert runtime.wait_optimised(timeout=120)
    assert all(module.compiler == "cranelift" for module in modules)
    runtime.close()


def test_a_server_stopped_before_compiling_was_quiet_leaves_the_baseline_code_and_optimised_nothing(
        tmp_path: Path) -> None:
    """Optimising waits for a quiet spell (``[discovery] optimise_after_quiet_s``); the baseline
    code is cached at once, so a server stopped meanwhile spent nothing on optimising and its
    next start compiles nothing."""
    cache = tmp_path / "cache"
    runtime = WasmRuntime(cache, optimise_in_background=True, optimise_after_quiet_s=600)
    module = runtime.load(FIXTURE_WASM / "args.wasm")
    baseline = cache / f"{module.sha256}-{runtime.fingerprint}.cwasm"
    deadline = time.monotonic() + 120
    while not baseline.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert baseline.exists()
    assert module.compiler == "winch"  # not optimised: compiling has not been quiet for 600 s
    runtime.close()
    again = WasmRuntime(cache)
    assert again.load(module.path).compiler == "winch"
    assert (again.cache_stats.hits, again.cache_stats.misses) == (1, 0)
    again.close()


def test_a_held_runtime_writes_its_baseline_code_once_released_or_as_it_closes(tmp_path: Path) -> None:
    """``serve`` holds the optimiser until its first listing has gone out (``hold_background_work``):
    released, it caches the baseline code; closed while still held, it writes that code then,
    so a server stopped before any listing still compiles nothing on its next start."""
    released = WasmRuntime(tmp_path / "released", optimise_in_background=True, optimise_after_quiet_s=600,
                           hold_background_work=True)
    module = released.load(FIXTURE_WASM / "args.wasm")
    released.release_background_work()
    baseline = tmp_path / "released" / f"{module.sha256}-{released.fingerprint}.cwasm"
    deadline = time.monotonic() + 120
    while not baseline.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert baseline.exists()
    released.close()

    closed = WasmRuntime(tmp_path / "closed", optimise_in_background=True, optimise_after_quiet_s=600,
                         hold_background_work=True)
    module = closed.load(FIXTURE_WASM / "args.wasm")
    closed.close()
    assert [entry.name for entry in (tmp_path / "closed").glob("*.cwasm")] == [
        f"{module.sha256}-{closed.fingerprint}.cwasm"]


def test_optimising_begins_only_once_no_module_was_compiled_for_the_quiet_spell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    quiet_s = 0.5  # asserted as a lower bound below: a busy machine only lengthens the wait
    runtime = WasmRuntime(tmp_path / "cache", optimise_in_background=True, optimise_after_quiet_s=quiet_s)
    began: list[float] = []
    read_for_optimising = runtime._read_as  # what the optimiser compiles from, once it has begun

    def noted(path: Path, sha256: str) -> bytes:
        began.append(time.monotonic())
        return read_for_optimising(path, sha256)

    monkeypatch.setattr(runtime, "_read_as", noted)
    first = runtime.load(FIXTURE_WASM / "args.wasm")
    before_second = time.monotonic()
    second = runtime.load(FIXTURE_WASM / "echo.wasm")  # a compile: the spell begins again
    assert runtime.wait_optimised(timeout=120)
    assert (first.compiler, second.compiler) == ("cranelift", "cranelift")
    assert len(began) == 2 and min(began) >= before_second + quiet_s
    runtime.close()


def test_a_module_let_go_during_the_quiet_spell_is_not_optimised(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = WasmRuntime(tmp_path / "cache", optimise_in_background=True, optimise_after_quiet_s=1.0)
    optimised: list[Path] = []
    read_for_optimising = runtime._read_as

    def noted(path: Path, sha256: str) -> bytes:
        optimised.append(path)
        return read_for_optimising(path, sha256)

    monkeypatch.setattr(runtime, "_read_as", noted)
    module = runtime.load(FIXTURE_WASM / "args.wasm")
    baseline = tmp_path / "cache" / f"{module.sha256}-{runtime.fingerprint}.cwasm"
    deadline = time.monotonic() + 120
    while not baseline.exists() and time.monotonic() < deadline:  # the optimiser has it, and waits
        time.sleep(0.01)
    del module  # a replaced tool's last user lets go of it
    gc.collect()
    assert runtime.wait_optimised(timeout=120)
    assert optimised == []
    runtime.close()


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


@pytest.mark.parametrize("damage", ["a folder", "unreadable"])
def test_a_cache_entry_that_cannot_be_read_is_compiled_again_and_the_module_runs(
        tmp_path: Path, copied: Path, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    """A folder in its place, or a file this user may not read: every call of the tool failed as
    an internal error, and the module was never compiled again (an outside check)."""
    first = fresh_runtime(tmp_path / "cache")
    [entry] = (tmp_path / "cache").glob(f"{first.load(copied).sha256}-*.cwasm")
    first.close()
    entry.unlink()
    if damage == "a folder":
        entry.mkdir()
    else:
        entry.write_bytes(b"code")
        entry.chmod(0)
        if os.access(entry, os.R_OK):
            pytest.skip("this user reads any file (root)")
    runtime = fresh_runtime(tmp_path / "cache")
    module = runtime.load(copied)
    assert runtime.run(module, RunRequest(argv=["args", "after"])).stdout.startswith(b'["args","after"]')
    assert runtime.cache_stats.rebuilds == 1
    assert f"compiled-module cache entry {entry} cannot be read" in caplog.text
    runtime.close()


def test_the_compiled_modules_name_the_installed_wasmtime_without_reading_every_packages_metadata() -> None:
    # importlib.metadata (with the email package) was 25-40 ms of each command that opens the runtime.
    import importlib.metadata
    import subprocess
    import sys

    script = ("import sys\nfrom toolbay.wasm.compilers import wasmtime_version\n"
              "print(wasmtime_version(), 'importlib.metadata' in sys.modules)")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == [importlib.metadata.version("wasmtime"), "False"]
