"""Running WASI preview 1 command modules in a sandbox (wasmtime).

See ``runtime`` for running guests, ``sandbox`` for what a tier may see, ``interrupt`` for how a
guest is stopped, ``cache`` for compiled modules on disk, ``errors`` for the one place wasmtime
errors are translated.

The names below load with their module when first used: a first start imports
``toolbay.wasm.compilers`` before anything else (``toolbay.first_start``), and the runtime's
modules (with asyncio) would be most of that import's time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolbay.wasm.cache import CacheStats
    from toolbay.wasm.errors import map_wasmtime_errors
    from toolbay.wasm.inspect import inspect_module
    from toolbay.wasm.runtime import WasmModule, WasmRuntime
    from toolbay.wasm.sandbox import WORKSPACE_GUEST_PATH, sandbox_for
    from toolbay.wasm.types import Preopen, RunRequest, RunResult, SandboxLimits

_WHERE = {
    "CacheStats": "cache",
    "map_wasmtime_errors": "errors",
    "inspect_module": "inspect",
    "WasmModule": "runtime",
    "WasmRuntime": "runtime",
    "WORKSPACE_GUEST_PATH": "sandbox",
    "sandbox_for": "sandbox",
    "Preopen": "types",
    "RunRequest": "types",
    "RunResult": "types",
    "SandboxLimits": "types",
}

__all__ = [
    "WORKSPACE_GUEST_PATH",
    "CacheStats",
    "Preopen",
    "RunRequest",
    "RunResult",
    "SandboxLimits",
    "WasmModule",
    "WasmRuntime",
    "inspect_module",
    "map_wasmtime_errors",
    "sandbox_for",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # once: later lookups find it here
    return value
