"""docopt usages, whose forms are the program's whole grammar: each form is one choice of the
tool's ``command`` (its words and its arguments in the order it writes them), and the command
line built for a choice is read by docopt's own parser as it was meant.

Multi-word forms ("ship new <name>...", "ship <name> move <x> <y>") could reach only their
first word before: the command was the first word alone, and the arguments followed it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docopt
import pytest

from toolbay.helptext import build_tool_schema, describe_help

CORPUS = Path(__file__).parent / "corpus" / "docopt"
NAVAL_FATE = (CORPUS / "naval_fate" / "long.txt").read_text(encoding="utf-8")
QUICK = (CORPUS / "quick" / "long.txt").read_text(encoding="utf-8")
ARCHIVE = """Archive files.

Usage:
  archive add ARCHIVE FILE... [--level=<n>]
  archive (list|test) ARCHIVE [<pattern>]
  archive -h | --help

Options:
  -h --help     Show this screen.
  --level=<n>   Compression level [default: 6].
"""


def forms_of(doc: str) -> tuple[str, ...]:
    return next(pos for pos in describe_help(doc.encode()).positionals if pos.form).choices


def read_by_docopt(doc: str, arguments: dict[str, Any]) -> dict[str, Any]:
    argv = build_tool_schema(describe_help(doc.encode())).to_argv(arguments)
    return dict(docopt.docopt(doc, argv=list(argv), default_help=False))


def test_each_usage_form_is_a_choice_a_choice_of_words_one_form_each() -> None:
    assert forms_of(NAVAL_FATE) == ("ship new <name>...", "ship <name> move <x> <y>", "ship shoot <x> <y>",
                                    "mine set <x> <y>", "mine remove <x> <y>")
    assert forms_of(QUICK) == ("tcp <host> <port>", "serial <port>")
    assert forms_of(ARCHIVE) == ("add ARCHIVE FILE...", "list ARCHIVE [<pattern>]", "test ARCHIVE [<pattern>]")


@pytest.mark.parametrize(("doc", "arguments", "expected"), [
    (NAVAL_FATE, {"command": "ship new <name>...", "name": ["Guardian", "Titanic"]},
     {"ship": True, "new": True, "<name>": ["Guardian", "Titanic"]}),
    (NAVAL_FATE, {"command": "ship <name> move <x> <y>", "name": ["Guardian"], "x": "3", "y": "4", "speed": "12"},
     {"ship": True, "move": True, "<name>": ["Guardian"], "<x>": "3", "<y>": "4", "--speed": "12"}),
    (NAVAL_FATE, {"command": "mine remove <x> <y>", "x": "1", "y": "2", "drifting": True},
     {"mine": True, "remove": True, "set": False, "<x>": "1", "<y>": "2", "--drifting": True}),
    (QUICK, {"command": "serial <port>", "port": "/dev/ttyS0", "baud": "4800"},
     {"serial": True, "tcp": False, "<port>": "/dev/ttyS0", "--baud": "4800"}),
    (ARCHIVE, {"command": "add ARCHIVE FILE...", "archive": "a.zip", "file": ["x", "y"], "level": "9"},
     {"add": True, "ARCHIVE": "a.zip", "FILE": ["x", "y"], "--level": "9"}),
    (ARCHIVE, {"command": "test ARCHIVE [<pattern>]", "archive": "a.zip"},
     {"test": True, "list": False, "ARCHIVE": "a.zip", "<pattern>": None}),
])
def test_the_command_line_built_for_a_form_is_read_by_docopt_as_meant(
        doc: str, arguments: dict[str, Any], expected: dict[str, Any]) -> None:
    read = read_by_docopt(doc, arguments)
    assert {key: read[key] for key in expected} == expected


def test_a_form_missing_an_argument_or_given_one_it_does_not_take_is_refused_naming_it() -> None:
    schema = build_tool_schema(describe_help(NAVAL_FATE.encode()))
    with pytest.raises(ValueError, match="The form 'ship shoot <x> <y>' needs 'y'"):
        schema.to_argv({"command": "ship shoot <x> <y>", "x": "1"})
    with pytest.raises(ValueError, match="'name' is not an argument of the form 'ship shoot <x> <y>'"):
        schema.to_argv({"command": "ship shoot <x> <y>", "x": "1", "y": "2", "name": ["Guardian"]})


MAIN = """Mix files.

Usage:
  mx [options] <a> <b>
  mx <repo> clone to <dir>
  mx serve <port>
  mx -h | --help

Options:
  -h --help   Show this screen.
  -q          Say less.
"""


def test_forms_of_arguments_alone_are_choices_and_a_value_starting_with_a_dash_keeps_its_place() -> None:
    """An outside check's findings: the program's main form ("<a> <b>", no command word) could
    not be chosen, and a value starting with "-" put "--" before the form's words, which docopt
    refuses where its usage does not write it."""
    assert forms_of(MAIN) == ("<a> <b>", "<repo> clone to <dir>", "serve <port>")
    read = read_by_docopt(MAIN, {"command": "<a> <b>", "a": "x", "b": "-5", "q": True})
    assert (read["<a>"], read["<b>"], read["-q"], read["serve"]) == ("x", "-5", True, False)
    read = read_by_docopt(NAVAL_FATE, {"command": "ship shoot <x> <y>", "x": "-3", "y": "4"})
    assert (read["shoot"], read["<x>"], read["<y>"]) == (True, "-3", "4")
