"""Python Fire: the argv a schema builds, read by Fire itself.

``truth_programs/fire/resize.py`` serves one function through Fire, which prints its help as a
manual page (NAME, SYNOPSIS, FLAGS, each flag's "Type:" and "Default:" on lines below it).
Read as cobra's help its defaults and types were lost and its switches took values. The
program is described from the help it prints now and called with every flag through the
schema's argv; it prints what Fire passed to the function.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolbay.helptext import build_tool_schema, describe_help

pytest.importorskip("fire")

PROGRAM = Path(__file__).resolve().parent / "truth_programs" / "fire" / "resize.py"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(PROGRAM), *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PAGER": "cat"})


def test_a_call_reaches_a_fire_program_with_every_value_it_gives() -> None:
    shown = _run("--help")
    described = describe_help((shown.stdout or shown.stderr).encode())  # later releases print it on stderr
    assert described.dialect == "fire" and described.about == "Resizes images to fit a box."
    schema = build_tool_schema(described)
    properties = schema.input_schema["properties"]
    assert properties["width"] == {**properties["width"], "type": "integer", "default": 640}
    assert properties["verbose"]["type"] == "boolean" and properties["scale"]["type"] == "number"
    argv = schema.to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "retries": 2,
                           "inputs": ["x.png", "y.png"]})
    done = _run(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "output=o.png width=3 scale=1.5 verbose=True retries=2 inputs=['x.png', 'y.png']"



def test_a_switch_before_an_operand_keeps_the_operand_for_what_it_is() -> None:
    """A bare "--verbose" takes the next word as its value in Fire: "--verbose x.png" made
    verbose "x.png" and left no input. A switch is written with its value."""
    shown = _run("--help")
    schema = build_tool_schema(describe_help((shown.stdout or shown.stderr).encode()))
    for verbose in (True, False):
        done = _run(*schema.to_argv({"verbose": verbose, "inputs": ["x.png"]}))
        assert done.returncode == 0, done.stderr
        assert f"verbose={verbose} " in done.stdout and done.stdout.strip().endswith("inputs=['x.png']")
