"""log_level = "debug": one line per call, whatever its end, cancelled by its client too."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import anyio
import pytest

from tests.conftest import FIXTURE_WASM
from toolbay.assembly import assemble
from toolbay.chain.call import ToolCall
from toolbay.config import load_settings
from toolbay.words import CallContext

pytestmark = pytest.mark.anyio


async def test_a_call_its_client_cancelled_has_its_debug_line(
        tmp_path: Path, shared_data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Calls that ended, failed, were refused or became jobs each had a line; one the client
    cancelled had none (an outside probe)."""
    folder = tmp_path / "tools"
    folder.mkdir()
    shutil.copy2(FIXTURE_WASM / "slow.wasm", folder / "slow.wasm")
    settings = load_settings(None, extensions=[folder], data_dir=shared_data_dir, jobs={"sync_budget_s": 60})
    caplog.set_level(logging.DEBUG, logger="toolbay.app")
    async with assemble(settings, watch=False) as app:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                call = ToolCall(name="slow", arguments={"ms": 60_000}, context=CallContext(), transport="memory")
                group.start_soon(app.call, call)
                while "validate" not in call.timings:  # its checks are done: it runs
                    await anyio.sleep(0.01)
                group.cancel_scope.cancel()
    lines = [r.getMessage() for r in caplog.records if r.name == "toolbay.app" and r.getMessage().startswith("call ")]
    assert any(line.startswith("call 'slow' by ") and "(memory): cancelled in" in line for line in lines), lines
