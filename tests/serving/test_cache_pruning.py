"""On-disk caches: entries of versions nobody uses any more are removed, others are kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from server.app import Toolbay
from server.cache_pruning import UNUSED_FOR_S, prune_caches
from server.config import Settings

pytestmark = pytest.mark.anyio

OLD = "a" * 64
RECENT = "b" * 64


def _entry(folder: Path, name: str, age_s: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"cached")
    when = time.time() - age_s
    os.utime(path, (when, when))
    return path


def test_only_unused_and_long_untouched_entries_are_removed(tmp_path: Path) -> None:
    old_module = _entry(tmp_path / "modules", f"{OLD}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    old_description = _entry(tmp_path / "descriptions", f"{OLD}-tool.json", UNUSED_FOR_S + 60)
    recent = _entry(tmp_path / "modules", f"{RECENT}-fingerprint.cwasm", 60)
    in_use = _entry(tmp_path / "modules", f"{'c' * 64}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    assert prune_caches(tmp_path, {"c" * 64}) == 2
    assert not old_module.exists() and not old_description.exists()
    assert recent.exists() and in_use.exists()


async def test_starting_the_server_prunes_but_keeps_what_its_tools_use(settings: Settings) -> None:
    async with Toolbay.open(settings) as app:
        in_use = app.hashes_in_use()
    stale = _entry(settings.data_dir / "modules", f"{OLD}-fingerprint.cwasm", UNUSED_FOR_S + 60)
    # Make the live entries look old too: a start must keep them because its tools use them.
    for folder in ("modules", "descriptions"):
        for path in (settings.data_dir / folder).iterdir():
            if path.name.split("-", 1)[0] in in_use:
                when = time.time() - UNUSED_FOR_S - 60
                os.utime(path, (when, when))
    async with Toolbay.open(settings) as app:
        hashsum = app.catalog.current.get("hashsum")
        assert hashsum is not None
    assert not stale.exists()
    kept = {p.name.split("-", 1)[0] for p in (settings.data_dir / "descriptions").iterdir()}
    assert in_use <= kept
