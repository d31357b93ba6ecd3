"""The wasm runtime: one engine, one compiled module per file, one store per call.

    runtime = WasmRuntime(cache_dir)
    module = runtime.load(Path("extensions/textkit.wasm"))   # WasmRejected if unusable
    result = await runtime.run_async(module, RunRequest(argv=["textkit", "upper", "hi"]))

Per module, ``load`` compiles (or loads from the cache) and links once (``InstancePre``);
per call, ``run`` makes a store and an instance and calls ``_start`` alone. Calls run on
worker threads (wasmtime releases the GIL), at most ``max_workers`` at a time.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
import wasmtime

from toolbay.errors import WasmRejected
from toolbay.freed_memory import give_back_freed_memory
from toolbay.internals.wasmtime_capi import export_by_name, set_stdin_bytes
from toolbay.stoppable_threads import run_stoppable
from toolbay.wasm.cache import CacheStats, ModuleCache
from toolbay.wasm.compilers import (
    OPTIMISING,
    Compiled,
    Compiler,
    Optimiser,
    baseline_compiler,
    baseline_options,
    pool_slots_for,
)
from toolbay.wasm.errors import Ending, map_load_errors, map_wasmtime_errors
from toolbay.wasm.inspect import check_interface, read_module
from toolbay.wasm.interrupt import (
    OVER_BUDGET,
    TICK_S,
    EpochTicker,
    RunState,
    set_current_state,
    watch_store,
)
from toolbay.wasm.pipes import OutputPipe, make_pipe_pool
from toolbay.wasm.progress import GuestStderr
from toolbay.wasm.streams import CappedOutput, flood_reason
from toolbay.wasm.types import MiB, RunRequest, RunResult

if TYPE_CHECKING:
    from toolbay.wasm.early import EarlyCompiles

log = logging.getLogger(__name__)

# Fuel for stores when no budget is asked for (the engine counts fuel for every store).
_UNLIMITED_FUEL = 2**63 - 1
# A proven-quick tool runs on the calling thread for at most this long (see server.wasm.quick).
DEFAULT_QUICK_BUDGET_S = 0.02
# A failed run whose memory is this close to the limit is reported as hitting it.
_MEMORY_SLACK = 2 * MiB


@dataclass(eq=False)
class WasmModule:
    """A compiled, linked module, ready to instantiate. Share it freely across threads.

    Its code may be replaced once, by the optimised code of the same module (``compiler``
    tells which it runs now); a run takes the code it starts with."""

    path: Path
    sha256: str
    size: int  # bytes of the .wasm read; 0 when it came from the compiled cache by hash
    _compiled: Compiled = field(repr=False)

    @property
    def compiler(self) -> str:
        return self._compiled.compiler.name


class WasmRuntime:
    """Owns the engines, the epoch ticker, the compiled-module cache and the worker limit.

    ``consume_fuel`` makes the engine count fuel so that ``SandboxLimits.fuel`` can be honoured;
    it costs about a quarter more time on CPU-bound guests, so a server whose configuration sets
    no fuel limit may turn it off. ``quick_compile`` compiles a module not in the cache with the
    baseline compiler (Winch: fast to compile, slower code); ``optimise_in_background`` then
    compiles it again with Cranelift on a low-priority thread and swaps that in (see
    ``toolbay.wasm.compilers``). Without ``quick_compile`` every module is compiled with Cranelift.
    ``epoch_tick_s`` is how often running guests are checked (see ``toolbay.wasm.interrupt``).
    """

    def __init__(self, cache_dir: Path | None = None, *, max_workers: int | None = None,
                 consume_fuel: bool = True, quick_budget_s: float = DEFAULT_QUICK_BUDGET_S,
                 quick_compile: bool = True, optimise_in_background: bool = False,
                 optimise_after_quiet_s: float = 0.0, epoch_tick_s: float = TICK_S,
                 early: EarlyCompiles | None = None, hold_background_work: bool = False) -> None:
        """``early``: modules compiled before this runtime was made (``toolbay.wasm.early``),
        taken instead of compiling them again when its compiler is the one this runtime uses.
        ``optimise_after_quiet_s``: the background optimiser waits for that long without a new
        compile (``Optimiser``). ``hold_background_work``: the optimiser writes no baseline code
        to the cache and optimises nothing until ``release_background_work()`` (``close()``
        writes that code all the same)."""
        self.consume_fuel = consume_fuel
        self.max_workers = max_workers or os.cpu_count() or 1
        pool_slots = pool_slots_for(self.max_workers)
        # The optimiser's engine compiles on its own (low-priority) thread; the one that
        # compiles while a caller waits may use every core.
        self.optimising = Compiler(OPTIMISING, consume_fuel=consume_fuel,
                                   parallel=not (quick_compile and optimise_in_background), pool_slots=pool_slots)
        self._early: EarlyCompiles | None = None
        self.baseline: Compiler | None
        if quick_compile and early is not None and early.compiler.options == baseline_options(consume_fuel,
                                                                                                self.max_workers):
            self.baseline, self._early = early.compiler, early
        else:
            if early is not None:
                log.debug("not using the modules compiled early: their compiler is not this runtime's")
            self.baseline = baseline_compiler(consume_fuel, self.max_workers) if quick_compile else None
        self.engine = self.optimising.engine
        self.fingerprint = (self.baseline or self.optimising).fingerprint  # of what a first load writes
        # Best first: optimised code when the cache has it.
        self._compilers = (self.optimising,) if self.baseline is None else (self.optimising, self.baseline)
        self.cache = ModuleCache(cache_dir) if cache_dir is not None else None
        self._optimiser = (Optimiser(self._optimise, quiet_s=optimise_after_quiet_s, prepare=self._save_baseline_code,
                                     held=hold_background_work)
                           if self.baseline is not None and optimise_in_background else None)
        # Guest output through FIFOs when the system has them (see server.wasm.pipes); the
        # ticker drains the pipes of running guests, so a long print never waits long.
        self._pipes = make_pipe_pool()
        self._ticker = EpochTicker([c.engine for c in self._compilers], epoch_tick_s,
                                   on_tick=self._pipes.drain_busy if self._pipes else None)
        # How long a proven-quick tool may run on the event loop (0: never; see server.wasm.quick).
        self.quick_budget_s = quick_budget_s
        self._limiter = anyio.CapacityLimiter(self.max_workers)
        # Weak: a module lives as long as a handler or a running call holds it. A replaced or
        # removed tool's compiled code and linked ``InstancePre`` go with its last user.
        self._loaded: weakref.WeakValueDictionary[str, WasmModule] = weakref.WeakValueDictionary()
        self._load_lock = threading.Lock()
        # Modules whose baseline code is not in the compiled-module cache yet: the optimiser
        # writes it before it optimises (see ``load``), or ``close`` does. Weak, as ``_loaded``.
        self._unsaved: list[weakref.ref[WasmModule]] = []
        # Held while that code is written, so that ``close`` waits for a write under way.
        self._saving = threading.Lock()
        self._give_back_when_released = False

    @property
    def cache_stats(self) -> CacheStats:
        return self.cache.stats if self.cache is not None else CacheStats()

    # -- loading -------------------------------------------------------------------------

    def load(self, path: Path, *, sha256: str | None = None) -> WasmModule:
        """Validates, compiles (or loads compiled) and links ``path``. Raises ``WasmRejected``.

        With ``sha256``, the module with that content is meant, not whatever the path holds now:
        it comes from memory or the compiled cache when it is there, and a file whose content
        has changed since is refused. A tool described from one version therefore never runs
        another (a replaced file whose new version is broken keeps serving the old one).
        """
        data: bytes | None = None
        if sha256 is None:
            data = self._read(path)
            sha256 = hashlib.sha256(data).hexdigest()
            with self._load_lock:
                known = self._loaded.get(sha256)
                if known is not None and known.path == path:
                    return known
        else:
            with self._load_lock:
                known = self._loaded.get(sha256)
            if known is not None:
                return known
        found = self.cache.load(sha256, [(c.fingerprint, c.engine) for c in self._compilers]) if self.cache else None
        unsaved = False
        if found is None:
            with self.first_uses():
                early = self._take_early(path, sha256)
                if early is not None:
                    compiler, module = early
                else:
                    if data is None:
                        data = self._read_as(path, sha256)
                    compiler, module = self._compile(path, data)
            check_interface(path, module)
            # Code the optimiser is to replace is written to the cache on its thread, before it
            # optimises, rather than here: a first start's help runs would wait for it (80 to
            # 100 ms of CPU for the 22 MB of baseline code of the Go tool, 7 MB then).
            unsaved = self._optimiser is not None and compiler is not self.optimising
            if not unsaved:
                self._store(sha256, compiler, module)
        else:
            compiler, module = self._compilers[found[0]], found[1]
            check_interface(path, module)
        size = len(data) if data is not None else 0
        loaded = WasmModule(path=path, sha256=sha256, size=size, _compiled=self._link(path, compiler, module))
        with self._load_lock:
            self._loaded[sha256] = loaded
            if unsaved:
                self._unsaved.append(weakref.ref(loaded))
        if self._optimiser is not None and compiler is not self.optimising:
            self._optimiser.submit(loaded)
        return loaded

    def _take_early(self, path: Path, sha256: str) -> tuple[Compiler, wasmtime.Module] | None:
        """The module compiled early from ``path`` when its content was ``sha256`` (that
        compile read and hashed the file: it is not read again here)."""
        early = self._early  # read once: the first scan's end drops it
        module = early.take(path, sha256) if early is not None else None
        if early is None or module is None:
            return None
        log.debug("%s was compiled early", path.name)
        return early.compiler, module

    def drop_early_compiles(self) -> None:
        """Lets go of the modules compiled early that were not taken (a file changed since)."""
        early, self._early = self._early, None
        if early is not None:
            early.drop()

    def _compile(self, path: Path, data: bytes) -> tuple[Compiler, wasmtime.Module]:
        if self.baseline is not None:
            try:
                return self.baseline, wasmtime.Module(self.baseline.engine, data)
            except wasmtime.WasmtimeError as error:
                # Invalid, or using what Winch does not compile: Cranelift says which, or does it.
                error.__traceback__ = None
        with map_load_errors(str(path)):
            return self.optimising, wasmtime.Module(self.optimising.engine, data)

    def _link(self, path: Path, compiler: Compiler, module: wasmtime.Module) -> Compiled:
        with map_load_errors(str(path), "imports what WASI preview 1 does not provide"):
            return Compiled(compiler, module, compiler.linker.instantiate_pre(module))

    def _store(self, sha256: str, compiler: Compiler, module: wasmtime.Module) -> None:
        if self.cache is None:
            return
        try:
            self.cache.store(sha256, compiler.fingerprint, module)
        except OSError as error:
            log.warning("cannot write the compiled-module cache for %s: %s", sha256[:12], error)

    def _save_baseline_code(self) -> None:
        """Writes the baseline code of every loaded module that is not in the cache yet (see
        ``load``), all of it before the first optimisation: a next start that comes before the
        optimised code is ready then compiles nothing again."""
        with self._saving:
            with self._load_lock:
                waiting, self._unsaved = self._unsaved, []
            for ref in waiting:
                module = ref()
                if module is not None and module._compiled.compiler is not self.optimising:
                    self._store(module.sha256, module._compiled.compiler, module._compiled.module)
            if self._give_back_when_released:
                self._give_back_when_released = False
                give_back_freed_memory()

    def _optimise(self, loaded: WasmModule) -> None:
        """Compiles ``loaded`` with Cranelift and swaps the code in (on the optimiser's thread,
        which has saved the baseline code first: ``_save_baseline_code``)."""
        if loaded._compiled.compiler is self.optimising:
            return
        try:
            data = self._read_as(loaded.path, loaded.sha256)
        except WasmRejected as rejected:
            log.info("not optimising %s: %s", loaded.path.name, rejected.reason)
            return
        module = wasmtime.Module(self.optimising.engine, data)
        compiled = self._link(loaded.path, self.optimising, module)
        self._store(loaded.sha256, self.optimising, module)
        if self.cache is not None and self.baseline is not None:
            self.cache.remove(loaded.sha256, self.baseline.fingerprint)
        loaded._compiled = compiled  # one reference swap: runs under way keep the code they took
        log.debug("optimised %s", loaded.path.name)

    def first_uses(self) -> contextlib.AbstractContextManager[None]:
        """While this is entered (e.g. while new tools are described for a waiting client),
        the background optimiser starts nothing new: the first uses get the CPU first."""
        return self._optimiser.first_use() if self._optimiser is not None else contextlib.nullcontext()

    def release_background_work(self) -> None:
        """Lets the optimiser begin, if it was held (``hold_background_work``): it writes the
        baseline code not cached yet, then optimises once compiling has been quiet."""
        if self._optimiser is not None:
            self._optimiser.release()

    def give_back_memory_when_released(self) -> bool:
        """True where the optimiser is held (``hold_background_work``) with modules to optimise:
        it then gives back the memory compiling freed (``toolbay.freed_memory``) once released,
        after the baseline code it writes first. False otherwise: the caller gives it back."""
        if self._optimiser is None or not self._optimiser.holds_work():
            return False
        self._give_back_when_released = True
        return True

    def wait_optimised(self, timeout: float | None = None) -> bool:
        """True once every module submitted for optimisation has been optimised (or skipped)."""
        return self._optimiser.wait_idle(timeout) if self._optimiser is not None else True

    def _read_as(self, path: Path, sha256: str) -> bytes:
        data = self._read(path)
        found = hashlib.sha256(data).hexdigest()
        if found != sha256:
            raise WasmRejected(
                str(path), f"changed on disk since it was described (sha256 {sha256[:12]}…, now {found[:12]}…)")
        return data

    @staticmethod
    def _read(path: Path) -> bytes:
        return read_module(path)

    @property
    def loaded(self) -> frozenset[str]:
        """The sha256 of every module that is compiled and held in memory now."""
        with self._load_lock:
            return frozenset(self._loaded.keys())

    def forget(self, sha256: str) -> None:
        """Stops sharing the module with this hash: a later ``load`` compiles (or reads the
        on-disk cache) anew. Holders keep theirs until they let go."""
        with self._load_lock:
            self._loaded.pop(sha256, None)

    # -- running -------------------------------------------------------------------------

    def run(self, module: WasmModule, request: RunRequest, cancel: threading.Event | None = None) -> RunResult:
        """Runs ``_start`` once, blocking this thread. Never raises for anything the guest does."""
        result = self._run(module, request, cancel, budget_s=None)
        assert result is not None  # only a budget makes a run void
        return result

    def run_quick(self, module: WasmModule, request: RunRequest, budget_s: float,
                  cancel: threading.Event | None = None) -> RunResult | None:
        """Like ``run``, but meant for the caller's own thread (the event loop), sparing the
        round trip to a worker: the guest is stopped once it has run ``budget_s`` (give or take
        a tick), and then ``None`` is returned and everything it did is void. Only for guests
        that can run twice harmlessly: ones that cannot write to any file."""
        if any(preopen.writable for preopen in request.preopens):
            raise ValueError("a guest that can write files must not run twice")
        return self._run(module, request, cancel, budget_s=budget_s)

    def _run(self, module: WasmModule, request: RunRequest, cancel: threading.Event | None,
             budget_s: float | None) -> RunResult | None:
        limits = request.limits
        if limits.fuel is not None and not self.consume_fuel:
            raise ValueError("a fuel limit needs a runtime made with consume_fuel=True")
        cancel = cancel or threading.Event()
        started = time.monotonic()
        state = RunState(deadline=started + limits.timeout_s, timeout_s=limits.timeout_s, cancel=cancel,
                         started=started, budget_s=budget_s)
        stdout = CappedOutput(limits.stdout_limit_bytes)
        stderr = GuestStderr(CappedOutput(limits.stderr_limit_bytes), request.on_progress)
        state.misbehaving = lambda: flood_reason("stdout", stdout) or flood_reason("stderr", stderr.output)
        ending = Ending()
        pool = self._pipes
        pipes = pool.acquire(stdout, stderr) if pool is not None else None
        try:
            self._run_in_store(module, request, state, ending, stdout, stderr, pipes)
        finally:
            if pool is not None and pipes is not None:
                # The store (and with it the pipes' write ends) is gone: what the guest wrote
                # is all in the pipes now.
                pool.release(pipes)
            stderr.close()
        if state.stop_reason == OVER_BUDGET:
            return None
        return RunResult(
            exit_code=ending.exit_code,
            stdout=bytes(stdout.buffer),
            stderr=bytes(stderr.output.buffer),
            stdout_truncated=stdout.truncated,
            stderr_truncated=stderr.output.truncated,
            trap=ending.trap,
            duration_s=time.monotonic() - started,
            cpu_s=time.thread_time() - state.cpu_started,
            waited_s=state.waited_s,
        )

    def _run_in_store(self, module: WasmModule, request: RunRequest, state: RunState, ending: Ending,
                      stdout: CappedOutput, stderr: GuestStderr,
                      pipes: tuple[OutputPipe, OutputPipe] | None) -> None:
        """Makes the call's store, runs ``_start`` in it and notes how it ended. The store is
        dropped on return, closing the write ends of the output pipes."""
        limits = request.limits
        compiled = module._compiled
        store = wasmtime.Store(compiled.compiler.engine)
        store.set_limits(memory_size=limits.memory_bytes)
        if self.consume_fuel:
            store.set_fuel(limits.fuel if limits.fuel is not None else _UNLIMITED_FUEL)
        store.set_wasi(self._wasi_config(request, stdout, stderr, pipes))
        watch_store(store)
        instance = None
        set_current_state(state)
        try:
            with self._ticker, map_wasmtime_errors(ending):
                if state.stopped_before_start():
                    raise wasmtime.WasmtimeError("stopped before start")
                instance = compiled.pre.instantiate(store)
                start = export_by_name(store, instance, "_start")
                if start is None:  # checked at load; kept as a guard
                    raise wasmtime.WasmtimeError("no _start export")
                start(store)  # type: ignore[operator]  # _export returns the _start Func
        finally:
            set_current_state(None)
        stop_reason = state.reason_at_end()  # asked once the guest has ended, however it ended
        if stop_reason is not None:
            ending.fail(stop_reason)
        elif ending.trap is not None and self._near_memory_limit(store, instance, limits.memory_bytes):
            ending.fail(f"memory limit of {limits.memory_mb} MiB reached")
        elif ending.trap == "needs more memory at start than the memory limit allows":
            ending.fail(f"memory limit of {limits.memory_mb} MiB reached (needed at start)")
        elif ending.trap == "out of fuel" and limits.fuel is not None:
            ending.fail(f"out of fuel: it used the {limits.fuel:,} units of [sandbox] fuel")

    async def run_async(self, module: WasmModule, request: RunRequest,
                        cancel: threading.Event | None = None) -> RunResult:
        """``run`` on a worker thread. If the awaiting task is cancelled, the guest is told to
        stop (it does so within a tick), awaited briefly, and the cancellation re-raised."""
        # anyio's worker threads keep their last job in local variables until their next one:
        # the module is let go of when the run ends, so that an idle worker does not keep a
        # replaced module (and its compiled code) alive.
        running = [module]

        def work(stop: threading.Event) -> RunResult:
            try:
                return self.run(running[0], request, stop)
            finally:
                running.clear()

        return await run_stoppable(work, stop=cancel, limiter=self._limiter, wait_s=1.0)

    def close(self) -> None:
        if self._optimiser is not None:
            self._optimiser.close()
            # The baseline code not cached yet is written now, and a write the optimiser has
            # begun is let finish (its thread, a daemon, would end with the process in the middle
            # of it): a server stopped before its first listing (``hold_background_work``), or
            # just after it, compiles nothing on its next start.
            self._save_baseline_code()
        self._ticker.close()
        if self._pipes is not None:
            self._pipes.close()
        with self._load_lock:
            self._loaded.clear()

    # -- helpers -------------------------------------------------------------------------

    def _wasi_config(self, request: RunRequest, stdout: CappedOutput, stderr: GuestStderr,
                     pipes: tuple[OutputPipe, OutputPipe] | None) -> wasmtime.WasiConfig:
        config = wasmtime.WasiConfig()
        config.argv = list(request.argv)
        config.env = [(name, value) for name, value in request.env.items()]
        set_stdin_bytes(config, request.stdin or b"")
        try:
            if pipes is None:
                raise OSError("no pipes")
            config.stdout_file = pipes[0].path
            config.stderr_file = pipes[1].path
        except (OSError, wasmtime.WasmtimeError) as error:
            if pipes is not None:  # e.g. a temp-folder cleaner removed the FIFOs: still answer
                log.warning("guest output through callbacks for this call: %s", error)
            config.stdout_custom = stdout.write
            config.stderr_custom = stderr.write
        for preopen in request.preopens:
            config.preopen_dir(str(preopen.host_path), preopen.guest_path, preopen.writable)
        return config

    @staticmethod
    def _near_memory_limit(store: wasmtime.Store, instance: wasmtime.Instance | None, limit: int) -> bool:
        if instance is None:
            return False
        memory = export_by_name(store, instance, "memory")
        return isinstance(memory, wasmtime.Memory) and memory.data_len(store) + _MEMORY_SLACK >= limit
