"""Running WASI preview 1 command modules in a sandbox (wasmtime).

See ``runtime`` for running guests, ``sandbox`` for what a tier may see, ``interrupt`` for how a
guest is stopped, ``cache`` for compiled modules on disk, ``errors`` for the one place wasmtime
errors are translated.
"""

from toolbay.wasm.cache import CacheStats
from toolbay.wasm.errors import map_wasmtime_errors
from toolbay.wasm.inspect import inspect_module
from toolbay.wasm.runtime import WASMTIME_VERSION, WasmModule, WasmRuntime
from toolbay.wasm.sandbox import WORKSPACE_GUEST_PATH, sandbox_for
from toolbay.wasm.types import Preopen, RunRequest, RunResult, SandboxLimits

__all__ = [
    "WASMTIME_VERSION",
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
