"""``toolbay serve``, without typer: the entry point runs a well-formed command line here at once.

typer (with click and the pydantic adapters it builds for each option) takes about 0.2 s of a
server's start, a tenth of a warm start and, on a first start, time in which the tools could
already be compiling. So ``serve_options_at_once`` reads the serve command's options itself,
as click would, and hands anything it does not take as it stands (``--help``, an unknown or
misspelt option, a value that is not one of the allowed ones, a repeated option) to typer,
which answers as documented. ``toolbay.cli`` declares the same options for typer and its
``serve`` calls ``serve`` here; a test holds the two readings equal.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from toolbay.background_import import ImportInBackground
    from toolbay.config import Settings
    from toolbay.first_start import EarlyStart
    from toolbay.start_up_collector import ImportsUnderway
    from toolbay.wasm.early import EarlyCompiles

TRANSPORTS = ("stdio", "http", "sse")
# The module that serves over stdio, and the MCP SDK with it (``protocol_module``).
STDIO_PROTOCOL = "toolbay.protocol.stdio_serving"
# How long a server that stops waits for the MCP SDK's import to end (it takes a second or two).
_IMPORT_WAIT_S = 60.0
# Option spellings -> parameter of ``serve``; "extensions" may be repeated.
_WITH_VALUE = {
    "--transport": "transport", "-t": "transport",
    "--host": "host",
    "--port": "port",
    "--extensions": "extensions", "-e": "extensions",
    "--data-dir": "data_dir",
    "--workspace": "workspace",
    "--config": "config", "-c": "config",
}
_FLAGS = {"--insecure-no-auth": "allow_insecure"}


def serve_options_at_once(argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of ``serve`` for ``argv`` (``["serve", ...]``), or None when typer
    must read it."""
    if argv[:1] != ["serve"]:
        return None
    options: dict[str, Any] = {}
    rest = argv[1:]
    while rest:
        word, rest = rest[0], rest[1:]
        if word in _FLAGS:
            if _FLAGS[word] in options:
                return None
            options[_FLAGS[word]] = True
            continue
        name, equals, value = word.partition("=")
        if not (word.startswith("--") and equals):
            name, value = word, ""
            if not rest:
                return None
            value, rest = rest[0], rest[1:]
        key = _WITH_VALUE.get(name)
        if key is None or not value or value.startswith("-"):
            return None
        if key == "extensions":
            options.setdefault(key, []).append(value)  # as typer passes folders: as written
            continue
        if key in options:
            return None
        if key == "transport" and value not in TRANSPORTS:
            return None
        if key == "port":
            if not (value.isascii() and value.isdigit()) or int(value) > 65_535:  # typer says why, in words
                return None
            options[key] = int(value)
        elif key == "config":
            options[key] = Path(value)
        else:
            options[key] = value
    return options


def serve(
    transport: str | None = None,
    host: str | None = None,
    port: int | None = None,
    extensions: Sequence[str | Path] | None = None,
    data_dir: str | Path | None = None,
    workspace: str | Path | None = None,
    config: Path | None = None,
    allow_insecure: bool = False,
    early_start: EarlyStart | None = None,
) -> None:
    """Runs the MCP server until it is stopped (what ``toolbay serve`` does). ``early_start``:
    the compiles the entry point began before the settings were read, on its guess of them
    (``toolbay.first_start.EarlyStart``), if it did."""
    started = time.monotonic()  # [discovery] start_wait_s counts from here
    from toolbay.start_up_collector import ImportsUnderway

    imports = ImportsUnderway(threads=2)
    # The MCP SDK loads on a thread of its own while the server loads its own modules and
    # describes the tools. On a first start whose compiles the entry point began on its guess
    # of the settings (a stdio server, forked already: see toolbay.first_start), the transport
    # is known and the SDK begins to load now, not once this thread's own imports are done: the
    # tools were then described, waiting on their compiles, before the SDK had loaded, and the
    # first listing waited for it. Only then: on any other start nothing waits on compiles, and
    # the two threads' imports at once cost more than one after the other (a warm start's
    # processor time to its first answers about 0.12 s more).
    protocol = _stdio_protocol(imports) if early_start is not None and early_start.compiles is not None else None
    try:
        try:
            ready = _ready_to_serve(transport, host, port, extensions, data_dir, workspace, config, allow_insecure,
                                    early_start, imports, protocol)
        except SystemExit as refused:
            if protocol is not None and protocol.underway():
                _end_refused_start(refused)
            raise
        _serve(ready, started)
    finally:
        # A server that stops early (an unreachable Redis, Ctrl-C, settings it refuses) must
        # not end the process in the middle of that import: the thread, stopped at exit, would
        # keep its module's import lock, and a finaliser that imports (redis's connection pool
        # does) would wait for it for ever at the interpreter's shutdown.
        if protocol is not None:
            protocol.wait(_IMPORT_WAIT_S)


