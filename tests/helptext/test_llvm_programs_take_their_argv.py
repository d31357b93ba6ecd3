"""LLVM's tools (its CommandLine library): the argv a schema builds, checked by the tools.

LLVM lists an enum's values on lines of their own under its option ("    =asm  -  Emit an
assembly file"); read as description, llc's ``--filetype`` was a free string. The truth is
the installed tools: each value a schema offers is taken, a value it does not offer is
refused by LLVM's own parser, and every option FileCheck's schema offers is taken as written
(its long names fill their column, one space before the dash: they were read as taking the
description for a value). Skipped where LLVM's tools are not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolbay.helptext import build_tool_schema, describe_help

# LLVM's refusals of the command line itself (cl::ParseCommandLineOptions), not of the input.
SYNTAX_REFUSED = re.compile(r"Unknown command line argument|Cannot find option named|may only occur zero or one|"
                            r"requires a value|does not allow a value|value invalid for")


def _tool(*names: str) -> str:
    found = next((path for name in names if (path := shutil.which(name))), None)
    if found is None:
        pytest.skip(f"LLVM's {names[0]} is not installed here")
    return found


def _schema(tool: str) -> Any:
    described = describe_help(subprocess.run([tool, "--help"], capture_output=True, timeout=60, check=False).stdout)
    assert described.dialect == "llvm"
    return build_tool_schema(described)


def test_llc_takes_the_values_its_schema_offers_and_refuses_one_it_does_not() -> None:
    llc = _tool("llc", "llc-14", "llc-15", "llc-16", "llc-17", "llc-18", "llc-19")
    schema = _schema(llc)
    properties = schema.input_schema["properties"]
    assert properties["filetype"]["enum"] == ["asm", "obj", "null"]
    enums = [name for name, prop in properties.items() if prop.get("enum")]
    assert len(enums) >= 10
    positional = next(p.name for p in schema.params if p.kind == "positional")
    for name in enums:
        values = properties[name]["enum"]
        for value in {values[0], values[-1]}:
            argv = schema.to_argv({positional: "-", name: value})
            done = subprocess.run([llc, *argv, "-o", "/dev/null"], input=b"", capture_output=True, timeout=60,
                                  check=False)
            assert not SYNTAX_REFUSED.search(done.stderr.decode(errors="replace")), (argv, done.stderr)
    refused = subprocess.run([llc, "--filetype=bogus", "-o", "/dev/null", "-"], input=b"", capture_output=True,
                             timeout=60, check=False)
    assert SYNTAX_REFUSED.search(refused.stderr.decode(errors="replace")), refused.stderr


def test_every_option_filechecks_schema_offers_is_taken_as_written(tmp_path: Path) -> None:
    filecheck = _tool("FileCheck", "FileCheck-14", "FileCheck-15", "FileCheck-16", "FileCheck-17", "FileCheck-18")
    schema = _schema(filecheck)
    properties = schema.input_schema["properties"]
    assert properties["allow_deprecated_dag_overlap"]["type"] == "boolean"
    assert properties["implicit_check_not"]["type"] == "string"
    assert properties["check_prefixes"]["type"] == "string"  # "Alias for -check-prefix": takes its value
    (tmp_path / "checks.txt").write_text("CHECK: hello\n")
    positional = next(p.name for p in schema.params if p.kind == "positional")
    tried = 0
    for param in schema.params:
        prop = properties.get(param.name, {})
        if param.kind in ("positional", "positionals", "form") or param.name in ("help", "version", "help_list") \
                or not prop:
            continue
        kind = prop.get("type")
        value: Any = (prop["enum"][0] if prop.get("enum") else True if kind == "boolean" else 2
                      if kind in ("integer", "number") else "hello")
        argv = schema.to_argv({positional: "checks.txt", param.name: value})
        done = subprocess.run([filecheck, *argv], input=b"hello\n", capture_output=True, cwd=tmp_path, timeout=60,
                              check=False)
        assert not SYNTAX_REFUSED.search(done.stderr.decode(errors="replace")), (argv, done.stderr)
        tried += 1
    assert tried >= 10
