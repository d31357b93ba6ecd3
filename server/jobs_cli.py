"""``toolbay jobs``: the jobs in a data folder, from the shell, while a server runs or not.

    toolbay jobs list | status ID | wait ID | result ID | cancel ID

It reads the job database every server on the folder shares (SQLite in WAL mode: readers
never block the server). It runs no job: ``wait`` watches the store, ``cancel`` leaves a
request the running server heeds within a second, or records the job cancelled when no server
runs it (its server was killed: the next one would have started it again). Jobs belong to their caller: ``--owner``
(default: the user running it, which is who the stdio client and ``toolbay call`` are) picks whose.
"""

from __future__ import annotations

import json
import math
import shlex
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from toolbay.cli_command import PlainCommand
from toolbay.cli_running import config_path, named_text, number_range, whole_number
from toolbay.control_chars import one_line

if TYPE_CHECKING:
    from rich.console import Console

    from toolbay.jobs import JobManager
    from toolbay.jobs.views import JobView

T = TypeVar("T")


def _console(*, stderr: bool = False) -> Console:
    # rich is loaded when a jobs command prints, not with every ``toolbay`` command (this module
    # is part of the command table).
    from toolbay.cli_running import console

    return console(stderr=stderr)

jobs_app = typer.Typer(help="The jobs in the data folder: list, status, wait, result, cancel.", no_args_is_help=True)


def _data_dir(value: str) -> Path:
    """``--data-dir``, refused empty as the other commands refuse it: a Path read it as the current folder."""
    if not value:
        raise typer.BadParameter("is empty, which would mean the current folder; give a path, or leave the option out")
    return Path(value)


OwnerOption = Annotated[str | None, typer.Option(
    "--owner", metavar="ID", parser=named_text("the caller's id (a token's client_id), or leave --owner out for yours"),
    help="Whose jobs (default: you, as the stdio client and `toolbay call` are known).")]
DataDirOption = Annotated[
    Path | None, typer.Option("--data-dir", metavar="DIR", parser=_data_dir,
                              help="Where the job database lives.")]
ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", metavar="FILE", parser=config_path,
                                                  help="TOML configuration file.")]
JobId = Annotated[str, typer.Argument(metavar="ID", parser=named_text("the job's id (job_...), as `toolbay jobs list` "
                                                                     "shows it"), help="The job id (job_...).")]
# The bounds of `jobs list`'s page, said in its help in words.
MAX_LIMIT = 10_000
# How often `wait` looks at the store.
WAIT_POLL_S = 0.25


def _owner(owner: str | None) -> str:
    from toolbay.auth.principal import local_principal

    return owner if owner is not None else local_principal(()).id


def _with_manager(config: Path | None, data_dir: Path | None,
                  use: Callable[[JobManager], Awaitable[T]], *, when_no_database: Callable[[], T] | None = None) -> T:
    """Runs ``use`` with a manager over the folder's store that runs nothing and recovers
    nothing (no serving lock: it is no server). A ``--data-dir`` that does not exist is a
    mistake (exit 2); a folder where no server has kept a job yet has no jobs:
    ``when_no_database`` answers for it, or the command fails (exit 1) saying so."""
    from toolbay.cli_running import run_command, settings_or_exit
    from toolbay.jobs import JobManager, SqliteJobStore
    from toolbay.start_up_collector import resume_after_imports

    resume_after_imports()  # `wait` may poll for long: its cycles are freed as it goes

    settings = settings_or_exit(config, data_dir=data_dir)
    if settings.cluster.redis is not None:
        return run_command(_on_redis, settings.cluster.redis, use)
    if data_dir is not None and not data_dir.is_dir():
        from toolbay.config import unfollowed_link

        problem = unfollowed_link(data_dir) or ("is a file, not a folder" if data_dir.exists() else "does not exist")
        typer.echo(f"toolbay: the data folder {data_dir} {problem}", err=True)
        raise typer.Exit(2)
    database = settings.data_dir / "jobs.sqlite3"
    if not database.exists():
        # One line, as every error of the CLI (a console would wrap a long path).
        typer.echo(f"toolbay: no jobs in {settings.data_dir} (no server has kept one there: no {database.name})",
                   err=True)
        if when_no_database is not None:
            return when_no_database()
        raise typer.Exit(1)

    async def run() -> T:
        # Reading or cancelling jobs is no repair: a damaged file is said and left to the next server.
        manager = JobManager(SqliteJobStore(database, as_server=False))
        await manager.store.open()
        try:
            return await use(manager)
        finally:
            await manager.store.aclose()

    return run_command(run)


