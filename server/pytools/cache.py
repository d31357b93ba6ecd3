"""Python module descriptions cached on disk by the file's sha256, like the wasm ones: a warm
start imports no module. Each entry names the module it was described as (``module``): the
same text under another file name is another module (``__name__``, a name that shadows a
standard one), described again. One small JSON file per version, ``<data>/python/<sha256>.json``;
a damaged or foreign entry is described again. Only lasting outcomes are kept (a description,
or "not a tool module"), never an import failure, which may be the environment's fault.
Reading an entry marks it used (at most once a day), so ``toolbay.cache_pruning`` removes only
the entries of versions nobody has used for a month.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolbay.atomic_files import write_whole
from toolbay.cache_pruning import touch_if_stale

# Bump when the worker's description or the convention's reading of it changes.
DESCRIBER_VERSION = "20"  # 2: schemas checked against the meta-schema; 3: compositions closed by
# unevaluatedProperties; 4: LONG_RUNNING must be a bool; 5: the helpers imported, with their hashes;
# 6: the files of its folder read while described are helpers too; 7: the module's name (see ``module``);
# 8: an "inputSchema" is checked too; 9: nested objects shown closed as they are checked;
# 10: a property named with a secret is refused; 11: the import error of a file linked from outside its
# folder is said without its text; 12: a schema holding NaN or an infinity is refused; 13: an iterator
# is read as a list, a value that is no JSON under a key not read is ignored, and one under a key read named;
# 14: any iterable (a dict's values()) is read as a list, and a value under a key not read that holds
# itself is ignored; 15: an iterator or a dict's values() only (a set is said to be no list); 16: a schema
# that holds itself is said where; 17: the tier's variable (TOOL_TIER or TIER) is named; 18: schemas
# nested too deeply to write are said so; 19: objects reached through $ref, anyOf, oneOf, a nested allOf,
# additionalProperties or patternProperties closed too, and a required property no properties list refused;
# 20: objects reached through an $anchor closed too


class PythonDescriptionCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, sha256: str) -> dict[str, Any] | None:
        try:
            with open(self.folder / f"{sha256}.json", encoding="utf-8") as handle:
                entry = json.load(handle)
                touch_if_stale(handle.fileno())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("version") != DESCRIBER_VERSION:
            return None
        return entry

    def put(self, sha256: str, entry: dict[str, Any]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_whole(self.folder / f"{sha256}.json", json.dumps({**entry, "version": DESCRIBER_VERSION}).encode())
        except OSError:
            pass  # a cache that cannot be written costs describing again, nothing else
