"""``serve`` loads the MCP SDK on a thread while the tools are described
(``background_import.ImportInBackground``): the module is there once ``loaded`` returns, ``then`` runs
after it, and a module that fails to import fails again, with its own error, where it is used."""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolbay.background_import import ImportInBackground

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def module_folder(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("toolbay_bg_probe")]:
            del sys.modules[name]


async def test_the_module_is_loaded_on_another_thread_and_then_runs_after_it(module_folder: Path) -> None:
    (module_folder / "toolbay_bg_probe_ok.py").write_text(
        "import threading\nLOADED_ON = threading.current_thread().name\n")
    order: list[str] = []
    loading = ImportInBackground(
        "toolbay_bg_probe_ok", then=lambda: order.append(f"then, loaded: {'toolbay_bg_probe_ok' in sys.modules}"))
    await loading.loaded()
    module = sys.modules["toolbay_bg_probe_ok"]
    assert threading.current_thread().name != module.LOADED_ON
    assert order == ["then, loaded: True"]


async def test_a_module_that_fails_to_import_says_why_where_it_is_used(module_folder: Path) -> None:
    (module_folder / "toolbay_bg_probe_broken.py").write_text("raise ValueError('the probe is broken')\n")
    ran_then = threading.Event()
    loading = ImportInBackground("toolbay_bg_probe_broken", then=ran_then.set)
    await loading.loaded()
    assert ran_then.is_set()
    with pytest.raises(ValueError, match="the probe is broken"):
        importlib.import_module("toolbay_bg_probe_broken")


async def test_a_finished_import_is_loaded_without_a_worker_thread(module_folder: Path) -> None:
    """The server waits for the MCP SDK's import once its tools are described; on a first start
    that import ended long before, and joining it on a worker thread waited for one to start
    (or be free) while the client waited for its first listing. Here every worker thread is
    taken: ``loaded`` must not need one."""
    import anyio.to_thread

    (module_folder / "toolbay_bg_probe_done.py").write_text("")
    done = threading.Event()
    loading = ImportInBackground("toolbay_bg_probe_done", then=done.set)
    await anyio.to_thread.run_sync(loading.wait, 60.0)  # the import and ``then`` have ended
    assert done.is_set() and not loading.underway()
    limiter = anyio.to_thread.current_default_thread_limiter()
    limiter.total_tokens = 1
    release = threading.Event()
    async with anyio.create_task_group() as group:
        busy = anyio.Event()

        async def hold_the_only_worker() -> None:
            busy.set()
            await anyio.to_thread.run_sync(release.wait)

        group.start_soon(hold_the_only_worker)
        await busy.wait()
        await anyio.sleep(0)  # the worker has its token
        try:
            with anyio.fail_after(30):  # a guard: without the worker it would wait until released
                await loading.loaded()
            assert limiter.borrowed_tokens == 1
        finally:
            release.set()
