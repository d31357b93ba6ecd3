"""Builds a running toolbay from settings: the parts first, then the app with all of them.

One place, so that every transport, the CLI and every test get the same server. The app is
frozen once built (``Toolbay.__setattr__``); what a test or an embedding needs to vary is a
parameter here.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from toolbay import __version__
from toolbay.app import Toolbay
from toolbay.catalog import Catalog, split_key
from toolbay.catalog_keeper import CatalogKeeper, OnProgress
from toolbay.chain import ChainPolicies, ChainSettings
from toolbay.chain.authorize import Authorizer
from toolbay.chain.call import Stage
from toolbay.config import BUNDLED_EXTENSIONS, Settings
from toolbay.freed_memory import give_back_while_serving
from toolbay.handlers.authoring import CreateToolHandler, ShareToolHandler
from toolbay.handlers.base import Handler
from toolbay.handlers.jobs import job_tools
from toolbay.handlers.refresh import RefreshToolsHandler
from toolbay.handlers.search import SearchToolsHandler
from toolbay.job_recovery import read_jobs_recovery
from toolbay.jobs import JobManager, JobStore, SqliteJobStore
from toolbay.jobs.serving import serving_lock_beside
from toolbay.jobs.views import result_uri
from toolbay.protocol.disclosure import Disclosure, caller_of, catalog_scope_misses
from toolbay.protocol.elicitation import ask_by_elicitation
from toolbay.protocol.in_flight import requests_in_flight
from toolbay.redaction import redact_text
from toolbay.sessions import EVERYONE, SessionRegistry, tell_callers_whose_tokens_change
from toolbay.subagents.library import RoleLibrary
from toolbay.wasm.early import EarlyCompiles
from toolbay.words import CallContext, Transport

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from opentelemetry.trace import Tracer, TracerProvider


@asynccontextmanager
async def assemble(
    settings: Settings,
    *,
    watch: bool = True,
    on_progress: OnProgress | None = None,
    start_wait_s: float | None = None,
    builtins: Sequence[Handler] = (),
    stages: Sequence[Stage] | None = None,
    file_filter: Callable[[str], bool] | None = None,
    tracer_provider: TracerProvider | None = None,
    early_compiles: EarlyCompiles | None = None,
    adopts_jobs: bool = True,
    hold_background_work: bool = False,
) -> AsyncIterator[Toolbay]:
    """A running app over ``settings``.

    Args:
        watch: follow the tool folders (hot reload).
        on_progress: told as the first describing begins (no file yet), then of each file
            described, with the total and the first file still being described.
        start_wait_s: answer after at most this long while files are still being described
            for the first time (see ``CatalogKeeper.open``); ``None`` waits for all.
        builtins: more built-in tools, after refresh_tools and the job tools.
        stages: the call chain instead of the one the settings make (benchmarks).
        file_filter: serve only the tool files (paths) it accepts (``toolbay call``).
        early_compiles: modules a first start began compiling already (``toolbay.first_start``).
        tracer_provider: the spans go there instead of where ``[telemetry]`` says (tests).
        adopts_jobs: take up the jobs a server that died left unfinished (a server does; the
            CLI's commands leave them to the next server).
        hold_background_work: cache no baseline code and optimise nothing until
            ``Toolbay.listing_answered`` (``serve``: see ``WasmRuntime``).
    """
    cluster = settings.cluster
    async with contextlib.AsyncExitStack() as stack:
        redis = None
        if cluster.redis is not None:
            # Checked before anything else starts: an unreachable Redis is one line and exit 2.
            from toolbay.cluster.connection import open_checked

            redis = await open_checked(cluster.redis)
            stack.push_async_callback(redis.aclose)
        if settings.search.semantic:
            # Before anything starts, as for tracing: meaning asked for without its model is one line and exit 2.
            from toolbay.search.semantic import require_model_folder

            require_model_folder()
        tracer = None
        if tracer_provider is None:
            from toolbay.tracing import install_globally, provider_for

            owned = provider_for(settings.telemetry)
            if owned is not None:
                install_globally(owned)
                stack.callback(owned.shutdown)  # the last spans are sent on the way out
            tracer_provider = owned
        if tracer_provider is not None:
            tracer = tracer_provider.get_tracer("toolbay", __version__)
        policies = ChainPolicies.from_settings(ChainSettings.parse(settings.chain, settings.config_file),
                                               ask=ask_by_elicitation, shared_limits=cluster.redis,
                                               on_outage=cluster.on_outage)
        if policies.limiter is not None:
            stack.push_async_callback(policies.limiter.aclose)
            await policies.limiter.check_reachable()
        async with _assembled(settings, policies, redis, watch=watch, on_progress=on_progress,
                              start_wait_s=start_wait_s, builtins=builtins, stages=stages,
                              file_filter=file_filter, tracer=tracer, early_compiles=early_compiles,
                              adopts_jobs=adopts_jobs, hold_background_work=hold_background_work) as app:
            yield app


@asynccontextmanager
async def _assembled(
    settings: Settings,
    policies: ChainPolicies,
    redis: Any,
    *,
    watch: bool,
    on_progress: OnProgress | None,
    start_wait_s: float | None,
    builtins: Sequence[Handler],
    stages: Sequence[Stage] | None,
    file_filter: Callable[[str], bool] | None,
    tracer: Tracer | None,
    early_compiles: EarlyCompiles | None,
    hold_background_work: bool,
    adopts_jobs: bool,
) -> AsyncIterator[Toolbay]:
    sessions = SessionRegistry()
    roles = RoleLibrary.from_settings(settings)
    jobs = settings.jobs
    store: JobStore
    notices = None

    async def result_ready(job_id: str, owner: str) -> None:
        """A job ended: its owner's ``subscriptions/listen`` streams hear its result changed."""
        await sessions.result_ready(result_uri(job_id), owner)

    if redis is not None:
        from toolbay.cluster.jobs import RedisJobStore
        from toolbay.cluster.notices import CatalogNotices

        # A task's end reaches listeners on every replica, not only the one that ran it.
        store = RedisJobStore(redis, lease_s=settings.cluster.lease_s, on_ended=result_ready)
        # ``keeper`` is bound below, before the notices are listened to.
        notices = CatalogNotices(redis, store.replica_id, lambda: keeper.rescan())
    else:
        store = SqliteJobStore(settings.data_dir / "jobs.sqlite3", on_ended=result_ready)
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    async def rescan_now(context: CallContext) -> Mapping[str, list[str]]:
        # ``keeper``, ``disclosure`` and ``app`` are bound below, before any call can reach refresh_tools.
        principal = caller_of(context)
        session = context.extras.get("session")
        # What changed since the session last saw the catalog (listed, or refreshed): once another
        # caller's refresh or the watcher had taken a change in, a client that ignores list_changed
        # was told "No change" of it. Since this rescan, for a session never shown one.
        last_seen = app.seen_catalogs.last_seen(session)
        # Not ``or``: a catalog is falsy when it holds no tool (``Catalog.__len__``).
        before = keeper.catalog.current if last_seen is None else last_seen
        # Asked for: a module skipped for an import that failed is tried again, whatever the cache says.
        # A file whose describing takes longer than a client's start is given (a module's import
        # that hangs to its limit, a large module compiling) goes on in the background and is
        # announced when it is done, as at start, rather than holding the call.
        await keeper.rescan(retry_skipped_modules=True, slow_files_later=True,
                            patience_s=settings.discovery.start_wait_s)
        after = keeper.catalog.current
        change = before.diff(after)
        app.seen_catalogs.saw(session, after)

        def knows(key: str, catalog: Catalog) -> bool:
            # Another caller's personal tools, and tools this one may not use or find, go unnamed;
            # its own too where a tool of the name it may find shadows them.
            entry = catalog.by_key(key)
            return entry is not None and disclosure.may_know(principal, key, entry.definition) \
                and catalog.served_to_owner(entry, disclosure.gives_way(principal))

        # As this caller sees it: a tool moved into a catalog folder it may not search is gone
        # for it, one moved out of it is new to it.
        seen: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
        for key in dict.fromkeys((*change.added, *change.removed, *change.changed)):
            knew, now = knows(key, before), knows(key, after)
            kind = "added" if now and not knew else "removed" if knew and not now else "changed" if now else None
            if kind is not None:
                seen[kind].append(split_key(key)[0])  # its own personal tool by its name
        if principal.kind == "local":
            # The operator's own session (a tool author in their editor): the files that could
            # not be described, and why, which it otherwise learns only from the log or toolbay
            # list. Not told to callers over HTTP, whose folders and file names are not theirs to see.
            served = {entry.definition.origin.partition(":")[2] for entry in after.entries()}
            still = keeper.still_describing
            seen["not_described"] = [
                # A file named like a secret is skipped for it: the name itself is not said either.
                f"{redact_text(Path(skipped.path).name)}: {skipped.reason}"
                + (" (its last good version is served meanwhile)"
                   if skipped.path in served and "still served" not in skipped.reason else "")
                # Its last verdict, said as that: retried, it is also still being described (a
                # module that hangs to its import's limit always is, with the limit as long as the
                # wait, and was said to be both, its failure as if it were now).
                + (" (so it was the last time; it is being described again)" if skipped.path in still else "")
                for skipped in after.skipped]
            seen["still_describing"] = [redact_text(Path(path).name) for path in still]
        return seen

    async def search_now(query: str, limit: int, context: CallContext) -> Mapping[str, Any]:
        # ``disclosure`` is bound below too, before any call can reach search_tools.
        return await disclosure.search(query, limit, context)

    authoring: list[Handler] = []
    if settings.python.authoring:
        bundled = BUNDLED_EXTENSIONS.resolve()
        shared = next((f for f in settings.extensions if f.resolve() != bundled), None)
        personal = settings.python.personal_dir

        async def offered_by(path: str, context: CallContext) -> tuple[list[str], list[str], str | None]:
            # ``disclosure`` is bound below, before any call can reach the authoring tools.
            return await keeper.offered_by(path, disclosure.gives_way(caller_of(context)))

        authoring = [CreateToolHandler(personal, offered_by), ShareToolHandler(personal, shared, offered_by)]
        _say_what_authoring_needs(settings)
    _say_what_access_hides(policies.authorizer)


    def keeper_catalog() -> Catalog:
        # ``keeper`` is bound below too, before the manager starts and recovers jobs.
        return keeper.catalog.current

    # Made before the keeper (the job tools are its built-ins) but entered after it: a crashed
    # server's read-tier jobs are run again from the catalog, and on the way out running jobs
    # end before the runtime they run in closes.
    manager = JobManager(
        store,
        sync_budget_s=jobs.sync_budget_s,
        max_concurrent=jobs.max_concurrent,
        max_per_caller=jobs.max_per_caller,
        max_queued_per_caller=jobs.max_queued_per_caller,
        retention_s=jobs.retention_s,
        serving_lock=None if store.shared else serving_lock_beside(settings.data_dir / "jobs.sqlite3"),
        recover=read_jobs_recovery(keeper_catalog, policies.refusal_now) if jobs.restart_read_jobs else None,
        takeover_interval_s=settings.cluster.lease_s / 2,
        adopts_orphans=adopts_jobs,
    )
    preview_bytes = jobs.result_preview_kb * 1024
    # Counted only where they can be scraped: /metrics on HTTP (and prometheus-client, slow to
    # import, is loaded only then).
    metrics = None
    if settings.transport != "stdio" and settings.http.metrics:
        from toolbay.metrics import ServerMetrics

        metrics = ServerMetrics(manager.counts, lambda: len(keeper_catalog().definitions()))
    # Made once the keeper's first scan is done (nobody is connected before).
    disclosures: list[Disclosure] = []

    async def tools_changed_where_shown() -> object:
        # Only the sessions whose listings the change may show in (none for catalog tools that
        # no session found and no caller lists in full).
        return await sessions.tools_changed(disclosures[0].take_listing_change() if disclosures else EVERYONE)

    served_builtins = [RefreshToolsHandler(rescan_now),
                       SearchToolsHandler(search_now, semantic=settings.search.semantic),
                       *job_tools(manager, preview_bytes=preview_bytes), *authoring, *builtins]
    policies.authorizer.let_every_caller_use(h.name for h in served_builtins if h.for_every_caller)
    policies.authorizer.require_scopes({h.name: h.needs_scope for h in served_builtins if h.needs_scope})
    opened_meanwhile: contextlib.AbstractAsyncContextManager[object] = contextlib.nullcontext()
    if isinstance(store, SqliteJobStore):
        # Opened while the tools are described: the job manager, entered once they are, opened
        # it only then, and a first start's first listing waited for a new database to be made.
        store.begin_opening()
        opened_meanwhile = contextlib.aclosing(store)  # closed however the start ends
    async with opened_meanwhile, CatalogKeeper.open(
        settings,
        builtins=served_builtins,
        listeners=[tools_changed_where_shown, *([metrics.catalog_changed] if metrics else []),
                   *([notices.changed] if notices else [])],
        roles=roles,
        role_listeners=[sessions.prompts_changed, *([notices.changed] if notices else [])],
        on_progress=on_progress,
        start_wait_s=start_wait_s,
        file_filter=file_filter,
        early_compiles=early_compiles,
        hold_background_work=hold_background_work,
    ) as keeper, manager, anyio.create_task_group() as group:

        def add_tasks(server: Server[Any], transport: Transport) -> None:
            # The MCP SDK's side of jobs loads with the first SDK server (serve), not with this
            # module: the CLI's commands assemble an app without one.
            from toolbay.auth.http import verified_principal
            from toolbay.protocol import results
            from toolbay.protocol.job_resources import install as install_job_resources
            from toolbay.protocol.tasks import install as install_tasks

            # tasks/result answers exactly what tools/call would have (same _meta names).
            install_tasks(server, manager,
                          owner_of=lambda ctx: app.owner_id_for(transport, verified_principal(ctx.request)),
                          to_call_result=results.tool_result_to_mcp)
            install_job_resources(server, manager,
                                  owner_of=lambda ctx: app.owner_id_for(transport, verified_principal(ctx.request)))

        disclosure = Disclosure(settings.disclosure, keeper.catalog, policies.authorizer.can_use,
                                connected=settings.extensions, semantic=settings.search.semantic,
                                hidden=keeper.discovery.credentials.shown_nowhere)
        disclosures.append(disclosure)
        for warning in catalog_scope_misses(settings.disclosure, policies.authenticator.scopes_granted()):
            logger.warning("%s", warning)
        app = Toolbay(settings, keeper=keeper, policies=policies, jobs=manager, sessions=sessions, roles=roles,
                      server_hooks=[add_tasks], stages=stages, disclosure=disclosure, metrics=metrics,
                      tracer=tracer, search=search_now, where_tools_are=disclosure.where_tools_are)
        watcher = None
        if watch:
            # Imported only to watch (serve): watchfiles' import was 9-11 ms of each list, call and search.
            from toolbay.watcher import ExtensionWatcher

            watcher = ExtensionWatcher(keeper)
            await group.start(watcher.run)
        if callable(getattr(policies.authenticator.verifier, "take_changed_clients", None)):  # a tokens file
            await group.start(tell_callers_whose_tokens_change, policies.authenticator.verifier, sessions)
        if notices is not None:
            await group.start(notices.run)
        group.start_soon(give_back_while_serving,
                         lambda: not requests_in_flight() and not any(manager.counts().values()))
        try:
            yield app
        finally:
            if watcher is not None:
                watcher.stop()
            group.cancel_scope.cancel()
            disclosure.close()


# What a caller follows a call that went on as a job with.
_FOLLOWING_TOOLS = ("job_status", "job_wait", "job_result")


def _say_what_access_hides(authorizer: Authorizer) -> None:
    """``[chain.access] allow = ["hash*"]`` hid the job tools as well, with nothing said: a call
    that went on as a job answered "call job_wait", and job_wait was "disabled on this server by
    its configuration". Said once, at start; the operator may mean it."""
    hidden = [name for name in _FOLLOWING_TOOLS if authorizer.disabled(name)]
    denied = [name for name in hidden if authorizer.denies(name)]
    if hidden:
        # deny wins over allow: each left out is changed where it is left out.
        changes = [f"take {', '.join(denied)} out of deny"] if denied else []
        if [name for name in hidden if name not in denied]:
            changes.append('add "job_*" to allow')
        logger.warning("[chain.access] allow and deny leave out %s: a call that goes on as a job (past [jobs] "
                       "sync_budget_s) cannot be followed; %s to let callers follow theirs", ", ".join(hidden),
                       " and ".join(changes))


def _say_what_authoring_needs(settings: Settings) -> None:
    """``[python] authoring = true`` alone changed nothing anyone could see: the tools need a
    folder per caller and scopes no caller has by default. Said once, at start."""
    if settings.python.personal_dir is None:
        logger.warning("[python] authoring is on, but create_tool writes into the caller's own folder and "
                       "[python] personal_dir names none: it refuses every call")
    local_scopes = ChainSettings.parse(settings.chain, settings.config_file).auth.local_scopes
    missing = [scope for scope in ("tools:create", "tools:share") if scope not in local_scopes]
    if missing:
        logger.warning("[python] authoring is on; the stdio caller sees create_tool and share_tool only with the "
                       "scopes %s in [chain.auth] local_scopes (an HTTP caller, in its token's)", " and ".join(missing))
