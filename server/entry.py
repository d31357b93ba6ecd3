"""The ``toolbay`` command's entry point: answers ``parse-help`` and starts ``serve`` at once,
hands the rest to ``toolbay.cli``.

``toolbay parse-help FILE [--short FILE]`` (or ``--long FILE``) is run by tool authors in loops over help
texts; loading typer and the command table would be a third of its time, so this module
reads those two options itself and imports only the help-text parser. ``serve`` with
well-formed options runs without typer too (``toolbay.serve_command``). Anything else
(``parse-help --help``, ``serve --help`` included) goes to typer, which also documents the
commands.
"""

from __future__ import annotations

import errno
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see toolbay.helptext.records)
if TYPE_CHECKING:
    from types import FrameType
    from typing import NoReturn

# The shell's status for a command ended by Ctrl-C (128 + SIGINT).
INTERRUPTED = 130
# A server asked to stop (Ctrl-C, SIGTERM) has done what it was asked, however soon: once
# serving it ends with 0, and 130 while it started read as a failure (systemd counts 0 and the
# signal itself as success, not 130).
STOPPED = 0
# The status of a command whose reader went away (``| head``): a program SIGPIPE ends has it
# (128 + 13), as the shell shows it.
BROKEN_PIPE = 141
# Errors writing the command's output (a full disk, a closed pipe): said in one line, not a traceback.
_OUTPUT_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE})


def main() -> None:
    """Runs the command; Ctrl-C before the command has taken it over (while it starts and
    imports) ends it with the shell's status for that and no traceback; a server, as it would
    once serving (``STOPPED``)."""
    import gc  # built in: it loads nothing

    # A command's imports run with the collector paused (see toolbay.start_up_collector), paused here
    # first: what this process makes before it (the standard streams, the signal module) set it off now
    # and then, a collection before the freeze (as a test saw).
    collector_was_on = gc.isenabled()
    gc.disable()
    output_unwritable = _open_closed_standard_streams(serving=sys.argv[1:2] == ["serve"])
    if sys.argv[1:2] == ["serve"]:
        import signal  # here: the other commands (parse-help, answering at once) need it not

        from toolbay.start_interrupts import while_starting

        # Until the server takes SIGTERM over (after its imports), it stops as on Ctrl-C too:
        # killed by it while it started, it ended by the signal, not with STOPPED as promised.
        signal.signal(signal.SIGTERM, _stop_while_starting)
        # Ctrl-C raised inside an import left Python's import lock held, and the server hung (start_interrupts).
        while_starting()
    try:
        _run(sys.argv[1:], collector_was_on)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        sys.exit(STOPPED if sys.argv[1:2] == ["serve"] else INTERRUPTED)
    except OSError as exc:
        closed = output_unwritable is not None and exc.errno == errno.EBADF  # see _open_closed_standard_streams
        if (exc.errno not in _OUTPUT_ERRORS and not closed) or exc.filename is not None:
            raise
        if closed:
            sys.stderr.write(f"toolbay: cannot write the output: standard output is {output_unwritable}\n")
        elif exc.errno != errno.EPIPE:
            sys.stderr.write(f"toolbay: cannot write the output: {exc.strerror}\n")
        # Python flushes standard output again at exit, which would fail again, in a traceback.
        from toolbay.null_device import discarding_descriptor

        os.dup2(discarding_descriptor(), sys.stdout.fileno())
        # A reader that went away (``| head``) has had what it wanted: said nothing of, and the status
        # of ``ls | head``, which the signal ends (128 + SIGPIPE, as a shell shows it), where a script
        # tells it from toolbay's failures (1: a tool failed, a job did not complete, a full disk).
        sys.exit(BROKEN_PIPE if exc.errno == errno.EPIPE and not closed else 1)


def _stop_while_starting(signum: int, frame: FrameType | None) -> None:
    """SIGTERM before the server handles it: as Ctrl-C (``main`` ends with ``STOPPED``), once."""
    import signal

    from toolbay.start_interrupts import interrupt_when_safe

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    interrupt_when_safe(signum, frame)


def _open_closed_standard_streams(*, serving: bool) -> str | None:
    """Opens a standard stream the caller closed (``cmd <&-``) on /dev/null: uvloop's libuv
    aborts the process (an assertion, a core dump) when a descriptor it opens is numbered 0 to
    2, and Python leaves ``sys.stdin`` (``stdout``, ``stderr``) None. Returns why standard output
    cannot be written, if it cannot: "closed", or "not open for writing" (``cmd 1<file``, whose
    writes fail as a closed one's did, in a traceback), else None.

    A closed standard output is opened for reading only, unless ``serving``: a command's
    output then fails to be written (EBADF), as ``cat >&-`` does, and ``main`` says so, exit 1;
    on a writable /dev/null the result was lost and the command exited 0. A server run with
    its output closed (over HTTP, it writes nothing there) serves as before."""
    from toolbay.null_device import null_descriptor  # small, as this module, and needed only then
    from toolbay.protocol.standard_fds import access_mode  # os and stat only

    output_unwritable = None
    for number, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(number)
        except OSError:
            if number == 1:
                output_unwritable = "closed"
            opened = null_descriptor(os.O_RDONLY if number == 1 and not serving else os.O_RDWR)
            if opened != number:  # the lowest free number: it is this one, unless a lower one was closed too
                os.dup2(opened, number)
                os.close(opened)
            if getattr(sys, name) is None:
                setattr(sys, name, open(number, mode, closefd=False, encoding="utf-8"))  # noqa: SIM115
        else:
            if number == 1 and access_mode(number) == os.O_RDONLY:
                output_unwritable = "not open for writing"
    return output_unwritable


