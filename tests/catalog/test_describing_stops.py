"""Describing stops when the server stops (Ctrl-C during a first start).

A tool whose ``--help`` runs on, or a Python module whose import takes long, once held the
server's exit until the help or describe timeout ran out. Describing that is cancelled now stops
the guest or kills the worker at once, and what was cut short is not remembered as the file's
own failure: the next start describes the file again.
"""

from __future__ import annotations

import hashlib
import shutil
import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from tests.conftest import FIXTURE_WASM
from toolbay import discovery as discovery_module
from toolbay.config import load_settings
from toolbay.discovery import Discovery
from toolbay.wasm import WasmRuntime

pytestmark = pytest.mark.anyio

# Bounds a wait for an event, far below the limits set below: a stop that waited for the help
# run or the import to time out would fail here instead.
PATIENCE_S = 60
HELP_TIMEOUT_S = 120  # the largest the settings allow
DESCRIBE_TIMEOUT_S = 600

SLOW_IMPORT = '''
import time

time.sleep(3600)  # an import that takes long (a model loading, a service slow to answer)


def get_tool_schemas():
    return [{"name": "never", "description": "never described", "inputSchema": {"type": "object"}}]


def dispatch(name, arguments):
    return "never"
'''


def _discovery(tmp_path: Path, runtime: WasmRuntime) -> Discovery:
    settings = load_settings(None, extensions=[tmp_path / "tools"], agents=[], data_dir=tmp_path / "data",
                             discovery={"help_timeout_s": HELP_TIMEOUT_S},
                             python={"describe_timeout_s": DESCRIBE_TIMEOUT_S})
    return Discovery(settings, runtime)


async def _cancel_once_begun(discovery: Discovery, path: Path, began: threading.Event) -> None:
    """Describes ``path``, and cancels that once ``began`` (the guest or worker is running)."""
    with anyio.fail_after(PATIENCE_S):
        async with anyio.create_task_group() as group:
            group.start_soon(discovery.describe_files, [str(path)])
            await anyio.to_thread.run_sync(began.wait)
            group.cancel_scope.cancel()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_a_help_that_runs_on_is_stopped_with_the_describing_and_not_remembered(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    spin = tmp_path / "tools" / "spin.wasm"
    shutil.copyfile(FIXTURE_WASM / "spin.wasm", spin)  # its help never ends
    runtime = WasmRuntime(cache_dir=tmp_path / "data" / "modules")
    began = threading.Event()
    run = runtime.run

    def running(*args: Any, **kwargs: Any) -> Any:
        began.set()
        return run(*args, **kwargs)

    runtime.run = running  # type: ignore[method-assign]
    try:
        discovery = _discovery(tmp_path, runtime)
        await _cancel_once_begun(discovery, spin, began)
        assert discovery.cache.get(_sha256(spin), "spin") is None  # not "its help did not end"
    finally:
        runtime.close()


async def test_a_slow_import_is_killed_with_the_describing_and_not_remembered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tools").mkdir()
    module = tmp_path / "tools" / "slowimport.py"
    module.write_text(SLOW_IMPORT)
    began = threading.Event()
    describe = discovery_module.describe_module

    def describing(*args: Any, **kwargs: Any) -> Any:
        began.set()
        return describe(*args, **kwargs)

    monkeypatch.setattr(discovery_module, "describe_module", describing)
    runtime = WasmRuntime(cache_dir=tmp_path / "data" / "modules")
    try:
        discovery = _discovery(tmp_path, runtime)
        await _cancel_once_begun(discovery, module, began)
        assert discovery.python_cache.get(_sha256(module)) is None  # not "took over 600 s"
    finally:
        runtime.close()