async def _on_redis(url: str, use: Callable[[JobManager], Awaitable[T]]) -> T:
    """The cluster's jobs (``[cluster] redis``): a cancel reaches the replica running the job."""
    from toolbay.cluster.connection import open_checked
    from toolbay.cluster.jobs import RedisJobStore
    from toolbay.jobs import JobManager

    client = await open_checked(url)
    try:
        manager = JobManager(RedisJobStore(client))
        await manager.store.open()
        try:
            return await use(manager)
        finally:
            await manager.store.aclose()
    finally:
        await client.aclose()


# Said of an unfinished job that no server runs (its server was killed, or stopped with its
# client): the store still shows it running, and nobody will end it until a server starts.
UNATTENDED = ("no server is running it now (the one that ran it has stopped); the next server started on "
              "this data folder takes it up, or `toolbay jobs cancel` ends it")


def _print_view(view: JobView, as_json: bool, unattended: bool = False) -> None:
    if as_json:
        typer.echo(json.dumps({**view.structured(), **({"unattended": True} if unattended else {})}, indent=2))
    else:
        typer.echo(view.state() + (f"; {UNATTENDED}" if unattended else "") + ".")


async def _unattended(manager: JobManager, owner: str, job_id: str, view: JobView | None = None) -> bool:
    """Whether the job is unfinished and no server on its data folder runs it: the server it
    was last marked as run by holds its own lock no more (or, for a job of a server that
    marked none, no server serves the folder at all). Always False for Redis's replicas,
    whose leases say the same."""
    from toolbay.jobs import SqliteJobStore
    from toolbay.jobs.serving import ServingLock, held_exclusively, serving_lock_beside

    store = manager.store
    view = view if view is not None else await manager.status(owner, job_id)
    record = await store.get(owner, job_id) if isinstance(store, SqliteJobStore) else None
    if view.finished or record is None or not isinstance(store, SqliteJobStore):
        return False
    lock = ServingLock(serving_lock_beside(store.path))
    runner = await manager.runner_of(record)
    if runner is not None:
        return not lock.runner_alive(runner)
    try:
        with held_exclusively(lock.path, blocking=False):
            return True  # free: no server serves this folder
    except BlockingIOError:
        return False


def _no_jobs() -> list[JobView]:
    return []


