"""Personal tool folders: ``[python] personal_dir = "/srv/toolbay/people/{caller}"``.

A caller's id becomes a folder name only when it is a plain name (letters, digits, ``.``,
``_``, ``@``, ``-``, not starting with a dot), so no id can reach outside the pattern.
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

PLACEHOLDER = "{caller}"
_SAFE_CALLER = re.compile(r"[A-Za-z0-9_@-][A-Za-z0-9_.@-]{0,127}")


def personal_folder(pattern: str | None, caller: str) -> Path | None:
    """The personal folder of ``caller``, or None (no pattern, or an id unfit for a path)."""
    if not pattern or PLACEHOLDER not in pattern or not _SAFE_CALLER.fullmatch(caller):
        return None
    return Path(pattern.replace(PLACEHOLDER, caller))


def personal_folders(pattern: str | None) -> list[tuple[str, Path]]:
    """Every existing personal folder, as (caller, folder), sorted by caller."""
    if not pattern or PLACEHOLDER not in pattern:
        return []
    matcher = re.compile(re.escape(pattern).replace(re.escape(PLACEHOLDER), "([^/]+)"))
    found = []
    for path in glob.glob(glob.escape(pattern).replace(glob.escape(PLACEHOLDER), "*")):
        match = matcher.fullmatch(path)
        if match and _SAFE_CALLER.fullmatch(match.group(1)) and Path(path).is_dir():
            found.append((match.group(1), Path(path)))
    return sorted(found)
