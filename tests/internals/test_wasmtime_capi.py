"""wasmtime's C API where the Python binding stops (``toolbay.internals.wasmtime_capi``), used
directly on real guests: these fail when a wasmtime upgrade changes what toolbay reaches into."""

from __future__ import annotations

import threading
import time

import pytest
import wasmtime

from tests.conftest import FIXTURE_WASM
from toolbay.internals.wasmtime_capi import (
    STOPPED_MESSAGE,
    EpochWatcher,
    export_by_name,
    set_stdin_bytes,
    stop_at_next_check,
)


def _engine() -> wasmtime.Engine:
    config = wasmtime.Config()
    config.epoch_interruption = True
    return wasmtime.Engine(config)


def _instance(engine: wasmtime.Engine, name: str, stdin: bytes | None = None,
              stdout: str | None = None) -> tuple[wasmtime.Store, wasmtime.Instance]:
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    if stdin is not None:
        set_stdin_bytes(wasi, stdin)
    if stdout is not None:
        wasi.stdout_file = stdout
    store.set_wasi(wasi)
    store.set_epoch_deadline(1_000_000)
    module = wasmtime.Module.from_file(engine, str(FIXTURE_WASM / f"{name}.wasm"))
    return store, linker.instantiate(store, module)


def _run(store: wasmtime.Store, instance: wasmtime.Instance) -> None:
    start = export_by_name(store, instance, "_start")
    assert isinstance(start, wasmtime.Func)
    try:
        start(store)
    except wasmtime.ExitTrap as exit_trap:
        assert exit_trap.code == 0


def test_standard_input_from_bytes_reaches_the_guest(tmp_path: pytest.TempPathFactory) -> None:
    out = f"{tmp_path}/out"
    store, instance = _instance(_engine(), "echo", stdin=b"from memory\n", stdout=out)
    _run(store, instance)
    with open(out, "rb") as written:
        assert written.read() == b"from memory\n"


def test_one_export_is_found_by_name_and_a_missing_one_is_none() -> None:
    store, instance = _instance(_engine(), "echo", stdin=b"")
    assert isinstance(export_by_name(store, instance, "memory"), wasmtime.Memory)
    assert isinstance(export_by_name(store, instance, "_start"), wasmtime.Func)
    assert export_by_name(store, instance, "no_such_export") is None


def test_the_epoch_callback_lets_a_guest_run_until_asked_to_stop() -> None:
    engine = _engine()
    store, instance = _instance(engine, "spin")
    stop = threading.Event()
    ticks = 0

    def should_stop() -> bool:
        nonlocal ticks
        ticks += 1
        return stop.is_set()

    watcher = EpochWatcher(should_stop)
    watcher.watch(store)
    start = export_by_name(store, instance, "_start")
    assert isinstance(start, wasmtime.Func)
    running = True

    def tick() -> None:
        while running:
            engine.increment_epoch()
            if ticks >= 3:  # it went on past several ticks: now ask it to stop
                stop.set()
            time.sleep(0.001)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        with pytest.raises(wasmtime.WasmtimeError, match=STOPPED_MESSAGE):
            start(store)
    finally:
        running = False
        ticker.join()
    assert ticks >= 3


def test_a_host_call_can_make_the_guest_stop_at_its_next_check_without_a_tick() -> None:
    # The sleeper's one sleep is a host call; the epoch never advances here, so only the deadline
    # moved from inside that call can reach the callback (whose answer is "stop").
    engine = _engine()
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    asked: list[str] = []

    def poll_oneoff(caller: wasmtime.Caller, *pointers: int) -> int:
        asked.append("poll_oneoff")
        stop_at_next_check(caller)
        return 27  # EINTR: the sleep did not happen

    i32 = wasmtime.ValType.i32()
    linker.allow_shadowing = True
    linker.define_func("wasi_snapshot_preview1", "poll_oneoff", wasmtime.FuncType([i32] * 4, [i32]),
                       poll_oneoff, access_caller=True)
    store = wasmtime.Store(engine)
    store.set_wasi(wasmtime.WasiConfig())
    watcher = EpochWatcher(lambda: True)  # kept: wasmtime holds only its callback's address
    watcher.watch(store)
    store.set_epoch_deadline(1_000_000)  # no tick would ever reach it
    instance = linker.instantiate(store, wasmtime.Module.from_file(engine, str(FIXTURE_WASM / "sleeper.wasm")))
    start = export_by_name(store, instance, "_start")
    assert isinstance(start, wasmtime.Func)
    with pytest.raises(wasmtime.WasmtimeError, match=STOPPED_MESSAGE):
        start(store)
    assert asked == ["poll_oneoff"]
