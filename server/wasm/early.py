"""Compiling modules before the runtime asks for them, on a thread of their own.

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
    """Compiles the largest of ``paths`` (up to ``budget_bytes`` in all) one after another on
    one core (the other is the server's own start: ``baseline_options``), smallest of them
    first, and holds each module until the runtime takes it. The paths in ``first`` (the
    bundled tools, which must be in a client's first listing) are chosen and compiled before
    all others: a folder of large tools of the user's own must not keep them waiting.

    Smallest first: the largest is the last to be ready whatever the order, and the others are
    described while it compiles, rather than after it (the bundled Go tool's compile took a
    quarter second ahead of textkit's fiftieth: a first start's listing 4 to 7 % sooner,
    ``bench/bench_startup.py --only-cold``)."""

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
        chosen.sort(key=lambda item: (item[0] not in leading, sizes[item[0]], item[0]))
        log.debug("compiling %d WebAssembly file(s) before the server is put together: %s", len(chosen),
                  ", ".join(os.path.basename(path) for path, _ in chosen))
        self._thread = threading.Thread(target=self._compile_all, args=(chosen,), name="toolbay-early-compile",
                                        daemon=True)
        self._thread.start()

    def _compile_all(self, chosen: list[tuple[str, Future[_Compiled]]]) -> None:
        for path, future in chosen:
            if not future.set_running_or_notify_cancel():
                continue  # let go of (``drop``)
            sha256, module = "", None
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
                sha256 = hashlib.sha256(data).hexdigest()
                module = wasmtime.Module(self.compiler.engine, data)
            except Exception as error:  # noqa: BLE001 - the runtime reads and compiles it again, and says why
                log.debug("compiling %s early failed: %s", path, error)
            future.set_result((sha256, module))

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