def _stdio_protocol(imports: ImportsUnderway) -> ImportInBackground:
    """The import of a stdio server's transport (and the MCP SDK), begun. A stdio server runs no
    uvicorn: sse_starlette, which the SDK loads, need not load it to hear of its exit."""
    from toolbay.background_import import ImportInBackground
    from toolbay.internals.sse_starlette_uvicorn import load_without_uvicorn

    return ImportInBackground(STDIO_PROTOCOL, then=imports.done, first=load_without_uvicorn)


def _end_refused_start(refused: SystemExit) -> NoReturn:
    """A first start refused (its settings, folders, port) while the MCP SDK still loads on its thread
    and the tools compile on theirs: the process ends now, as it would once they had, with what was said
    written out. Nothing has begun that must be ended (no job database, worker or connection yet), and
    waiting for that import (``_IMPORT_WAIT_S``: a stop must not leave it holding an import lock a finaliser
    then waits for) kept the compiles going for nothing: a misspelt workspace took 1.1 s and 2 s of
    processor time to be said, where a start that is no first one says it in half a second."""
    import logging
    import os

    logging.shutdown()
    code = refused.code
    if code is not None and not isinstance(code, int):  # as Python ends on SystemExit("message")
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code or 0)


@dataclass(frozen=True, slots=True)
class _Ready:
    """What a server checked at start serves with."""

    settings: Settings
    protocol: ImportInBackground
    early_compiles: EarlyCompiles | None
    sock: socket.socket | None


def _ready_to_serve(transport: str | None, host: str | None, port: int | None,
                    extensions: Sequence[str | Path] | None, data_dir: str | Path | None,
                    workspace: str | Path | None, config: Path | None, allow_insecure: bool,
                    early_start: EarlyStart | None, imports: ImportsUnderway,
                    protocol: ImportInBackground | None) -> _Ready:
    """The settings read and checked, the tools compiling, the transport loading: anything refused stops
    the server here (SystemExit 2, said in one line), before it serves."""
    from toolbay.cli_running import call_or_exit, settings_or_exit
    from toolbay.logs import configure_logging

    settings = settings_or_exit(
        config, make_data_dir=True, transport=transport, host=host, port=port, extensions=extensions, data_dir=data_dir,
        workspace=workspace,
    )
    if allow_insecure:
        settings.http.allow_insecure = True
    if settings.transport == "stdio" and (port is not None or host is not None):
        # "serve --port 8797" served stdio, quietly: the flag was meant for HTTP.
        from toolbay.cli_running import say

        say("toolbay: --port and --host are for --transport http or sse; this server would speak stdio "
            "(add --transport http)")
        raise SystemExit(2)
    if settings.transport == "stdio" and (ambient := sorted({"host", "port"} & settings.model_fields_set)):
        # Set in the configuration or the environment (TOOLBAY_PORT), perhaps for another
        # server of the same shell: said, not refused, as the flags are.
        from toolbay.logs import say_as_configured

        say_as_configured(settings.log_format, "toolbay.config",
                          f"{' and '.join(ambient)} (from the configuration or the environment) "
                          f"{'are' if len(ambient) > 1 else 'is'} for transport http or sse; this server speaks "
                          f"stdio and does not use {'them' if len(ambient) > 1 else 'it'}")
    from toolbay.cli_running import exit_on_folder_problems

    exit_on_folder_problems(settings)
    if settings.search.semantic:
        _exit_on_missing_model()
    configure_logging(settings.log_level, settings.log_file, settings.log_format)
    if settings.transport == "stdio" and settings.jobs.drain_s > 0:
        from toolbay.detach import detach_from_client

        detach_from_client()  # before any thread: jobs may outlive the client (done already after an early start)
    # SIGTERM (docker stop, systemd, Kubernetes) stops the server as Ctrl-C does, through its
    # shutdown: uvicorn catches it while serving, then raises it again once it has stopped, and
    # Python's default action for it would end the process before toolbay's own shutdown (jobs
    # recorded interrupted, a replica's lease dropped, Python workers stopped).
    signal.signal(signal.SIGTERM, stop_as_ctrl_c)
    # Over HTTP the port is taken (bound, not yet listened on) before anything is compiled: a
    # port in use stopped the server only once a first start's compiles had run a while.
    sock = call_or_exit(_bound_socket, settings)
    from toolbay.first_start import compile_early

    # On a first start the tools compile while the server's own modules load.
    early_compiles = compile_early(settings, early_start)
    import toolbay.assembly  # noqa: F401  (what serve_until_stopped uses, imported before the freeze)
    from toolbay.background_import import ImportInBackground
    from toolbay.commands import refuse_at_start

    imports.done()
    # Settings the call chain refuses stop the server now, not once the SDK has loaded and the
    # assembly has begun (with the compiles going on all the while, for nothing).
    call_or_exit(refuse_at_start, settings)
    if protocol is None:
        protocol = (_stdio_protocol(imports) if protocol_module(settings) == STDIO_PROTOCOL
                    else ImportInBackground(protocol_module(settings), then=imports.done))
    return _Ready(settings, protocol, early_compiles, sock)


