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
import hashlib
import importlib.metadata
import logging
import os
import platform
import queue
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

import wasmtime

from toolbay.internals.wasmtime_capi import set_compiler
from toolbay.wasm.interrupt import install_poll_oneoff

log = logging.getLogger(__name__)

WASMTIME_VERSION = importlib.metadata.version("wasmtime")
BASELINE = "winch"
OPTIMISING = "cranelift"
# How much lower than the server's own threads the optimiser runs (nice increment).
_BACKGROUND_NICENESS = 10


class Compiler:
    """One engine that compiles with one code generator, its WASI linker and its cache fingerprint."""

    def __init__(self, name: str, *, consume_fuel: bool, parallel: bool = True) -> None:
        config = wasmtime.Config()
        config.epoch_interruption = True
        config.consume_fuel = consume_fuel
        # Off for the background optimiser: its work then stays on its own low-priority thread.
        config.parallel_compilation = parallel
        set_compiler(config, name)
        self.name = name
        self.engine = wasmtime.Engine(config)
        self.fingerprint = hashlib.sha256(
            f"wasmtime={WASMTIME_VERSION};compiler={name};epoch=1;fuel={int(consume_fuel)};"
            f"{platform.machine()};{platform.system()}".encode()
        ).hexdigest()[:16]
        self.linker = wasmtime.Linker(self.engine)
        self.linker.define_wasi()
        install_poll_oneoff(self.linker)


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
    ``wait_idle`` lets a test or a benchmark wait."""

    def __init__(self, optimise: Callable[[T], None]) -> None:
        self._optimise = optimise
        self._queue: queue.SimpleQueue[weakref.ref[T] | None] = queue.SimpleQueue()
        self._pending = 0
        self._idle = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._first_uses = 0

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
                self._idle.notify_all()

    def submit(self, item: T) -> None:
        with self._idle:
            if self._closed:
                return
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="toolbay-optimise", daemon=True)
                self._thread.start()
        self._queue.put(weakref.ref(item))

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
                self._idle.wait_for(lambda: self._first_uses == 0 or self._closed)
            item = ref()
            try:
                if item is not None and not self._closed:
                    self._optimise(item)
            except Exception:  # the optimiser must outlive any one module's trouble
                log.exception("optimising a module failed; it keeps its baseline code")
            finally:
                del item
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()
        with self._idle:
            self._pending = 0
            self._idle.notify_all()


def _lower_this_threads_priority() -> None:
    # On Linux a thread's nice value is its own (setpriority with its thread id); elsewhere
    # this may lower the whole process or fail, so it is done only where it is per thread.
    if platform.system() != "Linux":
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _BACKGROUND_NICENESS)
    except OSError as error:
        log.debug("cannot lower the optimiser's priority: %s", error)
