"""The corpus of real captured help texts: regression locks, dialect detection, and
accuracy against truth from the programs' own definitions.

``regression-lock.json`` is the describer's own earlier reading, checked by eye: it
catches unintended changes, it does not measure accuracy. Accuracy is measured only
against ``truth*.json`` (see ``truth_score.py``).
"""

from __future__ import annotations

import functools
import json

import pytest

from tests.helptext.corpus_cases import CORPUS, CORPUS_ROUND3, observed, program_folders
from tests.helptext.truth_score import score_corpus, truth_cases
from toolbay.helptext.dialects import DIALECTS

FOLDERS = program_folders() + program_folders(CORPUS_ROUND3)
DIALECT_NAMES = {d.name for d in DIALECTS}
# Each text is described once for this module's tests (the locks' and the detection's), and the
# truth scored once for the three accuracy tests: they read what they are given, never change it.
_observed = functools.cache(observed)
_score_corpus = functools.cache(score_corpus)


def _case_id(folder):
    return ("round3:" if folder.is_relative_to(CORPUS_ROUND3) else "") + f"{folder.parent.name}/{folder.name}"


@pytest.mark.parametrize("folder", FOLDERS, ids=[_case_id(p) for p in FOLDERS])
def test_captured_help_is_described_as_its_regression_lock_says(folder):
    locked = json.loads((folder / "regression-lock.json").read_text())
    assert _observed(folder) == locked


def test_every_dialect_has_a_corpus_folder_of_real_captured_help():
    for dialect in DIALECTS:
        programs = list((CORPUS / dialect.name).glob("*/long.txt"))
        assert programs, f"dialect {dialect.name!r} has no captured help texts under {CORPUS / dialect.name}"


def test_every_corpus_folder_is_a_dialect_and_its_programs_are_detected_as_that_dialect():
    wrong = []
    for folder in FOLDERS:
        dialect = folder.parent.name
        if dialect == "special":  # encodings and refusals: not tied to one dialect
            continue
        assert dialect in DIALECT_NAMES, f"corpus folder {dialect!r} names no dialect"
        found = _observed(folder).get("dialect")
        if found != dialect:
            wrong.append(f"{dialect}/{folder.name} read as {found}")
    assert not wrong


def test_every_corpus_program_has_a_regression_lock():
    assert all((folder / "regression-lock.json").exists() for folder in FOLDERS)


def test_options_match_the_programs_own_definitions():
    score = _score_corpus()
    right, total = score.share("options fully right")
    assert total > 1000
    assert right / total >= 0.98, f"{right}/{total}"


def test_choice_lists_match_the_programs_own_definitions():
    right, total = _score_corpus().share("choice lists exact")
    assert total > 50
    assert right / total >= 0.90, f"{right}/{total}"


def test_positionals_and_subcommands_match_the_programs_own_definitions():
    score = _score_corpus()
    for key, goal in (("positionals fully right", 0.95), ("positionals that exist", 0.95),
                      ("subcommands found", 0.99)):
        right, total = score.share(key)
        assert total > 20 and right / total >= goal, f"{key}: {right}/{total}"


def test_the_corpus_holds_well_over_a_hundred_real_programs_and_truth_for_many():
    real = [f for f in FOLDERS if f.parent.name != "special"]
    assert len(real) >= 120
    assert len({case.folder for case in truth_cases()}) >= 50


def test_every_framework_dialect_has_truth_from_its_own_framework():
    # generic reads programs of no known framework: it has no framework to ask.
    backed = {case.folder.parent.name for case in truth_cases()}
    assert DIALECT_NAMES - {"generic"} <= backed, sorted(DIALECT_NAMES - {"generic"} - backed)
