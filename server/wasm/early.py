"""Compiling modules before the runtime asks for them, on threads of their own.

On a first start every WebAssembly tool is compiled before its help can be read, and the
largest (the bundled Go tool, 4.9 MB) is most of the wait. ``serve`` starts those compiles as
soon as it has forked, while the server's own modules are still being imported: wasmtime
compiles outside Python's lock, so the two overlap. The runtime (``WasmRuntime.load``) then
takes a module compiled here instead of compiling it again.

The code is only usable on the engine that made it, so the runtime uses this compiler as
its own baseline compiler when it was made with the same settings (``Compiler.options``).
Compiled code is about three times the size of the module and is held until it is taken,
so only the largest files up to ``EARLY_BYTES`` in all are compiled here: those are the
long waits; a folder of a thousand small tools is compiled by the runtime as it goes.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import os
import threading
from collections.abc import Collection, Sequence
from concurrent.futures import Future
from pathlib import Path

import wasmtime

from toolbay.wasm.compilers import Compiler

log = logging.getLogger(__name__)

EARLY_BYTES = 16 * 1024 * 1024

# A file's content (sha256) and its module, None where it did not compile here.
_Compiled = tuple[str, wasmtime.Module | None]


class EarlyCompiles:
    """Compiles the largest of ``paths`` (up to ``budget_bytes`` in all) on two threads, and
    holds each module until the runtime takes it: one thread compiles the largest of them
    first, the other the smallest first, until they meet. The paths in ``first`` (the bundled
    tools, which must be in a client's first listing) are chosen and compiled before all
    others: a folder of large tools of the user's own must not keep them waiting.

    The largest is the last to be ready, and its compile is most of a first start: on its own
    thread it begins at once, not after the others (the bundled Go tool's began 0.15 to 0.8 s
    after the fork, behind hashsum's and textkit's, and ended 0.45 to 0.75 s after the
    server's imports, the other core idle meanwhile, in 7 traced first starts). The smaller
    ones, on the other thread, are ready early and described while it compiles. Each compile
    stays on its thread (``baseline_options``): the two threads and the server's imports (one
    core at a time under Python's lock) share the cores while the imports last."""

    def __init__(self, compiler: Compiler, paths: Sequence[Path], budget_bytes: int = EARLY_BYTES,
                 first: Collection[Path] = ()) -> None:
        self.compiler = compiler
        self.taken = 0
        self._lock = threading.Lock()
        self._modules: dict[str, Future[_Compiled]] = {}
        chosen: list[tuple[str, Future[_Compiled]]] = []
        room = budget_bytes
        leading = {os.fspath(path) for path in first}
        sizes = {os.fspath(path): _size(path) for path in paths}
        for path in sorted(sizes, key=lambda path: (path not in leading, -sizes[path], path)):
            if 0 < sizes[path] <= room:
                chosen.append((path, self._modules.setdefault(path, Future())))
                room -= sizes[path]
        # Smallest first within each group (the leading ones, the rest): the small end of the
        # first group that has any is one thread's next file, the large end the other's.
        self._queues = [
            collections.deque(sorted((item for item in chosen if (item[0] in leading) is is_leading),
                                     key=lambda item: (sizes[item[0]], item[0])))
            for is_leading in (True, False)
        ]
        log.debug("compiling %d WebAssembly file(s) before the server is put together: %s", len(chosen),
                  ", ".join(os.path.basename(path) for queue in self._queues for path, _ in queue))
        for largest_first in (True, False)[:len(chosen)]:
            threading.Thread(target=self._compile_all, args=(largest_first,), name="toolbay-early-compile",
                             daemon=True).start()

    def _next(self, largest_first: bool) -> tuple[str, Future[_Compiled]] | None:
        with self._lock:
            for queue in self._queues:
                if queue:
                    return queue.pop() if largest_first else queue.popleft()
        return None

    def _compile_all(self, largest_first: bool) -> None:
        while (item := self._next(largest_first)) is not None:
            path, future = item
            if not future.set_running_or_notify_cancel():
                continue  # let go of (``drop``)
            future.set_result(self._compile(path))

    def _compile(self, path: str) -> _Compiled:
        sha256, module = "", None
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            sha256 = hashlib.sha256(data).hexdigest()
            module = wasmtime.Module(self.compiler.engine, data)
        except Exception as error:  # noqa: BLE001 - the runtime reads and compiles it again, and says why
            log.debug("compiling %s early failed: %s", path, error)
        return sha256, module

    def take(self, path: str | Path, sha256: str) -> wasmtime.Module | None:
        """The module compiled from ``path``, waiting for its compile if it is under way, when
        its content was ``sha256``; None if it was not compiled here (or failed to, or the file
        has changed since, or it was taken already)."""
        with self._lock:
            future = self._modules.pop(os.fspath(path), None)
        if future is None:
            return None
        compiled_from, module = future.result()
        if module is None or compiled_from != sha256:
            return None
        self.taken += 1
        return module

    def drop(self) -> None:
        """Lets go of every module not taken, and compiles nothing more."""
        with self._lock:
            pending, self._modules = self._modules, {}
        for future in pending.values():
            future.cancel()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