def _serve(ready: _Ready, started: float) -> None:
    from toolbay.cli_running import run_command
    from toolbay.commands import serve_until_stopped
    from toolbay.internals.event_loop_modules import import_event_loop_modules
    from toolbay.start_interrupts import before_the_event_loop

    # Imported while a Ctrl-C is still raised out of the import system's locks: after, it was not.
    import_event_loop_modules()
    before_the_event_loop()
    try:
        # Ctrl-C, or SIGTERM said as one: alone, or inside the group of a task group it ended
        # (uvicorn raises SIGTERM again once it has shut down, to the handler below).
        try:
            run_command(serve_until_stopped, ready.settings, ready.protocol, ready.early_compiles, started, ready.sock)
        except* KeyboardInterrupt:
            pass
    finally:
        ready.protocol.wait(_IMPORT_WAIT_S)


def protocol_module(settings: Settings) -> str:
    """The module that serves ``settings``' transport, and the MCP SDK with it: over stdio,
    none of toolbay's HTTP transports (see ``toolbay.protocol.stdio_serving``)."""
    return STDIO_PROTOCOL if settings.transport == "stdio" else "toolbay.protocol.transports"


def _bound_socket(settings: Settings) -> socket.socket | None:
    """Over HTTP, the socket bound to the configured host and port; None over stdio."""
    if settings.transport == "stdio":
        return None
    from toolbay.protocol.listening import bound_socket

    return bound_socket(settings.host, settings.port)


def _exit_on_missing_model() -> None:
    """``[search] semantic`` without its model's package stops a server at start, before it
    detaches or compiles anything (the assembly checks it again for the other commands)."""
    from toolbay.cli_running import call_or_exit
    from toolbay.search.semantic import require_model_folder

    call_or_exit(require_model_folder)


def stop_as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    """Whatever Ctrl-C does now: uvicorn's handler while it serves (it stops serving), the
    event loop's otherwise (it cancels the main task, whose shutdown then runs). A process
    started in the background by a script ignores Ctrl-C (``cmd &``: SIGINT is set to be
    ignored, and the event loop then installs no handler of its own): SIGTERM must stop it
    all the same, as Python's own Ctrl-C does, by raising KeyboardInterrupt.

    Once only: a client's SIGTERM to the process group of ``uv run toolbay serve`` arrives
    again as uv passes it on, and a second Ctrl-C means "now": it broke into the shutdown
    under way (a traceback from wherever it fell, and with Ctrl-C ignored, a server that
    never ended). So SIGTERM is ignored from then on; ignored, not caught, since Python puts
    back the default action of a signal it catches as it exits, and one more SIGTERM then
    ended the process with status 143. A stop that must not wait is SIGKILL's."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    # Not imported here (`toolbay --help` imports this module, and asyncio, with ssl, was a third of
    # its time), nor by this handler: a first start sets it before asyncio is imported, and a
    # SIGTERM then found it half imported ("partially initialized module 'asyncio' has no
    # attribute 'get_running_loop'", a traceback and exit 1). No asyncio yet, no loop yet.
    asyncio = sys.modules.get("asyncio")
    try:
        loop = asyncio.get_running_loop()  # type: ignore[union-attr]
    except (RuntimeError, AttributeError):  # not serving yet: as Python's own Ctrl-C, out of any import
        from toolbay.start_interrupts import interrupt_when_safe

        interrupt_when_safe(signal.SIGINT, frame)
        return
    # Raised here, it would come out of whatever the main thread was running, inside one of
    # the server's tasks too (a thread being started): raised by the loop, between its tasks,
    # it stops the loop as Ctrl-C does.
    loop.call_soon_threadsafe(_interrupt)


def _interrupt() -> None:
    raise KeyboardInterrupt
