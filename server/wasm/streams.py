"""Standard streams of a guest: input from memory, output captured in memory up to a cap."""

from __future__ import annotations

import ctypes
from typing import Protocol

import wasmtime
from wasmtime import _ffi as ffi


class Sink(Protocol):
    """Where a guest's output goes: ``CappedOutput``, or stderr's ``GuestStderr`` around one."""

    def write(self, data: bytes | memoryview) -> int: ...


class CappedOutput:
    """Keeps the first ``limit`` bytes written; counts the rest as dropped.

    The guest is told every write succeeded, so a tool that prints too much still finishes.
    """

    __slots__ = ("limit", "buffer", "dropped")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buffer = bytearray()
        self.dropped = 0

    def write(self, data: bytes | memoryview) -> int:
        room = self.limit - len(self.buffer)
        if room >= len(data):
            self.buffer += data
        else:
            if room > 0:
                self.buffer += data[:room]
            self.dropped += len(data) - max(room, 0)
        return len(data)

    @property
    def truncated(self) -> bool:
        return self.dropped > 0


def set_stdin_bytes(config: wasmtime.WasiConfig, data: bytes) -> None:
    """Standard input that reads ``data`` then EOF (and so never blocks)."""
    vec = ffi.wasm_byte_vec_t()
    buffer = (ffi.wasm_byte_t * len(data)).from_buffer_copy(data) if data else None
    ffi.wasm_byte_vec_new(ctypes.byref(vec), len(data), buffer)
    ffi.wasi_config_set_stdin_bytes(config.ptr(), ctypes.byref(vec))  # takes ownership of vec
