"""What a Python tool worker does before it imports its module: its own code is read from
the bytecode Python keeps, not compiled at every start, and it loads no module it needs not.

Real confined workers (``python -I guest/start.py``) started from a copy of the guest folder,
so that what they write beside their code is this test's to look at."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import anyio
import pytest

from toolbay.pytools import WorkerPool, WorkerSpec, workers

pytestmark = pytest.mark.anyio

GUEST = Path(workers.WORKER_SCRIPT).parent
# A module that imports nothing: what is loaded in its worker is the worker's own doing.
_LOADED = (
    "import sys\n\n\ndef get_tool_schemas():\n"
    "    return [{'name': 'loaded', 'description': 'd', 'input_schema': {'type': 'object'}}]\n\n\n"
    "def loaded():\n    return ' '.join(sorted(sys.modules))\n")


async def _no_credentials(name: str, key: str, env_var: str | None) -> tuple[str | None, str]:
    return None, "none here"


@pytest.fixture
def guest_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The guest folder copied without its kept bytecode; workers are started from it."""
    copy = tmp_path / "guest"
    shutil.copytree(GUEST, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(workers, "WORKER_START", copy / "start.py")
    return copy


async def _modules_loaded(tmp_path: Path) -> set[str]:
    """The modules loaded in a confined worker of a module that imports nothing, as it is called."""
    module = tmp_path / "loaded.py"
    module.write_text(_LOADED, encoding="utf-8")
    pool = WorkerPool(WorkerSpec(path=str(module), module="loaded"), max_workers=1)
    try:
        with anyio.fail_after(60):
            answer = await pool.call("loaded", {}, {}, _no_credentials)
    finally:
        await pool.close()
    assert not answer.get("is_error"), answer
    return set(str(answer["text"]).split())


async def test_a_workers_code_is_kept_as_bytecode_by_its_first_start(guest_copy: Path, tmp_path: Path) -> None:
    """Run by path, the worker's thousand lines were compiled at every start (a fifth of its
    processor time), and ``toolbay_tools``, imported once confined, could not be kept either."""
    loaded = await _modules_loaded(tmp_path)
    assert "toolbay_tools" in loaded
    for source in (guest_copy / "worker.py", guest_copy / "lib" / "toolbay_tools.py"):
        # Beside it: a worker starts with -I, which reads no PYTHONPYCACHEPREFIX (as this test process may).
        kept = source.parent / "__pycache__" / f"{source.stem}.{sys.implementation.cache_tag}.pyc"
        assert kept.is_file(), f"no bytecode kept for {source.name}"


async def test_a_worker_loads_neither_platform_nor_typing_for_a_module_that_imports_nothing(
        guest_copy: Path, tmp_path: Path) -> None:
    """The machine's name is os.uname's; the worker's annotations need typing only to be checked."""
    loaded = await _modules_loaded(tmp_path)
    assert {"json", "toolbay_tools", "landlock", "seccomp"} <= loaded, sorted(loaded)
    assert not {"platform", "typing"} & loaded, sorted({"platform", "typing"} & loaded)
