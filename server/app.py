"""The toolbay application: one call path, from a caller to a tool's result.

The app serves calls from the catalog its keeper maintains (``toolbay.catalog_keeper``),
through the chain its policies make, handing long calls to the job manager. It is built
whole by ``toolbay.assembly.assemble`` and changes no part after that. It knows nothing of
the wire: transports (``toolbay.protocol``) turn requests into ``ToolCall``s and a caller's
credential or verified identity into plain values before they ask it anything.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from toolbay import __version__, logs
from toolbay.catalog import Catalog, CatalogChange, CatalogHolder, GivesWay, SkippedFile
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.chain import ChainPolicies, build_chain, default_stages
from toolbay.chain.call import CallNext, Stage, ToolCall
from toolbay.close_names import closest_names
from toolbay.config import Settings
from toolbay.errors import CallRefused, Forbidden, NotATask, StorageError, UnknownTool
from toolbay.handlers.base import MODULE_REPLACED, Handler
from toolbay.handlers.search import Search
from toolbay.hooks import Disclosing, ServerHook
from toolbay.jobs import JobManager, job_asked_for
from toolbay.loop_turns import LoopTurns
from toolbay.outcomes import crash_to_result, refusal_to_result
from toolbay.redaction import shown_text
from toolbay.seen_catalogs import SeenCatalogs
from toolbay.sessions import SessionRegistry
from toolbay.shortening import start_of
from toolbay.subagents.library import RoleLibrary
from toolbay.tool_folders import RemovedFiles, file_gone
from toolbay.words import LOCAL_TRANSPORTS, CallContext, Principal, ToolDefinition, ToolResult, Transport

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    # prometheus-client takes a while to import: only HTTP servers load it (toolbay.assembly).
    from toolbay.metrics import ServerMetrics


# The metrics' tool label of a call of no served tool: any name a caller sends would otherwise be
# a series of its own for ever. A personal tool is counted without its name, which only its
# owner may know.
UNKNOWN_TOOL_LABEL = "(unknown)"
PERSONAL_TOOL_LABEL = "(personal)"


logger = logging.getLogger(__name__)
# A name past this is logged cut (a hostile caller's name may be megabytes).
_LOGGED_NAME_CHARACTERS = 100


def metric_label_of(call: ToolCall) -> str:
    """The ``tool`` label a call is counted under (``toolbay.metrics``)."""
    if call.handler is None:
        return UNKNOWN_TOOL_LABEL
    return PERSONAL_TOOL_LABEL if call.handler.definition.owner is not None else call.name


def _files_gone() -> Callable[[ToolDefinition], bool]:
    """``file_gone``, asked once per file (a file serves many tools: an unknown name's answer
    should not stat a catalog's every tool)."""
    seen: dict[str, bool] = {}

    def gone(definition: ToolDefinition) -> bool:
        if definition.origin not in seen:
            seen[definition.origin] = file_gone(definition)
        return seen[definition.origin]

    return gone


class Toolbay:
    version = __version__

    def __init__(
        self,
        settings: Settings,
        *,
        keeper: CatalogKeeper,
        policies: ChainPolicies,
        jobs: JobManager,
        sessions: SessionRegistry,
        roles: RoleLibrary,
        server_hooks: Sequence[ServerHook] = (),
        stages: Sequence[Stage] | None = None,
        disclosure: Disclosing | None = None,
        metrics: ServerMetrics | None = None,
        tracer: Tracer | None = None,
        search: Search | None = None,
        where_tools_are: Callable[[Principal | None], str | None] | None = None,
    ) -> None:
        """``stages``: the chain, by default the one ``policies`` make
        (authenticate → rate-limit → authorize → validate → approve). ``disclosure``
        narrows what a session's ``tools/list`` shows and a delegation is offered (search-first
        disclosure). ``roles``: the
        role files the keeper serves as ``agent_*`` tools, which the protocol serves as prompts.
        ``metrics``: counts every call (served at ``/metrics``); None counts nothing.
        ``tracer``: a span per call, stage and run (``[telemetry] traces``); None traces nothing.
        ``search``: what ``search_tools`` answers a caller (``toolbay search`` asks it too).
        ``where_tools_are``: what a call of an unknown name is told to do instead of listing
        (search-first disclosure lists only some tools), or None for the usual words."""
        self.settings = settings
        self.keeper = keeper
        self.policies = policies
        self.jobs = jobs
        self.sessions = sessions
        self.roles = roles
        self.server_hooks: tuple[ServerHook, ...] = tuple(server_hooks)
        self.disclosure = disclosure
        self.search = search
        self._where_tools_are = where_tools_are
        self.metrics = metrics
        self._removed_files = RemovedFiles()
        # What each session was last shown, for what refresh_tools tells it changed since.
        self.seen_catalogs = SeenCatalogs()
        may_know = None
        if disclosure is not None:
            finds, authorizer = disclosure.may_find, policies.authorizer

            def may_know(principal: Principal, definition: ToolDefinition) -> bool:
                # Hidden only where it is neither findable nor usable: a catalog tool the caller
                # may call by name is a tool, counted and named as one.
                return finds(principal, definition) or authorizer.reason(principal, definition) is None

        # None: every tool is known to every caller that may use it (no disclosure).
        self._may_know: Callable[[Principal, ToolDefinition], bool] | None = may_know
        self.stages: tuple[Stage, ...] = tuple(default_stages(
            policies, may_know, keeper.discovery.credentials.secrets) if stages is None else stages)
        self.local_principal = policies.authenticator.local or Principal(
            id="local", scopes=frozenset({"tools:exec"}), kind="local")
        self._pipeline: CallNext = build_chain(self.stages, self._dispatch, tracer=tracer)
        self._quick_turns = LoopTurns()
        self._frozen = True

    def __setattr__(self, name: str, value: object) -> None:
        # Built whole, then frozen: a part swapped later would leave the chain it was folded
        # into, or the servers already built, using the old one.
        if "_frozen" in self.__dict__:
            raise AttributeError(f"Toolbay is built whole by assemble(); {name!r} cannot change after that")
        super().__setattr__(name, value)

    # -- the catalog, kept by the keeper -------------------------------------------------

    @property
    def catalog(self) -> CatalogHolder:
        return self.keeper.catalog

    @property
    def skipped_files(self) -> tuple[SkippedFile, ...]:
        return self.keeper.catalog.current.skipped

    async def rescan(self) -> CatalogChange:
        return await self.keeper.rescan()

    def listing_answered(self) -> None:
        """A ``tools/list`` answer has gone out (or ``serve`` has waited long enough for one):
        the runtime may now cache the baseline code and optimise, if it was told to wait
        (``assemble(hold_background_work=True)``). Called on every listing; cheap."""
        self.keeper.runtime.release_background_work()

    # -- the call path ----------------------------------------------------------------

    async def call(self, call: ToolCall) -> ToolResult:
        """Runs one call through the chain. Never raises for a tool's or a caller's fault."""
        if not logs.structured():
            return await self._call(call)
        with logs.call_fields(tool=call.name, request_id=call.context.request_id):  # JSON logs name the call
            return await self._call(call)

    async def _call(self, call: ToolCall) -> ToolResult:
        # The snapshot is taken once: a swap during the call does not change its handler.
        catalog = self.catalog.current
        call.handler = catalog.get(call.name)
        started = time.perf_counter()
        try:
            if catalog.personal and (call.handler is None or call.name in catalog.shared_names_owned):
                as_seen = await self._personal_handler(catalog, call)
                if as_seen is not None:
                    call.handler = as_seen
            if call.handler is not None and file_gone(call.handler.definition):
                call.handler = None  # answered as it will be once the watcher takes the file out
            result = await self._pipeline(call)
        except CallRefused as refusal:
            if isinstance(refusal, Forbidden) and self._hidden_from_caller(call):
                # Refused in words of its own ("your scopes do not include..."), a tool the caller
                # may neither find nor use would be told to exist; the audit log has the reason.
                refusal = UnknownTool(call.name)
            if isinstance(refusal, UnknownTool):
                refusal = self._with_closest_names(refusal, call)
            result = refusal_to_result(refusal)
        except StorageError as exc:  # e.g. a full disk: say so, the server carries on
            result = ToolResult.error(self._storage_error_for(call, exc))
        except anyio.get_cancelled_exc_class():
            if logger.isEnabledFor(logging.DEBUG):  # the client cancelled it: one line all the same
                self._log_call(call, "cancelled", time.perf_counter() - started)
            raise
        except Exception as exc:
            result = crash_to_result(call.name, exc)
        elapsed = time.perf_counter() - started
        result.meta.setdefault("duration_ms", round(elapsed * 1000, 3))
        if self.metrics is not None:
            self.metrics.observe_call(metric_label_of(call), result, call.timings, elapsed)
        if logger.isEnabledFor(logging.DEBUG):  # log_level = "debug": one line per call
            job = result.meta.get("job_id")
            self._log_call(call, f"job {job}" if job else ("error" if result.is_error else "ok"), elapsed)
        return result

    @staticmethod
    def _log_call(call: ToolCall, outcome: str, elapsed: float) -> None:
        # Quoted and escaped (%r): a name or caller id with a line break would forge a log line.
        logger.debug("call %r by %r (%s): %s in %.1f ms", start_of(call.name, _LOGGED_NAME_CHARACTERS),
                     call.principal.id if call.principal is not None else "-", call.transport, outcome,
                     elapsed * 1000)

    def _with_closest_names(self, refusal: UnknownTool, call: ToolCall) -> UnknownTool:
        """The refusal naming the tools closest to the name called, of those the caller may know
        (none before it is known: a name it may not know is never suggested), and where to look."""
        where = self._where_tools_are(call.principal) if self._where_tools_are is not None else None
        closest = refusal.closest
        if not closest and call.principal is not None:
            # Never the name called, nor another tool of a file just removed (listed for a moment yet).
            gone = _files_gone()
            closest = tuple(closest_names(call.name, [
                tool.name for tool in self.findable_definitions(call.principal)
                if tool.name != call.name and not gone(tool)]))
        if where is None and closest == refusal.closest:
            return refusal
        return UnknownTool(refusal.name, closest, where_listed=refusal.where_listed if where is None else where)

    def findable_names(self, principal: Principal) -> list[str]:
        """The tools ``principal`` may use and find, the only ones a name it got wrong is told
        the closest of: a catalog folder's outside its allowlist is never named, not even as a
        close spelling (search_tools answers no match for it)."""
        return [tool.name for tool in self.findable_definitions(principal)]

    def findable_definitions(self, principal: Principal) -> list[ToolDefinition]:
        disclosure = self.disclosure
        return [tool for tool in self.visible_definitions(principal)
                if disclosure is None or disclosure.may_find(principal, tool)]

    def _storage_error_for(self, call: ToolCall, exc: StorageError) -> str:
        """``exc`` as its caller is told it: a caller over HTTP is not told where the server
        keeps its data (an outside check: "the job database /srv/.../jobs.sqlite3 was replaced"),
        which the log says."""
        if call.transport in LOCAL_TRANSPORTS:
            return str(exc)
        return exc.said_to_a_remote_caller(str(self.settings.data_dir))

    def _hidden_from_caller(self, call: ToolCall) -> bool:
        """The called tool is one its caller may not find (a catalog folder's outside its allowlist)."""
        return (self.disclosure is not None and call.handler is not None and call.principal is not None
                and not self.disclosure.may_find(call.principal, call.handler.definition))

    async def _personal_handler(self, catalog: Catalog, call: ToolCall) -> Handler | None:
        """The tool of that name as the caller sees it: its own, where it has one and no core
        or shared tool it may know holds the name (the chain authenticates the call again)."""
        try:
            principal = await self.principal_for(call.transport, call.credential)
        except CallRefused:
            return None  # the chain's authenticate stage refuses it, in its own words
        return catalog.get_for(call.name, principal.id, self.gives_way_for(principal))

    def gives_way_for(self, principal: Principal) -> GivesWay:
        """Whether the caller's own tool gives way to a core or shared tool of its name: where
        the caller may find that tool (see ``Catalog``)."""
        return None if self.disclosure is None else self.disclosure.gives_way(principal)

    async def _dispatch(self, call: ToolCall) -> ToolResult:
        """The end of the chain: run the handler inline, or through the job manager."""
        handler = call.handler
        if handler is None:
            raise UnknownTool(call.name)
        if call.principal is not None:
            call.context.caller = call.principal.id
            call.context.owner = call.principal.job_owner
            call.context.extras["principal"] = call.principal  # for built-ins that answer per caller
            call.context.extras["scopes"] = call.principal.scopes
        if call.session is not None:
            call.context.extras["session"] = call.session
        if handler.runs_inline and job_asked_for():
            # A built-in answers at once and never becomes a job: run for a task, it did what it
            # does (a job_cancel cancelled) and the caller was told its call was refused.
            raise NotATask(call.name)
        # A call that must become a job (declared background, or a task-augmented request)
        # never takes the quick way.
        if not handler.definition.background and not job_asked_for():
            if handler.expects_quick_answer():
                await self._quick_turns.turn()
            quick = handler.answer_at_once(call.arguments, call.context)
            if quick is not None:
                return quick
        if handler.runs_inline:
            return await handler.handle(call.arguments, call.context)
        arguments = call.arguments
        return await self.jobs.run_or_background(
            call.context.job_owner, call.name, arguments,
            lambda context: self._handled(handler, call.name, arguments, context), call.context,
            background=handler.definition.background,
        )

    async def _handled(self, handler: Handler, name: str, arguments: Mapping[str, Any],
                       context: CallContext) -> ToolResult:
        """``handler``'s answer; a call that never ran because its module was replaced while it
        waited (a file saved while callers call it: two calls failed per save) goes to the
        version now served, once, when that takes the same arguments (validated for it)."""
        result = await handler.handle(arguments, context)
        if not (result.is_error and result.meta.get(MODULE_REPLACED)) or handler.definition.owner is not None:
            return result
        current = self.catalog.current.get(name)
        if current is None or current is handler or current.definition.input_schema != handler.definition.input_schema:
            return result
        return await current.handle(arguments, context)

    def answers_at_once(self, tool_name: str) -> bool:
        """True when a call of ``tool_name`` will most likely be answered at once, with nothing
        sent before the answer (no approval to ask for): HTTP then answers with plain JSON."""
        handler = self.catalog.current.get(tool_name)
        if handler is None or handler.definition.background or not handler.expects_quick_answer():
            return False
        approver = self.policies.approver
        return approver is None or not approver.needs_approval(handler.definition.effective_tier)

    def proven_quick(self, tool_name: str, principal: Principal | None = None) -> bool:
        """True when a call of ``tool_name`` is known to end at once (``Handler.proven_quick``)."""
        handler = self._handler_seen_by(tool_name, principal)
        return handler is not None and handler.proven_quick()

    def _handler_seen_by(self, tool_name: str, principal: Principal | None) -> Handler | None:
        """The tool ``tool_name`` as ``principal`` sees it (a personal tool of theirs too), None
        for one it may neither find nor use: its call is answered as a name no tool has, so the
        answer's form (HTTP's plain JSON or SSE stream, which this decides) must be that one's
        too. A hidden catalog tool's call came as JSON and an unknown name's as a stream: the
        Content-Type alone told a caller which names were tools (an outside check).
        ``principal`` None: a request without a token, the anonymous caller's."""
        catalog = self.catalog.current
        handler = catalog.get(tool_name) if principal is None else \
            catalog.get_for(tool_name, principal.id, self.gives_way_for(principal))
        caller = principal if principal is not None else self.policies.authenticator.anonymous
        if handler is not None and self._may_know is not None and caller is not None \
                and not self._may_know(caller, handler.definition):
            return None
        return handler

    def needs_no_stream(self, tool_name: str, principal: Principal | None = None) -> bool:
        """True when a call of ``tool_name`` (with no progress token) sends nothing before its
        answer: one answered at once, or one whose tool asks nothing of the caller however long it
        runs (``Handler.sends_nothing_before_its_answer``), with no approval to ask for. HTTP then
        answers it with one JSON body. ``principal``: the caller, whose own tool the name may be."""
        handler = self._handler_seen_by(tool_name, principal)
        if handler is None or not (handler.sends_nothing_before_its_answer or (
                not handler.definition.background and handler.expects_quick_answer())):
            return False
        approver = self.policies.approver
        return approver is None or not approver.needs_approval(handler.definition.effective_tier)

    # -- who is calling, and what they may see -------------------------------------------

    async def principal_for(self, transport: Transport, credential: str | None) -> Principal:
        """Who is asking, for ``tools/list`` (calls are identified by the chain itself)."""
        return await self.policies.authenticator.identify(transport, credential)

    def owner_id_for(self, transport: Transport, verified: Principal | None) -> str:
        """Whom the caller's jobs belong to (``Principal.job_owner``), without a network round
        trip: ``verified`` is the principal the HTTP layer already checked the token of, if any."""
        if verified is not None:
            return verified.job_owner
        authenticator = self.policies.authenticator
        if transport in LOCAL_TRANSPORTS:
            return (authenticator.local or self.local_principal).job_owner
        return (authenticator.anonymous or Principal.anonymous()).job_owner

    def visible_definitions(self, principal: Principal) -> list[ToolDefinition]:
        return self.policies.authorizer.visible(
            principal, self.catalog.current.definitions_for(principal.id, self.gives_way_for(principal)))

    async def ready_to_list(self) -> None:
        """Works out off the event loop what a listing needs of the tools not listed before
        (``Disclosure.ready_to_list``): the shared ones, whoever may see them (asking each
        caller's rights of 10,000 tools twice a listing would cost more than it spares); a
        caller's few personal tools are worked out by its listing."""
        if self.disclosure is not None:
            await self.disclosure.ready_to_list(self.catalog.current.definitions())

    def listed_definitions(self, principal: Principal, session: object) -> list[ToolDefinition]:
        """What this session's tools/list shows: the caller's tools, as disclosure lists them,
        less those whose file was removed a moment ago (before the watcher took it out)."""
        self.seen_catalogs.saw(session, self.catalog.current)
        visible = self._removed_files.without_removed(self.visible_definitions(principal))
        return visible if self.disclosure is None else self.disclosure.listed(principal, visible, session)

    def shown_text(self) -> Callable[[str], str]:
        """How a text that describes a tool or a role is shown to clients: the audit log's
        rules, and the credentials' values blotted out (read now: a value handed to a tool at
        a call is hidden from then on)."""
        return shown_text(self.keeper.discovery.credentials.shown_nowhere())

    def offered_definitions(self, principal: Principal, usable: list[ToolDefinition],
                            session: object) -> list[ToolDefinition]:
        """What a session this caller delegates to may be offered of ``usable``: what the caller
        could find itself, as disclosure shows it."""
        return usable if self.disclosure is None else self.disclosure.offered(principal, usable, session)
