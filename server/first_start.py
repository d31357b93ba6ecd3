"""A first start's compiles, begun before the server is put together (``toolbay.wasm.early``).

On a first start (nothing described, nothing compiled in the data folder) every WebAssembly
tool in the extension folders is compiled before its help can be read. ``serve`` hands them
to ``EarlyCompiles`` as soon as it has forked, so they (the largest, up to its budget)
compile while the server's modules load; its runtime then takes them. Any other start
compiles little or nothing, and what it does compile is left to the runtime, so no work is
done that might be thrown away.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolbay.config import BUNDLED_EXTENSIONS, Settings
from toolbay.description_cache import INDEX_NAME
from toolbay.wasm.compilers import baseline_compiler
from toolbay.wasm.early import EarlyCompiles


def runtime_sizing(settings: Settings) -> tuple[bool, int]:
    """(consume_fuel, max_workers) of the server's WebAssembly runtime. The job manager decides
    how many calls run at once; a guest that sleeps still holds a worker thread, so the runtime
    must have one per call the manager lets run, or long jobs starve every other call."""
    return settings.sandbox.fuel is not None, max(settings.jobs.max_concurrent, os.cpu_count() or 1)


def is_first_start(data_dir: Path) -> bool:
    """Nothing described (``descriptions/``) and nothing compiled (``modules/``) in ``data_dir``."""
    if (data_dir / "descriptions" / INDEX_NAME).exists():
        return False
    modules = data_dir / "modules"
    return not (modules.is_dir() and any(modules.glob("*.cwasm")))


def compile_early(settings: Settings) -> EarlyCompiles | None:
    """The extension folders' modules compiling on a thread, on a first start with the baseline
    compiler on (``[discovery] quick_compile``); None otherwise."""
    if not settings.discovery.quick_compile or not is_first_start(settings.data_dir):
        return None
    # EarlyCompiles chooses among them and orders them (largest first).
    paths = [path for folder in settings.extensions if folder.is_dir() for path in folder.glob("*.wasm")
             if path.is_file()]
    if not paths:
        return None
    consume_fuel, max_workers = runtime_sizing(settings)
    bundled = BUNDLED_EXTENSIONS.resolve()
    return EarlyCompiles(baseline_compiler(consume_fuel, max_workers), paths,
                         first=[path for path in paths if path.parent.resolve() == bundled])
