"""Running one CLI command: its coroutine on the event loop, its settings loaded, toolbay's own
errors turned into a one-line message and exit status 2. Shared by ``toolbay.cli`` and
``toolbay.jobs_cli`` (which the main CLI mounts, so it cannot import the CLI module back).

Heavy imports (anyio, the configuration's pydantic models) happen when a command runs, not
when the CLI is loaded: ``toolbay --help`` and ``parse-help`` must answer at once."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from toolbay.control_chars import shown

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from toolbay.config import Settings
    from toolbay.errors import ToolbayError

T = TypeVar("T")


def say(message: str) -> None:
    """One line on standard error, as is (no markup), its control characters written as escapes."""
    sys.stderr.write(shown(message) + "\n")
    sys.stderr.flush()


def plain(*cells: str) -> list[Text]:
    """Table cells shown as written: a plain string is read as rich markup, and "[default: 10]"
    or "([discovery] help_timeout_s)" vanished from the tables."""
    from rich.text import Text

    # A module's name or error may hold escape sequences, which would act on the terminal. A
    # reason's lines stay lines within its cell; a file's name goes through ``one_line`` first.
    return [Text(shown(cell)) for cell in cells]


# Past any line a table prints: a table piped on is never folded at a width nobody chose.
_UNFOLDED_WIDTH = 100_000


def console(*, stderr: bool = False) -> Console:
    """rich's console for what a command prints: a terminal's width on a terminal; elsewhere (a
    pipe, a file) no fold at 80 columns unless COLUMNS says a width, so that ``toolbay list |
    grep hashsum.wasm`` finds the whole path."""
    import os

    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # Left to the entry point, as every command's output error (toolbay.entry.main):
            # rich's own ended with status 1, where the rest of a command ends as ``ls | head``.
            import errno

            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    stream = sys.stderr if stderr else sys.stdout
    folds = stream.isatty() or "COLUMNS" in os.environ
    return _Console(stderr=stderr, width=None if folds else _UNFOLDED_WIDTH)


def run_command(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Runs one command's coroutine; toolbay's own errors become a message and exit 2."""
    import anyio

    from toolbay.errors import ToolbayError

    try:
        return anyio.run(function, *args, backend_options=_loop_options())
    except* ToolbayError as group:
        say(f"toolbay: {_first_toolbay_error(group)}")
        raise SystemExit(2) from None


