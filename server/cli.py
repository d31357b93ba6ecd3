"""The ``toolbay`` command. The library raises; this layer turns ``ToolbayError`` into a
one-line message and an exit code (2 for bad input or configuration)."""

from __future__ import annotations

import contextlib
import enum
import gc
import importlib.util
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import typer
from rich.console import Console
from rich.table import Table

from server.config import Settings, load_settings
from server.errors import ToolbayError
from server.logs import configure_logging

app = typer.Typer(
    name="toolbay",
    help="Serve WebAssembly command-line programs as MCP tools.",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)


class TransportName(enum.StrEnum):
    stdio = "stdio"
    http = "http"
    sse = "sse"

logger = logging.getLogger("toolbay")
T = TypeVar("T")

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config", "-c", metavar="FILE", help="TOML configuration file (default: ./toolbay.toml if present)."
    ),
]
ExtensionsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--extensions", "-e", metavar="DIR",
        help="Folder of .wasm tools; repeat for several (default: the bundled tools).",
    ),
]
DataDirOption = Annotated[
    Path | None, typer.Option("--data-dir", metavar="DIR", help="Where caches and the job database live.")
]
WorkspaceOption = Annotated[
    Path | None, typer.Option(
        "--workspace", metavar="DIR", help="Folder that tools may see, at /workspace inside the sandbox.")
]


