"""Symbolic links a tool leaves pointing out of its writable folders are removed.

wasmtime (50) refuses a link with an absolute target, but a guest allowed to write may make
``/workspace/x -> ../../etc/passwd``: wasmtime will not follow it for the guest, yet the next
program a person runs in that folder will. WASI preview 1 offers no way to forbid making links
while allowing other writes, so this is checked after the run: every link made or changed
during it (its inode changed since the run started) whose target resolves outside the folder
is removed, and the call says so. Links that were there before the run are left alone.

The check walks the folder, without following links: its cost grows with the number of
entries in the workspace, and only tools that may write pay it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def remove_escaping_links(root: Path, since: float) -> list[str]:
    """Removes links under ``root`` changed at or after ``since`` (``time.time()``) whose
    target lies outside ``root``; returns them as ``"relative/path -> target"``."""
    real_root = os.path.realpath(root)
    removed: list[str] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            path = os.path.join(folder, name)
            try:
                status = os.lstat(path)
                if not _is_link(status.st_mode) or status.st_ctime < since:
                    continue
                target = os.readlink(path)
                resolved = os.path.realpath(path)
                if resolved == real_root or resolved.startswith(real_root + os.sep):
                    continue
                os.unlink(path)
            except OSError:
                continue  # gone meanwhile, or not ours to touch
            removed.append(f"{os.path.relpath(path, root)} -> {target}")
    return removed


def _is_link(mode: int) -> bool:
    return stat.S_ISLNK(mode)
