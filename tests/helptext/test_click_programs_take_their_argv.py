"""click: the schema read from a real program's help, against the program's own parameters
(click's ``Command.params``), and the argv it builds, parsed by click itself.

``truth_programs/click/plot.py`` has options taking several words after one flag: click
prints ``--origin INTEGER...`` for ``nargs=2`` and ``--label <TEXT FLOAT>...`` for a tuple
type (given again for more where it is ``multiple``, as a tuple option mostly is: sqlite-utils'
``--param``, llm's ``--option``). Both were read as an option given again, one value each
("--origin 1 --origin 2"), which click refuses, and the tuple's value was typed a number.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from toolbay.helptext import build_tool_schema, describe_help

PROGRAM = Path(__file__).resolve().parent / "truth_programs" / "click" / "plot.py"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(PROGRAM), *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "100"}, check=False)


def _command() -> click.Command:
    spec = importlib.util.spec_from_file_location("click_plot_truth", PROGRAM)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.plot  # type: ignore[no-any-return]


def _expected(param: click.Parameter) -> dict[str, Any]:
    """What click's definition of one parameter says, in the schema's words."""
    kind = param.type
    if isinstance(kind, click.Tuple):  # so many words after the flag, one per type; the flag again for more
        return {"type": "array", "items": {"type": "array", "items": {"type": "string"},
                                           "minItems": len(kind.types), "maxItems": len(kind.types)}}
    if getattr(param, "multiple", False):  # given again for more (its help says so: click shows no mark)
        return {"type": "array"}
    if param.nargs != 1:  # several words after one flag (how many, the help does not say), or the rest
        return {"type": "array"}
    if isinstance(param, click.Option) and param.is_flag:
        return {"type": "boolean"}
    if isinstance(kind, click.Choice):
        return {"enum": list(kind.choices)}
    if isinstance(kind, click.FloatRange | click.IntRange):
        return {"type": "number" if isinstance(kind, click.FloatRange) else "integer",
                "minimum": kind.min, "maximum": kind.max}
    return {"type": {click.INT: "integer", click.FLOAT: "number"}.get(kind, "string")}


def test_a_click_programs_parameters_are_its_schemas() -> None:
    shown = _run("--help")
    assert shown.returncode == 0, shown.stderr
    schema = build_tool_schema(describe_help(shown.stdout.encode()))
    properties = schema.input_schema["properties"]
    params = [param for param in _command().params if param.name != "help"]
    assert sorted(properties) == sorted(param.name for param in params if param.name)
    for param in params:
        assert param.name is not None
        expected = _expected(param)
        assert {key: properties[param.name].get(key) for key in expected} == expected, param.name
    assert schema.input_schema["required"] == [param.name for param in params if param.required]


def test_a_call_reaches_a_click_program_with_every_value_it_gives() -> None:
    schema = build_tool_schema(describe_help(_run("--help").stdout.encode()))
    given = {"origin": [3, -4], "label": [["peak", "2.5"]], "param": [["weight", "bold"], ["dash", "dotted"]],
             "scale": 2.0, "color": "blue", "tag": ["north", "up"],
             "grid": False, "title": "Tides", "files": ["a.csv", "-b.csv"]}
    argv = schema.to_argv(given)
    done = _run(*argv)
    assert done.returncode == 0, (argv, done.stderr)
    assert json.loads(done.stdout) == {**given, "label": ["peak", 2.5]}
    # A tuple option not given again keeps its last pair, as click does itself.
    twice = _run(*schema.to_argv({**given, "label": [["low", "1"], ["high", "3"]]}))
    assert json.loads(twice.stdout)["label"] == ["high", 3.0]
