"""Two code generators: Winch compiles fast for first uses, Cranelift makes fast code.

A module seen for the first time is compiled with Winch, wasmtime's baseline compiler (about
a sixth of Cranelift's CPU time on the bundled tools), so its ``--help`` runs and first calls
need not wait for optimisation. The ``Optimiser`` then compiles it again with Cranelift on one
low-priority thread and the runtime swaps the result in; the compiled-module cache keeps that.
wasmtime fixes the compiler per engine, so each compiler has its own engine and linker, and
its own cache fingerprint.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import logging
import os
import platform
import queue
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

import wasmtime

from toolbay.freed_memory import give_back_freed_memory
from toolbay.internals.wasmtime_capi import set_compiler, set_register_allocator, use_pooling_allocator
from toolbay.wasm.interrupt import install_poll_oneoff

log = logging.getLogger(__name__)

BASELINE = "winch"
OPTIMISING = "cranelift"
# The pool's slots reserve address space for the most a guest may be given ([sandbox] memory_mb
# goes up to 4096): that is what the engine reserves for any 32-bit memory anyway.
MAX_GUEST_MEMORY_BYTES = 4096 * 1024 * 1024
# Kept mapped between uses of a slot: a small guest's whole memory, so its start and end cost
# a memset instead of mapping, faulting in and unmapping pages (about 75 us of a 200 us echo).
POOL_KEEP_RESIDENT_BYTES = 1024 * 1024
# Address space a pool reserves per slot: the memory's reservation and guard, its table, with
# room to spare (measured: 4.04 GiB).
_POOL_BYTES_PER_SLOT = MAX_GUEST_MEMORY_BYTES + (256 << 20)
# How much lower than the server's own threads the optimiser runs (nice increment).
_BACKGROUND_NICENESS = 10


_PROT_NONE = 0
_MAP_PRIVATE, _MAP_ANONYMOUS, _MAP_NORESERVE = 0x02, 0x20, 0x4000  # Linux's values
_MAP_FAILED = ctypes.c_void_p(-1).value


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return libc


def can_reserve(size: int) -> bool:
    """True when this process may map ``size`` bytes of address space (reserved, not used):
    a trial mapping, made and let go at once. False where the system cannot tell (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = _libc()
    address = libc.mmap(None, size, _PROT_NONE, _MAP_PRIVATE | _MAP_ANONYMOUS | _MAP_NORESERVE, -1, 0)
    if address is None or address == _MAP_FAILED:
        return False
    libc.munmap(address, size)
    return True


class Compiler:
    """One engine that compiles with one code generator, its WASI linker and its cache fingerprint."""

    def __init__(self, name: str, *, consume_fuel: bool, parallel: bool = True, pool_slots: int = 0) -> None:
        """``pool_slots``: guests that may run at once on a pooled engine (0: no pool); when
        the system would refuse the pool's address space (e.g. ``ulimit -v``), the engine goes
        without it."""
        def config_for(pooled: bool) -> wasmtime.Config:
            config = wasmtime.Config()
            config.epoch_interruption = True
            config.consume_fuel = consume_fuel
            # Off for the background optimiser: its work then stays on its own low-priority thread.
            config.parallel_compilation = parallel
            set_compiler(config, name)
            if name == BASELINE:
                # Winch leaves the trampolines between host and guest to Cranelift: one for each
                # function a table can reach, thousands in a Go program. Each runs once per call
                # into the guest and gains nothing from optimising, which was a tenth of the
                # baseline's compile time (1.50 -> 1.35 s of CPU on the Go tool, 7 MB then). Their
                # registers are allocated in one pass too: 1.07 -> 0.93 s (it does not touch
                # Winch's own code).
                config.cranelift_opt_level = "none"
                set_register_allocator(config, "single_pass")
                # No .eh_frame for native unwinders (profilers, debuggers): wasmtime's own traps
                # and backtraces do without it, and the baseline's code lives only until the
                # optimised code replaces it (the Go tool, 7 MB then: 0.79 -> 0.72 s of CPU).
                config.native_unwind_info = False
            if pooled:
                use_pooling_allocator(config, instances=pool_slots, max_memory_bytes=MAX_GUEST_MEMORY_BYTES,
                                      keep_resident_bytes=POOL_KEEP_RESIDENT_BYTES)
            return config

        self.name = name
        # What the engine was made with: two compilers with the same options make code either can run.
        self.options = (name, consume_fuel, parallel, pool_slots)
        # wasmtime aborts the process (a panic in the C API) when the pool's address space
        # is refused, so ask the system first.
        self.pooled = pool_slots > 0 and can_reserve(pool_slots * _POOL_BYTES_PER_SLOT)
        if pool_slots > 0 and not self.pooled:
            log.warning("guests get their memory one store at a time: the system refuses the %d GiB of address "
                        "space an instance pool of %d slots reserves (ulimit -v?)",
                        pool_slots * _POOL_BYTES_PER_SLOT >> 30, pool_slots)
        self.engine = wasmtime.Engine(config_for(self.pooled))
        self.linker = wasmtime.Linker(self.engine)
        self.linker.define_wasi()
        install_poll_oneoff(self.linker)

    @functools.cached_property
    def fingerprint(self) -> str:
        """Names the code this engine makes in the compiled-module cache: another wasmtime,
        compiler or setting that changes the code gets another name."""
        name, consume_fuel, _, _ = self.options
        return hashlib.sha256(
            f"wasmtime={wasmtime_version()};compiler={name};epoch=1;fuel={int(consume_fuel)};"
            f"{'trampolines=unoptimised,single-pass;unwind=0;' if name == BASELINE else ''}"
            f"pool={int(self.pooled)};{platform.machine()};{platform.system()}".encode()
        ).hexdigest()[:16]


@functools.cache
def wasmtime_version() -> str:
    """The installed wasmtime's version (read when first needed), from the metadata installed
    beside the package imported: importlib.metadata's import alone (the ``email`` package,
    ``zipfile``) was 25-40 ms of processor time of every command that opens the runtime, where
    this is a folder listing and a file's first lines. Anywhere else (no such metadata, or
    two versions' beside it), importlib.metadata says."""
    beside = os.path.dirname(os.path.dirname(os.path.abspath(wasmtime.__file__)))
    try:
        found = [name for name in os.listdir(beside)
                 if name.lower().startswith("wasmtime-") and name.lower().endswith(".dist-info")]
        if len(found) == 1:
            with open(os.path.join(beside, found[0], "METADATA"), encoding="utf-8") as metadata:
                for line in metadata:
                    if line.startswith("Version:"):
                        return line.removeprefix("Version:").strip()
                    if not line.strip():
                        break  # the headers end: no version among them
    except (OSError, ValueError):  # unreadable, or not UTF-8 as metadata must be: asked as below
        pass
    import importlib.metadata

    return importlib.metadata.version("wasmtime")


def pool_slots_for(max_workers: int) -> int:
    """Guests at once on a runtime with ``max_workers``: calls on workers, as many describing
    runs, one on the event loop, and room for runs started by a caller's own thread."""
    return 4 * max_workers + 16


def baseline_options(consume_fuel: bool, max_workers: int) -> tuple[str, bool, bool, int]:
    """``Compiler.options`` of the baseline compiler of a runtime with these settings.

    Each baseline compile runs on the thread that asks for it, not spread over every core:
    on a first start the server's own start (its imports, one core at a time under Python's
    lock) runs beside the compiles, and wasmtime's compile threads took the cores from it
    (the bundled Go tool's compile also cost 15 % more processor time spread out). Several
    files are compiled at once where they are described (``discovery.CORES``) instead."""
    return BASELINE, consume_fuel, False, pool_slots_for(max_workers)


def baseline_compiler(consume_fuel: bool, max_workers: int) -> Compiler:
    """The baseline compiler of a runtime with these settings (``toolbay.wasm.early`` makes
    one before the runtime exists)."""
    name, fuel, parallel, pool_slots = baseline_options(consume_fuel, max_workers)
    return Compiler(name, consume_fuel=fuel, parallel=parallel, pool_slots=pool_slots)


@dataclass(frozen=True, slots=True)
class Compiled:
    """A module's code as one compiler made it, linked and ready to instantiate."""

    compiler: Compiler
    module: wasmtime.Module
    pre: wasmtime.InstancePre


T = TypeVar("T")


class Optimiser(Generic[T]):
    """Runs ``optimise(item)`` for each submitted item, one at a time, on one background thread
    at lower CPU priority, so optimising never competes with serving; and not while a module
    is being compiled for a caller who waits (``first_use()``), so a cold start's compiles get
    the CPU first. Items are held weakly: one whose last user let go is skipped.
    ``wait_idle`` lets a test or a benchmark wait.

    Optimising starts only once compiling has been quiet for ``quiet_s``: no item submitted
    and no first use for that long. A start, or a folder whose files change, loads modules in
    bursts; optimising one of them meanwhile takes a core from the burst's help runs, and a
    server stopped soon after (a client that only listed, a test) would have spent seconds of
    processor time on code it never ran (.NET's tiered compilation waits for a quiet spell
    before its second tier the same way). ``prepare()`` runs first, without waiting for the
    quiet spell: what must not wait (the runtime caches each module's baseline code with it).

    ``held``: neither ``prepare()`` nor optimising begins until ``release()``. A first start
    holds them until its first listing has gone out: writing the bundled tools' baseline code
    (20 MB) took 60 to 70 ms of CPU while the MCP SDK was still loading, before that listing."""

    def __init__(self, optimise: Callable[[T], None], *, quiet_s: float = 0.0,
                 prepare: Callable[[], None] = lambda: None, held: bool = False) -> None:
        self._optimise = optimise
        self._prepare = prepare
        self._quiet_s = quiet_s
        self._last_activity = time.monotonic()
        self._queue: queue.SimpleQueue[weakref.ref[T] | None] = queue.SimpleQueue()
        self._pending = 0
        self._idle = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._first_uses = 0
        self._held = held

    @contextlib.contextmanager
    def first_use(self) -> Iterator[None]:
        """Marks a compile someone waits for; the optimiser starts nothing new meanwhile."""
        with self._idle:
            self._first_uses += 1
        try:
            yield
        finally:
            with self._idle:
                self._first_uses -= 1
                self._last_activity = time.monotonic()
                self._idle.notify_all()

    def submit(self, item: T) -> None:
        with self._idle:
            if self._closed:
                return
            self._pending += 1
            self._last_activity = time.monotonic()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="toolbay-optimise", daemon=True)
                self._thread.start()
        self._queue.put(weakref.ref(item))

    def holds_work(self) -> bool:
        """Held (see ``release``) with items submitted: ``prepare()`` runs once released."""
        with self._idle:
            return self._held and self._pending > 0

    def release(self) -> None:
        """Lets ``prepare()`` and optimising begin (a no-op once released)."""
        with self._idle:
            self._held = False
            self._idle.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """True once nothing is waiting or being optimised (False if ``timeout`` passed first)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Stops after the item in hand (an optimisation under way is not interrupted; the
        thread is a daemon, so it never holds the process)."""
        with self._idle:
            self._closed = True
            self._idle.notify_all()
        self._queue.put(None)

    def _loop(self) -> None:
        _lower_this_threads_priority()
        while (ref := self._queue.get()) is not None:
            with self._idle:
                self._idle.wait_for(lambda: (self._first_uses == 0 and not self._held) or self._closed)
            item = None
            try:
                if ref() is not None and not self._closed:
                    self._prepare()
                    # Held weakly while waiting: a module replaced meanwhile is let go, not optimised.
                    self._wait_for_quiet()
                    item = ref()
                    if item is not None and not self._closed:
                        self._optimise(item)
            except Exception:  # the optimiser must outlive any one module's trouble
                log.exception("optimising a module failed; it keeps its baseline code")
            finally:
                del item
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()
            if self._queue.empty():
                give_back_freed_memory()  # what compiling freed (see toolbay.freed_memory)
        with self._idle:
            self._pending = 0
            self._idle.notify_all()

    def _wait_for_quiet(self) -> None:
        with self._idle:
            while not self._closed:
                if self._first_uses:
                    self._idle.wait()
                    continue
                remaining = self._last_activity + self._quiet_s - time.monotonic()
                if remaining <= 0:
                    return
                self._idle.wait(remaining)


def _lower_this_threads_priority() -> None:
    # On Linux a thread's nice value is its own (setpriority with its thread id); elsewhere
    # this may lower the whole process or fail, so it is done only where it is per thread.
    if platform.system() != "Linux":
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _BACKGROUND_NICENESS)
    except OSError as error:
        log.debug("cannot lower the optimiser's priority: %s", error)
