"""Hot reload: watch the extension and agent folders and bring the catalog in line when files change.

watchfiles groups a burst of events (a build writing a file in several steps, a
``cp`` of many files) and yields once the folder has been quiet for ``quiet_ms``.
Before describing, the watcher waits until each changed file has stopped growing,
so a half-copied module is not described. The rescan itself describes only files
whose content changed and swaps the catalog atomically (``Toolbay.rescan``), which
also tells every connected client.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from anyio.abc import TaskStatus
from watchfiles import Change, awatch

from toolbay.discovery import is_tool_file_name
from toolbay.subagents.roles import is_role_file

if TYPE_CHECKING:
    from toolbay.catalog_keeper import CatalogKeeper

logger = logging.getLogger(__name__)


def _reason(error: BaseException) -> str:
    """What went wrong, from the errors a task group gathered ("unhandled errors in a TaskGroup"
    said nothing of it)."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(_reason(inner) for inner in error.exceptions))
    return str(error) or type(error).__name__


def _is_tool_file(change: Change, path: str) -> bool:
    """A tool (``.wasm``, ``.py``), a helper the modules may import (``_shared.py``: a module
    described with it is described again when it changes), or a role file (``.md`` in an agent
    folder: both kinds of folder are watched, and a rescan reads each kind only from its own
    folders)."""
    name = os.path.basename(path)
    return is_tool_file_name(name) or (name.endswith(".py") and not name.startswith(".")) or is_role_file(path)


async def wait_until_stable(paths: Iterable[Path], *, interval_s: float = 0.03, max_wait_s: float = 2.0) -> None:
    """Returns when none of the files changed size or mtime over one interval (or time ran out)."""

    def snapshot() -> dict[Path, tuple[int, int] | None]:
        marks: dict[Path, tuple[int, int] | None] = {}
        for path in paths:
            try:
                stat = path.stat()
                marks[path] = (stat.st_size, stat.st_mtime_ns)
            except OSError:
                marks[path] = None
        return marks

    paths = list(paths)
    waited = 0.0
    before = snapshot()
    while waited < max_wait_s:
        await anyio.sleep(interval_s)
        waited += interval_s
        after = snapshot()
        if after == before:
            return
        before = after


