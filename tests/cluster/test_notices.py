"""Catalog notices over Redis: a change one replica takes in reaches another that does not
watch the folder itself (as across machines, where inotify does not reach)."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from tests.conftest import FIXTURE_WASM
from toolbay.assembly import assemble
from toolbay.config import load_settings

pytestmark = pytest.mark.anyio


async def test_a_change_found_by_one_replica_is_taken_in_by_another_without_watching(
        redis_url: str, extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             cluster={"redis": redis_url})
    async with assemble(settings, watch=False) as first, assemble(settings, watch=False) as second:
        assert first.jobs.store.shared and first.jobs.store is not second.jobs.store
        assert "echo" not in {d.name for d in second.catalog.current.definitions()}
        told, heard = anyio.create_memory_object_stream[object](10)
        # What the second replica's own sessions and listen streams are told.
        second.sessions.bus.subscribe(told.send_nowait)
        shutil.copy(FIXTURE_WASM / "echo.wasm", extensions_dir / "echo.wasm")
        with anyio.fail_after(120):
            change = await first.rescan()  # only the first looks at the folder
            assert "echo" in change.added
            async with heard:
                async for _event in heard:
                    if "echo" in {d.name for d in second.catalog.current.definitions()}:
                        break
        told.close()
