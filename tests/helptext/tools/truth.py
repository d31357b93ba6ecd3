"""Writes what a Python program's own parser defines, as truth for the corpus.

    python truth.py <entry> [subcommand ...]

Run it with the interpreter the program is installed in. ``entry`` is a console
script name (``flake8``), ``-m module`` (``-m json.tool``) or ``module:function``.
The program is run with ``[subcommand ...] --help`` and the parser object that is
asked to print that help is caught: an argparse ``ArgumentParser`` (its
``print_help``) or a click/typer ``Command`` (its ``get_help``). So the truth is the
definition behind exactly the help text that was captured, never the describer's
reading of it. Prints one JSON document:

    {"source": ..., "options": [{"names", "takes_value", "required", "choices",
     "repeatable", "type", "default"}], "positionals": [{"name", "required",
     "variadic", "choices"}], "subcommands": [...]}

``type`` is one of boolean, integer, number, string; ``default`` the default as
text, or null when there is none worth stating (a switch's False, None).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import io
import json
import runpy
import sys
from pathlib import Path
from typing import Any


class _Caught(BaseException):  # not Exception: mains that catch every error must not swallow it
    def __init__(self, kind: str, obj: Any, ctx: Any = None) -> None:
        super().__init__(kind)
        self.kind, self.obj, self.ctx = kind, obj, ctx


def _catch_argparse(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
    raise _Caught("argparse", self)


def _patch() -> None:
    argparse.ArgumentParser.print_help = _catch_argparse  # type: ignore[method-assign]
    argparse.ArgumentParser.format_help = _catch_argparse  # type: ignore[method-assign, assignment]
    import optparse

    def catch_optparse(self: optparse.OptionParser, *args: object, **kwargs: object) -> None:
        raise _Caught("optparse", self)

    optparse.OptionParser.print_help = catch_optparse  # type: ignore[method-assign]
    optparse.OptionParser.format_help = catch_optparse  # type: ignore[method-assign, assignment]
    with contextlib.suppress(ImportError):
        import docopt

        def catch_docopt(doc: str, *args: object, **kwargs: object) -> None:
            raise _Caught("docopt", doc)

        docopt.docopt = catch_docopt
    with contextlib.suppress(ImportError):
        import click

        def catch_click(self: Any, ctx: Any) -> str:
            raise _Caught("click", self, ctx)

        click.Command.get_help = catch_click  # type: ignore[method-assign]
        click.Context.get_help = lambda ctx: catch_click(ctx.command, ctx)  # type: ignore[method-assign, assignment]


def _run(entry: list[str], argv: list[str]) -> _Caught:
    _patch()
    if entry[0] == "-m":
        sys.argv = [entry[1], *argv]
        call = lambda: runpy.run_module(entry[1], run_name="__main__", alter_sys=True)  # noqa: E731
    elif ":" in entry[0]:
        module, attr = entry[0].split(":")
        sys.argv = [module, *argv]
        target: Any = importlib.import_module(module)
        for part in attr.split("."):
            target = getattr(target, part)
        call = target
    else:
        (point,) = importlib.metadata.entry_points(group="console_scripts", name=entry[0])
        sys.argv = [entry[0], *argv]
        call = point.load()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            call()
    except _Caught as caught:
        return caught
    except SystemExit as exc:
        raise SystemExit(f"the program exited ({exc.code}) without printing help through its parser") from exc
    raise SystemExit("the program returned without printing help through its parser")


# --- argparse -------------------------------------------------------------------------------

_SCALAR_TYPES = {int: "integer", float: "number"}


def _text(value: Any) -> str | None:
    if value is None or value is argparse.SUPPRESS or isinstance(value, bool):
        return None
    if " object at 0x" in repr(getattr(value, "value", value)):  # a "no default" sentinel (click's UNSET)
        return None
    if isinstance(value, (list, tuple)):
        return None if not value else ",".join(str(v) for v in value)
    return str(getattr(value, "value", value))


def _choice_text(choice: Any, convert: Any) -> str:
    """A choice as it is typed: an Enum member is typed as the word the parser's own ``type``
    converts to it (tried: its value, its name, lower-cased, dotted tuple), else as ``str``."""
    import enum

    if not isinstance(choice, enum.Enum) or not callable(convert):
        return str(choice)
    value = choice.value
    tried = [str(value), choice.name, choice.name.lower(), choice.name.lower().replace("_", "-")]
    if isinstance(value, tuple):
        tried.append(".".join(str(v) for v in value))
    for word in tried:
        with contextlib.suppress(Exception):
            if convert(word) == choice:
                return word
    return str(choice)


def argparse_truth(parser: argparse.ArgumentParser) -> dict[str, Any]:
    options, positionals, subcommands = [], [], []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue  # help and version are left out of every schema, so they are not scored
        if isinstance(action, argparse._SubParsersAction):
            shown = [a.dest for a in action._choices_actions]
            subcommands.extend(shown or list(action.choices))
            continue
        choices = [_choice_text(c, action.type) for c in action.choices] if action.choices else []
        if not action.option_strings:
            nargs = action.nargs
            positionals.append({
                "name": action.metavar if isinstance(action.metavar, str) else action.dest,
                "required": nargs not in ("?", "*", argparse.REMAINDER),
                "variadic": nargs in ("+", "*", argparse.REMAINDER) or (isinstance(nargs, int) and nargs > 1),
                "choices": choices,
                "type": _SCALAR_TYPES.get(action.type, "string"),  # type: ignore[call-overload]
            })
            continue
        takes_value = action.nargs != 0
        repeatable = isinstance(action, (argparse._AppendAction, argparse._ExtendAction,
                                         argparse._CountAction, argparse._AppendConstAction))
        kind = "boolean" if not takes_value else _SCALAR_TYPES.get(action.type, "string")  # type: ignore[call-overload]
        options.append({
            "names": list(action.option_strings),
            "takes_value": takes_value,
            "required": bool(action.required),
            "choices": choices,
            "repeatable": repeatable,
            "type": kind,
            "default": _text(action.default) if takes_value else None,
        })
    return {"options": options, "positionals": positionals, "subcommands": subcommands}


# --- optparse: options only (it defines no positionals) ----------------------------------------


def optparse_truth(parser: Any) -> dict[str, Any]:
    import optparse

    options = []
    for option in parser._get_all_options():
        if option.help == optparse.SUPPRESS_HELP or option.action in ("help", "version"):
            continue
        takes_value = option.takes_value()
        default = parser.defaults.get(option.dest) if option.dest else None
        options.append({
            "names": option._short_opts + option._long_opts,
            "takes_value": takes_value,
            "required": False,
            "choices": [str(c) for c in option.choices or []],
            "repeatable": option.action in ("append", "count", "append_const"),
            "type": {"int": "integer", "float": "number"}.get(option.type, "string") if takes_value else "boolean",
            "default": _text(default) if takes_value and default is not optparse.NO_DEFAULT else None,
        })
    return {"options": options}


# --- docopt: the usage text is the definition; docopt's own parser reads it -------------------


def docopt_truth(doc: str) -> dict[str, Any]:
    import docopt as lib

    options = lib.parse_defaults(doc)
    pattern = lib.parse_pattern(lib.formal_usage(lib.printable_usage(doc)), options)
    out_options = []
    for opt in options:
        if opt.long in ("--help", "--version") or opt.short in ("-h", "-V"):
            continue
        takes_value = opt.argcount > 0
        out_options.append({
            "names": [n for n in (opt.short, opt.long) if n],
            "takes_value": takes_value, "required": False, "choices": [], "repeatable": False,
            "type": "string" if takes_value else "boolean",
            "default": opt.value if takes_value and opt.value not in (None, False) else None,
        })
    branches = pattern.children[0].children if isinstance(pattern.children[0], lib.Either) else [pattern]

    def leaves(node: Any, optional: bool, many: bool, found: dict[str, tuple[bool, bool]], kind: type) -> None:
        if isinstance(node, kind) and not isinstance(node, lib.Command):  # a Command is an Argument too
            was = found.get(node.name, (True, False))
            found[node.name] = (was[0] and not optional, was[1] or many)
        for child in getattr(node, "children", []):
            leaves(child, optional or isinstance(node, (lib.Optional, lib.Either)),
                   many or isinstance(node, lib.OneOrMore), found, kind)

    per_branch = []
    for branch in branches:
        found: dict[str, tuple[bool, bool]] = {}
        leaves(branch, False, False, found, lib.Argument)
        per_branch.append(found)
    names = list(dict.fromkeys(n for found in per_branch for n in found))
    positionals = [{
        "name": name.strip("<>"),
        "required": all(found.get(name, (False, False))[0] for found in per_branch),
        "variadic": any(found.get(name, (False, False))[1] for found in per_branch),
        "choices": [], "type": "string",
    } for name in names]
    commands: dict[str, tuple[bool, bool]] = {}
    for branch in branches:  # the first command word of each form names a command
        first = next((leaf for leaf in branch.flat() if isinstance(leaf, lib.Command)), None)
        if first is not None:
            commands[first.name] = (True, False)
    return {"options": out_options, "positionals": positionals, "subcommands": list(commands)}


# --- click / typer ----------------------------------------------------------------------------


def _click_type(param: Any) -> str:
    import click

    if isinstance(param.type, (click.types.IntParamType, click.IntRange)):
        return "integer"
    if isinstance(param.type, (click.types.FloatParamType, click.FloatRange)):
        return "number"
    if isinstance(param.type, click.types.BoolParamType):
        return "boolean"
    return "string"


def click_truth(command: Any, ctx: Any) -> dict[str, Any]:
    import click

    options, positionals, subcommands = [], [], []
    for param in command.get_params(ctx):
        if param.name in ("help", "version"):
            continue
        # typer's hidden argument is only left out of the Arguments panel: the usage still names it
        # and the program takes it. A hidden option is nowhere in the help, so it is left out.
        if getattr(param, "hidden", False) and not isinstance(param, click.Argument):
            continue
        choices = [str(getattr(c, "value", c)) for c in getattr(param.type, "choices", []) or []]
        if isinstance(param, click.Argument):
            positionals.append({
                "name": param.human_readable_name,
                "required": bool(param.required),
                "variadic": param.nargs == -1 or param.nargs > 1,
                "choices": choices,
                "type": _click_type(param),
            })
            continue
        flag = bool(param.is_flag or param.count)
        default = None if flag or callable(param.default) else _text(param.default)
        options.append({
            "names": list(param.opts) + list(param.secondary_opts),
            "takes_value": not flag,
            "required": bool(param.required),
            "choices": choices,
            "repeatable": bool(param.multiple or param.count),
            "type": "boolean" if flag else _click_type(param),
            "default": default,
        })
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not getattr(sub, "hidden", False):
                subcommands.append(name)
    return {"options": options, "positionals": positionals, "subcommands": subcommands}


def main(args: list[str]) -> None:
    if args[0] == "--docopt-text":  # a docopt program whose help is its definition, word for word
        doc = Path(args[1]).read_text(encoding="utf-8")
        print(to_json({"source": f"docopt's reading of the usage text in {args[1]}", **docopt_truth(doc)}), end="")
        return
    entry = args[:2] if args[0] == "-m" else args[:1]
    path = args[len(entry):]
    caught = _run(entry, [*path, "--help"])
    readers = {"argparse": argparse_truth, "optparse": optparse_truth, "docopt": docopt_truth}
    truth = readers[caught.kind](caught.obj) if caught.kind in readers else click_truth(caught.obj, caught.ctx)
    source = f"{caught.kind} definition of `{' '.join([*entry, *path])}`"
    print(to_json({"source": source, **truth}), end="")


def to_json(document: dict[str, Any]) -> str:
    """One line per option or positional, so a reviewer can read and diff the file."""
    parts = []
    for key, value in document.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            parts.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    main(sys.argv[1:])
