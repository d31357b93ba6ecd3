"""The ``toolbay`` command's entry point: answers ``parse-help`` and starts ``serve`` at once,
hands the rest to ``toolbay.cli``.

``toolbay parse-help --long FILE [--short FILE]`` is run by tool authors in loops over help
texts; loading typer and the command table would be a third of its time, so this module
reads those two options itself and imports only the help-text parser. ``serve`` with
well-formed options runs without typer too (``toolbay.serve_command``). Anything else
(``parse-help --help``, ``serve --help`` included) goes to typer, which also documents the
commands.
"""

from __future__ import annotations

import sys


def main() -> None:
    if (code := parse_help_at_once(sys.argv[1:])) is not None:
        sys.exit(code)
    if sys.argv[1:2] == ["serve"]:
        # A server's imports run with the collector paused; ``serve`` resumes it once its
        # last imports are done (see toolbay.start_up_collector).
        from toolbay.start_up_collector import pause_for_imports

        pause_for_imports()
    if sys.argv[1:2] and not sys.argv[1].startswith("-"):
        # Before anything defines a model: most of the MCP SDK's are never used by one command.
        # Only a command defines models: ``--help`` and ``--version`` print and end without
        # pydantic, which setting the deferral would import.
        from toolbay.internals.pydantic_models import defer_model_building

        defer_model_building()
    from toolbay.serve_command import serve, serve_options_at_once

    if (options := serve_options_at_once(sys.argv[1:])) is not None:
        serve(**options)
        return
    from toolbay.cli import main as full_command

    full_command()


def parse_help_at_once(argv: list[str]) -> int | None:
    """The exit status of ``parse-help`` run here, or None when typer must parse ``argv``."""
    if argv[:1] != ["parse-help"]:
        return None
    files: dict[str, str] = {}
    rest = argv[1:]
    while rest:
        option, equals, value = rest[0].partition("=")
        if option not in ("--long", "--short") or option in files:
            return None
        if equals:
            rest = rest[1:]
        elif len(rest) >= 2:
            value, rest = rest[1], rest[2:]
        else:
            return None
        files[option] = value
    if "--long" not in files:
        return None
    from toolbay.helptext.command import run_parse_help

    return run_parse_help(files["--long"], files.get("--short"), sys.stdout, sys.stderr)
