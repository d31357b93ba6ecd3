"""On-disk caches: entries of versions nobody uses any more are removed, others are kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import toolbay.description_cache as description_cache
from toolbay.cache_pruning import PRUNE_EVERY_S, PRUNED_STAMP, UNUSED_FOR_S, prune_caches
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import Settings
from toolbay.description_cache import CachedCommand, CachedFile, DescriptionCache
from toolbay.discovery import tool_name_for

pytestmark = pytest.mark.anyio

OLD = "a" * 64
RECENT = "b" * 64
IN_USE = "c" * 64
ENTRY = CachedFile((CachedCommand("tool", (), {"name": "tool"}, {"builder": "test"}),))


def _entry(folder: Path, name: str, age_s: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"cached")
    _age(path, age_s)
    return path


def _age(path: Path, seconds: float) -> None:
    when = time.time() - seconds
    os.utime(path, (when, when))


def _describe(folder: Path, sha: str, days_ago: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index entry for ``sha`` last used ``days_ago``."""
    with monkeypatch.context() as patch:
        patch.setattr(description_cache, "today", lambda: int(time.time() // 86400) - days_ago)
        cache = DescriptionCache(folder)
        cache.put(sha, "tool", ENTRY)
        cache.flush()


def _described(folder: Path) -> set[str]:
    cache = DescriptionCache(folder)
    return {sha for sha in (OLD, RECENT, IN_USE) if cache.get(sha, "tool") is not None}


def test_only_unused_and_long_untouched_entries_are_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old_module = _entry(tmp_path / "modules", f"{OLD}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    old_description = _entry(tmp_path / "descriptions", f"{OLD}-tool.json", UNUSED_FOR_S + 60)  # toolbay 0.1
    recent = _entry(tmp_path / "modules", f"{RECENT}-fingerprint.cwasm", 60)
    in_use = _entry(tmp_path / "modules", f"{IN_USE}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    for sha, days in ((OLD, 31), (RECENT, 1), (IN_USE, 31)):
        _describe(tmp_path / "descriptions", sha, days, monkeypatch)
    assert prune_caches(tmp_path, {IN_USE}) == 3
    assert not old_module.exists() and not old_description.exists()
    assert recent.exists() and in_use.exists()
    assert _described(tmp_path / "descriptions") == {RECENT, IN_USE}
    assert (tmp_path / "descriptions" / description_cache.INDEX_NAME).exists()


def test_pruning_runs_at_most_once_a_day(tmp_path: Path) -> None:
    stale = _entry(tmp_path / "modules", f"{OLD}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    (tmp_path / PRUNED_STAMP).touch()
    assert prune_caches(tmp_path, set()) == 0
    assert stale.exists()
    _age(tmp_path / PRUNED_STAMP, PRUNE_EVERY_S + 60)
    assert prune_caches(tmp_path, set()) == 1
    assert not stale.exists()


async def test_starting_the_server_prunes_but_keeps_what_its_tools_use(
    settings: Settings, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with CatalogKeeper.open(settings) as app:
        in_use = app.hashes_in_use()
    stale = _entry(settings.data_dir / "modules", f"{OLD}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    _describe(settings.data_dir / "descriptions", OLD, 31, monkeypatch)
    # Make the live entries look old too: a start must keep them because its tools use them.
    live = [path for path in (settings.data_dir / "modules").iterdir() if path.name[:64] in in_use]
    for path in live:
        _age(path, UNUSED_FOR_S + 60)
    _age(settings.data_dir / PRUNED_STAMP, PRUNE_EVERY_S + 60)  # the last pruning was yesterday
    async with CatalogKeeper.open(settings) as app:
        hashsum = app.catalog.current.get("hashsum")
        assert hashsum is not None
        # The wasm tools' descriptions (Python modules' live in their own cache, data_dir/python).
        described = {(outcome.sha256, tool_name_for(path)) for path, outcome in app._files.items()
                     if outcome.handlers and path.endswith(".wasm")}
    assert not stale.exists()
    assert all(path.exists() for path in live)
    cache = DescriptionCache(settings.data_dir / "descriptions")
    assert cache.get(OLD, "tool") is None
    assert all(cache.get(sha, stem) is not None for sha, stem in described if sha is not None)


def test_python_module_descriptions_of_versions_nobody_uses_are_removed_and_a_read_keeps_one(
    tmp_path: Path
) -> None:
    from toolbay.pytools.cache import PythonDescriptionCache

    cache = PythonDescriptionCache(tmp_path / "python")
    for sha in (OLD, RECENT, IN_USE):
        cache.put(sha, {"description": {"tools": []}})
        _age(tmp_path / "python" / f"{sha}.json", UNUSED_FOR_S + 60)
    leftover = _entry(tmp_path / "python", "tmpab12cd.tmp", UNUSED_FOR_S + 60)  # a crash mid-write
    assert cache.get(RECENT) is not None  # used today: marked so
    assert prune_caches(tmp_path, {IN_USE}) == 2
    assert not (tmp_path / "python" / f"{OLD}.json").exists() and not leftover.exists()
    assert cache.get(RECENT) is not None and cache.get(IN_USE) is not None
