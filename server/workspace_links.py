"""Symbolic links a tool leaves pointing out of its writable folders are removed.

wasmtime (50) refuses a link with an absolute target, but a guest allowed to write may make
``/workspace/x -> ../../etc/passwd``: wasmtime will not follow it for the guest, yet the next
program a person runs in that folder will. WASI preview 1 offers no way to forbid making links
while allowing other writes, so this is checked after the run (a Python tool's worker may make
links too, and is checked the same way: ``LinkGuard``).

Which links are removed: every link that leads out of the folder after the run, unless the
same link (same inode, same target) led out before the run. So a person's own link to a data
disk stays; a link made during the run, one remade, and one that led inside before the run and
leads out after it (a call made ``x -> d/../../secret`` while ``d`` was a link two levels
down, and a later call replaced ``d`` with a folder) are removed. The folder is therefore
walked before the run, for the links leading out then, and after it. A link's target cannot
be changed in place, so one with the same inode and target is the link that was there.

The walks do not follow links and do not recurse in Python (a tool may nest folders thousands
deep): their cost grows with the number of entries in the folder, and only tools that may
write pay it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio
import anyio.to_thread

from toolbay.words import ToolResult

# A link's identity: its inode and its target.
_Link = tuple[int, str]


def links_leading_out(root: Path) -> dict[str, _Link]:
    """The links under ``root`` whose target lies outside it now (taken before a run)."""
    real_root = os.path.realpath(root)
    found: dict[str, _Link] = {}
    for path, status in _links_under(root):
        try:
            if not _inside(os.path.realpath(path), real_root):
                found[path] = (status.st_ino, os.readlink(path))
        except OSError:
            continue  # gone meanwhile
    return found


def remove_escaping_links(root: Path, before: Mapping[str, _Link]) -> list[str]:
    """Removes the links under ``root`` whose target lies outside it, except those that led out
    already before the run (``before``, from ``links_leading_out``) and are the same links;
    returns them as ``"relative/path -> target"``."""
    real_root = os.path.realpath(root)
    removed: list[str] = []
    for path, status in _links_under(root):
        try:
            target = os.readlink(path)
            if before.get(path) == (status.st_ino, target):
                continue  # it led out before the run, untouched: not the tool's doing
            if _inside(os.path.realpath(path), real_root):
                continue
            os.unlink(path)
        except OSError:
            continue  # gone meanwhile, or not ours to touch
        removed.append(f"{os.path.relpath(path, root)} -> {target}")
    return removed


class LinkGuard:
    """The links leading out of a run's writable folders, taken before it; ``after`` removes the
    ones the run left (``remove_escaping_links``). Awaited shielded from cancellation by its
    callers: a cancelled run's links are removed too."""

    def __init__(self, before: dict[Path, dict[str, _Link]]) -> None:
        self._before = before

    @classmethod
    async def taken(cls, roots: Sequence[Path]) -> LinkGuard | None:
        """None when nothing is writable (nothing to walk)."""
        if not roots:
            return None
        return cls({Path(root): await anyio.to_thread.run_sync(links_leading_out, Path(root)) for root in roots})

    async def after(self) -> list[str]:
        removed: list[str] = []
        with anyio.CancelScope(shield=True):
            for root, before in self._before.items():
                removed += await anyio.to_thread.run_sync(remove_escaping_links, root, before)
        return removed


def links_removed(tool: str, removed: Sequence[str]) -> ToolResult:
    """The call's result when links were removed after it: an error, whatever the tool answered."""
    return ToolResult.error(
        f"The tool {tool!r} left symbolic links leading out of the workspace, which is not allowed; they were "
        f"removed: {', '.join(removed)}.", removed_links=list(removed))


def _links_under(root: Path) -> list[tuple[str, os.stat_result]]:
    """Every symbolic link under ``root`` with its ``lstat``, walked with a list rather than
    recursion, never through a link."""
    links: list[tuple[str, os.stat_result]] = []
    pending = [os.fspath(root)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        status = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue  # gone meanwhile
                    if stat.S_ISLNK(status.st_mode):
                        links.append((entry.path, status))
                    elif stat.S_ISDIR(status.st_mode):
                        pending.append(entry.path)
        except OSError:
            continue  # gone meanwhile, or not readable
    return links


def _inside(resolved: str, real_root: str) -> bool:
    return resolved == real_root or resolved.startswith(real_root + os.sep)
