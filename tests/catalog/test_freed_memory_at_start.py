"""A first start's compiles free much memory at once, which is given back to the system
(``toolbay.freed_memory``): on a server, not before its first listing has gone out."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import anyio
import pytest

import toolbay.catalog_keeper
import toolbay.wasm.runtime
from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import load_settings


def test_a_first_start_gives_back_its_freed_memory_once_its_first_listing_has_gone_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan that described the tools gave the memory back before it ended, and so before
    ``serve`` could read its client's first request (6 to 12 ms of trimming, on a worker
    thread the listing waited for). Held (``hold_background_work``, as ``serve`` holds it), the
    runtime gives it back once released, on its optimiser's thread."""
    folder = tmp_path / "tools"
    folder.mkdir()
    shutil.copy(BUNDLED_EXTENSIONS / "hashsum.wasm", folder / "hashsum.wasm")
    given_back: list[str] = []
    released_gave_back = threading.Event()

    def by_the_scan() -> bool:
        given_back.append("by the scan")
        return True

    def once_released() -> bool:
        given_back.append("once released")
        released_gave_back.set()
        return True

    monkeypatch.setattr(toolbay.catalog_keeper, "give_back_freed_memory", by_the_scan)
    monkeypatch.setattr(toolbay.wasm.runtime, "give_back_freed_memory", once_released)
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data")

    async def start() -> None:
        async with CatalogKeeper.open(settings, start_wait_s=60, hold_background_work=True) as keeper:
            assert "hashsum" in {definition.name for definition in keeper.catalog.current.definitions()}
            assert given_back == []
            keeper.runtime.release_background_work()  # the first listing has gone out
            assert await anyio.to_thread.run_sync(released_gave_back.wait, 60)  # a guard: it comes at once
        assert given_back == ["once released"]

    anyio.run(start)


def test_a_start_that_holds_nothing_gives_back_its_freed_memory_as_its_scan_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``toolbay list`` and the other commands hold no background work: they give it back as before."""
    folder = tmp_path / "tools"
    folder.mkdir()
    shutil.copy(BUNDLED_EXTENSIONS / "hashsum.wasm", folder / "hashsum.wasm")
    given_back: list[str] = []

    def by_the_scan() -> bool:
        given_back.append("scan")
        return True

    monkeypatch.setattr(toolbay.catalog_keeper, "give_back_freed_memory", by_the_scan)
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data")

    async def start() -> None:
        async with CatalogKeeper.open(settings):
            assert given_back == ["scan"]

    anyio.run(start)
