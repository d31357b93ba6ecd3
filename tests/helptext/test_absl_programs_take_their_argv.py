"""absl programs (Abseil's flags, absl-py): the argv a schema builds, read by absl itself.

``truth_programs/absl/shelf.py`` defines a flag of every kind absl has (string, integer with
bounds, float, switch, enum, comma and space separated lists, repeated strings, integers and
enums) and prints what absl made of its command line. Its schema is read from its ``--help``
as the program prints it now, a call's arguments are written as argv, and the values absl
parsed must be the ones the call gave: a switch turned off must be absl's ``--noname`` (absl
refuses ``--no-name``), a repeated flag given once per value, a number parsed as one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolbay.helptext import build_tool_schema, describe_help

pytest.importorskip("absl")

PROGRAMS = Path(__file__).resolve().parent / "truth_programs" / "absl"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "shelf.py", *argv], cwd=PROGRAMS, capture_output=True, text=True,
                          timeout=60, check=False)


def test_a_call_with_every_flag_of_an_absl_program_reaches_absl_with_its_values() -> None:
    described = describe_help(_run("--help").stdout.encode())
    assert described.dialect == "absl"
    schema = build_tool_schema(described)
    properties = schema.input_schema["properties"]
    call: dict[str, Any] = {
        "title": "Dune", "copies": 3, "price": 12.25, "dry_run": True, "color": False, "format": "csv",
        "tags": "sf,classic", "shelves_near": "attic cellar", "author": ["Frank Herbert", "Brian Herbert"],
        "year": [1965, 1984], "shelf": ["attic", "cellar"], "max_loans": 7, "discount": 0.5, "db": "books.db",
    }
    # Every flag the program defines is in the schema, each of its absl type.
    assert set(call) <= set(properties), sorted(set(call) - set(properties))
    assert properties["copies"]["type"] == "integer" and properties["price"]["type"] == "number"
    assert properties["year"] == {**properties["year"], "type": "array", "items": {"type": "integer"}}
    assert properties["format"]["enum"] == ["text", "json", "csv"]
    assert properties["color"]["default"] is True

    done = _run(*schema.to_argv(call), "--", "left", "over")
    assert done.returncode == 0, done.stderr
    parsed = json.loads(done.stdout)
    expected = {**call, "tags": ["sf", "classic"], "shelves_near": ["attic", "cellar"]}
    assert {name: parsed[name] for name in expected} == expected
    assert parsed["args"] == ["left", "over"]


def test_a_switch_on_by_default_is_turned_off_the_way_absl_takes_it() -> None:
    schema = build_tool_schema(describe_help(_run("--help").stdout.encode()))
    argv = schema.to_argv({"title": "x", "color": False})
    assert "--nocolor" in argv
    assert json.loads(_run(*argv).stdout)["color"] is False
