"""typer with rich: the schema read from a real program's help, against the program's own
definitions, and the argv it builds, read by typer itself.

``truth_programs/typer/sync.py`` prints each option's type in a column of its own, with bounds
beside it ("<int range> [0<=x<=9]"), and each operand's type too ("source  <path>"). An option
with bounds was read as a switch (a call passed "--depth" alone, which typer refuses), and an
operand's type was left in its description ("<int>  [required]": a string); a tuple option
("<int,int>...") was read as one value given again and again, which typer refuses.
"""

from __future__ import annotations

import enum
import importlib.util
import os
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

from toolbay.helptext import build_tool_schema, describe_help

PROGRAM = Path(__file__).resolve().parent / "truth_programs" / "typer" / "sync.py"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    # A width the help's columns fit in; rich draws its panels for a terminal of COLUMNS.
    return subprocess.run([sys.executable, str(PROGRAM), *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}, check=False)


def _definitions() -> dict[str, tuple[Any, Any]]:
    """Each parameter of the program's ``sync``: its type and its ``typer.Option`` (or
    ``typer.Argument``), as the function declares them."""
    spec = importlib.util.spec_from_file_location("typer_sync_truth", PROGRAM)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    hints = typing.get_type_hints(module.sync, include_extras=True)
    return {name: typing.get_args(hint)[:2] for name, hint in hints.items() if name != "return"}


def _expected(kind: Any, info: Any) -> dict[str, Any]:
    """What the program's definition says of one parameter, in the schema's words."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
    if typing.get_origin(kind) is list:
        return {"type": "array"}
    if typing.get_origin(kind) is tuple:  # so many values after one flag
        return {"type": "array", "minItems": len(typing.get_args(kind)), "maxItems": len(typing.get_args(kind))}
    if kind is bool:
        return {"type": "boolean"}
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return {"enum": [case.value for case in kind]}
    if kind is Path:
        return {"type": "string", "format": "path"}
    if kind in (int, float):
        bounds = {"minimum": getattr(info, "min", None), "maximum": getattr(info, "max", None)}
        return {"type": "integer" if kind is int else "number", **{k: v for k, v in bounds.items() if v is not None}}
    return {"type": "string"}


def test_a_typer_programs_types_bounds_and_choices_are_its_schemas() -> None:
    shown = _run("sync", "--help")
    assert shown.returncode == 0, shown.stderr
    schema = build_tool_schema(describe_help(shown.stdout.encode()))
    properties = schema.input_schema["properties"]
    for name, (kind, info) in _definitions().items():
        assert {key: properties[name].get(key) for key in _expected(kind, info)} == _expected(kind, info), name
    assert schema.input_schema["required"] == ["source"]


def test_a_call_reaches_a_typer_program_with_every_value_it_gives() -> None:
    schema = build_tool_schema(describe_help(_run("sync", "--help").stdout.encode()))
    argv = schema.to_argv({"source": "notes", "depth": 3, "ratio": 0.25, "workers": 2, "level": "high",
                           "exclude": ["a*", "b*"], "force": True, "name": "nightly", "point": ["3", "4"]})
    done = _run("sync", *argv)
    assert done.returncode == 0, (argv, done.stderr)
    assert done.stdout.strip() == ("source=notes depth=3 ratio=0.25 workers=2 level=high exclude=['a*', 'b*'] "
                                   "force=True name=nightly point=(3, 4)")
