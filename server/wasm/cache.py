"""Compiled modules on disk, so a module is compiled once per wasmtime version and engine settings.

An entry is native code that wasmtime maps and runs, so it is never trusted blindly: its name
carries the module's sha256 and the engine fingerprint, its header repeats the fingerprint and
a sha256 of the payload, and anything that does not match (or fails to deserialize) is
compiled again and rewritten. Entries are written to a temporary file and renamed into place.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import wasmtime

from toolbay.cache_pruning import touch_if_stale

log = logging.getLogger(__name__)

_MAGIC = b"toolbay-cwasm-1\n"


@dataclass(slots=True)
class CacheStats:
    hits: int = 0
    misses: int = 0
    rebuilds: int = 0


class ModuleCache:
    """``<directory>/<module sha256>-<engine fingerprint>.cwasm``."""

    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.directory = directory
        self.fingerprint = fingerprint
        self.stats = CacheStats()
        directory.mkdir(parents=True, exist_ok=True)

    def entry_path(self, sha256: str) -> Path:
        return self.directory / f"{sha256}-{self.fingerprint}.cwasm"

    def load(self, engine: wasmtime.Engine, sha256: str) -> wasmtime.Module | None:
        """The cached module, or None after counting a miss (absent) or a rebuild (unusable)."""
        path = self.entry_path(sha256)
        try:
            with path.open("rb") as handle:
                blob = handle.read()
                touch_if_stale(handle.fileno())
        except FileNotFoundError:
            self.stats.misses += 1
            return None
        module = self._decode(engine, blob)
        if module is None:
            log.warning("compiled-module cache entry %s is corrupt or stale; compiling again", path.name)
            self.stats.rebuilds += 1
        else:
            self.stats.hits += 1
        return module

    def store(self, sha256: str, module: wasmtime.Module) -> None:
        payload = bytes(module.serialize())
        header = _MAGIC + self.fingerprint.encode() + b"\n" + hashlib.sha256(payload).digest()
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".cwasm", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(header + payload)
            os.replace(tmp, self.entry_path(sha256))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _decode(self, engine: wasmtime.Engine, blob: bytes) -> wasmtime.Module | None:
        prefix = _MAGIC + self.fingerprint.encode() + b"\n"
        if not blob.startswith(prefix) or len(blob) < len(prefix) + 32:
            return None
        digest = blob[len(prefix):len(prefix) + 32]
        payload = blob[len(prefix) + 32:]
        if hashlib.sha256(payload).digest() != digest:
            return None
        try:
            return wasmtime.Module.deserialize(engine, payload)
        except wasmtime.WasmtimeError as error:
            error.__traceback__ = None
            return None
