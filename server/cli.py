"""The ``toolbay`` command. The library raises; this layer turns ``ToolbayError`` into a
one-line message and an exit code (2 for bad input or configuration).

Each command imports what it uses when it runs, not at the top: ``toolbay --help`` and
``toolbay parse-help`` never load pydantic, the settings, the event loop or rich (and
``parse-help`` does not even load typer: see ``toolbay.entry``)."""

from __future__ import annotations

import contextlib
import enum
import errno
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, NoReturn, TextIO, TypeVar

import typer
from typer.core import TyperGroup

from toolbay import __version__
from toolbay.cli_command import PlainCommand, help_option_unset
from toolbay.cli_running import config_path, console, named_path, plain, say, utf8_text, whole_number
from toolbay.cli_running import run_command as _run
from toolbay.cli_running import settings_or_exit as _settings
from toolbay.control_chars import one_line, shown
from toolbay.internals.typer_click import Context, NoArgsIsHelpError, UsageError, command_name

if TYPE_CHECKING:
    from toolbay.config import Settings

class _OneLineUsageError(UsageError):
    """A command line toolbay cannot run, said in one line on stderr, as its other errors are
    (click said it in four: the usage, a hint, a blank line, the error)."""

    def show(self, file: IO[Any] | None = None) -> None:
        command = _command_named(self.ctx)
        # The parser validates some values through pydantic, whose words lead its reason.
        message = " ".join(self.format_message().split()).replace(": Value error, ", ": ")
        say(f"{command}: {message} (see '{command} -h')")


def _command_named(ctx: Any) -> str:
    """The command ``ctx`` runs, named "toolbay" however it was started ("python -m toolbay"), as
    its other errors name it."""
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["toolbay", *reversed(names)])


def _one_line(error: UsageError) -> UsageError:
    if isinstance(error, _OneLineUsageError):
        return error
    # Said as the error's own class says it (a bad value names its option; an unknown one, the
    # options close to it).
    return _OneLineUsageError(error.format_message(), ctx=error.ctx)


class _OutputGone(Exception):
    """Standard output's reader gone (EPIPE), carried past typer, which ended the command with
    status 1 of its own, to ``toolbay.entry.main``, where every command's output error is said
    (the commands it runs without typer's included)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


def _carried_past_typer(error: OSError) -> Exception:
    return _OutputGone(error) if error.errno == errno.EPIPE and error.filename is None else error


# Longer than any command's first sentence: shown whole.
_WHOLE_SENTENCE = 1_000


class _CommandGroup(TyperGroup):
    """toolbay's commands, whose command-line errors (an unknown option, a bad value, a missing
    argument, an unknown command) are one line each (``_OneLineUsageError``), exit status 2."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except NoArgsIsHelpError as error:
            _answer_with_help(error)
        except UsageError as error:
            if parent is None and getattr(error, "option_name", None) in ("-v", "-V"):
                error.message = f"{error.message.rstrip('.')}: 'toolbay --version' prints the version."
            raise _one_line(error) from None
        except OSError as error:  # writing --help or --version
            raise _carried_past_typer(error) from None

    def get_help_option(self, ctx: Any) -> Any:
        return help_option_unset(super().get_help_option(ctx))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            # What other commands answer (git help, go version): said where toolbay's answer is.
            if args and args[0] == "help":
                named = args[1] if args[1:] and self.get_command(ctx, args[1]) is not None else "COMMAND"
                error.message = f"{error.message.rstrip('.')}: '{_command_named(ctx)} {named} -h' shows its help."
            elif args and args[0] == "version" and ctx.parent is None:
                error.message = f"{error.message.rstrip('.')}: 'toolbay --version' prints the version."
            raise

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        # Each command's first sentence whole, folded onto more lines where long: cut to the width
        # left beside the names, it ended mid-phrase ("Show the tools toolbay would serve, and the
        # files it...").
        rows = [(name, command.get_short_help_str(limit=_WHOLE_SENTENCE))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError as error:
            _answer_with_help(error)
        except UsageError as error:
            command = self.get_command(ctx, ctx.invoked_subcommand) if ctx.invoked_subcommand else None
            if error.ctx is None and command is not None:
                # The parser says an option lacks its value with no context: it would be said as
                # toolbay's, pointing at `toolbay -h`, which does not list the option.
                error.ctx = Context(command, info_name=ctx.invoked_subcommand, parent=ctx)
            raise _one_line(error) from None
        except OSError as error:
            raise _carried_past_typer(error) from None


def _answer_with_help(error: NoArgsIsHelpError) -> NoReturn:
    """A group given no command (``toolbay jobs``) shows its help on stdout and exits 0, as
    ``toolbay`` alone does: that is an answer, not an error (click printed it on stderr, exit 2)."""
    typer.echo(error.format_message())
    raise typer.Exit()


app = typer.Typer(
    cls=_CommandGroup,
    name="toolbay",
    help="Serve WebAssembly command-line programs and Python tool modules as MCP tools.",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class TransportName(enum.StrEnum):
    stdio = "stdio"
    http = "http"
    sse = "sse"

logger = logging.getLogger("toolbay")
T = TypeVar("T")
# The largest TCP port.
MAX_PORT = 65_535
# What `toolbay search --catalog` returns per query unless told: enough for nDCG@10.
BATCH_LIMIT = 10
# The most of its standard input `call --stdin` passes to a tool: the longest message a stdio client may send
# the server (toolbay.protocol.stdio.MAX_LINE_BYTES), so no client could pass a tool more. Read whole with no
# bound, `< /dev/zero` grew the process until the system killed it.
STDIN_MAX_BYTES = 64 * 2**20

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config", "-c", metavar="FILE", parser=config_path,
        help="TOML configuration file (default: ./toolbay.toml if present)."
    ),
]
# Folders are taken as written (str): typer would make "" the current folder (Path("")), which
# the settings refuse by name (an unset variable in --workspace "$DIR").
ExtensionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--extensions", "-e", metavar="DIR",
        help="Folder of .wasm and .py tools; repeat for several (default: the bundled tools).",
    ),
]
DataDirOption = Annotated[
    str | None, typer.Option("--data-dir", metavar="DIR", help="Where caches and the job database live.")
]
WorkspaceOption = Annotated[
    str | None, typer.Option(
        "--workspace", metavar="DIR", help="Folder that tools may see, at /workspace inside the sandbox.")
]


