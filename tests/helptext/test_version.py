"""The program's version: read from its help header, or asked with its own --version."""

from __future__ import annotations

import pytest

from toolbay.helptext import HelpRun, describe_tree
from toolbay.helptext.version import version_in

HELP = (b"Usage: kit [OPTIONS] FILE\n\nDoes kit things.\n\nOptions:\n"
        b"  -h, --help     Print help\n  -V, --version  Print version\n")


@pytest.mark.parametrize(("printed", "version"), [
    ("rg 14.1.0\n\nfeatures:+pcre2\n", "14.1.0"),
    ("jq-1.7.1\n", "1.7.1"),
    ("git version 2.39.2\n", "2.39.2"),
    ("go version go1.19.8 linux/amd64\n", "1.19.8"),
    ("\nv20.11.1\n", "20.11.1"),
    ("tool 1.0.0-beta.2+build.5 (wasm32-wasi)\n", "1.0.0-beta.2+build.5"),
    ("Copyright (C) 2020 Someone\nkit 1.2\n", None),  # the first line names no version
    ("kit, built 2024-05-01\n", None),
])
def test_the_version_is_the_first_dotted_number_on_the_first_line(printed: str, version: str | None) -> None:
    assert version_in(printed) == version


def _runner(answers: dict[str, bytes]):
    calls: list[list[str]] = []

    def run(argv: list[str]) -> HelpRun:
        calls.append(argv)
        return HelpRun(answers.get(argv[-1], HELP), b"", 0)

    run.calls = calls  # type: ignore[attr-defined]
    return run


def test_a_version_missing_from_the_help_is_asked_of_the_program():
    run = _runner({"--version": b"kit 3.2.1\n"})
    tree = describe_tree(run, "kit")
    assert tree[0].description.version == "3.2.1"
    assert ["--version"] in run.calls  # type: ignore[attr-defined]


def test_a_version_in_the_help_header_is_taken_without_running_the_program_again():
    header = b"kit 0.9.0\n" + HELP
    run = _runner({"--help": header, "-h": header, "--version": b"kit 5.5.5\n"})
    assert describe_tree(run, "kit")[0].description.version == "0.9.0"
    assert ["--version"] not in run.calls  # type: ignore[attr-defined]


def test_a_program_whose_version_flag_prints_its_help_has_no_version():
    assert describe_tree(_runner({}), "kit")[0].description.version is None


def test_a_program_that_lists_no_version_flag_is_not_asked():
    plain = HELP.replace(b"  -V, --version  Print version\n", b"")
    run = _runner({"--help": plain, "-h": plain, "--version": b"kit 1.0\n"})
    assert describe_tree(run, "kit")[0].description.version is None
    assert ["--version"] not in run.calls  # type: ignore[attr-defined]


def test_subcommand_tools_carry_the_programs_version():
    root = b"Usage: kit <COMMAND>\n\nCommands:\n  pack  Pack it\n\nOptions:\n  -V, --version  Print version\n"
    sub = b"Usage: kit pack [OPTIONS]\n\nPack it.\n\nOptions:\n  -q, --quiet  Quiet\n"

    def run(argv: list[str]) -> HelpRun:
        if argv == ["--version"]:
            return HelpRun(b"kit 2.0.0\n", b"", 0)
        return HelpRun(sub if argv[0] == "pack" else root, b"", 0)

    tree = describe_tree(run, "kit")
    assert [(c.tool_name, c.description.version) for c in tree] == [("kit_pack", "2.0.0")]
