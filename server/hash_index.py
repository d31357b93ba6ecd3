"""Remembered sha256 of tool files, so a warm start need not read every file again.

Like git's index: a file whose size, modification time, change time and inode are the
ones recorded with its hash is taken to have that hash. A file changed less than
``RACY_S`` before it was recorded is always hashed again, because a second write in
the same clock tick could leave every stat field equal. The index is one JSON file in
the data folder, written atomically; a missing or unreadable index only costs hashing.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from toolbay.atomic_files import write_whole

logger = logging.getLogger(__name__)

RACY_S = 2.0
FORMAT = 2  # {"files": {path: [size, mtime_ns, ctime_ns, inode, sha256]}}; format 1 is still read

# size, mtime_ns, ctime_ns, inode, sha256: one flat list a file, as JSON loads it (a warm
# start of thousands of tools makes no other object per file).
FileStamp = list[Any]


class HashIndex:
    def __init__(self, file: Path, hasher: Callable[[str], str]) -> None:
        self.file = file
        self.hasher = hasher
        self._entries: dict[str, FileStamp] = self._load()
        self._dirty = False
        self.hashed = 0  # files actually read, for tests and benchmarks

    def _load(self) -> dict[str, FileStamp]:
        try:
            data = json.loads(self.file.read_bytes())
            files = data["files"]
            if data.get("format") == 1:
                return {path: [*stamp, sha] for path, (stamp, sha) in files.items()}
            if data.get("format") != FORMAT or not isinstance(files, dict):
                return {}
            return files
        except FileNotFoundError:
            return {}
        except OSError as exc:  # a folder in its place, a file this user may not read: a cache
            logger.warning("ignoring the hash index %s, which cannot be read (%s): every file is hashed again",
                           self.file, exc.strerror or exc)
            return {}
        except (ValueError, KeyError, TypeError) as exc:
            logger.info("ignoring the hash index %s: %s", self.file, exc)
            return {}

    def hashes(self, paths: Iterable[Path]) -> dict[Path, str]:
        """The sha256 of each readable file; unreadable ones are left out."""
        paths = list(paths)
        found = self.hashes_of([(str(path), _stat_or_none(path)) for path in paths])
        return {path: found[key] for path, key in zip(paths, map(str, paths), strict=True) if key in found}

    def hashes_of(self, files: Iterable[tuple[str, os.stat_result | None]]) -> dict[str, str]:
        """``hashes`` of files given as their path and ``os.stat`` (None: unreadable), as
        ``discovery.scan_files`` lists them: a known file costs one lookup and one comparison."""
        result: dict[str, str] = {}
        entries = self._entries
        trusted_before_ns = time.time_ns() - int(RACY_S * 1e9)
        for path, now in files:
            known = entries.get(path)
            # Known, and changed long enough ago that a second write would have moved a time.
            if now is not None and known is not None and now.st_mtime_ns < trusted_before_ns and _same(known, now):
                result[path] = known[4]
                continue
            try:
                if now is None:
                    raise FileNotFoundError(path)
                digest = self.hasher(path)
                self.hashed += 1
                # Stat again: a file that changed while it was read must not be recorded.
                entry = [now.st_size, now.st_mtime_ns, now.st_ctime_ns, now.st_ino, digest]
                if _same(entry, os.stat(path)):
                    entries[path] = entry
                    self._dirty = True
                result[path] = digest
            except OSError:
                if entries.pop(path, None) is not None:
                    self._dirty = True
        return result

    def save(self) -> None:
        if not self._dirty:
            return
        payload = {"format": FORMAT, "files": self._entries}
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            write_whole(self.file, json.dumps(payload).encode(), suffix=".json")
            self._dirty = False
        except OSError as exc:  # a full or read-only disk costs speed next time, nothing else
            logger.warning("could not save the hash index: %s", exc)


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _same(known: FileStamp, stat: os.stat_result) -> bool:
    """Whether ``stat`` has the size, times and inode ``known`` recorded (an entry that is
    not one this index wrote has nothing)."""
    try:
        return (known[1] == stat.st_mtime_ns and known[0] == stat.st_size and known[2] == stat.st_ctime_ns
                and known[3] == stat.st_ino and isinstance(known[4], str))
    except (IndexError, KeyError, TypeError):
        return False