def call_or_exit(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` run here, as ``run_command`` runs a coroutine: toolbay's own error
    becomes a message and exit 2 (``serve``'s checks before its event loop starts)."""
    from toolbay.errors import ToolbayError

    try:
        return function(*args)
    except ToolbayError as exc:
        say(f"toolbay: {exc}")
        raise SystemExit(2) from None


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


def settings_or_exit(config: Path | None, *, make_data_dir: bool = False, **overrides: Any) -> Settings:
    """The settings, or a one-line message and exit 2. ``make_data_dir``: the command keeps
    files in the data folder, which is made here, so that a folder that cannot be (a file, a
    path under a file, a read-only place) is said in one line, not by a traceback later."""
    from toolbay.config import SettingsInvalid, load_settings, unknown_environment
    from toolbay.errors import ToolbayError

    try:
        settings = load_settings(config, **overrides)
    except ToolbayError as exc:
        if isinstance(exc, SettingsInvalid):
            import toolbay.chain.settings  # noqa: F401  (its names, in the hints said now)
        say(f"toolbay: {exc}")
        raise SystemExit(2) from None
    warnings = unknown_environment()
    if warnings:
        from toolbay.logs import say_as_configured

        for warning in warnings:
            say_as_configured(settings.log_format, "toolbay.config", warning)
    if make_data_dir:
        problem = _data_dir_problem(settings.data_dir)
        if problem is not None:
            say(f"toolbay: the data folder {settings.data_dir} {problem}; choose another with --data-dir "
                "(or data_dir in the configuration)")
            raise SystemExit(2)
    # The log file is written as the command goes: one that cannot be is said now, not by a
    # traceback (the audit log says so itself when the chain is built: toolbay.chain.audit).
    if settings.log_file is not None and (problem := _appending_problem(settings.log_file)) is not None:
        say(f"toolbay: log_file {settings.log_file} {problem}")
        raise SystemExit(2)
    return settings


def _appending_problem(path: Path) -> str | None:
    """Why lines cannot be appended to the file at ``path`` (made, with its folder, if need be)."""
    if path.is_dir():
        return "is a folder, not a file"
    if path.is_fifo() or path.is_socket():
        # Opened for appending, a FIFO waits for a reader: the command hung, saying nothing.
        return "is a named pipe or a socket, not a file"
    if os.path.realpath(path).startswith(("/proc/", "/sys/")):
        # Written to as root, /proc/sys/kernel/hostname took the log's lines (a re-check).
        return "is the kernel's (under /proc or /sys), not a file for a log"
    from toolbay.logs import make_log_file

    try:
        # Made as logging makes it (its user's alone): checked first, it was made 644 in a
        # folder of 755, and logging then found it there.
        make_log_file(path)
        # Then opened as logging opens it: /proc/version took the first and refused this (a traceback).
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot be written to ({exc.strerror or exc})"
    return None


# The folders toolbay keeps inside the data folder (compiled modules, descriptions, Python
# tools' descriptions): one that is a file stops the server as a folder that is one does.
_DATA_SUBFOLDERS = ("modules", "descriptions", "python")


def _data_dir_problem(folder: Path) -> str | None:
    try:
        return _data_dir_problem_raised(folder)
    except OSError as exc:  # a folder above it this user may not search (another user's)
        return f"cannot be read ({exc.strerror or exc})"


def _data_dir_problem_raised(folder: Path) -> str | None:
    from toolbay.config import unfollowed_link

    if (link := unfollowed_link(folder)) is not None:  # it was "cannot be made (File exists)"
        return link
    if folder.exists() and not folder.is_dir():
        return "is a file, not a folder"
    try:
        # Its owner's alone, when toolbay makes it: it holds the callers' jobs and results.
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot be made ({exc.strerror or exc})"
    for name in _DATA_SUBFOLDERS:
        if (folder / name).exists() and not (folder / name).is_dir():
            return f"holds a file named {name} where toolbay keeps a folder"
    import tempfile  # here: only commands that keep files need it

    try:
        # Existing is not enough: a read-only mount, or a folder of another user's.
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"cannot be written to ({exc.strerror or exc})"
    return None


def folder_problem_lines(settings: Settings) -> list[str]:
    """One line for each tool or role folder that is not there (or is a file, or cannot be
    read), with what to do about it, as ``serve``, ``list`` and ``search`` say them."""
    from toolbay.config import folder_problems

    lines = []
    for problem in folder_problems(settings):
        flag = "--extensions" if problem.startswith("extension") else "agents in the configuration"
        if "is a file" in problem:  # "make it" would have them make what is already there
            remedy = f"name a folder with {flag}"
        else:
            first = "mend the link" if "symbolic link" in problem else \
                "let this user read it" if "cannot be read" in problem else \
                "let this user enter it" if "cannot be entered" in problem else \
                "rename it" if "UTF-8" in problem else "make it"
            remedy = f"{first}, or name another with {flag}"
        lines.append(f"toolbay: the {problem} ({remedy})")
    return lines


def exit_on_folder_problems(settings: Settings) -> None:
    """A tool or role folder that is not there stops a command at start (exit 2), as a missing
    workspace does: a mistyped ``--extensions`` would otherwise serve (or search) the built-ins
    alone, said only in a log line that a client which started the server never shows. (A
    folder removed while the server runs stays a warning: ``toolbay.discovery.scan``.)"""
    lines = folder_problem_lines(settings)
    for line in lines:
        say(line)
    if lines:
        raise SystemExit(2)


def utf8_text(value: str) -> str:
    """A command-line word that is text, not a path (a job's id, an owner, JSON): one that is not
    UTF-8 (bytes Python kept as lone surrogates) is refused by name, where it was a traceback
    from the database or the JSON parser."""
    from toolbay.file_names import is_utf8

    if not is_utf8(value):
        import typer

        raise typer.BadParameter("is not UTF-8 text")
    return value


def named_text(what: str) -> Callable[[str], str]:
    """The parser of a word naming something (a job's id, an owner), as ``utf8_text`` takes it
    and not empty or blank, which is refused saying ``what`` to give: ``--owner ""`` listed the
    jobs of nobody ("0 jobs of , newest first")."""

    def parse(value: str) -> str:
        if not value.strip():
            import typer

            raise typer.BadParameter(f"is empty: give {what}")
        return utf8_text(value)

    return parse


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """The parser of a count option (``--limit N``), whose range its help says in words: with
    typer's own bounds the help showed ``<int range>`` and ``[1<=x<=10000]``."""

    def parse(value: str | int) -> int:
        import typer

        if isinstance(value, int):  # the option's default, which typer passes through the parser too
            return value
        try:
            number = int(value, 10)
        except ValueError:
            raise typer.BadParameter(f"{value!r} is not a whole number") from None
        if number < low or (high is not None and number > high):
            raise typer.BadParameter(f"{number} is out of range: give a number {number_range(low, high)}")
        return number

    return parse


def number_range(low: int, high: int | None) -> str:
    """A range as a help text says it: "from 1 to 10,000", "0 or more"."""
    return f"{low:,} or more" if high is None else f"from {low:,} to {high:,}"


def named_path(give: str) -> Callable[[str], Path]:
    """The parser of a file's path: an empty one is refused by name, ``give`` saying what to give.
    Read as a path, it was the current folder ("config file . is a folder", "describe: . is a
    folder", "cannot append to .: Is a directory")."""

    def parse(value: str) -> Path:
        if not value:
            import typer

            raise typer.BadParameter(f"is empty: {give}")
        return Path(value)

    return parse


# ``--config``'s file.
config_path = named_path("name the TOML file, or leave the option out")


def prepare_to_run() -> None:
    """What a command that runs needs before it imports anything of the server."""
    # Before anything defines a model: most of the MCP SDK's are never used by one command.
    from toolbay.internals.pydantic_models import defer_model_building

    defer_model_building()
    # Before anything imports the MCP SDK: its packages' own imports are mostly what a
    # server never uses (the client, the MCPServer framework).
    from toolbay.internals.mcp_sdk import defer_package_imports

    defer_package_imports()
