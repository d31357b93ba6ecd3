"""The toolbay application: one object that owns the runtime, the catalog and the call path.

Transports (stdio, streamable HTTP, SSE, the in-memory test client) each wrap it in
an SDK server (``server.protocol.server``); they share this one catalog, chain and
job manager. ``Toolbay.open(settings)`` is the only way to get a running app.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

from handlers.base import Handler, ToolDefinition, ToolResult
from server.auth.http import bearer_credential
from server.auth.principal import principal_from_access_token
from server.cache_pruning import prune_caches, pruning_due
from server.catalog import Catalog, CatalogChange, CatalogHolder, Entry, SkippedFile
from server.chain import ChainPolicies, build_chain, default_stages
from server.config import Settings
from server.discovery import Discovery, FileOutcome, log_notes, scan_files, sha256_of
from server.errors import CallRefused, StorageError, UnknownTool
from server.hash_index import HashIndex
from server.jobs import JobManager, job_asked_for
from server.protocol import results
from server.protocol.sessions import SessionRegistry
from server.subagents.library import RoleLibrary
from server.types import CallNext, Principal, Stage, ToolCall, Transport
from server.wasm import WasmRuntime

logger = logging.getLogger(__name__)

VERSION = "0.1.0"
LOCAL_TRANSPORTS = ("stdio", "memory", "cli")


class Toolbay:
    version = VERSION

    def __init__(self, settings: Settings, runtime: WasmRuntime) -> None:
        self.settings = settings
        self.runtime = runtime
        self.catalog = CatalogHolder()
        self.sessions = SessionRegistry()
        self.discovery = Discovery(settings, runtime)
        self.hash_index = HashIndex(settings.data_dir / "hashes.json", sha256_of)
        self.roles = RoleLibrary.from_settings(settings)
        self.builtins: list[Handler] = []
        self._files: dict[str, FileOutcome] = {}  # by path, in discovery order
        self._rescan_lock = anyio.Lock()
        self._stages: list[Stage] = []
        self._pipeline: CallNext = self._dispatch
        self._extra_handler_hooks: list[Callable[[Any, Transport], None]] = []
        self.policies: ChainPolicies | None = None
        self.jobs: JobManager | None = None
        self.local_principal = Principal(id="local", scopes=frozenset({"tools:exec"}), kind="local")

    # -- lifecycle ------------------------------------------------------------------

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        *,
        on_progress: Callable[[FileOutcome, int], None] | None = None,
        start_wait_s: float | None = None,
    ) -> AsyncIterator[Toolbay]:
        """``start_wait_s``: how long to wait for files described for the first time; those
        not done by then are described on in the background, and the catalog grows (telling
        connected clients) when they are. ``None`` waits for all (``toolbay list``, ``call``)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        # The job manager decides how many calls run at once; a guest that sleeps still holds
        # a worker thread, so the runtime must have one per call the manager lets run, or
        # long jobs starve every other call while the manager counts free slots.
        runtime = WasmRuntime(cache_dir=settings.data_dir / "modules", consume_fuel=settings.sandbox.fuel is not None,
                              max_workers=max(settings.jobs.max_concurrent, os.cpu_count() or 1),
                              quick_budget_s=settings.sandbox.quick_budget_ms / 1000)
        app = cls(settings, runtime)
        try:
            async with _background_tasks() as background:
                if start_wait_s is None:
                    await app.rescan(on_progress=on_progress, notify=False)
                else:
                    await background.start(partial(app._first_scan, on_progress, start_wait_s))
                if pruning_due(settings.data_dir):  # at most daily: one stat, no thread, otherwise
                    await anyio.to_thread.run_sync(prune_caches, settings.data_dir, app.hashes_in_use())
                yield app
        finally:
            for entry in app.catalog.current.entries():
                await entry.close()
            runtime.close()

    async def _first_scan(self, on_progress: Callable[[FileOutcome, int], None] | None, wait_s: float,
                          *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """The start-up scan that lets the server answer after ``wait_s`` at the latest."""
        await self.rescan(on_progress=on_progress, publish_after_s=wait_s, published=task_status.started)

    # -- the call path ----------------------------------------------------------------

    def set_stages(self, stages: Sequence[Stage]) -> None:
        """Installs the chain (authenticate → rate-limit → authorize → validate ...) once."""
        self._stages = list(stages)
        self._pipeline = build_chain(self._stages, self._dispatch)

    async def call(self, call: ToolCall, request_context: Any = None) -> ToolResult:
        """Runs one call through the chain. Never raises for a tool's or a caller's fault."""
        # The snapshot is taken once: a swap during the call does not change its handler.
        call.handler = self.catalog.current.get(call.name)
        started = time.perf_counter()
        try:
            result = await self._pipeline(call)
        except CallRefused as refusal:
            result = results.refusal_to_result(refusal)
        except StorageError as exc:  # e.g. a full disk: say so, the server carries on
            result = ToolResult.error(str(exc))
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:
            result = results.crash_to_result(call.name, exc)
        result.meta.setdefault("duration_ms", round((time.perf_counter() - started) * 1000, 3))
        return result

    async def _dispatch(self, call: ToolCall) -> ToolResult:
        """The end of the chain: run the handler inline, or through the job manager."""
        handler = call.handler
        if handler is None:
            raise UnknownTool(call.name)
        if call.principal is not None:
            call.context.caller = call.principal.id
        # A call that must become a job (declared background, or a task-augmented request)
        # never takes the quick way.
        if not handler.definition.background and not job_asked_for():
            quick = handler.answer_at_once(call.arguments, call.context)
            if quick is not None:
                return quick
        if self.jobs is None or handler.runs_inline:
            return await handler.handle(call.arguments, call.context)
        arguments = call.arguments
        return await self.jobs.run_or_background(
            call.context.caller, call.name, arguments,
            lambda context: handler.handle(arguments, context), call.context,
            background=handler.definition.background,
        )

    def answers_at_once(self, tool_name: str) -> bool:
        """True when a call of ``tool_name`` will most likely be answered at once, with nothing
        sent before the answer (no approval to ask for): HTTP then answers with plain JSON."""
        handler = self.catalog.current.get(tool_name)
        if handler is None or handler.definition.background or not handler.expects_quick_answer():
            return False
        approver = self.policies.approver if self.policies is not None else None
        return approver is None or not approver.needs_approval(handler.definition.effective_tier)

    # -- what callers may see -----------------------------------------------------------

    def install_chain(self, policies: ChainPolicies) -> None:
        self.policies = policies
        self.set_stages(default_stages(policies))

    async def principal_for(self, request_context: Any, transport: Transport) -> Principal:
        """Who is asking, for ``tools/list`` (calls are identified by the chain itself)."""
        if self.policies is None:
            return self.local_principal
        return await self.policies.authenticator.identify(transport, self.credential_for(request_context))

    def owner_id_for(self, request_context: Any, transport: Transport) -> str:
        """The caller's id without a network round trip: the HTTP layer has already checked the token."""
        request = getattr(request_context, "request", None)
        user = getattr(request, "scope", {}).get("user") if request is not None else None
        if isinstance(user, AuthenticatedUser):
            return principal_from_access_token(user.access_token).id
        authenticator = self.policies.authenticator if self.policies else None
        if transport in LOCAL_TRANSPORTS:
            return ((authenticator.local if authenticator else None) or self.local_principal).id
        return ((authenticator.anonymous if authenticator else None) or Principal.anonymous()).id

    def credential_for(self, request_context: Any) -> str | None:
        return bearer_credential(getattr(request_context, "request", None))

    def visible_definitions(self, principal: Principal) -> list[ToolDefinition]:
        definitions = self.catalog.current.definitions()
        if self.policies is None:
            return definitions
        return self.policies.authorizer.visible(principal, definitions)

    def register_extra_handlers(self, server: Any, transport: Transport) -> None:
        for hook in self._extra_handler_hooks:
            hook(server, transport)

    def add_server_hook(self, hook: Callable[[Any, Transport], None]) -> None:
        self._extra_handler_hooks.append(hook)

    # -- discovery ------------------------------------------------------------------------

    def add_builtins(self, handlers: Sequence[Handler]) -> None:
        """Adds built-in tools in one catalog swap (built-in names win over discovered ones)."""
        self.builtins.extend(handlers)
        self._swap(self._build_catalog())

    async def rescan(
        self,
        *,
        on_progress: Callable[[FileOutcome, int], None] | None = None,
        notify: bool = True,
        publish_after_s: float | None = None,
        published: Callable[[], None] | None = None,
    ) -> CatalogChange:
        """Brings the catalog in line with the extension folders.

        Only files whose content changed are described again. A file that fails to
        describe keeps the tools of its last good version; a deleted file loses them.
        With ``publish_after_s``, describing that takes longer than that publishes the
        catalog as far as it got (the files described by then), calls ``published``, and
        goes on; ``published`` is called in any case once a catalog is in place.
        """
        async with self._rescan_lock:
            roles_changed = await anyio.to_thread.run_sync(self.roles.reload)
            previous_files = self._files
            # One worker-thread hop does what a warm start needs: list, stat, look up.
            paths, current, hashes = await anyio.to_thread.run_sync(self._survey, previous_files)
            to_describe = [path for path in paths if path not in current]
            if to_describe:
                total = len(to_describe)

                def progress(outcome: FileOutcome) -> None:
                    if on_progress is not None:
                        on_progress(outcome, total)

                described: dict[str, FileOutcome] = {}

                def done(outcome: FileOutcome) -> None:
                    described[outcome.path] = self._kept_if_rejected(outcome, previous_files.get(outcome.path))
                    progress(outcome)

                async def describe() -> None:
                    await self.discovery.describe_files(to_describe, on_done=done, uncached=hashes)

                if publish_after_s is None:
                    await describe()
                else:
                    waiting = anyio.CancelScope()

                    async def describe_then_stop_waiting() -> None:
                        await describe()
                        waiting.cancel()

                    async with anyio.create_task_group() as group:
                        group.start_soon(describe_then_stop_waiting)
                        with waiting:
                            await anyio.sleep(publish_after_s)
                        if not waiting.cancel_called and published is not None and len(described) < total:
                            logger.info("serving %d files' tools now; %d more are being described and will be "
                                        "announced", len(current) + len(described), total - len(described))
                            self._files = _in_order({**current, **described}, paths)
                            self._swap(self._build_catalog())
                            published()
                            published = None
                current.update(described)
                # Discovery order is folder order, then name order, however each file was found.
                current = _in_order(current, paths)
            retired = [
                old for path, old in previous_files.items()
                if path not in current or current[path].handlers is not old.handlers
            ]
            self._files = current
            change = self._swap(self._build_catalog())
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
            await self.sessions.tools_changed()
        if notify and roles_changed:
            await self.sessions.prompts_changed()
        return change

    def _survey(self, previous: dict[str, FileOutcome]) -> tuple[list[str], dict[str, FileOutcome], dict[str, str]]:
        """The files in the folders; the outcome of each that needs no guest run (unchanged
        since ``previous``, or described in the cache), in discovery order; and the sha256 of
        each readable file. Blocking: runs on a worker thread."""
        files = scan_files(self.settings.extensions)
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
            if old is not None and old.content_sha256 == digest:
                kept[path] = old
            else:
                lookups.append((path, digest))
        found = self.discovery.from_cache(lookups) if lookups else []
        cached: dict[str, FileOutcome] = {}
        for (path, _), outcome in zip(lookups, found, strict=True):
            if outcome is not None:
                cached[path] = self._kept_if_rejected(outcome, previous.get(path))
                log_notes(outcome)
        if not kept or not cached:  # each is in discovery order already
            return paths, kept or cached, hashes
        current = {}
        for path in paths:
            outcome = kept.get(path) or cached.get(path)
            if outcome is not None:
                current[path] = outcome
        return paths, current, hashes

    @staticmethod
    def _kept_if_rejected(outcome: FileOutcome, previous: FileOutcome | None) -> FileOutcome:
        """``outcome``, or, when it rejects a file whose previous version served tools, that
        version's tools kept, with the rejection noted."""
        if outcome.skipped and previous is not None and previous.handlers:
            logger.warning(
                "keeping the previous version of %s: the new one was rejected (%s)",
                os.path.basename(outcome.path), outcome.skipped.reason,
            )
            return FileOutcome(
                outcome.path, previous.sha256, handlers=previous.handlers,
                skipped=outcome.skipped, notes=previous.notes, rejected_sha256=outcome.sha256,
            )
        return outcome

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
        return Catalog.build(handlers, skipped)

    def _swap(self, catalog: Catalog) -> CatalogChange:
        change = self.catalog.swap(catalog)
        if not change.empty:
            logger.info("tools changed: %s", change.summary())
        return change

    @property
    def skipped_files(self) -> tuple[SkippedFile, ...]:
        return self.catalog.current.skipped


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


async def _release(outcome: FileOutcome) -> None:
    for tool in outcome.handlers:
        await tool.close()