@jobs_app.command("list", cls=PlainCommand)
def list_jobs(owner: OwnerOption = None, data_dir: DataDirOption = None, config: ConfigOption = None,
              as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
              limit: Annotated[int, typer.Option(
                  "--limit", metavar="N", parser=whole_number(1, MAX_LIMIT),
                  help=f"At most this many, {number_range(1, MAX_LIMIT)}.")] = 100,
              offset: Annotated[int, typer.Option(
                  "--offset", metavar="N", parser=whole_number(0),
                  help=f"Skip this many of the newest first, {number_range(0, None)}.")] = 0,
              status: Annotated[str | None, typer.Option(
                  "--status", metavar="STATUS", help="Only jobs with this status (queued, running, completed, "
                  "failed, cancelled, interrupted).")]
              = None) -> None:
    """The owner's jobs, newest first (--limit of them, after --offset)."""
    from toolbay.jobs.store import JOB_STATUSES, MAX_OFFSET  # here: the command table loads no job code

    if status is not None and status not in JOB_STATUSES:
        raise typer.BadParameter(f"{status!r} is not one of {', '.join(JOB_STATUSES)}", param_hint="--status")
    if offset > MAX_OFFSET:
        raise typer.BadParameter(f"at most {MAX_OFFSET}", param_hint="--offset")
    # One more than shown: whether older ones follow, said rather than left out unsaid.
    views = _with_manager(config, data_dir, lambda manager: manager.list(
        _owner(owner), status, limit=limit + 1, offset=offset), when_no_database=_no_jobs)
    more, views = len(views) > limit, views[:limit]
    if as_json:
        typer.echo(json.dumps([v.structured() for v in views], indent=2))
        if more:
            _console(stderr=True).print(f"older jobs follow: --offset {offset + limit}")
        return
    from rich.table import Table

    from toolbay.cli_running import plain

    kind = f"{status} " if status else ""
    # The owner as typed, escape sequences shown rather than sent to the terminal (as a tool's text is).
    title = f"{len(views)} {kind}{'job' if len(views) == 1 else 'jobs'} of {one_line(_owner(owner))}, newest first"
    if offset:
        title += f" after the newest {offset}"
    if more:
        title += f" (older ones follow: --offset {offset + limit})"
    table = Table(title=title)
    # A job id is copied into `jobs status ID`: never cut, whatever the width.
    table.add_column("job", no_wrap=True, min_width=max((len(view.id) for view in views), default=3))
    for column in ("tool", "status", "created", "note"):
        table.add_column(column, overflow="fold")
    for view in views:
        structured = view.structured()
        table.add_row(*plain(view.id, view.tool, view.status, structured["created_at"], view.reason or ""))
    _console().print(table)


@jobs_app.command(cls=PlainCommand)
def status(job_id: JobId, owner: OwnerOption = None, data_dir: DataDirOption = None,
           config: ConfigOption = None,
           as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Where a job is now."""

    async def look(manager: JobManager) -> tuple[JobView, bool]:
        view = await manager.status(_owner(owner), job_id)
        return view, await _unattended(manager, _owner(owner), job_id, view)

    view, unattended = _with_manager(config, data_dir, look)
    _print_view(view, as_json, unattended)


def _seconds(value: str) -> float:
    """``wait --timeout``'s seconds, refused in words: "ten" was "Input should be a valid number,
    unable to parse string as a number"."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds):  # nan, inf: anyio refuses them with a traceback
        raise typer.BadParameter(f"{value!r} is not a number of seconds; leave --timeout out to wait for its end")
    if seconds < 0:  # as the job_wait tool refuses it
        raise typer.BadParameter(f"{seconds:g} is below 0; give the seconds to wait, or 0 to look once")
    return seconds


@jobs_app.command(cls=PlainCommand)
def wait(job_id: JobId, owner: OwnerOption = None, data_dir: DataDirOption = None, config: ConfigOption = None,
         timeout: Annotated[float | None, typer.Option(metavar="S", parser=_seconds,
                                                       help="Give up after S seconds.")] = None) -> None:
    """Waits for a job to end, showing its progress; exit 1 unless it completed."""
    async def wait_unless_unattended(manager: JobManager) -> tuple[JobView, bool]:
        if await _unattended(manager, _owner(owner), job_id):  # it would wait to its timeout, or for ever
            return await manager.status(_owner(owner), job_id), True
        return await watch(manager, _owner(owner), job_id, timeout), False

    view, unattended = _with_manager(config, data_dir, wait_unless_unattended)
    typer.echo(view.state() + (f"; {UNATTENDED}" if unattended else "") + ".")
    if view.status != "completed":
        raise typer.Exit(1)


