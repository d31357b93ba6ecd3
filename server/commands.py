"""What the CLI commands do, as async functions (the CLI module only parses and prints)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import stat
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from toolbay.background_import import ImportInBackground
from toolbay.chain.call import ToolCall
from toolbay.close_names import closest_names
from toolbay.config import Settings, folder_problems
from toolbay.discovery import NO_TOOL_REASON, FileOutcome, names_not_files, tool_name_for
from toolbay.errors import UnknownTool
from toolbay.jobs import JobManager
from toolbay.start_up_collector import resume_after_imports
from toolbay.words import CallContext, ToolResult

# In the data folder: the log of a stdio server that runs its jobs on after its client has gone.
AFTER_CLIENT_LOG = "after-client.log"
PRECEDENCE_RULE = ("a name belongs to the first of: core (built-in and bundled tools), shared (the operator's "
                   "folders, a connected folder's before a catalog folder's), personal (the caller's own folder); the "
                   "others are hidden with a shadowing note")

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from toolbay.app import Toolbay
    from toolbay.wasm.early import EarlyCompiles

logger = logging.getLogger(__name__)


class _DescribeProgress:
    """A progress bar on stderr, on a terminal, while files are described for the first time
    (from when describing begins: a warm start describes nothing and shows nothing), until
    ``stop``: files described after it (in the background, past ``start_wait_s``) draw none."""

    def __init__(self) -> None:
        self._console: Console | None = None
        self.progress: Progress | None = None
        self.task: Any = None
        self._stopped = False

    @property
    def console(self) -> Console:
        # rich is loaded only for a terminal: a server started by a client never needs it.
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return self._console

    def __call__(self, outcome: FileOutcome | None, total: int, still_describing: str | None) -> None:
        """``outcome``: the file just described, or None as describing begins."""
        if self._stopped or not (sys.stderr.isatty() or "FORCE_TERMINAL" in os.environ) \
                or not self.console.is_terminal:
            return
        if self.progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.progress = Progress(
                TextColumn("describing tools"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.description}"), console=self.console, transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("", total=total)
        # Named: the file still being described that was begun first (it was the last one done,
        # which read as the one waited on); drawn at once, not at the bar's next refresh, so
        # that the log line saying the tools are served never comes under a bar that lags.
        self.progress.update(self.task, advance=0 if outcome is None else 1, refresh=True,
                             description=os.path.basename(still_describing) if still_describing else "")
        if outcome is not None and still_describing is None:
            # The last file is described: the bar goes now, before the log line that says the
            # tools are served. Stopped only once the server had started, it was drawn again
            # below that line (rich redraws it after each line printed, and ten times a second).
            self.stop()

    def stop(self) -> None:
        """Ends the bar for good. A file described after a server's start had stopped it drew a
        new one, which nothing stopped: redrawn until the server ended, the cursor hidden."""
        self._stopped = True
        if self.progress is not None:
            self.progress.stop()


@asynccontextmanager
async def _assembled_showing_progress(settings: Settings, **options: Any) -> AsyncIterator[Toolbay]:
    """``assemble`` for a command, with the progress bar while new files are described (on a
    terminal), stopped however it ends (Ctrl-C: the bar hides the terminal's cursor)."""
    from toolbay.assembly import assemble

    progress = _DescribeProgress()
    try:
        # A command is no server: jobs a dead server left are the next server's to take up.
        async with assemble(settings, on_progress=progress, adopts_jobs=False, **options) as app:
            progress.stop()
            yield app
    finally:
        progress.stop()


async def serve_until_stopped(settings: Settings, protocol: ImportInBackground | None = None,
                              early_compiles: EarlyCompiles | None = None, started: float | None = None,
                              sock: socket.socket | None = None) -> None:
    """Serves until the client goes (stdio) or the process is stopped. ``protocol``: the
    loading of the transport's module (the MCP SDK: ``protocol_module``), begun by the caller, as are
    ``early_compiles`` (``toolbay.first_start``) and, over HTTP, ``sock``, the socket bound
    to the port once ``refuse_at_start`` has passed the settings (bound here when not given);
    ``started``: when ``serve`` began (``time.monotonic``), from which ``[discovery]
    start_wait_s`` counts."""
    from toolbay.assembly import assemble

    # A client waits from the process's start: the imports (slower while the tools compile) count.
    start_wait_s = settings.discovery.start_wait_s
    if started is not None:
        start_wait_s = max(0.0, start_wait_s - (time.monotonic() - started))

    if sock is None and settings.transport != "stdio":
        from toolbay.protocol.listening import bound_socket

        refuse_at_start(settings)
        # Before the tools are described: a port already taken is said at once.
        sock = bound_socket(settings.host, settings.port)
    progress = _DescribeProgress()
    try:
        # A first start's compiled code is cached once its tools are listed, not while the client
        # waits for that listing (``_serve``).
        async with assemble(settings, on_progress=progress, start_wait_s=start_wait_s,
                            early_compiles=early_compiles, hold_background_work=True) as app:
            progress.stop()
            await _serve(app, settings, progress, protocol, sock)
    finally:
        # Ctrl-C while tools are described: the bar hides the terminal's cursor until it stops.
        progress.stop()
        if sock is not None:
            sock.close()  # closed already when it was served; not when the server never got that far


async def _serve(app: Toolbay, settings: Settings, progress: _DescribeProgress,
                 protocol: ImportInBackground | None, sock: socket.socket | None) -> None:
    if protocol is not None:
        await protocol.loaded()

    warming = None
    if app.disclosure is not None and app.disclosure.leans_on_search():
        # The search sums with numpy, loaded with the first search, which then waited for it:
        # 0.13 s, over a second on a busy machine. Where callers must search, load it now.
        warming = ImportInBackground("numpy")
    # The transports tell the app when the first listing has gone out. Where none comes (an HTTP
    # server with no client yet, a client that only calls, SSE), the compiled code is cached
    # all the same once the server has served that long without one ([discovery]
    # optimise_after_quiet_s: a start's quiet spell); a server stopped sooner writes it as it stops.
    unlisted = asyncio.get_running_loop().call_later(settings.discovery.optimise_after_quiet_s, app.listing_answered)
    try:
        if settings.transport == "stdio":
            if sys.stdin.isatty():
                # Someone typed the command: say what it is waiting for, or it looks hung.
                count = len(app.catalog.current.definitions())
                progress.console.print(
                    f"toolbay: serving {count} tools over stdio; waiting for an MCP client on stdin "
                    "(an MCP client starts this command itself; Ctrl-C stops it)",
                    markup=False, highlight=False, soft_wrap=True)
            from toolbay.protocol.stdio_serving import serve_stdio

            await serve_stdio(app)
            await _run_jobs_to_their_end(app, settings)
        else:
            from toolbay.protocol.transports import build_http_app, serve_http

            await serve_http(app, build_http_app(app), sock=sock)
    finally:
        unlisted.cancel()
        if warming is not None:
            # Not left half-imported at exit, holding numpy's import lock (see serve_command).
            warming.wait(_WARMING_WAIT_S)


# How long a stopping server waits for numpy's background import to end (it takes a moment).
_WARMING_WAIT_S = 30.0


async def _run_jobs_to_their_end(app: Toolbay, settings: Settings) -> None:
    """The stdio client has gone: jobs still running go on to their end (``[jobs] drain_s`` at
    most), so that a server started later on the same data folder can give their results."""
    from toolbay.detach import stay_after_client

    jobs = app.jobs
    if jobs is None or not jobs.running_jobs or settings.jobs.drain_s <= 0:
        return
    log = settings.data_dir / AFTER_CLIENT_LOG
    logger.info("the client has gone; running %d job(s) to their end (%g s at most); the log goes on in %s",
                jobs.running_jobs, settings.jobs.drain_s, log)
    stay_after_client(log)
    left = await jobs.drain(settings.jobs.drain_s)
    if left:
        logger.warning("%d job(s) still running after [jobs] drain_s (%g s) are interrupted",
                       left, settings.jobs.drain_s)
    elif jobs.ended_unrecorded:
        # Said as recorded, after the log had said each end could not be (an outside check).
        logger.warning("every job has ended, but the ends of %d could not be recorded (see above): their results "
                       "are lost as the server stops", jobs.ended_unrecorded)
    else:
        logger.info("every job has ended and is recorded; the server stops")


def refuse_at_start(settings: Settings) -> None:
    """Raises ``ConfigError`` for what the call chain refuses in the settings (a scope that
    grants nothing, an audit log that cannot be written, a tokens file that cannot be read)
    and, over HTTP, for a host others can reach with nobody checked: before tools are
    described, so that a server that cannot serve says so at once. ``serve_http`` checks the
    bind again with the real chain."""
    from toolbay.auth import check_bind_safety
    from toolbay.chain import ChainPolicies, ChainSettings

    policies = ChainPolicies.from_settings(ChainSettings.parse(settings.chain, settings.config_file))
    if settings.transport != "stdio":
        check_bind_safety(settings.host, policies.authenticator.configured, settings.http.allow_insecure)


async def collect_listing(settings: Settings) -> dict[str, Any]:
    """``toolbay list``: the tools the server would serve from the folders (built-ins left out),
    after the same precedence, so a file's tool that a built-in hides is noted, not listed."""
    from toolbay.config import ClusterSettings
    from toolbay.redaction import redacted

    # A listing needs no Redis (which may not be reachable from where it is run): the folders
    # and the built-ins are the same with or without it.
    local = settings.model_copy(update={"cluster": ClusterSettings()})
    async with _assembled_showing_progress(local, watch=False) as app:
        keeper = app.keeper
        tools = []
        catalog = keeper.catalog.current
        definitions = sorted((entry.definition for entry in catalog.entries() if entry.definition.source != "builtin"),
                             key=lambda d: (d.name, d.owner or ""))
        hidden = keeper.discovery.credentials.shown_nowhere()
        for definition in (redacted(definition, hidden) for definition in definitions):
            # Shown as clients are shown it: a listing pasted into an issue or a CI log must not
            # carry a token a tool's help mentions.
            properties = definition.input_schema.get("properties", {})
            hints = definition.annotations.named_as_mcp()
            tool: dict[str, Any] = {
                "name": definition.name,
                "origin": definition.origin.removeprefix("wasm:").removeprefix("agent:").removeprefix("python:"),
                "source": definition.source,
                "realm": definition.realm if definition.owner is None else f"personal ({definition.owner})",
                "tier": definition.tier.value if definition.tier else None,
                "parameters": list(properties),
                "description": definition.description,
                "input_schema": definition.input_schema,
                "annotations": hints,
            }
            if definition.title:
                # As clients are shown it: the tool's own title, and again among its hints.
                tool = {"name": tool.pop("name"), "title": definition.title, **tool}
                tool["annotations"] = {"title": definition.title, **hints}
            if definition.source == "python":
                tool["confinement"] = await anyio.to_thread.run_sync(keeper.discovery.confinement_of, definition)
            if app.policies.authorizer.disabled(definition.name):
                # Described, but no client sees or calls it: said, rather than listed as served.
                tool["disabled"] = "[chain.access] allow/deny keep it from every caller"
            tools.append(tool)
        skipped = [{"path": s.path, "reason": s.reason} for s in keeper.skipped_files]
        return {"tools": tools, "skipped": skipped,
                "diagnostics": [*folder_problems(settings), *names_not_files(settings.extensions),
                                *catalog.diagnostics, *keeper.notes(),
                                *_patterns_matching_nothing(app), *keeper.discovery.credentials.warnings,
                                # Only a file's tools are handed credentials: not a built-in or a role's.
                                *keeper.discovery.credentials.granted_to_none_of(
                                    entry.definition.name for entry in catalog.entries()
                                    if entry.definition.source in ("wasm", "python"))],
                "precedence": PRECEDENCE_RULE}


def _patterns_matching_nothing(app: Toolbay) -> list[str]:
    """A role's tool pattern that names no tool served ("zzz_*", a misspelt name): its sub-agent
    goes without that tool, and nothing else would say so. Not the bundled roles', which name
    the bundled tools: a server of other folders only would be told of each, every time."""
    from fnmatch import fnmatchcase

    from toolbay.config import BUNDLED_AGENTS

    bundled = BUNDLED_AGENTS.resolve()
    names = [definition.name for definition in app.catalog.current.definitions()]
    return [f"role {role.name} ({role.path}): its tools pattern {pattern!r} matches no tool"
            for role in app.roles.roles.values() if os.path.dirname(os.path.realpath(role.path)) != str(bundled)
            for pattern in role.tools if not any(fnmatchcase(name, pattern) for name in names)]


async def call_once(settings: Settings, tool: str, arguments: dict[str, Any]) -> ToolResult:
    """One call through the same chain as a served call (validation included), for tool authors.

    Only the files that can serve a tool of that name are described (``textkit_grep``: the
    files named ``textkit`` or ``textkit_grep``); when none does, every file is, so the error
    can name the closest tools. Raises ``UnknownTool`` for a name no file serves."""
    from toolbay.assembly import assemble

    if tool not in _ABOUT_THE_WHOLE_CATALOG:
        async with assemble(settings, watch=False, file_filter=partial(may_serve, tool), adopts_jobs=False) as app:
            if app.catalog.current.get(tool) is not None:
                return await _call(app, tool, arguments)
    async with assemble(settings, watch=False, adopts_jobs=False) as app:
        if app.catalog.current.get(tool) is None:
            # As a client over MCP is told: a catalog tool the local caller may not search is not named.
            names = app.findable_names(app.local_principal)
            problems = "".join(f" Note: the {problem}." for problem in folder_problems(settings))
            # The file that would serve it but was skipped says why: a tool author's next step.
            # A module none of whose tools is served: its reason is said once, not "offers no tools:
            # it offers no tool: ...".
            skipped = [f" Note: {file.path} offers no tools: {file.reason.removeprefix(NO_TOOL_REASON).rstrip('.')}."
                       for file in app.catalog.current.skipped if may_serve(tool, file.path)]
            # So does a module that serves other tools but refused this one ("mod: refused 'mod_x': ...").
            refused = [f" Note: {note.rstrip('.')}." for note in app.keeper.notes() if f"refused {tool!r}" in note]
            problems += "".join(skipped or refused)
            raise UnknownTool(tool, closest_names(tool, names),
                              where_listed=f"`toolbay list` shows the tools.{problems}")
        return await _call(app, tool, arguments)


# Built-ins whose answer is about every tool: with only their own "file" described, search_tools
# searched the roles and built-ins alone.
_ABOUT_THE_WHOLE_CATALOG = frozenset({"search_tools", "refresh_tools"})


def may_serve(tool: str, path: str) -> bool:
    """Whether the file at ``path`` can offer a tool named ``tool`` (itself or a subcommand)."""
    stem = tool_name_for(path)
    return tool == stem or tool.startswith(stem + "_")


async def _call(app: Toolbay, tool: str, arguments: dict[str, Any]) -> ToolResult:
    # Assembled, so imported: the call may run long, and frees its cycles as it goes.
    resume_after_imports()
    call = ToolCall(name=tool, arguments=arguments, context=CallContext(), transport="cli")
    result = await app.call(call)
    job_id = result.meta.get("job_id")
    if app.jobs is not None and isinstance(job_id, str) and not result.is_error:
        # A call that became a job: wait for it here, with its progress, as the user asked.
        result = await _wait_for_job(app.jobs, call.context.job_owner, job_id)
    if result.is_error and not result.text:
        print(f"toolbay: {tool} failed", file=sys.stderr)
    if result.is_error and result.meta.get("workspace", ...) is None and app.settings.workspace is None:
        # It failed to reach a file, and was given no folder since the command named none: the
        # person may grant one (``toolbay call`` says how), where a model may not. A tool that
        # declares no tier sees none whatever is granted: its note says so already.
        handler = app.catalog.current.get(tool)
        result.meta[GRANT_A_WORKSPACE] = handler is not None and handler.definition.tier is not None
    return result


# ``call_once``'s result: the tool failed to reach a file, and ``--workspace`` would let it.
GRANT_A_WORKSPACE = "grant_a_workspace"


async def _wait_for_job(jobs: JobManager, owner: str, job_id: str) -> ToolResult:
    """The call went on as a job: wait for it with a progress bar; Ctrl-C (or SIGTERM) cancels it."""
    import signal

    import anyio

    from toolbay.jobs_cli import watch

    # SIGTERM (a supervisor, a timeout) cancels it too: ending at once left the job "running"
    # with nothing running it.
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        print(f"toolbay: the call goes on as job {job_id}; waiting for it (Ctrl-C cancels it)",
              file=sys.stderr, flush=True)
        async with anyio.create_task_group() as group:

            async def cancel_on_ctrl_c() -> None:
                async for received in signals:
                    print(f"toolbay: cancelling job {job_id}", file=sys.stderr)
                    why = ("cancelled with Ctrl-C" if received == signal.SIGINT
                           else "cancelled: toolbay call was stopped (SIGTERM)")
                    await jobs.cancel(owner, job_id, why)
                    return

            group.start_soon(cancel_on_ctrl_c)
            await watch(jobs, owner, job_id, None, read=lambda: jobs.status(owner, job_id))
            group.cancel_scope.cancel()
    result = await jobs.result(owner, job_id)
    assert result is not None  # the job has ended
    return result


async def search_served(settings: Settings, query: str, limit: int) -> dict[str, Any]:
    """``toolbay search QUERY``: what ``search_tools`` answers the local caller over what the
    server would serve (catalog allowlist and redaction included), without promoting anything."""
    async with _assembled_showing_progress(settings, watch=False) as app:
        assert app.search is not None  # assemble always wires the search
        context = CallContext()
        context.extras["principal"] = app.local_principal
        found = await app.search(query, limit, context)
    return {"id": query, "no_match": bool(found["no_match"]),
            "results": [{"name": r["name"], "score": r["score"], "description": r["description"]}
                        for r in found["results"]]}


async def describe_file(settings: Settings, path: str) -> dict[str, Any]:
    """``toolbay describe FILE.wasm``: every help text the program printed and every tool's
    full definition, described afresh as discovery would (settings such as ``tiers`` apply)."""
    import anyio.to_thread

    from toolbay.discovery import Discovery
    from toolbay.errors import ConfigError
    from toolbay.helptext.decode import decode_help
    from toolbay.wasm import WasmRuntime

    try:
        kind = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        gone = f"{path} is a symbolic link to {os.readlink(path)}, which does not exist" if os.path.islink(path) \
            else f"no such file: {path}"
        raise ConfigError(f"describe: {gone}") from None
    except OSError as exc:  # in a folder this user may not enter: "no such file" sent them looking for it
        raise ConfigError(f"describe: cannot read {path} ({exc.strerror or exc})") from None
    if stat.S_ISDIR(kind):
        raise ConfigError(f"describe: {path} is a folder; give it one .wasm file (toolbay list shows a folder's tools)")
    if not stat.S_ISREG(kind):
        raise ConfigError(f"describe: {path} is not a regular file (a pipe, a socket or a device); "
                          "give it a .wasm file")
    runtime = WasmRuntime(cache_dir=settings.data_dir / "modules", consume_fuel=settings.sandbox.fuel is not None)
    try:
        explained = await anyio.to_thread.run_sync(Discovery(settings, runtime).explain, os.path.abspath(path))
    finally:
        runtime.close()
    runs = []
    for argv, run in explained.help_runs:
        decoded = decode_help(run.help_bytes)
        text = decoded.text
        if run.help_beside_output:  # a banner on stdout, the usage on stderr: both are shown
            text = text.rstrip("\n") + "\n[on stderr:]\n" + decode_help(run.help_beside_output).text
        runs.append({"argv": argv, "exit_code": run.exit_code, "stopped": run.stopped, "encoding": decoded.encoding,
                     "text": text})
    tools = [{
        "name": tool.name, "description": tool.description, "tier": tool.tier.value if tool.tier else None,
        "keywords": list(tool.keywords), "version": tool.version, "background": tool.background,
        "input_schema": tool.input_schema,
    } for tool in explained.tools]
    return {"file": os.path.abspath(path), "help_runs": runs, "tools": tools, "skipped": list(explained.skipped),
            "described": explained.described}
