"""The argv a tool's schema builds, checked by the programs themselves.

Each read-only GNU program here is described from its own ``--help``, and every option its
schema offers is passed as a call would pass it (with a value of its type), then run: the
program's own parser is the truth. A refusal of the syntax ("unrecognized option", "option
requires an argument", "invalid option", "ambiguous") is a fault of the describer or of how
argv is written. Skipped where the programs are not GNU's (no ``--help`` that says so).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from toolbay.helptext import build_tool_schema, describe_help

PROGRAMS = ("cat", "head", "tail", "wc", "sort", "uniq", "nl", "od", "fold", "fmt", "tac", "expand", "base64",
            "sha256sum", "paste", "numfmt", "cut", "pr", "seq")
# Refusals of the syntax itself, as GNU's getopt_long and its programs word them (in C locale).
SYNTAX_REFUSED = re.compile(r"unrecognized option|invalid option|option requires an argument|ambiguous|"
                            r"doesn't allow an argument", re.IGNORECASE)
# Options that change what a run does past a quick read of its input (repeat or follow for ever).
LEFT_OUT = {("tail", "follow"), ("tail", "retry"), ("tail", "follow_name"), ("tail", "pid")}
ENV = {"LC_ALL": "C", "PATH": os.environ.get("PATH", os.defpath)}


def _gnu(program: str) -> bytes | None:
    path = shutil.which(program)
    if path is None:
        return None
    done = subprocess.run([path, "--help"], capture_output=True, env=ENV, check=False)
    return done.stdout if b"GNU" in done.stdout or b"coreutils" in done.stdout else None


def _value(prop: dict[str, Any]) -> Any:
    if prop.get("anyOf"):  # "--header[=N]": a number, or "" for the flag alone
        return _value(prop["anyOf"][0])
    if prop.get("enum"):
        return prop["enum"][0]
    kind = prop.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return 2
    if kind == "array":
        item = _value(prop.get("items", {}))
        return None if item is None else [item]
    return None  # a string of free form: its meaning is the program's, not the syntax's


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_option_a_gnu_programs_schema_offers_is_taken_by_its_parser(program: str, tmp_path: Path) -> None:
    help_text = _gnu(program)
    if help_text is None:
        pytest.skip(f"no GNU {program} here")
    schema = build_tool_schema(describe_help(help_text))
    properties = schema.input_schema["properties"]
    (tmp_path / "f.txt").write_text("b 2\na 1\nc 3\n")
    required = {p.name: (["f.txt"] if p.kind == "positionals" else "f.txt")
                for p in schema.params if p.kind in ("positional", "positionals") and p.required}
    tried = 0
    for param in schema.params:
        if param.kind in ("positional", "positionals", "form") or param.name in ("help", "version") \
                or (program, param.name) in LEFT_OUT:
            continue
        value = _value(properties[param.name])
        if value is None:
            continue
        argv = schema.to_argv({**required, param.name: value})
        run = subprocess.run([program, *argv], input=b"b 2\na 1\nc 3\n", capture_output=True, cwd=tmp_path,
                             env=ENV, timeout=30, check=False)
        error = run.stderr.decode(errors="replace")
        assert not SYNTAX_REFUSED.search(error), f"{program} {argv}: {error.strip()}"
        tried += 1
    assert tried, f"no option of {program} was tried"


def test_a_numbers_optional_value_may_be_left_out_and_the_flag_goes_alone(tmp_path: Path) -> None:
    # numfmt's "--header[=N]" was a number alone: "" (the flag alone, one header line) was refused.
    help_text = _gnu("numfmt")
    if help_text is None:
        pytest.skip("no GNU numfmt here")
    schema = build_tool_schema(describe_help(help_text))
    header = jsonschema.Draft202012Validator(schema.input_schema["properties"]["header"])
    assert header.is_valid("") and header.is_valid(2) and not header.is_valid("two")
    argv = schema.to_argv({"header": "", "to": "iec"})
    assert argv == ["--header", "--to=iec"]
    run = subprocess.run(["numfmt", *argv], input=b"size\n2048\n", capture_output=True, env=ENV, timeout=30,
                         check=True)
    assert run.stdout == b"size\n2.0K\n"


def test_one_option_listed_in_several_forms_takes_each_form_s_value(tmp_path: Path) -> None:
    """du lists "--time" over "--time=WORD", sort "--check=diagnose-first" over "--check=quiet":
    the first form alone was kept, so du's WORD (atime, ctime) could not be given, and sort's
    --check took any word. The truth is the programs, run with each value the schema offers."""
    du, sort = _gnu("du"), _gnu("sort")
    if du is None or sort is None:
        pytest.skip("no GNU du and sort here")
    (tmp_path / "d").mkdir()
    (tmp_path / "f.txt").write_text("a\nb\n")
    schema = build_tool_schema(describe_help(du))
    time = jsonschema.Draft202012Validator(schema.input_schema["properties"]["time"])
    assert time.is_valid("") and time.is_valid("ctime")
    for value in ("", "ctime", "atime"):
        run = subprocess.run(["du", *schema.to_argv({"time": value, "file": ["d"]})], cwd=tmp_path, env=ENV,
                             capture_output=True, check=False)
        assert run.returncode == 0 and run.stdout.count(b"-") >= 2, (value, run.stderr)  # a date is shown
    schema = build_tool_schema(describe_help(sort))
    offered = schema.input_schema["properties"]["check"]["enum"]
    assert {"diagnose-first", "quiet"} <= set(offered)
    for value in offered:
        run = subprocess.run(["sort", *schema.to_argv({"check": value, "file": ["f.txt"]})], cwd=tmp_path, env=ENV,
                             capture_output=True, check=False)
        assert run.returncode == 0 and not SYNTAX_REFUSED.search(run.stderr.decode()), (value, run.stderr)


def test_an_option_listed_in_four_forms_takes_each_of_the_four(tmp_path: Path) -> None:
    """objdump lists --disassembler-color=off, =terminal, =on and =extended: the first two alone
    were offered, so 'on' was refused (re-check of this session's fix). The truth is objdump."""
    path = shutil.which("objdump")
    text = subprocess.run([path, "--help"], capture_output=True, env=ENV, check=False).stdout if path else b""
    if b"--disassembler-color=" not in text:
        pytest.skip("no objdump of binutils 2.40 or later here")
    schema = build_tool_schema(describe_help(text))
    offered = schema.input_schema["properties"]["disassembler_color"]["enum"]
    assert offered == ["off", "terminal", "on", "extended"]
    for value in offered:
        run = subprocess.run([path, *schema.to_argv({"disassembler_color": value, "disassemble": "", "file": [path]})],
                             capture_output=True, env=ENV, check=False)
        assert run.returncode == 0 and not SYNTAX_REFUSED.search(run.stderr.decode()), (value, run.stderr[:200])


@pytest.mark.parametrize("program", ["sleep", "timeout", "printf", "expr", "nohup", "factor", "seq", "cat"])
def test_an_operand_is_required_exactly_where_the_program_says_one_is_missing(program: str) -> None:
    """GNU writes its --help and --version form as a usage form of its own ("or:  sleep OPTION",
    "or:  timeout [OPTION]"): taken for a form without operands, it made sleep's NUMBER, timeout's
    DURATION and COMMAND and printf's FORMAT optional. The truth is the program run with no
    operand: it refuses to run ("missing operand", or timeout's bare "Try 'timeout --help'")
    where one is required (cat and factor read standard input)."""
    text = _gnu(program)
    if text is None:
        pytest.skip(f"no GNU {program} here")
    required = [p.name for p in describe_help(text).positionals if p.required]
    done = subprocess.run([shutil.which(program) or program], capture_output=True, env=ENV, input=b"", check=False)
    refused = done.returncode != 0 and (b"missing operand" in done.stderr or b"Try '" in done.stderr)
    assert bool(required) == refused, (required, done.returncode, done.stderr)


def test_operands_nested_in_brackets_are_each_optional_and_reach_the_program(tmp_path: Path) -> None:
    """GNU writes optional operands one inside another ("uniq [OPTION]... [INPUT [OUTPUT]]",
    "split [OPTION]... [FILE [PREFIX]]"): a bracket inside a bracket was read as no operand,
    so uniq and split had none and no call could name a file. The truth is the programs: uniq
    reads the INPUT a call names and writes the OUTPUT it names; split writes its pieces under
    the PREFIX."""
    uniq, split = _gnu("uniq"), _gnu("split")
    if uniq is None or split is None:
        pytest.skip("no GNU uniq and split here")
    (tmp_path / "in.txt").write_text("a\na\nb\n")
    schema = build_tool_schema(describe_help(uniq))
    assert [(p.name, p.required) for p in describe_help(uniq).positionals] == [("INPUT", False), ("OUTPUT", False)]
    run = subprocess.run(["uniq", *schema.to_argv({"input": "in.txt", "output": "out.txt"})], cwd=tmp_path,
                         env=ENV, capture_output=True, check=False)
    assert run.returncode == 0 and (tmp_path / "out.txt").read_text() == "a\nb\n", run.stderr
    schema = build_tool_schema(describe_help(split))
    run = subprocess.run(["split", *schema.to_argv({"file": "in.txt", "prefix": "piece-", "lines": 2})],
                         cwd=tmp_path, env=ENV, capture_output=True, check=False)
    assert run.returncode == 0, run.stderr
    assert sorted(path.name for path in tmp_path.glob("piece-*")) == ["piece-aa", "piece-ab"]


@pytest.mark.parametrize(("program", "before"), [("nice", {}), ("env", {"name_value": ["GREETING=hi"]})])
def test_a_command_to_run_nested_in_brackets_is_an_operand_the_program_runs(
        program: str, before: dict[str, Any], tmp_path: Path) -> None:
    """"nice [OPTION] [COMMAND [ARG]...]": the command to run, with its arguments after it, was
    no operand, so nice and env could only run nothing. The truth is the program: the command
    a call names runs, with the arguments it gives (env's NAME=VALUE operands come first, as
    its usage orders them)."""
    text = _gnu(program)
    if text is None:
        pytest.skip(f"no GNU {program} here")
    schema = build_tool_schema(describe_help(text))
    argv = schema.to_argv({**before, "command": "echo", "arg": ["ran", "here"]})
    run = subprocess.run([program, *argv], cwd=tmp_path, env=ENV, capture_output=True, text=True, check=False)
    assert run.returncode == 0 and run.stdout == "ran here\n", (argv, run.stderr)


def test_a_switch_on_by_default_beside_its_no_form_is_turned_off_by_false(tmp_path: Path) -> None:
    # tar: "--recursion  recurse into directories (default)" and "--no-recursion  avoid descending
    # automatically in directories": two switches, so false for recursion passed neither and tar
    # went on recursing. It is one switch now, on by default, whose false is --no-recursion.
    text = _gnu("tar")
    if text is None:
        pytest.skip("GNU tar is not installed here")
    schema = build_tool_schema(describe_help(text))
    assert schema.input_schema["properties"]["recursion"]["default"] is True
    assert "no_recursion" not in schema.input_schema["properties"]
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "inside.txt").write_text("x")
    for recursion, listed in ((False, "folder/\n"), (True, "folder/\nfolder/inside.txt\n")):
        argv = schema.to_argv({"recursion": recursion})
        done = subprocess.run(["tar", "-cf", "-", *argv, "folder"], capture_output=True, env=ENV, cwd=tmp_path,
                              check=True)
        listing = subprocess.run(["tar", "-tf", "-"], input=done.stdout, capture_output=True, env=ENV, check=True)
        assert listing.stdout.decode() == listed, argv
