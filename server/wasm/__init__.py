"""Running WASI preview 1 command modules in a sandbox (wasmtime).

See ``runtime`` for the runner, ``sandbox`` for what a tier may see, ``interrupt`` for how a
guest is stopped, ``cache`` for compiled modules on disk, ``errors`` for the one place wasmtime
errors are translated.
"""

from server.wasm.cache import CacheStats
from server.wasm.errors import map_wasmtime_errors
from server.wasm.inspect import inspect_module
from server.wasm.runtime import WASMTIME_VERSION, WasmModule, WasmRuntime
from server.wasm.sandbox import WORKSPACE_GUEST_PATH, sandbox_for
from server.wasm.types import Preopen, RunRequest, RunResult, SandboxLimits

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