class ExtensionWatcher:
    def __init__(self, keeper: CatalogKeeper, *, quiet_ms: int = 50, max_batch_ms: int = 800) -> None:
        self.keeper = keeper
        self.quiet_ms = quiet_ms
        self.max_batch_ms = max_batch_ms
        self.rescans = 0
        # How often an idle watcher wakes to check that its folders still exist.
        self.idle_tick_ms = 200
        self._helpers: set[str] = set()  # the helper files of the modules served, by real path
        self._helpers_read: frozenset[Path] | None = None  # the keeper's set they were resolved from
        self._watch_failures: set[str] = set()  # why watching failed, each said once
        # The real paths of the files that tool files linked into the folders point at
        # (``x.py -> /srv/shared/x.py``), read at each rescan: their folders are watched too, a
        # save of the target being a change of the tool (it was noticed only by another change).
        self._link_targets: set[str] = set()
        # The folders the current OS watch was given, by absolute path: an event on one of them
        # is the folder itself going (deleted, renamed away), which the watch does not outlive.
        self._watching: frozenset[str] = frozenset()
        # Looked at by the OS watch's thread every ``quiet_ms``. A cancelled watch waits for that
        # thread, which otherwise sees no stop before its next idle tick: 0.2 s of every stop.
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Ends ``run`` within ``quiet_ms``; call it before cancelling the task that runs it."""
        self._stopping.set()

    def _existing_folders(self) -> list[Path]:
        """The folders to watch: the tool and agent folders, and those of the files the Python
        modules were described with (a package's, a data file's, in a subfolder: folders are
        watched one level deep)."""
        helpers = self.keeper.helper_files()
        if helpers is not self._helpers_read:  # resolved once per set the keeper makes
            # By real path: the watcher names a file by the folder it was given, the keeper by its own.
            self._helpers_read, self._helpers = helpers, {os.path.realpath(path) for path in helpers}
        folders = [*self.keeper.folders(), *self.keeper.settings.agents,
                   *sorted({Path(helper).parent for helper in self._helpers}),
                   *sorted({Path(target).parent for target in self._link_targets})]
        return [p for p in dict.fromkeys(folders) if p.is_dir()]

    def _where(self, folders: list[Path]) -> list[tuple[int, int] | None]:
        """Which folder each of ``folders`` is (device and inode, through any link), None for one
        gone. The OS watch follows the folder it was given, not its path: a folder renamed over
        it (a deploy's ``mv ext.new ext``), made anew, or a link (``current -> releases/7``)
        pointed elsewhere is another folder to watch, though its path is the same."""
        where: list[tuple[int, int] | None] = []
        for folder in folders:
            try:
                stat = os.stat(folder)
            except OSError:
                where.append(None)
            else:
                where.append((stat.st_dev, stat.st_ino))
        return where

    def _replaced(self, folders: list[Path], where: list[tuple[int, int] | None], went: set[str]) -> list[Path]:
        """The ``folders`` there now that are other folders than those watched since ``where``
        was taken, or whose going the watch told of (``went``): a folder deleted and made again
        at once may be given the old one's inode number, and then looks the same."""
        now = self._where(folders)
        return [folder for folder, before, after in zip(folders, where, now, strict=True)
                if after is not None and (after != before or os.path.abspath(folder) in went)]

    def _watched(self, change: Change, path: str) -> bool:
        if _is_tool_file(change, path) or (change == Change.deleted and os.path.abspath(path) in self._watching):
            return True
        if not self._helpers and not self._link_targets:
            return False
        real = os.path.realpath(path)
        return real in self._helpers or real in self._link_targets

    def _read_link_targets(self) -> None:
        """The real paths that the tool files linked into the tool folders point at, existing
        or not (a link made before its target is there)."""
        targets: set[str] = set()
        for folder in self.keeper.folders():
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_symlink() and is_tool_file_name(entry.name):
                            targets.add(os.path.realpath(entry.path))
            except OSError:
                continue  # a folder gone or unreadable: the keeper says so
        self._link_targets = targets

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Watches until cancelled. A folder that is deleted, replaced (another renamed over it,
        made again, its link pointed elsewhere), or created after the start, is noticed by its
        watch or on the watcher's idle ticks: the catalog is rescanned and watching restarts.

        Reports itself started at once, not once the OS watch is in place: watchfiles tells
        that only by its first yield, an idle tick (0.2 s) later, which every start would
        wait for. Whatever changed before a watch was in place is taken in by one rescan at
        its first yield."""
        task_status.started()
        while not self._stopping.is_set():
            folders = self._existing_folders()
            if not folders:
                await anyio.sleep(self.idle_tick_ms / 1000)
                if self._existing_folders():
                    await self._rescan()
                continue
            try:
                await self._watch_until_moved(folders)
            except Exception as error:  # noqa: BLE001 - the watch itself failed: the server must outlive it
                # watchfiles gives up on a file whose name is not UTF-8 ("Unable to decode path"), in
                # whichever folder it appears: its change is lost, the watch is begun again, and a
                # rescan takes in whatever that change and any other meanwhile did.
                # Each reason said once: a watch that fails as it begins would say it every tick.
                said = _reason(error)
                (logger.debug if said in self._watch_failures else logger.warning)(
                    "hot reload: watching the folders failed (%s); watching them again", said)
                self._watch_failures.add(said)
                await anyio.sleep(self.idle_tick_ms / 1000)
                await self._rescan()

    async def _watch_until_moved(self, folders: list[Path]) -> None:
        """Rescans on each batch of changes in ``folders``, until the folders that exist, or
        where they are, change."""
        where = self._where(folders)
        self._watching = frozenset(os.path.abspath(folder) for folder in folders)
        in_place = False
        async with aclosing(self._watch(folders)) as batches:
            async for changes in batches:
                if not in_place:
                    in_place = True
                    if not changes:  # the first idle tick: what changed before the watch
                        await self._rescan()
                        continue
                # The watch ends with the folder it follows: one gone (even if back already, and so
                # not told by its inode) or another at its path is watched afresh.
                went = {os.path.abspath(path) for kind, path in changes if kind == Change.deleted} & self._watching
                replaced = self._replaced(folders, where, went)
                for folder in replaced:
                    logger.info("hot reload: folder %s was replaced (a new folder there, or its link pointed "
                                "elsewhere); reading it again and watching the new one", folder)
                if went or replaced or self._existing_folders() != folders:
                    await self._rescan()
                    return  # watch the folders that exist now, where they are now
                if not changes:
                    continue
                changed = [Path(path) for kind, path in changes if kind != Change.deleted]
                await wait_until_stable(changed)
                await self._rescan()

    async def _watch(self, folders: list[Path]) -> AsyncGenerator[set[tuple[Change, str]], None]:
        async for changes in awatch(
            *folders,
            watch_filter=self._watched,
            debounce=self.max_batch_ms,
            step=self.quiet_ms,
            stop_event=self._stopping,
            recursive=False,
            yield_on_timeout=True,
            rust_timeout=self.idle_tick_ms,
        ):
            yield changes

    async def _rescan(self) -> None:
        try:
            change = await self.keeper.rescan(slow_files_later=True)
            self.rescans += 1
            self._read_link_targets()
            if not change.empty:
                logger.info("hot reload: %s", change.summary())
        except Exception:  # the watcher must outlive any bad file or rescan fault
            logger.exception("hot reload rescan failed; will retry on the next change")
