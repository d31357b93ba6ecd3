"""Compiled modules on disk, so a module is compiled once per wasmtime version and engine settings.

An entry is native code that wasmtime maps and runs, so it is never trusted blindly: its name
carries the module's sha256 and the engine fingerprint (which names the compiler, so code from
the baseline compiler is never taken for optimised code), its header repeats the fingerprint and
a sha256 of the payload, and anything that does not match (or fails to deserialize) is
compiled again and rewritten. Entries are written to a temporary file and renamed into place.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import wasmtime

from toolbay.atomic_files import replacing
from toolbay.cache_pruning import touch_if_stale
from toolbay.internals.wasmtime_capi import serialized

log = logging.getLogger(__name__)

_MAGIC = b"toolbay-cwasm-1\n"


@dataclass(slots=True)
class CacheStats:
    hits: int = 0
    misses: int = 0
    rebuilds: int = 0


class ModuleCache:
    """``<directory>/<module sha256>-<engine fingerprint>.cwasm``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.stats = CacheStats()
        directory.mkdir(parents=True, exist_ok=True)

    def entry_path(self, sha256: str, fingerprint: str) -> Path:
        return self.directory / f"{sha256}-{fingerprint}.cwasm"

    def load(self, sha256: str,
             candidates: Sequence[tuple[str, wasmtime.Engine]]) -> tuple[int, wasmtime.Module] | None:
        """The first usable entry among ``candidates`` (engine fingerprint, engine), best first,
        as its index and module; or None after counting a miss. An unusable entry counts a rebuild."""
        for index, (fingerprint, engine) in enumerate(candidates):
            path = self.entry_path(sha256, fingerprint)
            try:
                with path.open("rb") as handle:
                    # The header and the code are read apart: the code is then one object,
                    # never copied out of a larger one (each copy of 22 MB holds Python's lock).
                    header = handle.read(_header_size(fingerprint))
                    payload = handle.read()
                    touch_if_stale(handle.fileno())
            except FileNotFoundError:
                continue
            except OSError as error:
                # A folder there, or a file this user may not read (a copy by hand, a restore):
                # every call of every tool it held failed as an internal error, and the module
                # was never compiled again. It is compiled, and used from memory.
                log.warning("compiled-module cache entry %s cannot be read (%s); compiling again", path,
                            error.strerror or error)
                self.stats.rebuilds += 1
                return None
            module = self._decode(engine, fingerprint, header, payload)
            if module is None:
                log.warning("compiled-module cache entry %s is corrupt or stale; compiling again", path.name)
                self.stats.rebuilds += 1
                return None
            self.stats.hits += 1
            return index, module
        self.stats.misses += 1
        return None

    def store(self, sha256: str, fingerprint: str, module: wasmtime.Module) -> None:
        # The code is hashed and written where wasmtime made it, never copied: each copy (22 MB
        # for the Go tool) is made holding Python's lock, into fresh pages, and a first start's
        # listing waited for three of them.
        with replacing(self.entry_path(sha256, fingerprint), suffix=".cwasm") as out, serialized(module) as payload:
            out.write(_prefix(fingerprint) + hashlib.sha256(payload).digest())
            out.write(payload)

    def remove(self, sha256: str, fingerprint: str) -> None:
        self.entry_path(sha256, fingerprint).unlink(missing_ok=True)

    @staticmethod
    def _decode(engine: wasmtime.Engine, fingerprint: str, header: bytes, payload: bytes) -> wasmtime.Module | None:
        prefix = _prefix(fingerprint)
        if len(header) != _header_size(fingerprint) or not header.startswith(prefix):
            return None
        if hashlib.sha256(payload).digest() != header[len(prefix):]:
            return None
        try:
            return wasmtime.Module.deserialize(engine, payload)
        except wasmtime.WasmtimeError as error:
            error.__traceback__ = None
            return None


def _prefix(fingerprint: str) -> bytes:
    return _MAGIC + fingerprint.encode() + b"\n"


def _header_size(fingerprint: str) -> int:
    """The prefix, then the payload's sha256."""
    return len(_prefix(fingerprint)) + hashlib.sha256().digest_size
