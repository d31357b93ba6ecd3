"""Keeping the on-disk caches from growing without end.

Compiled modules (``modules/<sha256>-….cwasm``), tool descriptions (entries of
``descriptions/index``) and Python module descriptions (``python/<sha256>.json``) are keyed
by the sha256 of the file they came from. Every
rebuilt-and-copied version of a tool leaves one of each behind. Several servers may share
one data folder (the default is per user, not per project), so an entry is only removed
when *this* server's folders do not use its hash and nobody has used it for
``UNUSED_FOR_S``: using a compiled module refreshes its file's modification time, using a
description its ``used`` day (each at most once a day, see ``touch_if_stale``).

Pruning looks at every entry, so a start does it at most once every ``PRUNE_EVERY_S``,
remembered by the modification time of ``PRUNED_STAMP`` in the data folder.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path

from toolbay.description_cache import DAY_S, DescriptionCache, today

logger = logging.getLogger(__name__)

UNUSED_FOR_S = 30 * 24 * 3600
TOUCH_EVERY_S = 24 * 3600
PRUNE_EVERY_S = 24 * 3600
PRUNED_STAMP = "pruned-at"
CACHE_FOLDERS = ("modules", "descriptions", "python")
_SHA256_LENGTH = 64


def touch_if_stale(fd: int) -> None:
    """Marks an open cache entry as used, if its mark is over a day old (one fstat otherwise)."""
    try:
        if time.time() - os.fstat(fd).st_mtime > TOUCH_EVERY_S:
            os.utime(fd)
    except OSError:  # a read-only data folder still serves; it just cannot be pruned well
        pass


def pruning_due(data_dir: Path, every_s: float = PRUNE_EVERY_S) -> bool:
    """Whether the last pruning of ``data_dir`` was ``every_s`` ago or more (or never). One stat."""
    try:
        return time.time() - os.stat(os.path.join(data_dir, PRUNED_STAMP)).st_mtime >= every_s
    except OSError:
        return True  # never pruned here


def prune_caches(
    data_dir: Path,
    in_use: Iterable[str],
    *,
    unused_for_s: float = UNUSED_FOR_S,
    every_s: float = PRUNE_EVERY_S,
) -> int:
    """Removes cache entries of hashes not ``in_use`` and untouched for ``unused_for_s``,
    unless the last pruning of ``data_dir`` was less than ``every_s`` ago.
    Returns how many entries were removed. Never raises: pruning is housekeeping."""
    if not pruning_due(data_dir, every_s):
        return 0
    stamp = data_dir / PRUNED_STAMP
    try:  # first, so that servers starting together do not all prune
        stamp.touch()
    except OSError as exc:
        logger.debug("could not stamp %s: %s", stamp, exc)
    keep = set(in_use)
    cutoff = time.time() - unused_for_s
    removed = 0
    for folder in CACHE_FOLDERS:
        try:
            entries = list(os.scandir(data_dir / folder))
        except OSError:
            continue
        for entry in entries:
            if not _is_cache_file(entry.name) or _owner(entry.name) in keep or not entry.is_file(follow_symlinks=False):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                    continue
                os.unlink(entry.path)
                removed += 1
            except OSError as exc:
                logger.debug("could not prune %s: %s", entry.path, exc)
    try:
        removed += DescriptionCache(data_dir / "descriptions").prune(keep, today() - int(unused_for_s // DAY_S))
    except (OSError, ValueError, TypeError) as exc:
        logger.debug("could not prune the description index: %s", exc)
    if removed:
        logger.info("removed %d cache entries no tool has used for %d days", removed, unused_for_s // 86400)
    return removed


def _owner(name: str) -> str:
    return name[:_SHA256_LENGTH]


def _is_cache_file(name: str) -> bool:
    """An entry named after a hash (``<sha256>-…`` or ``<sha256>.json``), or a temporary file a
    crash left behind (``.tmp-…``, or ``tmp….tmp`` of the Python description cache)."""
    if name.startswith(".tmp-") or name.startswith("tmp") and name.endswith(".tmp"):
        return True
    return len(name) > _SHA256_LENGTH and name[_SHA256_LENGTH] in "-."
