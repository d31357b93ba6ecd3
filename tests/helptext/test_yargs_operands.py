"""yargs binds no operand given after "--", and its array options take every word up to the
next flag: toolbay's argv for a yargs program puts the operands where yargs reads them.

``truth_programs/node/ydash.mjs`` (yargs 18.2.0; its help is
``framework_texts/yargs-18.2.0-ydash.txt``) prints what it parsed. Run with the argv toolbay
built before, it printed (the truth these assertions keep):
- ``--tags=a --tags=b x``: ``{"target": "all", "tags": ["a", "b", "x"]}``, the operand taken
  into the array;
- ``--jobs=2 -- x`` and ``--jobs=2 -- -rc1``: ``{"target": "all", "jobs": 2}``, the operand lost
  without an error.
With the argv built now: ``x --tags=a --tags=b`` gives ``{"target": "x", "tags": ["a", "b"]}``
and ``x --jobs=3 --tags=a`` gives ``{"target": "x", "jobs": 3, "tags": ["a"]}``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolbay.helptext import build_tool_schema, describe_help

HELP = Path(__file__).parent / "framework_texts" / "yargs-18.2.0-ydash.txt"


def _schema():  # type: ignore[no-untyped-def]
    return build_tool_schema(describe_help(HELP.read_bytes()))


@pytest.mark.parametrize(("given", "argv"), [
    ({"target": "x", "tags": ["a", "b"]}, ["x", "--tags=a", "--tags=b"]),
    ({"target": "x", "tags": ["a"], "jobs": 3}, ["x", "--jobs=3", "--tags=a"]),
    ({"target": "x", "jobs": 3}, ["--jobs=3", "x"]),
])
def test_an_operand_goes_where_yargs_binds_it(given: dict[str, object], argv: list[str]) -> None:
    assert list(_schema().to_argv(given)) == argv


def test_an_operand_starting_with_a_dash_is_refused_rather_than_lost() -> None:
    with pytest.raises(ValueError, match="'-rc1' would be read as an option: this program reads every word"):
        _schema().to_argv({"target": "-rc1", "jobs": 2})


def test_a_command_groups_commands_listed_by_the_whole_path_are_its_subcommands() -> None:
    """``ynest.mjs``'s "prog repo --help" lists "prog repo add <name>" and "prog repo rm <name>":
    each was read as "repo" again, so the only tool was prog_repo, whose every call yargs refused
    ("Not enough non-option arguments"), and add and rm were lost (an outside check). Run as
    "prog repo add origin", the program prints {"name": "origin"}."""
    from tests.helptext.test_tree import runner_over
    from toolbay.helptext import describe_tree

    tree = describe_tree(runner_over(Path(__file__).parent / "framework_texts" / "yargs-18.2.0-ynest"), "prog")
    tools = {command.tool_name: command for command in tree}
    assert set(tools) == {"prog_repo_add", "prog_repo_rm", "prog_build"}, tree.skipped
    adding = tools["prog_repo_add"]
    assert build_tool_schema(adding.description).to_argv({"name": "origin"}).around(list(adding.path)) == [
        "repo", "add", "origin"]


def test_commands_two_groups_deep_are_found_and_a_negative_number_is_an_operand() -> None:
    """``y3.mjs``'s "y3 repo remote --help" lists "y3 repo remote set <name>": only the first
    word of a group's path was taken off, so x_repo_remote was served (which yargs refuses) and
    set and rm were lost. And yargs reads "-5" as an operand: it was refused as an option (a
    re-check). Run as "y3 repo remote set origin", the program prints
    {"cmd": ["repo", "remote", "set"], "name": "origin", ...}."""
    from tests.helptext.test_tree import runner_over
    from toolbay.helptext import describe_tree

    tree = describe_tree(runner_over(Path(__file__).parent / "framework_texts" / "yargs-18.2.0-y3"), "y3")
    tools = {command.tool_name: command for command in tree}
    assert set(tools) == {"y3_repo_add", "y3_repo_remote_set", "y3_repo_remote_rm", "y3_build"}, tree.skipped
    setting = tools["y3_repo_remote_set"]
    assert build_tool_schema(setting.description).to_argv({"name": "origin"}).around(list(setting.path)) == [
        "repo", "remote", "set", "origin"]
    assert list(_schema().to_argv({"target": "-5"})) == ["-5"]
    # As yargs-parser tells a number from a flag: "-1e-07" and "-5." are flags to it, and the value
    # was lost with no error (a re-check); "-.5" and "-2.5" are numbers.
    assert list(_schema().to_argv({"target": "-.5"})) == ["-.5"]
    for flag_to_yargs in ("-1e-07", "-5."):
        with pytest.raises(ValueError, match="would be read as an option"):
            _schema().to_argv({"target": flag_to_yargs})
