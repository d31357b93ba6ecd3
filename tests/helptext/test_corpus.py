"""The parser reads every captured real help text as its checked ``expected.json`` says."""

from __future__ import annotations

import json

import pytest

from tests.helptext.corpus_cases import CORPUS, observed, program_folders
from tests.helptext.tools.compare_truth import compare
from toolbay.helptext.dialects import DIALECTS

FOLDERS = program_folders()


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{p.parent.name}/{p.name}" for p in FOLDERS])
def test_captured_help_is_described_as_expected(folder):
    expected = json.loads((folder / "expected.json").read_text())
    assert observed(folder) == expected


def test_every_dialect_has_a_corpus_folder_of_real_captured_help_with_expected_output():
    for dialect in DIALECTS:
        folder = CORPUS / dialect.name
        programs = [p for p in folder.glob("*/long.txt") if (p.parent / "expected.json").exists()]
        assert programs, f"dialect {dialect.name!r} has no captured help texts under {folder}"


def test_corpus_programs_are_detected_as_the_dialect_of_their_folder():
    names = {d.name for d in DIALECTS}
    wrong = []
    for folder in FOLDERS:
        expected = json.loads((folder / "expected.json").read_text())
        dialect = folder.parent.name
        if dialect in names and dialect != "generic" and expected.get("dialect") not in (None, dialect):
            wrong.append(f"{dialect}/{folder.name} read as {expected['dialect']}")
    assert not wrong


def test_options_match_the_programs_own_parser_definitions_for_97_percent():
    right = total = 0
    for truth_file in sorted(CORPUS.glob("*/*/truth.json")):
        expected = json.loads((truth_file.parent / "expected.json").read_text())
        r, t, _ = compare(expected, json.loads(truth_file.read_text()))
        right, total = right + r, total + t
    assert total > 200
    assert right / total >= 0.97, f"{right}/{total}"


def test_the_corpus_holds_at_least_forty_real_programs():
    real = [f for f in FOLDERS if f.parent.name != "special"]
    assert len(real) >= 40
