"""Options of a group in the middle of a program's commands, given where the program reads them.

``truth_programs/nested`` holds a click program and an argparse program, each with a group
``db`` that has a required ``--url`` and an optional ``--pool`` of its own, and a command
``migrate`` in it: ``PROG [--verbose] db --url URL [--pool N] migrate [--dry-run] NAME``. Neither
framework prints the group's options in the command's help, and both read them only between
the group's word and the command's. The tool ``x_db_migrate`` had no ``url``, so every call of
it was refused by the program ("Missing option '--url'", "the following arguments are
required: --url"); click also refuses the command's ``--help`` without it, so the command was
skipped. Each program prints what it parsed, which is the truth the calls are held to.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolbay.helptext import DescribedCommand, HelpRun, build_tool_schema, describe_tree

PROGRAMS = Path(__file__).resolve().parent / "truth_programs" / "nested"


def _run(program: Path, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, str(program), *argv], capture_output=True, timeout=60, check=False,
                          env={**os.environ, "COLUMNS": "100"})


@pytest.mark.parametrize("program", ["clickdb.py", "argparsedb.py"])
def test_a_groups_required_option_is_offered_on_its_commands_tool_and_given_after_the_groups_word(
        program: str) -> None:
    path = PROGRAMS / program

    def run_help(argv: list[str]) -> HelpRun:
        done = _run(path, argv)
        return HelpRun(done.stdout, done.stderr, done.returncode)

    tree = describe_tree(run_help, "x")
    assert not tree.skipped, tree.skipped
    commands = {command.tool_name: command for command in tree}
    migrate = commands["x_db_migrate"]
    schema = build_tool_schema(migrate.description)
    assert set(schema.input_schema["required"]) == {"url", "name"}
    given = {"url": "sqlite:///a.db", "pool": 3, "verbose": True, "dry_run": True, "name": "-0001_init"}
    argv = schema.to_argv(given).around(list(migrate.path))
    done = _run(path, argv)
    assert done.returncode == 0, (argv, done.stderr.decode())
    assert json.loads(done.stdout) == given
    # The group's optional option left out, and the program's: the program's defaults.
    argv = schema.to_argv({"url": "u", "name": "n"}).around(list(migrate.path))
    assert json.loads(_run(path, argv).stdout) == {"url": "u", "pool": 1, "verbose": False, "dry_run": False,
                                                   "name": "n"}


def test_a_group_of_subparsers_added_without_help_is_offered() -> None:
    """argparse names a subparser added without ``help=`` only in "{repo,repository,build}": a
    group so added was never offered, nor the commands under it (defopt adds every nested group
    so; an outside check). A command so added stays out: its author left it out of the list
    (pre-commit's hook-impl, "not intended for users to call"). An alias is its command's."""
    path = PROGRAMS / "argparsebare.py"

    def run_help(argv: list[str]) -> HelpRun:
        done = _run(path, argv)
        return HelpRun(done.stdout, done.stderr, done.returncode)

    tree = describe_tree(run_help, "x")
    commands = {command.tool_name: command for command in tree}
    assert set(commands) == {"x_repo_add", "x_build"}, tree.skipped
    assert not tree.skipped
    adding = commands["x_repo_add"]
    argv = build_tool_schema(adding.description).to_argv({"force": True, "name": "origin"}).around(list(adding.path))
    assert json.loads(_run(path, argv).stdout) == {"command": "repo", "action": "add", "force": True, "name": "origin"}


def test_a_cobra_groups_local_flags_are_not_offered_on_its_commands() -> None:
    """cobra refuses a group's local flags before a command's word ("cob db --url u migrate n":
    "Error: unknown flag: --url"); a group's flags that its commands take are persistent, and
    their helps list them as their own. A re-check found them offered on x_db_migrate, with
    every call that gave one refused. ``framework_texts/cobra-1.8.0-cob``: cobra 1.8.0's helps of
    ``truth_programs/cobra/cob_groups.go.txt`` (run as "cob db migrate --dry-run=true n", it
    printed {"dry_run": true, "name": "n", ...})."""
    from tests.helptext.test_tree import runner_over

    folder = Path(__file__).parent / "framework_texts" / "cobra-1.8.0-cob"
    tools = {command.tool_name: command for command in describe_tree(runner_over(folder), "x")}
    schema = build_tool_schema(tools["x_db_migrate"].description)
    assert sorted(schema.input_schema["properties"]) == ["dry_run", "name", "verbose"]


def test_an_urfave_groups_flags_are_offered_on_its_commands() -> None:
    """urfave/cli v2 reads a group's flags before a command's word ("urf db --url u --pool 3
    migrate x" printed {"url": "u", "pool": 3, ...}); a re-check found them no longer offered
    after 6d2e1798 limited that to some parsers. ``framework_texts/urfave-cli-2.3.0-urf``: the
    helps of ``truth_programs/urfave/urf_groups.go.txt`` built with Debian's urfave/cli 2.3.0."""
    from tests.helptext.test_tree import runner_over

    folder = Path(__file__).parent / "framework_texts" / "urfave-cli-2.3.0-urf"
    tools = {command.tool_name: command for command in describe_tree(runner_over(folder), "x")}
    migrate = tools["x_db_migrate"]
    schema = build_tool_schema(migrate.description)
    assert {"url", "pool"} <= set(schema.input_schema["properties"])
    assert schema.to_argv({"name": "x", "url": "u", "pool": 3}).around(list(migrate.path)) == [
        "db", "--url", "u", "--pool", "3", "migrate", "x"]


@functools.cache
def _aplists_run_command() -> DescribedCommand:
    """``aplists.py``'s ``grp run``, described from its helps once: the cases below differ only in their calls."""
    path = PROGRAMS / "aplists.py"

    def run_help(argv: list[str]) -> HelpRun:
        done = _run(path, argv)
        return HelpRun(done.stdout, done.stderr, done.returncode)

    [run] = [command for command in describe_tree(run_help, "x") if command.tool_name == "x_grp_run"]
    return run


@pytest.mark.parametrize("given", [
    {"target": "t", "t": ["a", "b"], "inc": ["c"]},  # two lists: the one of one value last, after "="
    {"target": "t", "opt": [], "inc": ["a"]},  # an empty list given alone, then a list of one value
    {"target": "t", "color": "", "verbose": True},  # an optional value left out, ended by a switch
    {"target": "t", "level": "", "tags": ["q", "r"], "force": True},  # the same at the group's level
    # a switch given false writes nothing and ends nothing (a re-check: "--tags a b run t")
    {"target": "t", "tags": ["a", "b"], "labels": ["c"], "force": False},
])
def test_options_that_take_the_words_after_them_end_before_a_commands_word(given: dict[str, object]) -> None:
    """A re-check of 86cb6299: several such options at one level were refused though an order
    exists, and an optional value left out (nargs="?": "--color run") took the command's word."""
    path = PROGRAMS / "aplists.py"
    run = _aplists_run_command()
    schema = build_tool_schema(run.description)
    argv = schema.to_argv(given).around(list(run.path))
    done = _run(path, argv)
    assert done.returncode == 0, (argv, done.stderr.decode())
    parsed = json.loads(done.stdout)
    named = {"t": "tee", "color": "color", "level": "level"}
    expected = {named.get(key, key): ({"color": "auto", "level": "hi"}[key] if value == "" else value)
                for key, value in given.items()}
    assert {key: parsed[key] for key in expected} == expected, argv
    with pytest.raises(ValueError, match="'color', given right before the subcommand's word, would take that word"):
        schema.to_argv({"target": "t", "color": ""})


def test_a_kingpin_groups_commands_are_read_when_the_group_has_flags_of_its_own() -> None:
    """kingpin's group help "usage: kp db [<flags>] <command> ..." lists "db migrate [<flags>]
    <name>" by its whole path; the path was read only from a usage without "[<flags>]", so db's
    command was read as "db" again and lost, and the only tool was the program (a re-check).
    ``framework_texts/kingpin-2.2.6-kp``: Debian's kingpin 2.2.6 building
    ``truth_programs/kingpin/kp_groups.go.txt``; run as "kp db migrate --url=u --dry-run n" it
    printed {"cmd": "db migrate", "dry": true, "name": "n", "url": "u", ...}."""
    from tests.helptext.test_tree import runner_over

    folder = Path(__file__).parent / "framework_texts" / "kingpin-2.2.6-kp"
    tools = {command.tool_name: command for command in describe_tree(runner_over(folder), "kp")}
    assert set(tools) == {"kp_db_migrate"}
    migrate = tools["kp_db_migrate"]
    argv = build_tool_schema(migrate.description).to_argv({"name": "n", "url": "u", "dry_run": True})
    assert argv.around(list(migrate.path)) == ["db", "migrate", "--url=u", "--dry-run", "n"]


def test_a_kong_groups_commands_are_read_when_the_group_has_required_flags() -> None:
    """kong's "Usage: kg db table --schema=STRING <command>": the path was read only where
    "<command>" followed it at once, so "db table create", listed by its whole path, was read as
    the group again and skipped (a re-check). ``framework_texts/kong-0.7.1-kg``: Debian's kong
    0.7.1 building ``truth_programs/kongtree/kg_groups.go.txt``; run as "kg db table create
    --url=u --schema=s t" it printed its URL "u", Schema "s" and Target "t"."""
    from tests.helptext.test_tree import runner_over

    folder = Path(__file__).parent / "framework_texts" / "kong-0.7.1-kg"
    tree = describe_tree(runner_over(folder), "kg")
    tools = {command.tool_name: command for command in tree}
    assert set(tools) == {"kg_db_migrate", "kg_db_table_create"}, tree.skipped
    create = tools["kg_db_table_create"]
    argv = build_tool_schema(create.description).to_argv({"target": "t", "schema": "s", "url": "u"})
    assert argv.around(list(create.path)) == ["db", "table", "create", "--url=u", "--schema=s", "t"]


@pytest.mark.parametrize(("tool", "given", "expected"), [
    # The program's list option alone before the command's word: each value after "=", as
    # clap takes a flag so written to one value ("cg --tags a --tags b run j": "Found argument
    # '--files' which wasn't expected"; "cg --tags a run j": "requires a subcommand").
    ("cg_run", {"name": "j", "tags": ["a", "b"], "files": ["x", "y"]},
     ["--tags=a", "--tags=b", "run", "--files", "x", "--files", "y", "--", "j"]),
    ("cg_run", {"name": "j", "tags": ["a"]}, ["--tags=a", "run", "j"]),
    # Another option after it ends it, as before.
    ("cg_db_migrate", {"url": "u", "name": "n", "tags": ["a", "b"], "verbose": True},
     ["--tags", "a", "--tags", "b", "--verbose", "db", "--url", "u", "migrate", "n"]),
])
def test_a_clap_programs_option_taking_several_words_ends_before_a_commands_word(
        tool: str, given: dict[str, object], expected: list[str]) -> None:
    """clap's ``num_args(1..)`` takes words up to the next flag, a command's word too; a flag
    written ``--tags=a`` takes that one value. ``framework_texts/clap-4.0.32-cg``: the helps of
    ``truth_programs/clap/cg_groups.rs``, built with Debian's clap 4.0.32; run with the argv
    expected here it printed ``Cli { tags: ["a", "b"], verbose: false, command: Run { files:
    ["x", "y"], name: "j" } }``, ``Cli { tags: ["a"], ... Run { files: [], name: "j" } }`` and
    ``Cli { tags: ["a", "b"], verbose: true, command: Db(DbArgs { url: "u", pool: 1, command:
    Migrate { dry_run: false, name: "n" } }) }``."""
    from tests.helptext.test_tree import runner_over

    folder = Path(__file__).parent / "framework_texts" / "clap-4.0.32-cg"
    tools = {command.tool_name: command for command in describe_tree(runner_over(folder), "cg")}
    command = tools[tool]
    assert build_tool_schema(command.description).to_argv(given).around(list(command.path)) == expected


@pytest.mark.parametrize(("tool", "given", "expected"), [
    ("cg2_run", {"name": "j", "tags": ["-a", "b"]}, ["--tags=-a", "--tags=b", "run", "j"]),
    ("cg2_run", {"name": "j", "tags": ["-a"]}, ["--tags=-a", "run", "j"]),
    ("cg2_db_schema_migrate", {"name": "n", "ids": ["i1", "-i2"]},
     ["db", "schema", "--ids=i1", "--ids=-i2", "migrate", "n"]),
    ("cg2_run", {"name": "j", "x": ["e1", "e2"]}, ["-x=e1", "-x=e2", "run", "j"]),
    ("cg2_run", {"name": "j", "x": ["-e1", "e2"], "verbose": True}, ["-x-e1", "-x", "e2", "--verbose", "run", "j"]),
])
def test_a_clap_option_taking_several_words_with_a_value_like_a_flag_or_a_short_name_is_ended_too(
        tool: str, given: dict[str, object], expected: list[str]) -> None:
    """A re-check of 889c76de: such an option was refused ("give it one value") where one of its
    values starts with '-' (written "--tags=-a" already) or its flag is short ("-x"), though clap
    takes "--tags=-a --tags=b run j" and "-x=e1 -x=e2 run j". ``framework_texts/clap-4.0.32-cg2``:
    the helps of ``truth_programs/clap/cg2_groups.rs.txt``; run with each argv expected here it
    printed the values given (``Cli { tags: ["-a", "b"], ...``, ``excl: ["e1", "e2"]``, ``ids:
    ["i1", "-i2"]``, ``excl: ["-e1", "e2"], verbose: true``)."""
    from tests.helptext.test_tree import runner_over

    folder = Path(__file__).parent / "framework_texts" / "clap-4.0.32-cg2"
    tools = {command.tool_name: command for command in describe_tree(runner_over(folder), "cg2")}
    command = tools[tool]
    assert build_tool_schema(command.description).to_argv(given).around(list(command.path)) == expected