def configure_logging(level: str, settings: Settings) -> None:
    """Logging at ``level``, to where and in the format ``settings`` say."""
    from toolbay.logs import configure_logging as configure

    configure(level, settings.log_file, settings.log_format)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"toolbay {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


@app.command(cls=PlainCommand)
def serve(
    transport: Annotated[
        TransportName | None,
        typer.Option(
            "--transport", "-t", metavar="stdio|http|sse", case_sensitive=False,
            help="How clients connect (default stdio; http and sse serve both /mcp and /sse).",
        ),
    ] = None,
    host: Annotated[
        str | None, typer.Option(metavar="HOST", help="Address to listen on (http/sse; default 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(metavar="PORT", parser=whole_number(0, MAX_PORT),
                                 help="Port to listen on (http/sse; default 8765, 0 = any).")
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
    # The entry point runs a well-formed command line without typer (toolbay.serve_command).
    from toolbay.serve_command import serve as run_server

    run_server(transport.value if transport else None, host, port, extensions, data_dir, workspace, config,
               allow_insecure)


@app.command("list", cls=PlainCommand)
def list_tools(
    extensions: ExtensionsOption = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Show the tools toolbay would serve, and the files it skipped and why."""
    # --workspace as serve takes it: the Python tools' confinement says what they would see of it.
    settings = _settings(config, make_data_dir=True, extensions=extensions, data_dir=data_dir, workspace=workspace)
    # A folder named but not there stops it at start, as serve and search: listed first, the
    # tools of the other folders (--extensions /typo: the roles alone) came as a table, and the
    # line that said why after it, where a script or a glance took the table for the answer.
    from toolbay.cli_running import exit_on_folder_problems

    exit_on_folder_problems(settings)
    configure_logging("error" if settings.log_level == "info" else settings.log_level, settings)
    from toolbay.commands import collect_listing

    listing = _run(collect_listing, settings)
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
    else:
        _print_listing(listing)


def _print_listing(listing: dict[str, Any]) -> None:
    """``collect_listing``'s answer as tables for a person: tools, Python confinement, skipped files, notes."""
    from rich.table import Table

    count = len(listing["tools"])
    table = Table(title=f"{count} {'tool' if count == 1 else 'tools'}")
    # Names and paths are copied into commands: folded onto more lines when narrow, never cut.
    table.add_column("tool", no_wrap=True, min_width=max((len(tool["name"]) for tool in listing["tools"]), default=4))
    for column in ("source", "realm", "tier", "parameters"):
        table.add_column(column, overflow="fold")
    for tool in listing["tools"]:
        name = f"{tool['name']} (disabled: {tool['disabled']})" if "disabled" in tool else tool["name"]
        table.add_row(*plain(name, one_line(tool["origin"]), tool["realm"], tool["tier"] or "-",
                             ", ".join(tool["parameters"]) or "-"))
    console().print(table)
    confined = [tool for tool in listing["tools"] if "confinement" in tool]
    if confined:
        python = Table(title="Python tools: what the operating system holds them to")
        python.add_column("tool")
        python.add_column("confinement")
        for tool in confined:
            python.add_row(*plain(tool["name"], tool["confinement"]))
        console().print(python)
    if listing["skipped"]:
        skipped = Table(title="skipped files")
        skipped.add_column("file")
        skipped.add_column("reason")
        for item in listing["skipped"]:
            skipped.add_row(*plain(one_line(item["path"]), item["reason"]))
        console().print(skipped)
    for diagnostic in listing["diagnostics"]:
        console().print(f"note: {one_line(diagnostic)}", markup=False, highlight=False, soft_wrap=True)  # paths whole
    if any(tool["realm"] != "core" for tool in listing["tools"]) or listing["diagnostics"]:
        console().print(f"precedence: {listing['precedence']}", markup=False, highlight=False)


@app.command(cls=PlainCommand)
def describe(
    file: Annotated[Path, typer.Argument(metavar="FILE.wasm", parser=named_path("name the .wasm file"),
                                         help="The program to describe.")],
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """Show what toolbay makes of one .wasm: its help texts and every tool's full schema."""
    if file.suffix == ".py":
        say(f"toolbay: describe reads .wasm programs; a Python module's tools are shown by "
            f"`toolbay list --json --extensions {file.parent}`")
        raise typer.Exit(2)
    settings = _settings(config, make_data_dir=True, data_dir=data_dir)
    configure_logging("error" if settings.log_level == "info" else settings.log_level, settings)
    from toolbay.commands import describe_file

    described = _run(describe_file, settings, str(file))
    if as_json:
        typer.echo(json.dumps(described, indent=2, ensure_ascii=False))
        if not described["described"]:
            raise typer.Exit(2)
        return
    for run in described["help_runs"]:
        # A run stopped before it ended has no exit status ("exit None"): why it was stopped.
        ended = f"stopped: {run['stopped']}" if run["stopped"] else f"exit {run['exit_code']}"
        typer.echo(f"$ {' '.join(run['argv'])}    ({ended}, {run['encoding']})")
        typer.echo(run["text"].rstrip() + "\n")
    for tool in described["tools"]:
        typer.echo(f"== tool {tool['name']}  (tier: {tool['tier'] or 'undeclared'}"
                   f"{', background' if tool['background'] else ''})")
        typer.echo(tool["description"])
        if tool["keywords"]:
            typer.echo(f"keywords: {', '.join(tool['keywords'])}")
        typer.echo(json.dumps(tool["input_schema"], indent=2, ensure_ascii=False) + "\n")
    if not described["described"]:  # its help runs are shown above the reason
        say(f"toolbay: {file} serves no tool: {described['skipped'][0]}")
        raise typer.Exit(2)
    for reason in described["skipped"]:
        typer.echo(f"note: {reason}")  # as `toolbay list` says them


@app.command(cls=PlainCommand)
def call(
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="Tool name, as `toolbay list` shows it.")],
    # Both spellings: ``call TOOL '{...}'`` is what people type first, ``--args`` what scripts
    # that build the command write.
    json_arguments: Annotated[str | None, typer.Argument(
        metavar="JSON", parser=utf8_text, help="Arguments as a JSON object (or give them with --args).",
        show_default=False)] = None,
    args: Annotated[str | None, typer.Option(
        "--args", "-a", metavar="JSON", parser=utf8_text, help="Arguments as a JSON object.  [default: {}]",
        show_default=False)] = None,
    extensions: ExtensionsOption = None,
    data_dir: DataDirOption = None,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    stdin: Annotated[bool, typer.Option(
        "--stdin", help="Pass this command's standard input (UTF-8 text) as the tool's 'stdin' argument.")] = False,
) -> None:
    """Run one tool locally, without MCP: for tool authors."""
    if json_arguments is not None and args is not None:
        say("toolbay: give the arguments once: as JSON after the tool's name, or with --args")
        raise typer.Exit(2)
    given, are = ("--args", "is") if args is not None else ("the arguments", "are")
    args = json_arguments if json_arguments is not None else args if args is not None else "{}"
    settings = _settings(config, make_data_dir=True, extensions=extensions, data_dir=data_dir, workspace=workspace)
    configure_logging("error" if settings.log_level == "info" else settings.log_level, settings)
    if settings.log_level == "info":
        # What a Python tool writes past print and sys.stderr (os.write, a C library) is logged as
        # its output: its author, calling it here, was shown none of it (an outside check).
        logging.getLogger("toolbay.pytools.stderr").setLevel(logging.INFO)
    try:
        # The protocol's own parser: nesting deeper than it takes and lone surrogates are
        # refused here as they would be over the wire.
        from pydantic_core import from_json

        arguments = from_json(args)
    except ValueError as exc:
        # Empty: most often a variable that was not set (`toolbay call grep "$ARGS"`), where the
        # parser's "EOF while parsing a value at line 1 column 0" named nothing the user wrote.
        if args.strip():
            say(f"toolbay: {given} {are} not valid JSON: {exc}")
        else:
            say(f"toolbay: {given} {are} empty; give a JSON object ('{{}}' for none)")
        raise typer.Exit(2) from None
    if not isinstance(arguments, dict):
        kind = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}.get(type(arguments),
                                                                                                  "a number")
        say(f"toolbay: {given} must be a JSON object ({{\"name\": value, ...}}), not {kind}")
        raise typer.Exit(2)
    if stdin:
        if "stdin" in arguments:
            say("toolbay: give the tool's standard input once: with --stdin or as \"stdin\" in the arguments")
            raise typer.Exit(2)
        if sys.stdin.isatty():  # typed or pasted, not piped: said, or it looked hung
            say("toolbay call: reading the tool's standard input; end it with Ctrl-D")
        try:
            given_stdin = sys.stdin.buffer.read(STDIN_MAX_BYTES + 1)
        except OSError as exc:  # open for writing only (0>file), a read error (EIO): it was a traceback
            say(f"toolbay: --stdin: cannot read standard input: {exc.strerror or exc}")
            raise typer.Exit(2) from None
        if len(given_stdin) > STDIN_MAX_BYTES:
            say(f"toolbay: --stdin: standard input is longer than {STDIN_MAX_BYTES // 2**20} MiB, more than a "
                "client can pass a tool; put it in a file under --workspace and name the file")
            raise typer.Exit(2)
        try:
            arguments["stdin"] = given_stdin.decode("utf-8")
        except UnicodeDecodeError as exc:
            say(f"toolbay: --stdin: standard input is not UTF-8 text (byte {exc.start}); a tool's stdin is text")
            raise typer.Exit(2) from None
    from toolbay.commands import GRANT_A_WORKSPACE, call_once

    result = _run(call_once, settings, tool, arguments)
    if result.is_error and isinstance(result.meta.get("refusal"), dict):
        # The call was refused before the tool ran (arguments, scopes, limits): bad input,
        # said on stderr with exit 2 as every such error of the CLI. A tool that ran and failed
        # says what it said on stderr too, with exit 1.
        _write(sys.stderr, result.text)
        raise typer.Exit(2)
    if result.text:
        # A failure's text (what went wrong, the tool's stderr) is no result: on stderr, so
        # that ``out=$(toolbay call ...)`` never takes it for one.
        _write(sys.stderr if result.is_error else sys.stdout, result.text)
    # What the tool printed or wrote to stderr beside its result (an author's debugging output):
    # on stderr, so that stdout stays the result. A failure's text carries its stderr already.
    for key, said in (("printed", "printed"), ("stderr", "wrote to stderr")):
        extra = result.meta.get(key)
        if isinstance(extra, str) and extra.strip() and not (key == "stderr" and result.is_error) \
                and extra != result.text:
            _write(sys.stderr, f"toolbay: {tool} {said}:\n{extra}")
    if result.is_error:
        if result.meta.get(GRANT_A_WORKSPACE):
            # The note the tool's answer ends with is the model's (pass the content as 'stdin');
            # the person here can grant a folder, which a model cannot.
            say("toolbay: the tool was given no folder to see: --workspace DIR gives it one (--workspace . for "
                "this folder)")
        raise typer.Exit(1)


def _write(stream: TextIO, text: str) -> None:
    """A tool's text, ending its line; its control characters written as escapes where a
    terminal shows it (an escape sequence in a module's error set the window's title and
    cleared the screen), as written where it goes on to a file or a program."""
    if stream.isatty():
        text = shown(text)
    stream.write(text if text.endswith("\n") else text + "\n")


@app.command(cls=PlainCommand)
def search(
    query: Annotated[str | None, typer.Argument(
        metavar="QUERY", help="What the tool should do, in its description's language.")] = None,
    limit: Annotated[int | None, typer.Option(
        "--limit", "-k", metavar="K", parser=whole_number(1),
        help="At most this many tools, 1 or more: for a QUERY 5 by default, as search_tools, and 20 at most; "
        "for --catalog 10 by default.")] = None,
    catalog: Annotated[str | None, typer.Option(
        "--catalog", metavar="TOOLS.jsonl", help="Search these MCP tool definitions, not the served tools (- reads "
        "standard input).")] = None,
    queries: Annotated[str | None, typer.Option(
        "--queries", metavar="QUERIES.jsonl", help='With --catalog: one {"id", "query"} a line (- reads standard '
        'input).')] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON line per query.")] = False,
    semantic: Annotated[bool, typer.Option(
        "--semantic", help="Rank by meaning too, as [search] semantic = true does (needs the semantic extra: "
        "uv sync --extra semantic); with --catalog, only this flag turns it on.")] = False,
    extensions: ExtensionsOption = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
) -> None:
    """Search tools as the server's search tool would: the served ones for QUERY, or a
    catalog file for a file of queries (one JSON line each: id, results [{name, score}], no_match)."""
    if catalog is not None or queries is not None:
        if catalog is None or queries is None or query is not None:
            say("toolbay: --catalog and --queries go together, without a QUERY")
            raise typer.Exit(2)
        if extensions or data_dir is not None or config is not None:
            # They were accepted and ignored: a batch searches the catalog file alone.
            say("toolbay: --catalog reads no folder and no configuration: leave out --extensions, --data-dir and "
                "--config (--semantic turns meaning on)")
            raise typer.Exit(2)
        from toolbay.search.batch import STDIN, SearchInputError, read_catalog, read_queries, record_line, run_batch

        if catalog == queries == STDIN:
            say("toolbay: only one of --catalog and --queries can be - (standard input)")
            raise typer.Exit(2)
        # Exactly "-" is standard input; "./-" is a file of that name (a Path would read both as "-").
        tools_from, queries_from = (None if name == STDIN else Path(name) for name in (catalog, queries))
        try:
            definitions, asked = (read_catalog(tools_from, warn=lambda text: say(f"toolbay: {text}")),
                                  read_queries(queries_from))
        except SearchInputError as exc:
            say(f"toolbay: {exc}")
            raise typer.Exit(2) from None
        from toolbay.errors import ConfigError
        from toolbay.search import SearchIndex

        try:
            index = SearchIndex(semantic=semantic)
        except ConfigError as exc:  # the model's package is not installed
            say(f"toolbay: {exc}")
            raise typer.Exit(2) from None
        from toolbay.start_up_collector import resume_after_imports

        resume_after_imports()  # a large batch runs long: its cycles are freed as it goes
        out = sys.stdout
        for record in run_batch(definitions, asked, BATCH_LIMIT if limit is None else limit, index=index):
            out.write(record_line(record) + "\n")
        return
    if query is not None:
        # Bytes that are not UTF-8 reach Python as lone surrogates, which no output can print.
        query = os.fsencode(query).decode("utf-8", "replace")
    if query is None or not query.strip():
        say("toolbay: give a QUERY (words for what the tool should do), or --catalog and --queries")
        raise typer.Exit(2)
    from toolbay.handlers.search import DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_CHARS

    # The limits of search_tools, whose answer this is, and its default.
    limit = DEFAULT_LIMIT if limit is None else limit
    if len(query) > MAX_QUERY_CHARS:
        say(f"toolbay: a QUERY has at most {MAX_QUERY_CHARS} characters, as for search_tools (this one has "
            f"{len(query)})")
        raise typer.Exit(2)
    if limit > MAX_LIMIT:
        say(f"toolbay: --limit is at most {MAX_LIMIT} for a QUERY, as for search_tools (no bound with --catalog)")
        raise typer.Exit(2)
    settings = _settings(config, make_data_dir=True, extensions=extensions, data_dir=data_dir)
    # A mistyped folder would search the built-ins alone and answer "no match" as if searched.
    from toolbay.cli_running import exit_on_folder_problems

    exit_on_folder_problems(settings)
    if semantic:
        settings.search.semantic = True
    configure_logging("error" if settings.log_level == "info" else settings.log_level, settings)
    from toolbay.commands import search_served
    from toolbay.protocol.disclosure import catalog_allow_misses

    # As serve warns at its start: a misspelt pattern leaves every catalog tool unfindable.
    for warning in catalog_allow_misses(settings.disclosure):
        say(f"toolbay: warning: {warning}")

    record = _run(search_served, settings, query, limit)
    if as_json:
        from toolbay.search.batch import contract_record

        # The contract of every --json line, as --catalog prints it: the descriptions are the table's.
        hits = ((result["name"], result["score"]) for result in record["results"])
        typer.echo(json.dumps(contract_record(record["id"], hits, record["no_match"]), ensure_ascii=False))
        return
    if record["no_match"]:
        typer.echo("no match")
        return
    from rich.table import Table

    table = Table(title=plain(f"tools for {query!r}")[0])
    for column in ("tool", "score", "description"):
        table.add_column(column)
    for result in record["results"]:
        table.add_row(*plain(result["name"], f"{result['score']:.3f}", result["description"]))
    console().print(table)


HELP_TEXT_PATH = named_path("name the file of `PROGRAM --help`'s output (- reads standard input)")


@app.command("parse-help", cls=PlainCommand)
def parse_help(
    file: Annotated[
        Path | None,
        typer.Argument(metavar="FILE", show_default=False, parser=HELP_TEXT_PATH,
                       help="File with the raw output of `PROGRAM --help` (- reads standard input)."),
    ] = None,
    long: Annotated[
        Path | None, typer.Option("--long", metavar="FILE", parser=HELP_TEXT_PATH,
                                  help="The same as FILE, for scripts that name it.")
    ] = None,
    short: Annotated[
        Path | None, typer.Option("--short", metavar="FILE", parser=named_path(
            "name the file of `PROGRAM -h`'s output, or leave --short out"),
            help="File with the raw output of `PROGRAM -h`.")
    ] = None,
) -> None:
    """Describe a program from its saved help text; prints JSON (exit 2 if it is not help)."""
    from toolbay.helptext.command import run_parse_help

    help_file = file if file is not None else long
    # Said as the parser says a missing argument ("Invalid value: give ..." read as if a value was wrong).
    if help_file is None:
        # "--short" alone: the -h text is read beside the --help text, never in its place.
        raise UsageError("Missing argument 'FILE': give the --help text: toolbay parse-help FILE (or --long FILE; "
                         "- reads standard input)" + (", with --short beside it" if short is not None else ""))
    if file is not None and long is not None:
        raise UsageError("give the --help text once: as FILE or as --long FILE, not both")
    code = run_parse_help(help_file, short, sys.stdout, sys.stderr)
    raise typer.Exit(code)


def _add_jobs_commands() -> None:
    from toolbay.jobs_cli import jobs_app  # its own module; it imports what it needs when it runs

    app.add_typer(jobs_app, name="jobs", cls=_CommandGroup)


_add_jobs_commands()

token_app = typer.Typer(help="Bearer tokens for the tokens file ([chain.auth] tokens_file).", no_args_is_help=True,
                        cls=_CommandGroup)
app.add_typer(token_app, name="token")


@token_app.command("new", cls=PlainCommand)
def token_new(
    client_id: Annotated[
        str, typer.Option("--client-id", metavar="ID", help="Who will hold the token (audit, limits).")
    ],
    scope: Annotated[
        list[str],
        typer.Option("--scope", "-s", metavar="SCOPE",
                     help="tools:read|write|exec|create|share, tool:PATTERN, catalog:PATTERN, metrics:read, or "
                          "a scope [chain.access.scopes] defines; repeat for several."),
    ],
    append: Annotated[
        Path | None,
        typer.Option("--append", metavar="FILE", parser=named_path("name the tokens file, or leave --append out"),
                     help="Append the entry to this tokens file (TOML; made if missing) and print the "
                          "configuration lines that point at it."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", metavar="FILE", parser=config_path,
                     help="The configuration file the server reads, for the scopes it defines and the lines "
                          "that name the tokens file (default: ./toolbay.toml if present)."),
    ] = None,
) -> None:
    """Make a bearer token; print it once, then its tokens-file entry (hash only)."""
    from toolbay.auth import new_token

    if not client_id.strip() or not all(s.strip() for s in scope):
        say("toolbay: --client-id and every --scope must be non-empty")
        raise typer.Exit(2)
    if not client_id.isprintable() or not all(s.isprintable() and " " not in s for s in scope):
        # A caller's id shows in logs, job listings and folder names; a scope is one word.
        say("toolbay: --client-id and --scope take printable text (no line breaks or control characters), "
            "and a scope holds no space")
        raise typer.Exit(2)
    scope = list(dict.fromkeys(scope))  # a scope given twice is one scope: the entry listed it twice
    if append is not None and append.suffix.lower() == ".json":
        say("toolbay: --append writes TOML; a .json tokens file must be edited by hand")
        raise typer.Exit(2)
    from toolbay.file_names import is_utf8
    from toolbay.file_names import shown as shown_path

    named = os.path.realpath(append) if append is not None else ""  # as the configuration is to name it
    if append is not None and not is_utf8(named):
        # The configuration line printed after it would name the file in TOML, which holds UTF-8 only.
        say(f"toolbay: --append {shown_path(str(append))} is not named in UTF-8, which the configuration file (TOML) "
            "needs to name it; choose a name in UTF-8, nothing was written")
        raise typer.Exit(2)
    from toolbay.errors import ConfigError
    from toolbay.token_lines import configuration, naming_lines

    try:
        # Read before anything is written: lines that name the tokens file must fit it.
        configured = configuration(config)
    except ConfigError as exc:
        say(f"toolbay: {exc}; nothing was written")
        raise typer.Exit(2) from None
    _note_unknown_scopes(scope, configured.defined_scopes())
    token, digest = new_token()
    scopes = ", ".join(json.dumps(s) for s in scope)
    entry = f"[[tokens]]\nclient_id = {json.dumps(client_id)}\nsha256 = \"{digest}\"\nscopes = [{scopes}]\n"
    if append is None:
        # The token alone on the first line, so that `| head -1` captures it.
        typer.echo(token)
        typer.echo("\n" + entry, nl=False)
        say("Give the token (first line) to the client now: it is stored nowhere. "
            "Append the [[tokens]] entry to the tokens file.")
        return
    # Stored first: a token whose entry could not be written is never shown.
    lines, where = naming_lines(configured, named)
    held_before = _append_entry(append, entry, client_id)
    typer.echo(token)
    if lines:
        typer.echo("\n" + lines, nl=False)
    say(f"Give the token (first line) to the client now: it is stored nowhere. Its entry (hash only) is in "
        f"{append}; {where}.")
    if held_before:
        # Kept, not replaced: a second token is how one is rotated, and the old one may be in use.
        say(f"toolbay: note: {client_id!r} already had {held_before} token{'s' if held_before > 1 else ''} in "
            f"{append}, still valid beside the new one; remove the old {'entries' if held_before > 1 else 'entry'} "
            "once the client has the new token")


def _note_unknown_scopes(scopes: list[str], defined: list[str]) -> None:
    """Notes each scope that grants nothing: neither built in nor defined by the configuration. A
    token may be made before its named scope is defined (the server warns of such a token as it
    reads the tokens file), so it is said, not refused."""
    from toolbay.chain.authorize import KNOWN_TOOL_SCOPES
    from toolbay.chain.policies import closest_scope, grants_nothing, meant_scope
    from toolbay.words import METRICS_SCOPE

    known = {*KNOWN_TOOL_SCOPES, *defined, METRICS_SCOPE}
    for unknown in (scope for scope in scopes if grants_nothing(scope, known)):
        # A note, not a refusal: a tools: scope close to no known one may still be a pattern's kind
        # misspelt ("tools:zzz": "tool:zzz"), which serve, refusing, does not offer.
        meant = closest_scope(unknown, known) or meant_scope(unknown, known)
        said_defined = f", {', '.join(sorted(defined))} (the configuration's)" if defined else ""
        say(f"toolbay: note: {unknown!r} is no scope toolbay knows{f' (did you mean {meant!r}?)' if meant else ''}: "
            f"it grants nothing unless the configuration defines it ([chain.access.scopes.{json.dumps(unknown)}]); "
            f"the scopes are {', '.join(KNOWN_TOOL_SCOPES)}, {METRICS_SCOPE}, tool:PATTERN, "
            f"catalog:PATTERN{said_defined}")


def _append_entry(path: Path, entry: str, client_id: str) -> int:
    """Appends a TOML ``[[tokens]]`` entry, starting on a line of its own, to a file that is TOML
    (the server would refuse to start on one that is not); returns how many entries the file held
    for ``client_id`` before."""
    import tomllib

    try:
        from toolbay.small_files import read_small_file

        existing = read_small_file(path) if path.exists() else b""
        text = existing.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM some editors write, as the server reads it
        from toolbay.parsed_text import UnreadableText, parse_within_limits

        try:
            document = parse_within_limits(tomllib.loads, text.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError, UnreadableText) as exc:
            say(f"toolbay: {path} is not valid TOML ({exc}); mend it first, nothing was written")
            raise typer.Exit(2) from None
        from toolbay.config import Settings

        # Keys of the configuration's (the server reads a tokens file's other keys as nothing).
        if others := sorted(set(document) & set(Settings.model_fields)):
            # The configuration file, most likely (its own lines go there): a [[tokens]] entry
            # in it is a setting the server refuses to start on.
            say(f"toolbay: {path} holds more than tokens ({', '.join(others)}): --append writes to a tokens file, "
                "which the configuration names in [chain.auth] tokens_file; nothing was written")
            raise typer.Exit(2)
        held = document.get("tokens")
        try:
            # Appended after a 'tokens' of another kind (a text, a [tokens] table, an inline
            # array), another [[tokens]] is TOML no reader takes: tried first.
            tomllib.loads(text.decode("utf-8") + "\n" + entry)
        except tomllib.TOMLDecodeError:
            say(f"toolbay: {path} has a 'tokens' that a [[tokens]] entry cannot follow (a text, a [tokens] table "
                "or an inline array); write its entries as [[tokens]] first, nothing was written")
            raise typer.Exit(2) from None
        with path.open("a", encoding="utf-8") as tokens:
            if existing and not existing.endswith(b"\n"):
                tokens.write("\n")
            tokens.write(("\n" if existing.strip() else "") + entry)
    except OSError as exc:
        say(f"toolbay: cannot append to {path}: {exc.strerror or exc}")
        raise typer.Exit(2) from None
    entries = held if isinstance(held, list) else []
    return sum(1 for held_entry in entries if isinstance(held_entry, dict) and held_entry.get("client_id") == client_id)


def main() -> None:
    try:
        with _only_the_command_named(sys.argv[1:2]):
            app()
    except _OutputGone as gone:
        raise gone.error from None


@contextlib.contextmanager
def _only_the_command_named(first: list[str]) -> Iterator[None]:
    """typer builds the click command of every command and group (each option, its type, its
    reading) before it runs one: 8-15 ms of every command's start for those it does not run. A
    command line whose first word names a command (or a group: ``jobs``, ``token``) is read by
    the group holding that one alone, which reads, documents and refuses its options as the
    whole group does. Any other (no command, an option first, a word naming none, which is
    answered with the names it may have meant) is read by the whole group."""
    commands = [command for command in app.registered_commands if [command_name(command)] == first]
    groups = [group for group in app.registered_groups if [group.name] == first]
    if not commands and not groups:
        yield
        return
    every = app.registered_commands, app.registered_groups
    app.registered_commands, app.registered_groups = commands, groups
    try:
        yield
    finally:
        app.registered_commands, app.registered_groups = every


if __name__ == "__main__":
    main()