def _run(argv: list[str], collector_was_on: bool) -> None:
    """``collector_was_on``: whether Python's collector was on before ``main`` paused it."""
    if (code := parse_help_at_once(argv)) is not None:
        _end_without_teardown(code)
    a_command = bool(argv[:1]) and not argv[0].startswith("-")
    if not a_command and collector_was_on:
        import gc

        gc.enable()  # --help, --version: as Python runs them
    if a_command and (problem := _current_folder_problem()) is not None:
        # Relative paths (a workspace, a tool folder, the configuration file) are read from it.
        sys.stderr.write(f"toolbay: the current folder {problem}; cd to another\n")
        sys.exit(2)
    if a_command:
        # A command's imports run with the collector paused (see toolbay.start_up_collector):
        # ``serve`` resumes it once its last imports are done, a command that may run long
        # (``call``, ``jobs``, ``search --catalog``) once it begins its work; a short one ends first.
        from toolbay.start_up_collector import pause_for_imports

        pause_for_imports(collector_was_on)
        # Before typer or the settings build pydantic's first validator.
        from toolbay.internals.pydantic_plugins import find_no_plugins_where_none_is_declared

        find_no_plugins_where_none_is_declared()
        # Before the first dataclass of the command's modules (typer's, pydantic's, toolbay's).
        from toolbay.internals.dataclass_code import keep_compiled_code

        keep_compiled_code()
        # Before the libraries compile the patterns of their modules' bodies (PyYAML's, tomllib's, starlette's).
        from toolbay.internals.sre_code import keep_literal_patterns

        keep_literal_patterns()
        # numpy's OpenBLAS starts a thread for each further core as numpy loads (``toolbay search``,
        # a server's first search): 30-60 ms more processor time on two cores, for threads a
        # search's products, a few hundred numbers each, do not use (OpenBLAS runs them on one
        # thread; the semantic model's run without BLAS, see toolbay.search.semantic, and only
        # its index's sums of the tools added at once lose a second thread). Read as the library
        # loads; a value of the user's stands; no process toolbay starts inherits this environment.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from toolbay.serve_command import serve, serve_options_at_once, stop_as_ctrl_c

    serve_options = serve_options_at_once(argv)
    early_start = None
    if a_command and serve_options is not None:
        # A first start's compiles begin now where the command line tells all they depend
        # on, before the settings load (toolbay.first_start); the server forks first, as
        # serve would (before any thread).
        from toolbay.first_start import guess_before_settings

        if (guess := guess_before_settings(serve_options)) is not None:
            from toolbay.detach import detach_from_client

            detach_from_client()
            # The parent passes SIGTERM on from now: stopped while it starts, the server stops
            # as on Ctrl-C, as it does once it serves (it was killed, with no shutdown).
            import signal

            signal.signal(signal.SIGTERM, stop_as_ctrl_c)
            early_start = guess.begin()
    if serve_options is not None:
        # The commands typer runs do this as they are invoked (toolbay.cli_command): their
        # --help ends before, without pydantic, which this imports.
        from toolbay.cli_running import prepare_to_run

        prepare_to_run()
        serve(**serve_options, early_start=early_start)
        return
    from toolbay.cli import main as full_command

    try:
        full_command()
    finally:
        # What a command printed and did not flush (``call``'s result, to a file or a pipe) was
        # written at exit, where an error writing it ended in "Exception ignored" and status 120;
        # flushed here, ``main`` says the error in one line, exit 1.
        sys.stdout.flush()


def _current_folder_problem() -> str | None:
    """Why relative paths cannot be read from the current folder (which raised a traceback), or None."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return "no longer exists (it was deleted or moved)"
    if not os.access(".", os.X_OK):
        return "cannot be entered by this user"
    return None


def _end_without_teardown(code: int) -> NoReturn:
    """Ends ``parse-help`` without the interpreter's teardown, which frees every module's objects
    one by one: 5 of the 42 ms of an installed run, for a command that answers at once. Its
    output is flushed first (an error writing it is said by ``main``, as before), and its one
    exit handler, which keeps newly compiled patterns, is run here."""
    sys.stdout.flush()
    sys.stderr.flush()
    from toolbay.helptext.kept import KEPT

    KEPT.save_before_ending()
    os._exit(code)


def parse_help_at_once(argv: list[str]) -> int | None:
    """The exit status of ``parse-help`` run here, or None when typer must parse ``argv``
    (``--help``, an unknown option, a file given twice, empty or not at all: typer says what is wrong)."""
    if argv[:1] != ["parse-help"]:
        return None
    files: dict[str, str] = {}
    rest = argv[1:]
    while rest:
        option, equals, value = rest[0].partition("=")
        if option == "-" or not option.startswith("-"):  # the positional FILE, the same as --long
            option, equals, value = "--long", "=", rest[0]
        if option not in ("--long", "--short") or option in files:
            return None
        if equals:
            rest = rest[1:]
        elif len(rest) >= 2:
            value, rest = rest[1], rest[2:]
        else:
            return None
        if not value:  # no file: typer says so by the option's name
            return None
        files[option] = value
    if "--long" not in files:
        return None
    # Python's cyclic collector, run every 700 new objects, walked the parser's imports again
    # and again as they were made (5 % of a run's instructions), to free next to nothing: off,
    # for a command that ends at once (``_end_without_teardown``).
    import gc

    gc.disable()
    from toolbay.helptext.command import run_parse_help

    return run_parse_help(files["--long"], files.get("--short"), sys.stdout, sys.stderr)
