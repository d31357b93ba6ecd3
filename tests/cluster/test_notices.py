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


async def test_a_notice_nested_too_deeply_stops_no_replica_from_hearing_the_next(
        redis_url: str, extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    """Anything on ``toolbay:catalog`` that is no notice of toolbay's is left; JSON nested too
    deeply for Python's reader (100,000 brackets, published by hand or by another program)
    raised RecursionError, not the ValueError looked for, and ended the replica's listener: its
    server stopped, and with it every replica subscribed."""
    import redis.asyncio as aioredis

    from toolbay.cluster.notices import CATALOG_CHANNEL

    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             cluster={"redis": redis_url})
    foreign = aioredis.from_url(redis_url)
    try:
        async with assemble(settings, watch=False) as replica:
            with anyio.fail_after(120):
                while await foreign.publish(CATALOG_CHANNEL, "[" * 100_000 + "]" * 100_000) < 1:
                    await anyio.sleep(0.01)
                told, heard = anyio.create_memory_object_stream[object](10)
                replica.sessions.bus.subscribe(told.send_nowait)  # what its sessions are told
                shutil.copy(FIXTURE_WASM / "echo.wasm", extensions_dir / "echo.wasm")
                await foreign.publish(CATALOG_CHANNEL, '{"from": "another replica"}')
                async with heard:
                    async for _event in heard:
                        if "echo" in {d.name for d in replica.catalog.current.definitions()}:
                            break
                told.close()
    finally:
        await foreign.aclose()
