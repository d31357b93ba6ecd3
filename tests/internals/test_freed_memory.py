"""Memory freed by the process goes back to the system when asked (glibc keeps it otherwise)."""

from __future__ import annotations

import ctypes
import sys

import pytest

from toolbay.freed_memory import give_back_freed_memory

BLOCKS, BLOCK_BYTES = 40_000, 1024  # 40 MB in small blocks, as a compiler's allocations are


def resident_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_memory_freed_in_small_blocks_is_given_back() -> None:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(BLOCK_BYTES) for _ in range(BLOCKS)]
    for block in blocks:
        ctypes.memset(block, 1, BLOCK_BYTES)  # touched, so resident
    pinned = libc.malloc(BLOCK_BYTES)  # above them all: the heap's top cannot shrink past it by itself
    for block in blocks:
        libc.free(block)
    held = resident_kb()
    try:
        assert give_back_freed_memory()
        given_back = held - resident_kb()
    finally:
        libc.free(pinned)
    assert given_back > BLOCKS * BLOCK_BYTES // 1024 // 2, f"{given_back} kB given back"
