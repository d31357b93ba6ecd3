"""Reaching past wasmtime-py's public API, into the C API it binds (``wasmtime._ffi``).

The Python binding (50.x) has no way to:
- give a guest standard input from bytes in memory (only from a file);
- decide at each epoch tick whether a guest goes on (it offers a fixed deadline only), which
  cancellation and wall-clock limits need without a trap per tick;
- fetch one export by name (``Instance.exports`` materialises every export, 65 ms on
  binaries with thousands);
- choose the baseline compiler Winch (``Config.strategy`` knows only "auto" and "cranelift");
- choose Cranelift's register allocator (``Config`` has no setter for it);
- move a store's epoch deadline from inside a host call (``Caller`` has no
  ``set_epoch_deadline``), which stops a guest at its next check rather than a tick later;
- choose the pooling instance allocator (``Config`` has no setter for it);
- read a module's serialised code where wasmtime made it (``Module.serialize`` copies it into
  a bytearray while holding Python's lock: 22 MB for the Go tool, which a first start's
  listing waited for).
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Callable, Iterator

import wasmtime
from wasmtime import _ffi as ffi
from wasmtime._extern import wrap_extern


def set_stdin_bytes(config: wasmtime.WasiConfig, data: bytes) -> None:
    """Standard input that reads ``data`` then EOF (and so never blocks)."""
    vec = ffi.wasm_byte_vec_t()
    buffer = (ffi.wasm_byte_t * len(data)).from_buffer_copy(data) if data else None
    ffi.wasm_byte_vec_new(ctypes.byref(vec), len(data), buffer)
    ffi.wasi_config_set_stdin_bytes(config.ptr(), ctypes.byref(vec))  # takes ownership of vec


@contextlib.contextmanager
def serialized(module: wasmtime.Module) -> Iterator[memoryview]:
    """What ``module.serialize()`` returns, as a read-only view of wasmtime's own buffer, valid
    inside the ``with`` block. Hashing and writing it then run outside Python's lock."""
    vec = ffi.wasm_byte_vec_t()
    error = ffi.wasmtime_module_serialize(module.ptr(), ctypes.byref(vec))
    if error:
        raise wasmtime.WasmtimeError._from_ptr(error)
    try:
        if not vec.size:
            yield memoryview(b"")
            return
        code = (ctypes.c_uint8 * vec.size).from_address(ctypes.addressof(vec.data.contents))
        with memoryview(code).cast("B").toreadonly() as view:
            yield view
    finally:
        ffi.wasm_byte_vec_delete(ctypes.byref(vec))


# ``wasmtime_strategy_t`` in wasmtime/config.h: AUTO = 0, CRANELIFT = 1, WINCH = 2.
_STRATEGIES = {"cranelift": 1, "winch": 2}


def set_compiler(config: wasmtime.Config, compiler: str) -> None:
    """Makes engines built from ``config`` compile with ``compiler`` ("cranelift" or "winch")."""
    try:
        strategy = _STRATEGIES[compiler]
    except KeyError:
        raise ValueError(f"unknown compiler {compiler!r}; known: {', '.join(_STRATEGIES)}") from None
    ffi.wasmtime_config_strategy_set(config.ptr(), strategy)


# ``wasmtime_regalloc_algorithm_t``: BACKTRACKING = 0, SINGLE_PASS = 1. Any other value makes
# the engine's construction panic and abort the process, so only these are passed on.
_REGISTER_ALLOCATORS = {"backtracking": 0, "single_pass": 1}


def set_register_allocator(config: wasmtime.Config, allocator: str) -> None:
    """Makes Cranelift allocate registers with ``allocator`` ("backtracking", its default, or
    "single_pass": quicker to compile, slower code)."""
    try:
        algorithm = _REGISTER_ALLOCATORS[allocator]
    except KeyError:
        known = ", ".join(_REGISTER_ALLOCATORS)
        raise ValueError(f"unknown register allocator {allocator!r}; known: {known}") from None
    ffi.wasmtime_config_cranelift_regalloc_algorithm_set(config.ptr(), algorithm)


