"""Keeping the on-disk caches from growing without end.

Compiled modules (``modules/``) and tool descriptions (``descriptions/``) are named after
the sha256 of the ``.wasm`` they came from. Every rebuilt-and-copied version of a tool
leaves one of each behind. Several servers may share one data folder (the default is
per user, not per project), so an entry is only removed when *this* server's folders
do not use its hash and nobody has used it for ``UNUSED_FOR_S``: using an entry
refreshes its modification time (at most once a day, see ``touch_if_stale``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path

logger = logging.getLogger(__name__)

UNUSED_FOR_S = 30 * 24 * 3600
TOUCH_EVERY_S = 24 * 3600
CACHE_FOLDERS = ("modules", "descriptions")


def touch_if_stale(fd: int) -> None:
    """Marks an open cache entry as used, if its mark is over a day old (one fstat otherwise)."""
    try:
        if time.time() - os.fstat(fd).st_mtime > TOUCH_EVERY_S:
            os.utime(fd)
    except OSError:  # a read-only data folder still serves; it just cannot be pruned well
        pass


def prune_caches(data_dir: Path, in_use: Iterable[str], *, unused_for_s: float = UNUSED_FOR_S) -> int:
    """Removes cache entries of hashes not ``in_use`` and untouched for ``unused_for_s``.
    Returns how many files were removed. Never raises: pruning is housekeeping."""
    keep = set(in_use)
    cutoff = time.time() - unused_for_s
    removed = 0
    for folder in CACHE_FOLDERS:
        try:
            entries = list(os.scandir(data_dir / folder))
        except OSError:
            continue
        for entry in entries:
            owner = entry.name.split("-", 1)[0]
            if owner in keep or not entry.is_file(follow_symlinks=False):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                    continue
                os.unlink(entry.path)
                removed += 1
            except OSError as exc:
                logger.debug("could not prune %s: %s", entry.path, exc)
    if removed:
        logger.info("removed %d cache entries no tool has used for %d days", removed, unused_for_s // 86400)
    return removed