def _run(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Runs one command's coroutine; toolbay's own errors become a message and exit 2."""
    try:
        return anyio.run(function, *args, backend_options=_loop_options())
    except* ToolbayError as group:
        error = _first_toolbay_error(group)
        err.print(f"toolbay: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _loop_options() -> dict[str, Any]:
    """uvloop when it is installed (it is a dependency; its event loop halves the time asyncio
    itself takes per request), else asyncio's own loop."""
    return {"use_uvloop": importlib.util.find_spec("uvloop") is not None}


def _first_toolbay_error(group: BaseExceptionGroup[ToolbayError]) -> ToolbayError:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            return _first_toolbay_error(error)
        return error
    raise AssertionError("empty exception group")


def _settings(config: Path | None, **overrides: Any) -> Settings:
    try:
        return load_settings(config, **overrides)
    except ToolbayError as exc:
        err.print(f"toolbay: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


@app.callback(invoke_without_command=True)
def _root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


@app.command()
def serve(
    transport: Annotated[
        TransportName | None,
        typer.Option(
            "--transport", "-t", metavar="stdio|http|sse",
            help="How clients connect (default stdio; http and sse serve both /mcp and /sse).",
        ),
    ] = None,
    host: Annotated[
        str | None, typer.Option(metavar="HOST", help="Address to listen on (http/sse; default 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(metavar="PORT", help="Port to listen on (http/sse; default 8765, 0 = any).")
    ] = None,
    extensions: ExtensionsOption = None,
    data_dir: DataDirOption = None,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    allow_insecure: Annotated[
        bool, typer.Option("--insecure-no-auth", help="Allow serving a non-loopback address without authentication.")
    ] = False,
) -> None:
    """Run the MCP server."""
    settings = _settings(
        config, transport=transport.value if transport else None, host=host, port=port, extensions=extensions,
        data_dir=data_dir, workspace=workspace,
    )
    if allow_insecure:
        settings.http.allow_insecure = True
    configure_logging(settings.log_level, settings.log_file)
    if settings.transport == "stdio" and settings.jobs.drain_s > 0:
        from server.detach import detach_from_client

        detach_from_client()  # before any thread: jobs may outlive the client
    import server.assembly  # noqa: F401  (what run_server uses, imported before the freeze)
    import server.protocol.transports  # noqa: F401
    from server.runner import run_server

    # A server lives long: the ~115,000 objects its imports made are moved out of the cyclic
    # collector's reach, so a full collection while serving skips them (about 60 ms each, else).
    gc.freeze()
    with contextlib.suppress(KeyboardInterrupt):
        _run(run_server, settings)


@app.command("list")
def list_tools(
    extensions: ExtensionsOption = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Show the tools toolbay would serve, and the files it skipped and why."""
    settings = _settings(config, extensions=extensions, data_dir=data_dir)
    configure_logging("error" if settings.log_level == "info" else settings.log_level, settings.log_file)
    from server.runner import collect_listing

    listing = _run(collect_listing, settings)
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    table = Table(title=f"{len(listing['tools'])} tools")
    for column in ("tool", "source", "tier", "parameters"):
        table.add_column(column)
    for tool in listing["tools"]:
        table.add_row(tool["name"], tool["origin"], tool["tier"] or "-", ", ".join(tool["parameters"]) or "-")
    Console().print(table)
    if listing["skipped"]:
        skipped = Table(title="skipped files")
        skipped.add_column("file")
        skipped.add_column("reason")
        for item in listing["skipped"]:
            skipped.add_row(item["path"], item["reason"])
        Console().print(skipped)
    for diagnostic in listing["diagnostics"]:
        Console().print(f"note: {diagnostic}", markup=False, highlight=False)


@app.command()
def call(
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="Tool name, as `toolbay list` shows it.")],
    args: Annotated[str, typer.Option("--args", "-a", metavar="JSON", help="Arguments as a JSON object.")] = "{}",
    extensions: ExtensionsOption = None,
    data_dir: DataDirOption = None,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
) -> None:
    """Run one tool locally, without MCP: for tool authors."""
    settings = _settings(config, extensions=extensions, data_dir=data_dir, workspace=workspace)
    configure_logging("error" if settings.log_level == "info" else settings.log_level, settings.log_file)
    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        err.print(f"toolbay: --args is not valid JSON: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if not isinstance(arguments, dict):
        err.print("toolbay: --args must be a JSON object", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    from server.runner import call_once

    result = _run(call_once, settings, tool, arguments)
    if result.text:
        sys.stdout.write(result.text if result.text.endswith("\n") else result.text + "\n")
    if result.is_error:
        raise typer.Exit(1)


@app.command("parse-help")
def parse_help(
    long: Annotated[Path, typer.Option("--long", metavar="FILE", help="File with the raw output of `PROGRAM --help`.")],
    short: Annotated[
        Path | None, typer.Option("--short", metavar="FILE", help="File with the raw output of `PROGRAM -h`.")
    ] = None,
) -> None:
    """Describe a program from its saved help text; prints JSON (exit 2 if it is not help)."""
    from server.helptext.command import run_parse_help

    code = run_parse_help(long, short, sys.stdout, sys.stderr)
    raise typer.Exit(code)


def _add_jobs_commands() -> None:
    from server.jobs_cli import jobs_app  # its own module; it imports what it needs when it runs

    app.add_typer(jobs_app, name="jobs")


_add_jobs_commands()

token_app = typer.Typer(help="Bearer tokens for the tokens file ([chain.auth] tokens_file).", no_args_is_help=True)
app.add_typer(token_app, name="token")


@token_app.command("new")
def token_new(
    client_id: Annotated[
        str, typer.Option("--client-id", metavar="ID", help="Who will hold the token (audit, limits).")
    ],
    scope: Annotated[
        list[str],
        typer.Option("--scope", "-s", metavar="SCOPE",
                     help="tools:read|write|exec, tool:PATTERN or a named scope; repeat for several."),
    ],
) -> None:
    """Make a bearer token; print it once, then its tokens-file entry (hash only)."""
    from server.auth import new_token

    if not client_id.strip() or not all(s.strip() for s in scope):
        err.print("toolbay: --client-id and every --scope must be non-empty",
                  markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    token, digest = new_token()
    scopes = ", ".join(json.dumps(s) for s in scope)
    # The token alone on the first line, so that `| head -1` captures it.
    typer.echo(token)
    typer.echo(f"\n[[tokens]]\nclient_id = {json.dumps(client_id)}\nsha256 = \"{digest}\"\nscopes = [{scopes}]")
    err.print("Give the token (first line) to the client now: it is stored nowhere. "
              "Append the [[tokens]] entry to the tokens file.", markup=False, highlight=False, soft_wrap=True)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
