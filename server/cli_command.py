"""The class of every ``toolbay`` command (``toolbay.cli``, ``toolbay.jobs_cli``): its help
names the arguments as the options' values are named, plainly.

typer wrote a required argument in braces in the usage line (``call [OPTIONS] {TOOL} [JSON]``,
which reads as a set of choices, or a template to fill) and gave each argument its Python type
in the list below (``TOOL <str>``, ``FILE.wasm <path>``), where the options show their
metavariables alone (``--extensions DIR``). Here the usage line is ``TOOL [JSON]``, as
``toolbay --help`` and the README write it, and the list says ``TOOL``.

A command's ``--help`` prints and ends without pydantic (issue #14): what only a command that
runs needs is set up as it is invoked (``PlainCommand.invoke``), once its options, ``--help``
among them, are read."""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand

from toolbay.cli_running import prepare_to_run


def _argument_name(argument: TyperArgument) -> str:
    name = argument.metavar or (argument.name or "").upper()
    return name + "..." if argument.nargs != 1 else name


class PlainCommand(TyperCommand):
    """A typer command whose help names its arguments as written in its metavariables."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                # The help and its notes ([required], a default) as typer writes them; the name alone.
                arguments.append((_argument_name(param), record[1]))
            else:
                options.append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)

    def invoke(self, ctx: Any) -> Any:
        # Set here, not by the entry point for any command line: a command's --help, answered
        # while its options are read, loaded pydantic for them (a third of its run).
        prepare_to_run()
        return super().invoke(ctx)


def help_option_unset(option: Any) -> Any:
    """A group's help option, whose value when not given is False rather than None: typer read
    None, a group's --help not given (``toolbay list --help``), through a pydantic adapter,
    which imported pydantic (0.35 s) for a help that needs none of it."""
    if option is not None and option.default is None:
        option.default = False
    return option
