"""Compiling modules before the runtime asks for them, on a thread of their own.

On a first start every WebAssembly tool is compiled before its help can be read, and the
largest (the bundled 7 MB Go tool) is most of the wait. ``serve`` starts those compiles as
soon as it has forked, while the server's own modules are still being imported: wasmtime
compiles outside Python's lock, so the two overlap. The runtime (``WasmRuntime.load``) then
takes a module compiled here, by its content's sha256, instead of compiling it again.

The code is only usable on the engine that made it, so the runtime uses this compiler as
its own baseline compiler when it was made with the same settings (``Compiler.options``).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path

import wasmtime

from toolbay.wasm.compilers import Compiler

log = logging.getLogger(__name__)


class EarlyCompiles:
    """Compiles ``paths`` one after another, largest first (each compile already uses every
    core), and holds each module until the runtime takes it."""

    def __init__(self, compiler: Compiler, paths: Sequence[Path]) -> None:
        self.compiler = compiler
        self.taken = 0
        self._lock = threading.Lock()
        # sha256 of a file's content -> its module (None: it did not compile here).
        self._modules: dict[str, Future[wasmtime.Module | None]] = {}
        # Hashing is a few milliseconds a file; reading them all first lets the runtime wait on
        # a module still being compiled rather than compile it a second time.
        self._work: list[tuple[Future[wasmtime.Module | None], bytes]] = []
        for path in sorted(paths, key=_size, reverse=True):
            try:
                data = path.read_bytes()
            except OSError:
                continue  # the runtime reads it again, and says what is wrong
            future: Future[wasmtime.Module | None] = Future()
            self._modules.setdefault(hashlib.sha256(data).hexdigest(), future)
            self._work.append((future, data))
        self._thread = threading.Thread(target=self._compile_all, name="toolbay-early-compile", daemon=True)
        self._thread.start()

    def _compile_all(self) -> None:
        for future, data in self._work:
            try:
                future.set_result(wasmtime.Module(self.compiler.engine, data))
            except Exception as error:  # noqa: BLE001 - the runtime compiles it again and reports why
                log.debug("compiling early failed: %s", error)
                future.set_result(None)
        self._work = []

    def take(self, sha256: str) -> wasmtime.Module | None:
        """The module with this content, waiting for its compile if it is under way; None if it
        was not compiled here (or failed to, or was taken already)."""
        with self._lock:
            future = self._modules.pop(sha256, None)
        if future is None:
            return None
        module = future.result()
        if module is not None:
            self.taken += 1
        return module


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
