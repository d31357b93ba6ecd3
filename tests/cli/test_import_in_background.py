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
