"""Is this file a WASI preview 1 command? Each check that fails names its reason in one line."""

from __future__ import annotations

import os
from pathlib import Path

import wasmtime

from toolbay.errors import WasmRejected
from toolbay.tool_files import open_tool_file, too_large
from toolbay.wasm.errors import map_load_errors

WASI_MODULE = "wasi_snapshot_preview1"
_MAGIC = b"\x00asm"
_CORE_VERSION = b"\x01\x00\x00\x00"


def check_header(path: Path, data: bytes) -> None:
    """The first eight bytes: a core module, not junk or a component."""
    if len(data) < 8 or data[:4] != _MAGIC:
        raise WasmRejected(str(path), "not a WebAssembly file (no \\0asm header)")
    if data[6:8] == b"\x01\x00":
        raise WasmRejected(str(path), "a WebAssembly component (WASI preview 2), not a WASI preview 1 module")
    if data[4:8] != _CORE_VERSION:
        raise WasmRejected(str(path), f"unsupported WebAssembly version {data[4:8].hex()}")


def read_module(path: Path) -> bytes:
    """The bytes of the WebAssembly file at ``path``, read whole only once its first eight bytes
    are a core module's and its size at most a tool's (``toolbay.tool_files``): a 2 GB file of junk named
    ``.wasm`` was read into memory before its header said it was none (and, with a memory limit,
    ended the server). Raises ``WasmRejected`` with a one-line reason."""
    try:
        # Not to block: a name leading to a file whose reads wait (a kernel log) held a describing
        # thread for good. Such a file reads as what it has, or nothing: no module.
        with open_tool_file(path) as file:
            head = file.read(8) or b""
            check_header(path, head)
            if (why := too_large(os.fstat(file.fileno()).st_size, "a module")) is not None:
                raise WasmRejected(str(path), why)
            return head + (file.read() or b"")
    except OSError as error:
        raise WasmRejected(str(path), f"cannot read: {error.strerror or error}") from None


def check_interface(path: Path, module: wasmtime.Module) -> None:
    """Imports only from WASI preview 1, and exports ``_start: () -> ()``."""
    for imp in module.imports:
        if imp.module != WASI_MODULE:
            raise WasmRejected(
                str(path), f"imports {imp.module}.{imp.name}, which is not WASI preview 1")
    for exp in module.exports:
        if exp.name == "_start":
            ty = exp.type
            if not isinstance(ty, wasmtime.FuncType) or ty.params or ty.results:
                raise WasmRejected(str(path), "_start is not a function without parameters and results")
            return
    raise WasmRejected(str(path), "no _start export: a library (reactor), not a command")


def inspect_module(path: Path, engine: wasmtime.Engine | None = None) -> wasmtime.Module:
    """Validates and compiles ``path``; raises ``WasmRejected`` with a one-line reason."""
    data = read_module(path)
    with map_load_errors(str(path)):
        module = wasmtime.Module(engine or wasmtime.Engine(), data)
    check_interface(path, module)
    return module
