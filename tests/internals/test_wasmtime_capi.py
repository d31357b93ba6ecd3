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
    serialized,
    set_compiler,
    set_register_allocator,
    set_stdin_bytes,
    stop_at_next_check,
    use_pooling_allocator,
)


def _engine(compiler: str | None = None) -> wasmtime.Engine:
    config = wasmtime.Config()
    config.epoch_interruption = True
    if compiler is not None:
        set_compiler(config, compiler)
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


def test_the_serialised_code_read_in_place_is_what_serialize_copies_and_runs_again(
        tmp_path: pytest.TempPathFactory) -> None:
    engine = _engine()
    module = wasmtime.Module.from_file(engine, str(FIXTURE_WASM / "echo.wasm"))
    with serialized(module) as code:
        assert code.readonly and code.format == "B"
        assert code == module.serialize()
        copied = bytes(code)
    with pytest.raises(ValueError, match="released"):
        len(code)  # wasmtime's buffer is freed with the block: the view must not outlive it
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    set_stdin_bytes(wasi, b"deserialised\n")
    wasi.stdout_file = out = f"{tmp_path}/out"
    store.set_wasi(wasi)
    store.set_epoch_deadline(1_000_000)
    _run(store, linker.instantiate(store, wasmtime.Module.deserialize(engine, copied)))
    with open(out, "rb") as written:
        assert written.read() == b"deserialised\n"


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


@pytest.mark.parametrize("compiler", ["winch", "cranelift"])
def test_an_engine_with_either_compiler_runs_a_real_guest(tmp_path: pytest.TempPathFactory, compiler: str) -> None:
    out = f"{tmp_path}/out"
    store, instance = _instance(_engine(compiler), "echo", stdin=b"compiled\n", stdout=out)
    _run(store, instance)
    with open(out, "rb") as written:
        assert written.read() == b"compiled\n"


def test_code_from_one_compiler_is_refused_by_an_engine_of_the_other() -> None:
    # The setting really reaches the engine: wasmtime records the compiler in serialized code.
    data = (FIXTURE_WASM / "echo.wasm").read_bytes()
    winch_code = wasmtime.Module(_engine("winch"), data).serialize()
    cranelift_code = wasmtime.Module(_engine("cranelift"), data).serialize()
    with pytest.raises(wasmtime.WasmtimeError, match="Winch"):
        wasmtime.Module.deserialize(_engine("cranelift"), winch_code)
    with pytest.raises(wasmtime.WasmtimeError):
        wasmtime.Module.deserialize(_engine("winch"), cranelift_code)


def test_the_register_allocator_chosen_reaches_the_code() -> None:
    # Winch's trampolines are Cranelift's: their code differs by allocator, and is the same
    # again for the same one (a setter that stopped reaching the engine would make them equal).
    def code(allocator: str | None) -> bytes:
        config = wasmtime.Config()
        set_compiler(config, "winch")
        if allocator is not None:
            set_register_allocator(config, allocator)
        return bytes(wasmtime.Module(wasmtime.Engine(config), (FIXTURE_WASM / "echo.wasm").read_bytes()).serialize())

    single_pass = code("single_pass")
    assert single_pass == code("single_pass")
    assert single_pass != code("backtracking") and code("backtracking") == code(None)


def test_an_unknown_register_allocator_is_refused_before_it_reaches_wasmtime() -> None:
    # wasmtime would abort the whole process on it.
    with pytest.raises(ValueError, match="graph_colouring"):
        set_register_allocator(wasmtime.Config(), "graph_colouring")


def test_an_unknown_compiler_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="quantum"):
        set_compiler(wasmtime.Config(), "quantum")


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


def _pooled_engine(slots: int) -> wasmtime.Engine:
    config = wasmtime.Config()
    config.epoch_interruption = True
    use_pooling_allocator(config, instances=slots, max_memory_bytes=64 << 20, keep_resident_bytes=1 << 20)
    return wasmtime.Engine(config)


def test_a_pooled_engine_reuses_its_slots_and_refuses_a_guest_past_them() -> None:
    engine = _pooled_engine(slots=2)
    for _ in range(10):  # five times the pool: each ended store gives its slot back
        store, instance = _instance(engine, "echo", stdin=b"hi")
        del instance, store
    held = [_instance(engine, "echo") for _ in range(2)]
    with pytest.raises(wasmtime.WasmtimeError, match="(?i)limit|concurrent|pool"):
        _instance(engine, "echo")
    del held


def test_a_pooled_memory_is_zero_again_for_the_next_guest() -> None:
    """Kept-resident pages are reused, not leaked: what one guest wrote the next never reads."""
    engine = _pooled_engine(slots=1)
    for round_number in range(3):
        store, instance = _instance(engine, "echo")
        memory = export_by_name(store, instance, "memory")
        assert isinstance(memory, wasmtime.Memory)
        data = memory.data_ptr(store)
        length = min(memory.data_len(store), 1 << 20)
        assert all(data[i] == 0 for i in range(length - 4096, length)), round_number
        for i in range(length - 4096, length):
            data[i] = 0xAB
        del memory, instance, store
