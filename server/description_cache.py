"""Tool descriptions cached on disk by the file's sha256, so a warm start runs no guest.

One small JSON file per described ``.wasm``, written atomically (temporary file +
rename). An entry written by another toolbay version, or one that does not parse,
is ignored and rebuilt: the cache is an optimisation, never a source of truth.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.cache_pruning import touch_if_stale

logger = logging.getLogger(__name__)

# Bump when the parser or the cached shape changes so that old descriptions are redone.
FORMAT = "toolbay-descriptions/1"


@dataclass(frozen=True, slots=True)
class CachedCommand:
    tool_name: str
    path: tuple[str, ...]
    description: dict[str, Any]
    # What ``tools/list`` needs, derived from ``description`` when it was cached, so that a
    # warm start neither rebuilds the description nor its schema (see ``server.discovery``).
    listing: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class CachedFile:
    commands: tuple[CachedCommand, ...]
    skipped: tuple[str, ...] = ()


class DescriptionCache:
    def __init__(self, folder: Path, parser_version: str = "") -> None:
        self.folder = folder
        self.parser_version = parser_version
        self.hits = 0
        self.misses = 0

    def _path(self, sha256: str, stem: str) -> Path:
        # The stem is part of the key because the tool name comes from the file name.
        return self.folder / f"{sha256}-{stem}.json"

    def get(self, sha256: str, stem: str) -> CachedFile | None:
        path = self._path(sha256, stem)
        try:
            with path.open("rb") as handle:
                raw = handle.read()
                touch_if_stale(handle.fileno())
            data = json.loads(raw)
            if data.get("format") != FORMAT or data.get("parser") != self.parser_version:
                raise ValueError("written by another version")
            commands = tuple(
                CachedCommand(
                    tool_name=c["tool_name"], path=tuple(c["path"]), description=c["description"],
                    listing=c.get("listing"),
                )
                for c in data["commands"]
            )
            result = CachedFile(commands=commands, skipped=tuple(data.get("skipped", ())))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (ValueError, KeyError, TypeError) as exc:
            logger.info("ignoring description cache entry %s: %s", path.name, exc)
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, sha256: str, stem: str, entry: CachedFile) -> None:
        payload = {
            "format": FORMAT,
            "parser": self.parser_version,
            "commands": [
                {"tool_name": c.tool_name, "path": list(c.path), "description": c.description, "listing": c.listing}
                for c in entry.commands
            ],
            "skipped": list(entry.skipped),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle)
            os.replace(temp, self._path(sha256, stem))
        except OSError as exc:  # a full or read-only disk costs speed, never correctness
            logger.warning("could not cache the description of %s: %s", stem, exc)