def use_pooling_allocator(config: wasmtime.Config, *, instances: int, max_memory_bytes: int,
                          keep_resident_bytes: int) -> None:
    """Makes engines built from ``config`` take instances, memories and tables from a pool of
    ``instances`` slots made once, instead of mapping and unmapping them for every store. Up to
    ``keep_resident_bytes`` of each memory and table stay mapped between uses (zeroed rather
    than given back), which is what makes a small guest's start and end cheap. Each slot
    reserves address space for ``max_memory_bytes`` (no memory is used until touched)."""
    pool = ffi.wasmtime_pooling_allocation_config_new()
    try:
        ffi.wasmtime_pooling_allocation_config_total_core_instances_set(pool, instances)
        ffi.wasmtime_pooling_allocation_config_total_memories_set(pool, instances)
        ffi.wasmtime_pooling_allocation_config_total_tables_set(pool, instances)
        # Components, fibre stacks and GC heaps are not used: one of each, not a pool's worth
        # of reserved address space.
        ffi.wasmtime_pooling_allocation_config_total_component_instances_set(pool, 1)
        ffi.wasmtime_pooling_allocation_config_total_stacks_set(pool, 1)
        ffi.wasmtime_pooling_allocation_config_total_gc_heaps_set(pool, 1)
        ffi.wasmtime_pooling_allocation_config_max_memory_size_set(pool, max_memory_bytes)
        # Big programs (Go's) have function tables far over the default 20,000 entries.
        ffi.wasmtime_pooling_allocation_config_table_elements_set(pool, _TABLE_ELEMENTS)
        ffi.wasmtime_pooling_allocation_config_linear_memory_keep_resident_set(pool, keep_resident_bytes)
        ffi.wasmtime_pooling_allocation_config_table_keep_resident_set(pool, keep_resident_bytes)
        ffi.wasmtime_pooling_allocation_strategy_set(config.ptr(), pool)  # copies the settings
    finally:
        ffi.wasmtime_pooling_allocation_config_delete(pool)


_TABLE_ELEMENTS = 1_000_000

_DeadlineCallback = ctypes.CFUNCTYPE(
    ctypes.c_size_t, ctypes.POINTER(ffi.wasmtime_context_t), ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint8),
)
_Finalizer = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_NO_FINALIZER = ctypes.cast(None, _Finalizer)  # type: ignore[arg-type]  # a NULL function pointer
# Guests stopped by the callback end with a trap carrying this message.
STOPPED_MESSAGE = "toolbay: guest stopped"


class EpochWatcher:
    """Makes stores ask ``should_stop()`` at every epoch tick: True ends the guest with a trap,
    False lets it run to the next tick. One C callback serves every store."""

    def __init__(self, should_stop: Callable[[], bool]) -> None:
        @_DeadlineCallback
        def on_deadline(context, data, next_delta, update_kind):  # type: ignore[no-untyped-def,unused-ignore]
            # Must never raise: an exception cannot cross back into wasmtime.
            if should_stop():
                error = ffi.wasmtime_error_new(STOPPED_MESSAGE.encode())
                return ctypes.cast(error, ctypes.c_void_p).value or 0
            next_delta[0] = 1
            update_kind[0] = 0  # WASMTIME_UPDATE_DEADLINE_CONTINUE
            return 0

        # Held for the watcher's life: wasmtime keeps only the raw function pointer.
        self._callback = on_deadline

    def watch(self, store: wasmtime.Store) -> None:
        ffi.wasmtime_store_epoch_deadline_callback(store.ptr(), self._callback, None, _NO_FINALIZER)
        store.set_epoch_deadline(1)


def stop_at_next_check(caller: wasmtime.Caller) -> None:
    """From inside a host call: the guest's next epoch check (its next function call or loop
    turn) reaches the deadline callback at once, instead of at the next tick."""
    ffi.wasmtime_context_set_epoch_deadline(caller._context(), 0)


def export_by_name(store: wasmtime.Store, instance: wasmtime.Instance,
                   name: str) -> wasmtime.Func | wasmtime.Memory | None:
    """One export by name, without materialising every export (slow on big binaries)."""
    item = ffi.wasmtime_extern_t()
    encoded = name.encode()
    found = ffi.wasmtime_instance_export_get(
        store._context(), ctypes.byref(instance._instance), encoded, len(encoded), ctypes.byref(item))
    return wrap_extern(item) if found else None  # type: ignore[return-value]
