"""Keeps the catalog in line with the tool folders: scans, describes, swaps, releases.

The keeper owns the wasm runtime, discovery, the hash index, the role library (role files
in the agent folders, served as ``agent_*`` tools and as prompts) and the current catalog
snapshot; it knows nothing of callers, the chain or the wire. ``CatalogKeeper.open`` is the
only way to get one; the app (``toolbay.app``) serves calls from the snapshot it keeps.
Whoever must hear of a change (connected sessions) is handed in as a listener.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_thread

from toolbay.cache_pruning import prune_caches, pruning_due
from toolbay.catalog import Catalog, CatalogChange, CatalogHolder, Entry, GivesWay, SkippedFile
from toolbay.config import BUNDLED_EXTENSIONS, Settings, extension_folders_now
from toolbay.discovery import Discovery, FileOutcome, failed_here, log_notes, log_skipped, said_of_program, scan_files
from toolbay.file_names import shown
from toolbay.first_start import runtime_sizing
from toolbay.freed_memory import give_back_freed_memory
from toolbay.handlers.base import Handler
from toolbay.pytools.folders import personal_folders
from toolbay.subagents.library import RoleLibrary
from toolbay.tool_folders import in_catalog_folders
from toolbay.wasm import WasmRuntime
from toolbay.wasm.early import EarlyCompiles

logger = logging.getLogger(__name__)

# Told as the first describing begins (no outcome yet), then of each file described: its
# outcome, how many files are being described in all, and the first of those still being
# described (None once all are).
OnProgress = Callable[[FileOutcome | None, int, str | None], None]
# The first catalog's tools are named in the log up to this many (a thousand would be one line).
_NAMES_LOGGED_AT_START = 50

# Called after a rescan that changed the catalog (e.g. tell every connected session).
ChangeListener = Callable[[], Awaitable[object]]

# Hot reload waits this long for the files it describes before it serves what it has and
# leaves the rest to be served when they are done (see ``CatalogKeeper.rescan``).
SLOW_FILE_S = 1.0


class CatalogKeeper:
    def __init__(self, settings: Settings, runtime: WasmRuntime, builtins: Sequence[Handler],
                 listeners: Sequence[ChangeListener], *, roles: RoleLibrary | None = None,
                 role_listeners: Sequence[ChangeListener] = (),
                 file_filter: Callable[[str], bool] | None = None) -> None:
        self.settings = settings
        self.runtime = runtime
        self.catalog = CatalogHolder()
        self.discovery = Discovery(settings, runtime)
        self.hash_index = self.discovery.hash_index
        # Built-in names win over discovered ones; both are fixed for the keeper's life.
        self.builtins: tuple[Handler, ...] = tuple(builtins)
        # A connected folder's tool keeps its name before a catalog folder's (toolbay.catalog).
        self._searched_only = in_catalog_folders(settings.disclosure.catalog, settings.extensions)
        self._listeners = tuple(listeners)
        # Read again on every rescan, with the tool folders; its agent_* tools join the catalog.
        self.roles = roles if roles is not None else RoleLibrary.from_settings(settings)
        self._role_listeners = tuple(role_listeners)
        self._files: dict[str, FileOutcome] = {}  # by path, in discovery order
        self._served_once = False
        self._rescan_lock = anyio.Lock()
        # Hot reload: files being described in the background, as (path, sha256), and what
        # those described after their rescan had gone on without them gave (see ``rescan``).
        self._background: anyio.abc.TaskGroup | None = None
        self._take_in_pending = False  # a rescan to take in files described late is on its way
        self._in_flight: set[tuple[str, str | None]] = set()
        self._late: dict[tuple[str, str | None], FileOutcome] = {}
        # Set, and made anew, when a file described late is in ``_late`` or background describing ends.
        self._late_news = anyio.Event()
        self._helper_files: tuple[dict[str, FileOutcome], frozenset[Path]] = ({}, frozenset())
        # The private modules in the tool folders (``_shared.py``) as last seen, None before the
        # first scan (see ``_private_modules_now``).
        self._private_modules: dict[str, tuple[int, int, int]] | None = None
        # Which files of the folders to serve (all when None): ``toolbay call`` needs one.
        self._file_filter = file_filter

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        *,
        builtins: Sequence[Handler] = (),
        listeners: Sequence[ChangeListener] = (),
        roles: RoleLibrary | None = None,
        role_listeners: Sequence[ChangeListener] = (),
        on_progress: OnProgress | None = None,
        start_wait_s: float | None = None,
        file_filter: Callable[[str], bool] | None = None,
        early_compiles: EarlyCompiles | None = None,
        hold_background_work: bool = False,
    ) -> AsyncIterator[CatalogKeeper]:
        """``roles``: the role files served (by default those of ``settings.agents``);
        ``role_listeners`` hear when the roles served change (the prompt list).
        ``start_wait_s``: how long to wait for files described for the first time; those
        not done by then are described on in the background, and the catalog grows (telling
        the listeners) when they are. ``None`` waits for all (``toolbay list``, ``call``).
        ``file_filter``: serve only the files (paths) it accepts. ``early_compiles``: modules
        a first start began compiling before this (``toolbay.first_start``).
        ``hold_background_work``: the runtime caches no baseline code and optimises nothing
        until ``runtime.release_background_work()`` (``WasmRuntime``)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        consume_fuel, max_workers = runtime_sizing(settings)
        runtime = WasmRuntime(cache_dir=settings.data_dir / "modules", consume_fuel=consume_fuel,
                              max_workers=max_workers,
                              quick_budget_s=settings.sandbox.quick_budget_ms / 1000,
                              quick_compile=settings.discovery.quick_compile,
                              # Only a server lives long enough for optimised code to pay off.
                              optimise_in_background=start_wait_s is not None,
                              optimise_after_quiet_s=settings.discovery.optimise_after_quiet_s, early=early_compiles,
                              hold_background_work=hold_background_work)
        keeper = cls(settings, runtime, builtins, listeners, roles=roles, role_listeners=role_listeners,
                     file_filter=file_filter)
        try:
            async with _background_tasks() as background:
                keeper._background = background
                if start_wait_s is None:
                    await keeper.rescan(on_progress=on_progress, notify=False)
                else:
                    await background.start(partial(keeper._first_scan, on_progress, start_wait_s))
                if pruning_due(settings.data_dir):  # at most daily: one stat, no thread, otherwise
                    await anyio.to_thread.run_sync(prune_caches, settings.data_dir, keeper.hashes_in_use())
                yield keeper
        finally:
            for entry in keeper.catalog.current.entries():
                await entry.close()
            runtime.close()

    async def _first_scan(self, on_progress: OnProgress | None, wait_s: float,
                          *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """The start-up scan that lets the server answer after ``wait_s`` at the latest."""
        await self.rescan(on_progress=on_progress, publish_after_s=wait_s, published=task_status.started)
        self.runtime.drop_early_compiles()  # what the scan did not take, it never will

    async def rescan(
        self,
        *,
        on_progress: OnProgress | None = None,
        notify: bool = True,
        publish_after_s: float | None = None,
        published: Callable[[], None] | None = None,
        retry_skipped_modules: bool = False,
        slow_files_later: bool = False,
        patience_s: float | None = None,
    ) -> CatalogChange:
        """Brings the catalog in line with the extension folders and the role files.

        Only files whose content changed are described again. A file that fails to
        describe keeps the tools of its last good version; a deleted file loses them.
        With ``publish_after_s``, describing that takes longer than that publishes the
        catalog as far as it got (the files described by then), calls ``published``, and
        goes on; ``published`` is called in any case once a catalog is in place.
        ``retry_skipped_modules``: Python modules skipped though unchanged are described again,
        uncached (an import that failed may work now: a file it needed, a service it reached),
        and so are files whose subcommands were not all read within the time budget.
        ``slow_files_later`` (hot reload): files not described within ``SLOW_FILE_S`` go on being
        described in the background, the rescan ends without them (a changed file keeps its last
        version meanwhile; ``still_describing`` names them), and another rescan takes them in
        when they are done. So one module whose import hangs to its time limit holds back no
        other file dropped beside it or after. ``patience_s`` (``refresh_tools``, with
        ``slow_files_later``): waits that long instead, for files an earlier rescan left being
        described too, so that a refresh brings the catalog in line unless a file takes longer.
        """
        async with self._rescan_lock:
            previous_files = self._files
            # One worker-thread hop does what a warm start needs: read the role files; list, stat, look up.
            roles_changed, (paths, current, hashes) = await anyio.to_thread.run_sync(
                self._read_folders, previous_files)
            if retry_skipped_modules:
                for path, outcome in list(current.items()):
                    # The version on disk: the one refused, where the last good one was kept.
                    on_disk = outcome.rejected_sha256 or outcome.sha256
                    if on_disk is None:
                        continue
                    if outcome.skipped is not None and path.endswith(".py"):
                        del current[path]
                        hashes = {**hashes, path: on_disk}  # known, so described without the cache
                    elif outcome.cut_short_tries and on_disk == outcome.sha256:
                        # Some of its subcommands were not read within the time budget (a busy
                        # start): a refresh reads them now, rather than only the next start.
                        self.discovery.describe_again(outcome)
                        del current[path]
                        hashes = {**hashes, path: on_disk}
            if slow_files_later:
                # Described late for an earlier rescan though unchanged on disk (a skipped module
                # retried by refresh_tools): the survey kept its old outcome; the late one replaces it.
                for path, digest in list(self._late):
                    if path in current and hashes.get(path) == digest:
                        del current[path]
            # The bundled tools first: they must be in a client's first listing, and the files
            # described first take the worker threads first.
            to_describe = sorted((path for path in paths if path not in current),
                                 key=lambda path: self.discovery.realm_of(path)[0] != "core")
            for key in [key for key in self._late if key[0] not in to_describe]:
                await _release(self._late.pop(key))  # found in the cache, or gone: not wanted
            if to_describe:
                total = len(to_describe)
                # Not those described late, or still being described, for an earlier rescan: this
                # one only takes them in ("compiling and describing 1 new file" was said of a
                # module whose import had just timed out, and nothing followed).
                _say_begun([path for path in to_describe if (path, hashes.get(path)) not in self._late
                            and (path, hashes.get(path)) not in self._in_flight], previous_files, hashes)

                still = dict.fromkeys(to_describe)  # in order: the first is the one waited on longest
                if on_progress is not None:
                    on_progress(None, total, to_describe[0])  # a bar from the start: one slow file showed none

                def progress(outcome: FileOutcome) -> None:
                    still.pop(outcome.path, None)
                    if on_progress is not None:
                        on_progress(outcome, total, next(iter(still), None))

                described: dict[str, FileOutcome] = {}

                def done(outcome: FileOutcome) -> None:
                    described[outcome.path] = self._kept_if_rejected(outcome, previous_files.get(outcome.path))
                    progress(outcome)

                async def describe() -> None:
                    await self.discovery.describe_files(to_describe, on_done=done, uncached=hashes)

                if slow_files_later and self._background is not None:
                    await self._describe_meanwhile(to_describe, hashes, done,
                                                   SLOW_FILE_S if patience_s is None else patience_s,
                                                   wait_for_others=patience_s is not None)
                    # Those still being described: their last version, if any, meanwhile.
                    described.update({path: previous_files[path] for path in to_describe
                                      if path not in described and path in previous_files})
                elif publish_after_s is None:
                    await describe()
                else:
                    waiting = anyio.CancelScope()
                    news = [anyio.Event()]  # set as each file is described, and when all are

                    def done_and_told(outcome: FileOutcome) -> None:
                        done(outcome)
                        news[0].set()

                    async def describe_then_stop_waiting() -> None:
                        try:
                            await self.discovery.describe_files(to_describe, on_done=done_and_told, uncached=hashes)
                        finally:
                            waiting.cancel()
                            news[0].set()

                    def serve_so_far() -> CatalogChange:
                        self._files = _in_order({**current, **described}, paths)
                        return self._swap(self._build_catalog())

                    async with anyio.create_task_group() as group:
                        group.start_soon(describe_then_stop_waiting)
                        with waiting:
                            await anyio.sleep(publish_after_s)
                        if not waiting.cancel_called and published is not None and len(described) < total:
                            more = total - len(described)
                            logger.info("serving %d files' tools now; %d more %s being described and will be "
                                        "announced", len(current) + len(described), more, "is" if more == 1 else "are")
                            serve_so_far()
                            published()
                            published = None
                            # The roles read at the scan's start are served with it: announced
                            # at its end as well, the prompt list was told changed when nothing had.
                            roles_changed = False
                            # Then each file as it is described: one module slow to import held
                            # back the tools of every file described after the start until it ended.
                            announced = len(described)
                            while True:
                                await news[0].wait()
                                news[0] = anyio.Event()
                                if waiting.cancel_called:  # all described: the rescan ends as ever
                                    break
                                if len(described) > announced:
                                    announced = len(described)
                                    if not serve_so_far().empty and notify:
                                        for listener in self._listeners:
                                            await listener()
                current.update(described)
                # Discovery order is folder order, then name order, however each file was found.
                current = _in_order(current, paths)
            retired = [
                old for path, old in previous_files.items()
                if path not in current or current[path].handlers is not old.handlers
            ]
            private = await anyio.to_thread.run_sync(_private_modules_now, self.folders())
            seen, self._private_modules = self._private_modules, private
            changed_private = set() if seen is None else \
                {os.path.dirname(path) for path in seen.keys() | private.keys() if seen.get(path) != private.get(path)}
            await _renew_beside_changed_helpers(previous_files, current, retired, changed_private)
            # Shielded from here until the modules retired are released: a rescan cancelled at the
            # comparison (a client cancelling refresh_tools) had taken the new files as read
            # without serving them (a removed module's tools stayed listed until another rescan)
            # or releasing the modules they retired (never released then).
            with anyio.CancelScope(shield=True):
                self._files = current
                built = self._build_catalog()
                # Compared off the event loop: every tool of a changed file is compared with its last
                # version, its schemas written out; a module of 10,000 tools held every request 0.8 s,
                # one of a 60 MB schema 1.75 s.
                before = self.catalog.current
                compared = await anyio.to_thread.run_sync(before.diff, built)
                change = self._swap(built, compared if self.catalog.current is before else None)
                # Calls in flight hold their own reference to the module they started with.
                for old in retired:
                    await _release(old)
            if retired:
                in_use = {outcome.sha256 for outcome in current.values()}
                for sha256 in {old.sha256 for old in retired} - in_use:
                    if sha256 is not None:
                        self.runtime.forget(sha256)
            if published is not None:
                published()
        if notify and not change.empty:
            for listener in self._listeners:
                await listener()
        if notify and roles_changed:
            for listener in self._role_listeners:
                await listener()
        if to_describe and not self.runtime.give_back_memory_when_released():
            # Compiling frees much at once, and glibc would keep it (see toolbay.freed_memory);
            # after the catalog is served and announced, so that no client waits for it. A first
            # start's scan ends before any client is served: its runtime, held until the first
            # listing has gone out, gives the memory back then (the trim, 6 to 12 ms, and the
            # worker thread it ran on held that listing).
            await anyio.to_thread.run_sync(give_back_freed_memory)
        return change

    @property
    def still_describing(self) -> list[str]:
        """The files a rescan left to be described in the background, still being described."""
        return sorted({path for path, _ in self._in_flight})

    async def _describe_meanwhile(self, paths: list[str], hashes: Mapping[str, str],
                                  done: Callable[[FileOutcome], None], wait_s: float, *,
                                  wait_for_others: bool) -> None:
        """Describes ``paths`` in the background, telling ``done`` of each described within
        ``wait_s`` and of each that earlier background describing left for this rescan
        (``_late``). A file still being described by an earlier rescan is not started again;
        with ``wait_for_others`` it is waited for within ``wait_s`` too; otherwise, or if it
        takes longer, the rescan that follows its describing takes it in."""
        fresh: list[str] = []
        elsewhere: list[tuple[str, str | None]] = []
        for path in paths:
            key = (path, hashes.get(path))
            if key in self._late:
                done(self._late.pop(key))
            elif key in self._in_flight:
                if wait_for_others:
                    elsewhere.append(key)
            else:
                fresh.append(path)
        for key in [key for key in self._late if key[0] in paths]:  # superseded by a newer version
            await _release(self._late.pop(key))
        if not fresh and not elsewhere:
            return
        ended = anyio.Event()
        keys = [(path, hashes.get(path)) for path in fresh]
        self._in_flight.update(keys)
        late = False
        in_time = 0

        def each_done(outcome: FileOutcome) -> None:
            nonlocal in_time
            self._in_flight.discard((outcome.path, hashes.get(outcome.path)))  # done: not "still being described"
            if late:
                self._late[(outcome.path, hashes.get(outcome.path))] = outcome
                self._tell_late_news()
                # Taken in now, not once the whole change is described: one module slow to import
                # held back every file of its change that was described after the first second.
                self._take_in_late_soon()
            else:
                in_time += 1
                done(outcome)

        async def describe_then_rescan() -> None:
            try:
                await self.discovery.describe_files(fresh, on_done=each_done, uncached=hashes)
            finally:
                self._in_flight.difference_update(keys)
                ended.set()
                self._tell_late_news()
            if late:
                try:
                    await self.rescan(slow_files_later=True)
                except Exception:  # the server must outlive any bad file or rescan fault
                    logger.exception("taking in the files described late failed; the next change retries")

        def waiting() -> bool:
            # Taken as they come: those of an earlier rescan are in ``_late`` once described.
            for key in [key for key in elsewhere if key in self._late]:
                elsewhere.remove(key)
                done(self._late.pop(key))
            return not ended.is_set() or any(key in self._in_flight for key in elsewhere)

        if fresh:
            assert self._background is not None
            self._background.start_soon(describe_then_rescan)
        else:
            ended.set()
        with anyio.move_on_after(wait_s):
            while waiting():
                await self._late_news.wait()  # told when this describing ends, as when others' do
        late = not ended.is_set()
        if late:
            logger.info("%d of %d files are still being described; served when they are",
                        len(fresh) - in_time, len(fresh))

    def _take_in_late_soon(self) -> None:
        """A rescan that takes in the files described late, unless one is already on its way."""
        if self._take_in_pending or self._background is None:
            return
        self._take_in_pending = True

        async def take_in() -> None:
            # Cleared before the rescan: a file described while this one runs asks for another.
            self._take_in_pending = False
            try:
                await self.rescan(slow_files_later=True)
            except Exception:  # the server must outlive any bad file or rescan fault
                logger.exception("taking in the files described late failed; the next change retries")

        self._background.start_soon(take_in)

    def _tell_late_news(self) -> None:
        self._late_news.set()
        self._late_news = anyio.Event()

    def _read_folders(
        self, previous: dict[str, FileOutcome]
    ) -> tuple[bool, tuple[list[str], dict[str, FileOutcome], dict[str, str]]]:
        """Whether the roles served changed (the library reloaded), and ``_survey``'s answer.
        Blocking: runs on a worker thread."""
        return self.roles.reload(), self._survey(previous)

    def _survey(self, previous: dict[str, FileOutcome]) -> tuple[list[str], dict[str, FileOutcome], dict[str, str]]:
        """The files in the folders; the outcome of each that needs no guest run (unchanged
        since ``previous``, or described in the cache), in discovery order; and the sha256 of
        each readable file. Blocking: runs on a worker thread."""
        files = scan_files(self.folders())
        if self._file_filter is not None:
            files = [found for found in files if self._file_filter(found[0])]
        hashes = self.hash_index.hashes_of(files)
        self.hash_index.save()
        paths = [path for path, _ in files]
        kept: dict[str, FileOutcome] = {}
        lookups: list[tuple[str, str]] = []
        for path in paths:
            digest = hashes.get(path)
            if digest is None:
                continue  # unreadable now: describing it says why
            old = previous.get(path)
            if old is not None and old.content_sha256 == digest and self._still_as_described(path, old):
                kept[path] = old
            else:
                lookups.append((path, digest))
        found = self.discovery.from_cache(lookups) if lookups else []
        cached: dict[str, FileOutcome] = {}
        for (path, _), outcome in zip(lookups, found, strict=True):
            if outcome is not None:
                cached[path] = kept_or_not = self._kept_if_rejected(outcome, previous.get(path))
                if kept_or_not.rejected_sha256 is None:  # a rejected version kept: said so already
                    log_skipped(outcome)
                log_notes(outcome)
        if not kept or not cached:  # each is in discovery order already
            return paths, kept or cached, hashes
        current = {}
        for path in paths:
            outcome = kept.get(path) or cached.get(path)
            if outcome is not None:
                current[path] = outcome
        return paths, current, hashes

    def _still_as_described(self, path: str, outcome: FileOutcome) -> bool:
        """Whether an unchanged file's outcome holds: the helpers it was described with are
        unchanged, and a failure of a Python module's holds only while its folder is as it was."""
        return self.discovery.helpers_unchanged(path, outcome.helpers) and failed_here(path, outcome.failed_in)

    def folders(self) -> list[Path]:
        """The tool folders now: the bundled one (core), the operator's (shared) and each
        caller's personal folder that exists; tells discovery which realm each is."""
        realms: dict[str, tuple[str, str | None]] = {}
        folders: list[Path] = []
        bundled = BUNDLED_EXTENSIONS.resolve()
        for folder in extension_folders_now(self.settings):
            # realpath, not resolve(): a folder that is a link in a loop is said as a problem of
            # its own (``folder_problems``), where resolve() raised (a traceback for list and call).
            realms[os.fspath(folder)] = ("core" if Path(os.path.realpath(folder)) == bundled else "shared", None)
            folders.append(folder)
        for owner, folder in personal_folders(self.settings.python.personal_dir):
            realms[os.fspath(folder)] = ("personal", owner)
            folders.append(folder)
        self.discovery.realms = realms
        return folders

    def helper_files(self) -> frozenset[Path]:
        """Every file a Python module served now was described with (a helper it imports, a data
        file it read): a change to one is a change to the modules built from it. Made once per
        set of files served (the watcher asks at every tick); the same object until it changes."""
        files, helpers = self._helper_files
        if files is not self._files:
            helpers = frozenset(Path(path).parent / relative
                                for path, outcome in self._files.items() for relative in outcome.helpers)
            self._helper_files = (self._files, helpers)
        return helpers

    @staticmethod
    def _kept_if_rejected(outcome: FileOutcome, previous: FileOutcome | None) -> FileOutcome:
        """``outcome``, or, when it rejects a file whose previous version served tools, that
        version's tools kept, with the rejection noted. A file that now declares no tool (a
        module turned helper, an empty list of tools) loses them: that is no rejection."""
        if outcome.skipped and not outcome.skipped.offers_nothing and previous is not None and previous.handlers:
            logger.warning(
                "keeping the previous version of %s: the new one was rejected (%s)",
                os.path.basename(outcome.path), outcome.skipped.reason,
            )
            return FileOutcome(
                outcome.path, previous.sha256, handlers=previous.handlers,
                skipped=outcome.skipped, notes=previous.notes, rejected_sha256=outcome.sha256,
            )
        return outcome

    def notes(self) -> list[str]:
        """What the described files said of themselves (refused Python tool names, skipped
        subcommands), for ``toolbay list``."""
        return [note if outcome.path.endswith(".py") else said_of_program(shown(os.path.basename(outcome.path)), note)
                for outcome in self._files.values() for note in outcome.notes]

    async def offered_by(self, path: str, gives_way: GivesWay = None) -> tuple[list[str], list[str], str | None]:
        """Rescans, then says which tools the file at ``path`` serves now (those a tool of the
        same name from elsewhere hides are not served: ``gives_way`` says which of its owner's
        personal tools a tool of their name hides), and why none or not all: (tools, the names
        it offers that another file's tool hides, what was refused or hidden, None when nothing was)."""
        await self.rescan()
        outcome = self._files.get(path)
        if outcome is None:
            return [], [], "it is not in a tool folder that is scanned"
        if outcome.rejected_sha256 is not None and outcome.skipped is not None:
            return [], [], outcome.skipped.reason  # what it serves is its previous version's
        catalog = self.catalog.current
        served = {id(entry) for entry in outcome.handlers if catalog.served_to_owner(entry, gives_way)}
        tools = [entry.definition.name for entry in outcome.handlers if id(entry) in served]
        hidden = [entry.definition.name for entry in outcome.handlers if id(entry) not in served]
        said = [outcome.skipped.reason] if outcome.skipped is not None else []
        said += outcome.notes
        if hidden:
            said.append(f"hidden by a tool of the same name that comes first (core, then shared, then "
                        f"personal): {', '.join(hidden)}")
        return tools, hidden, "; ".join(said) or None

    def hashes_in_use(self) -> set[str]:
        """The sha256 of every file in the folders, served or rejected."""
        return {sha for o in self._files.values() for sha in (o.sha256, o.rejected_sha256) if sha}

    def _build_catalog(self) -> Catalog:
        handlers: list[Entry] = list(self.builtins)
        skipped: list[SkippedFile] = list(self.roles.skipped)
        for outcome in self._files.values():
            handlers.extend(outcome.handlers)
            if outcome.skipped is not None:
                skipped.append(outcome.skipped)
        handlers.extend(self.roles.handlers)
        return Catalog.build(handlers, skipped, searched_only=self._searched_only)

    def _swap(self, catalog: Catalog, change: CatalogChange | None = None) -> CatalogChange:
        first = not self._served_once
        change = self.catalog.swap(catalog, change)
        self._served_once = True
        if first:
            # Not "added": at start nothing was served before, cached or not.
            definitions = catalog.definitions()
            count = len(definitions)
            names = ", ".join(d.name for d in definitions) if count <= _NAMES_LOGGED_AT_START else \
                "`toolbay list` names them"
            logger.info("serving %d %s: %s", count, "tool" if count == 1 else "tools", names)
        elif not change.empty:
            logger.info("tools changed: %s", change.summary())
        return change

    @property
    def skipped_files(self) -> tuple[SkippedFile, ...]:
        return self.catalog.current.skipped


def _say_begun(begun: list[str], previous: Mapping[str, FileOutcome], hashes: Mapping[str, str]) -> None:
    """Logs how many files ``begun`` are new and how many are modules skipped before and tried
    again unchanged (``refresh_tools``), which are not "new"."""
    def retried(path: str) -> bool:
        before = previous.get(path)
        return before is not None and before.skipped is not None and hashes.get(path) is not None \
            and (before.rejected_sha256 or before.sha256) == hashes[path]

    again = sum(1 for path in begun if retried(path))
    if fresh := len(begun) - again:
        logger.info("compiling and describing %d new %s", fresh, "file" if fresh == 1 else "files")
    if again:
        logger.info("describing again %d %s skipped before", again, "file" if again == 1 else "files")


@asynccontextmanager
async def _background_tasks() -> AsyncIterator[anyio.abc.TaskGroup]:
    """A task group for work that goes on while the app is in use, cancelled when it closes.
    An error raised by the code using the app comes out as itself, not in an exception group."""
    try:
        async with anyio.create_task_group() as group:
            yield group
            group.cancel_scope.cancel()
    except BaseExceptionGroup as grouped:
        if len(grouped.exceptions) == 1:
            raise grouped.exceptions[0] from None
        raise


def _in_order(outcomes: dict[str, FileOutcome], paths: Sequence[str]) -> dict[str, FileOutcome]:
    return {path: outcomes[path] for path in paths if path in outcomes}


def _private_modules_now(folders: list[Path]) -> dict[str, tuple[int, int, int]]:
    """The private modules (``_shared.py``, no tool's) in ``folders``, each with its size,
    modification time and inode: a module that imports one only inside a call was not described
    with it, so no description says it changed, and its warm workers answered with the old one."""
    found: dict[str, tuple[int, int, int]] = {}
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.startswith("_") and entry.name.endswith(".py"):
                        with contextlib.suppress(OSError):
                            status = entry.stat()
                            found[entry.path] = (status.st_size, status.st_mtime_ns, status.st_ino)
        except OSError:
            continue  # gone or unreadable: the scan says so
    return found


async def _renew_beside_changed_helpers(previous: dict[str, FileOutcome], current: dict[str, FileOutcome],
                                        retired: list[FileOutcome], private_changed_in: set[str]) -> None:
    """A ``.py`` file that serves no tool (a helper the modules beside it import) was added,
    changed or removed, or a private module (``_shared.py``) was in ``private_changed_in``'s
    folders: the modules of its folder get fresh workers, which import it anew. Warm workers
    kept the version they imported, so two workers of one module answered with two versions of
    the helper."""
    changed = [old.path for old in retired if old.path.endswith(".py") and not old.handlers]
    changed += [path for path, outcome in current.items()
                if path.endswith(".py") and not outcome.handlers and (path not in previous
                                                                      or previous[path] is not outcome)]
    folders = {os.path.dirname(path) for path in changed} | private_changed_in
    if not folders:
        return
    for path, outcome in current.items():
        if path.endswith(".py") and os.path.dirname(path) in folders:
            for entry in outcome.handlers:
                if isinstance(entry, Handler):
                    await entry.renew()


async def _release(outcome: FileOutcome) -> None:
    for tool in outcome.handlers:
        await tool.close()
