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
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

logger = logging.getLogger(__name__)

RACY_S = 2.0
FORMAT = 1

Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def _stamp(stat: os.stat_result) -> Stamp:
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


class HashIndex:
    def __init__(self, file: Path, hasher: Callable[[Path], str]) -> None:
        self.file = file
        self.hasher = hasher
        self._entries: dict[str, tuple[Stamp, str]] = self._load()
        self._dirty = False
        self.hashed = 0  # files actually read, for tests and benchmarks

    def _load(self) -> dict[str, tuple[Stamp, str]]:
        try:
            data = json.loads(self.file.read_bytes())
            if data.get("format") != FORMAT:
                return {}
            entries: dict[str, tuple[Stamp, str]] = {}
            for path, (stamp, sha) in data["files"].items():
                size, mtime_ns, ctime_ns, inode = stamp
                entries[path] = ((size, mtime_ns, ctime_ns, inode), sha)
            return entries
        except FileNotFoundError:
            return {}
        except (ValueError, KeyError, TypeError) as exc:
            logger.info("ignoring the hash index %s: %s", self.file, exc)
            return {}

    def hashes(self, paths: Iterable[Path]) -> dict[Path, str]:
        """The sha256 of each readable file; unreadable ones are left out."""
        result: dict[Path, str] = {}
        now_ns = time.time_ns()
        racy_ns = int(RACY_S * 1e9)
        for path in paths:
            key = str(path)
            try:
                stamp = _stamp(path.stat())
                known = self._entries.get(key)
                if known is not None and known[0] == stamp and now_ns - stamp[1] > racy_ns:
                    result[path] = known[1]
                    continue
                digest = self.hasher(path)
                self.hashed += 1
                # Stat again: a file that changed while it was read must not be recorded.
                if _stamp(path.stat()) == stamp:
                    self._entries[key] = (stamp, digest)
                    self._dirty = True
                result[path] = digest
            except OSError:
                if self._entries.pop(key, None) is not None:
                    self._dirty = True
        return result

    def save(self) -> None:
        if not self._dirty:
            return
        payload = {"format": FORMAT, "files": {k: [list(stamp), sha] for k, (stamp, sha) in self._entries.items()}}
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.file.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle)
            os.replace(temp, self.file)
            self._dirty = False
        except OSError as exc:  # a full or read-only disk costs speed next time, nothing else
            logger.warning("could not save the hash index: %s", exc)
