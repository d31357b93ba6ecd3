"""Symbolic links a tool leaves pointing out of its writable folders are removed.

wasmtime (50) refuses a link with an absolute target, but a guest allowed to write may make
``/workspace/x -> ../../etc/passwd``: wasmtime will not follow it for the guest, yet the next
program a person runs in that folder will. WASI preview 1 offers no way to forbid making links
while allowing other writes, so this is checked after the run (``LinkGuard``; a confined Python
worker may not make links in the workspace at all: Landlock, ``guest/worker.py``).

Which links are removed, of those leading out of the folder after the run: the ones made or
changed during it (their inode's change time), and the ones that led inside when this server
last looked (after the last writing call) and lead out now, though they are the same links (a
call made ``x -> d/../../secret`` while ``d`` was a link two levels down; a later call replaced
``d`` with a folder). So a person's own link to a data disk stays, made before the call or
between calls. What the server last saw of each folder is kept in memory, per process.

The walk does not follow links and does not recurse in Python (a tool may nest folders
thousands deep), and stat only links: its cost grows with the number of entries in the folder
(about 0.07 s of CPU for 100,000), and only WebAssembly tools that may write pay it, once a call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import anyio
import anyio.to_thread

from toolbay.words import ToolResult

# File times come from a coarser clock than time.time(): a link made just after a run starts
# may be stamped up to a few milliseconds before it.
CLOCK_SLACK_S = 0.05

# Each link of a folder when last looked at: its inode, its target, and whether it led out.
_Seen = dict[str, tuple[int, str, bool]]
_seen: dict[str, _Seen] = {}
_seen_lock = threading.Lock()


def remove_escaping_links(root: Path, since: float) -> list[str]:
    """Removes the links under ``root`` that lead out of it and were made or changed at or after
    ``since`` (``time.time()``), or led inside at the last look; returns them as
    ``"relative/path -> target"``."""
    real_root = os.path.realpath(root)
    if real_root == os.sep:
        # No link leads out of the root folder; the walk would list the whole machine, /proc and /sys
        # too, after every call (with --workspace /, a write that took a millisecond ran on as a job for minutes).
        return []
    with _seen_lock:
        last = _seen.get(real_root)
    removed: list[str] = []
    now: _Seen = {}
    for path, status in _links_under(root):
        try:
            target = os.readlink(path)
            leads_out = not inside(os.path.realpath(path), real_root)
            turned_outward = last is not None and last.get(path) == (status.st_ino, target, False)
            if leads_out and (status.st_ctime >= since or turned_outward):
                os.unlink(path)
                removed.append(f"{os.path.relpath(path, root)} -> {target}")
                continue
        except OSError:
            continue  # gone meanwhile, or not ours to touch
        now[path] = (status.st_ino, target, leads_out)
    with _seen_lock:
        _seen[real_root] = now
    return removed


class LinkGuard:
    """Removes the links a run left leading out of its writable folders (``remove_escaping_links``),
    after it, however it ended: awaited shielded from cancellation, a cancelled run's too."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self._roots = list(roots)
        self._since = time.time() - CLOCK_SLACK_S

    @classmethod
    def taken(cls, roots: Sequence[Path]) -> LinkGuard | None:
        """Before the run; None when nothing is writable."""
        return cls(roots) if roots else None

    async def after(self) -> list[str]:
        removed: list[str] = []
        with anyio.CancelScope(shield=True):
            for root in self._roots:
                removed += await anyio.to_thread.run_sync(remove_escaping_links, root, self._since)
        return removed


def links_removed(tool: str, removed: Sequence[str]) -> ToolResult:
    """The call's result when links were removed after it: an error, whatever the tool answered."""
    return ToolResult.error(
        f"The tool {tool!r} left symbolic links leading out of the workspace, which is not allowed; they were "
        f"removed: {', '.join(removed)}.", removed_links=list(removed))


def _links_under(root: Path) -> list[tuple[str, os.stat_result]]:
    """Every symbolic link under ``root`` with its ``lstat``, walked with a list rather than
    recursion, never through a link. Only links are stat'ed: the kind of every other entry comes
    with the folder's listing (100,000 files: 0.07 s of CPU, against 0.45 s stat'ing each)."""
    links: list[tuple[str, os.stat_result]] = []
    pending = [os.fspath(root)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_symlink():
                            links.append((entry.path, entry.stat(follow_symlinks=False)))
                        elif entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                    except OSError:
                        continue  # gone meanwhile
        except OSError:
            continue  # gone meanwhile, or not readable
    return links


def inside(resolved: str, real_root: str) -> bool:
    """Whether ``resolved`` (a real path) is ``real_root`` or under it. Everything is under ``/``: a
    workspace of ``/`` had every link of the machine lead out of it ("//" begins no path), so one a
    program made anywhere while a tool that may write ran was removed after it."""
    return resolved == real_root or resolved.startswith(real_root.rstrip(os.sep) + os.sep)
