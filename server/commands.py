"""What the CLI commands do, as async functions (the CLI module only parses and prints)."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from toolbay.catalog_keeper import CatalogKeeper
from toolbay.chain.call import ToolCall
from toolbay.config import Settings
from toolbay.discovery import FileOutcome
from toolbay.jobs import JobManager
from toolbay.words import CallContext, ToolResult

if TYPE_CHECKING:
    from toolbay.app import Toolbay

logger = logging.getLogger(__name__)

# Below this many files to describe, a progress bar is more noise than help.
PROGRESS_THRESHOLD = 4


class _DescribeProgress:
    """A progress bar on stderr while many files are described for the first time."""

    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.progress: Progress | None = None
        self.task: Any = None

    def __call__(self, outcome: FileOutcome, total: int) -> None:
        if total < PROGRESS_THRESHOLD or not self.console.is_terminal:
            return
        if self.progress is None:
            self.progress = Progress(
                TextColumn("describing tools"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.description}"), console=self.console, transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("", total=total)
        self.progress.update(self.task, advance=1, description=os.path.basename(outcome.path))

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


async def serve_until_stopped(settings: Settings) -> None:
    from toolbay.assembly import assemble
    from toolbay.protocol.transports import build_http_app, serve_http, serve_stdio

    if settings.transport != "stdio":
        _refuse_unsafe_bind(settings)
    progress = _DescribeProgress()
    async with assemble(settings, on_progress=progress, start_wait_s=settings.discovery.start_wait_s) as app:
        progress.stop()
        if settings.transport == "stdio":
            await serve_stdio(app)
            await _run_jobs_to_their_end(app, settings)
        else:
            await serve_http(app, build_http_app(app))


async def _run_jobs_to_their_end(app: Toolbay, settings: Settings) -> None:
    """The stdio client has gone: jobs still running go on to their end (``[jobs] drain_s`` at
    most), so that a server started later on the same data folder can give their results."""
    from toolbay.detach import stay_after_client

    jobs = app.jobs
    if jobs is None or not jobs.running_jobs or settings.jobs.drain_s <= 0:
        return
    logger.info("the client has gone; running %d job(s) to their end (%g s at most)",
                jobs.running_jobs, settings.jobs.drain_s)
    stay_after_client()
    left = await jobs.drain(settings.jobs.drain_s)
    if left:
        logger.warning("%d job(s) still running after [jobs] drain_s (%g s) are interrupted",
                       left, settings.jobs.drain_s)


def _refuse_unsafe_bind(settings: Settings) -> None:
    """Fails fast, before tools are described; ``serve_http`` checks again with the real chain."""
    from toolbay.auth import check_bind_safety
    from toolbay.chain import ChainPolicies, ChainSettings

    policies = ChainPolicies.from_settings(ChainSettings.parse(settings.chain))
    check_bind_safety(settings.host, policies.authenticator.configured, settings.http.allow_insecure)


async def collect_listing(settings: Settings) -> dict[str, Any]:
    async with CatalogKeeper.open(settings) as keeper:
        tools = []
        for definition in keeper.catalog.current.definitions():
            properties = definition.input_schema.get("properties", {})
            tools.append({
                "name": definition.name,
                "origin": definition.origin.removeprefix("wasm:").removeprefix("agent:"),
                "source": definition.source,
                "tier": definition.tier.value if definition.tier else None,
                "parameters": list(properties),
                "description": definition.description,
            })
        skipped = [{"path": s.path, "reason": s.reason} for s in keeper.skipped_files]
        return {"tools": tools, "skipped": skipped, "diagnostics": list(keeper.catalog.current.diagnostics)}


async def call_once(settings: Settings, tool: str, arguments: dict[str, Any]) -> ToolResult:
    """One call through the same chain as a served call (validation included), for tool authors."""
    from toolbay.assembly import assemble

    async with assemble(settings, watch=False) as app:
        call = ToolCall(name=tool, arguments=arguments, context=CallContext(), transport="cli")
        result = await app.call(call)
        job_id = result.meta.get("job_id")
        if app.jobs is not None and isinstance(job_id, str) and not result.is_error:
            result = await _wait_for_job(app.jobs, call.context.caller, job_id)
        if result.is_error and not result.text:
            print(f"toolbay: {tool} failed", file=sys.stderr)
        return result


async def _wait_for_job(jobs: JobManager, owner: str, job_id: str) -> ToolResult:
    """The call went on as a job: wait for it with a progress bar; Ctrl-C cancels it."""
    import signal

    import anyio

    from toolbay.jobs_cli import watch

    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        print(f"toolbay: the call goes on as job {job_id}; waiting for it (Ctrl-C cancels it)",
              file=sys.stderr, flush=True)
        async with anyio.create_task_group() as group:

            async def cancel_on_ctrl_c() -> None:
                async for _ in signals:
                    print(f"toolbay: cancelling job {job_id}", file=sys.stderr)
                    await jobs.cancel(owner, job_id, "cancelled with Ctrl-C")
                    return

            group.start_soon(cancel_on_ctrl_c)
            await watch(jobs, owner, job_id, None, read=lambda: jobs.status(owner, job_id))
            group.cancel_scope.cancel()
    result = await jobs.result(owner, job_id)
    assert result is not None  # the job has ended
    return result


async def search_served(settings: Settings, query: str, limit: int) -> dict[str, Any]:
    """``toolbay search QUERY``: the search tool's answer over what the server would serve."""
    from toolbay.assembly import assemble
    from toolbay.search import SearchIndex
    from toolbay.search.batch import outcome_record

    async with assemble(settings, watch=False) as app:
        index = SearchIndex()
        definitions = app.visible_definitions(app.local_principal)
        index.put_many(definitions)
        record = outcome_record(query, index.search(query, limit))
        descriptions = {definition.name: definition.description for definition in definitions}
        for result in record["results"]:
            result["description"] = descriptions[result["name"]]
        return record


async def describe_file(settings: Settings, path: str) -> dict[str, Any]:
    """``toolbay describe FILE.wasm``: every help text the program printed and every tool's
    full definition, described afresh as discovery would (settings such as ``tiers`` apply)."""
    import anyio.to_thread

    from toolbay.discovery import Discovery
    from toolbay.errors import ConfigError
    from toolbay.helptext.decode import decode_help
    from toolbay.wasm import WasmRuntime

    if not os.path.isfile(path):
        raise ConfigError(f"describe: no such file: {path}")
    runtime = WasmRuntime(cache_dir=settings.data_dir / "modules", consume_fuel=settings.sandbox.fuel is not None)
    try:
        explained = await anyio.to_thread.run_sync(Discovery(settings, runtime).explain, os.path.abspath(path))
    finally:
        runtime.close()
    runs = []
    for argv, run in explained.help_runs:
        decoded = decode_help(run.help_bytes)
        runs.append({"argv": argv, "exit_code": run.exit_code, "encoding": decoded.encoding, "text": decoded.text})
    tools = [{
        "name": tool.name, "description": tool.description, "tier": tool.tier.value if tool.tier else None,
        "keywords": list(tool.keywords), "background": tool.background, "input_schema": tool.input_schema,
    } for tool in explained.tools]
    return {"file": os.path.abspath(path), "help_runs": runs, "tools": tools, "skipped": list(explained.skipped)}