@jobs_app.command(cls=PlainCommand)
def result(job_id: JobId, owner: OwnerOption = None, data_dir: DataDirOption = None,
           config: ConfigOption = None) -> None:
    """Prints a job's output (exit 1 if it failed or has not ended)."""
    output = _with_manager(config, data_dir, lambda manager: _result(manager, _owner(owner), job_id))
    if isinstance(output, str):
        typer.echo(output, err=True)
        raise typer.Exit(1)
    if output.text:
        typer.echo(output.text.rstrip("\n"))
    if output.is_error:
        raise typer.Exit(1)


@jobs_app.command(cls=PlainCommand)
def cancel(job_id: JobId, owner: OwnerOption = None, data_dir: DataDirOption = None,
           config: ConfigOption = None) -> None:
    """Asks the server running a job to stop it (within a second)."""
    reason = "cancelled with toolbay jobs cancel"

    async def ask_or_end(manager: JobManager) -> tuple[JobView, bool]:
        view = await manager.status(_owner(owner), job_id)
        if view.finished:
            return view, False
        ended = await _end_if_unattended(manager, _owner(owner), job_id, reason)
        if ended is not None:
            return ended, True
        return await manager.request_cancel(_owner(owner), job_id, reason), False

    view, ended_here = _with_manager(config, data_dir, ask_or_end)
    if ended_here:
        typer.echo(f"{view.state()} (no server was running it, so it is recorded cancelled here and no server "
                   "will start it again).")
    elif view.finished:
        typer.echo(f"{view.state()}: nothing to cancel.")
    else:
        # With the options that found it: another caller's job (--owner), another folder's.
        found_by = [job_id, *(["--owner", owner] if owner is not None else []),
                    *(["--data-dir", str(data_dir)] if data_dir is not None else []),
                    *(["--config", str(config)] if config is not None else [])]
        again = shlex.join(found_by)
        typer.echo(f"Asked the server to stop job {job_id}; `toolbay jobs wait {again}` shows when it has.")


async def _end_if_unattended(manager: JobManager, owner: str, job_id: str, reason: str) -> JobView | None:
    """Records the job cancelled when no server runs it; None when one does (it is asked
    instead). Decided under the gate servers take over jobs under, so that none takes this one
    over between the look and the record."""
    from toolbay.jobs import JobEvent, SqliteJobStore
    from toolbay.jobs.serving import ServingLock, held_exclusively, serving_lock_beside
    from toolbay.words import ToolResult

    store = manager.store
    if not isinstance(store, SqliteJobStore):
        return None
    with held_exclusively(ServingLock(serving_lock_beside(store.path)).gate_path, blocking=True):
        if not await _unattended(manager, owner, job_id):
            return None
        now = time.time()
        await store.finish(job_id, "cancelled", ToolResult.error(f"The job was {reason} while no server ran it."),
                           at=now, reason=reason,
                           events=[JobEvent(job_id=job_id, at=now, kind="finished",
                                            data={"status": "cancelled", "reason": reason})])
    return await manager.status(owner, job_id)


async def _result(manager: JobManager, owner: str, job_id: str) -> Any:
    output = await manager.result(owner, job_id)
    if output is None:
        view = await manager.status(owner, job_id)
        return f"{view.state()}; it has not ended yet. Wait for it with: toolbay jobs wait {job_id}"
    return output


async def watch(manager: JobManager, owner: str, job_id: str, timeout_s: float | None,
                read: Callable[[], Awaitable[JobView]] | None = None) -> JobView:
    """Waits for the job to end with a progress bar on stderr (when it is a terminal);
    ``read`` gives the job's view now (default: the store, with its latest progress)."""
    import anyio
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    look = read or (lambda: manager.status(owner, job_id))
    view = await look()
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[note]}"), TimeElapsedColumn())
    with Progress(*columns, console=_console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{view.tool} ({job_id})", total=None, note=view.status)
        with anyio.move_on_after(timeout_s):
            while not view.finished:
                progress = view.progress or {}
                done, total = progress.get("progress"), progress.get("total")
                bar.update(task, completed=done or 0, total=total,
                           note=progress.get("message") or view.status)
                await anyio.sleep(WAIT_POLL_S)
                view = await look()
    return view
