"""What "there is no tool named X" suggests: the names people meant, and no work for names no
tool could have."""

from __future__ import annotations

import pytest

from toolbay.close_names import LONGEST_NAME, MOST_NAMES, closest_names

BUNDLED = ["hashsum", "jsonkit_fmt", "jsonkit_get", "jsonkit_keys", "textkit_count", "textkit_grep", "textkit_head",
           "job_wait", "search_tools", "dates_add", "dates_between"]


@pytest.mark.parametrize(("wanted", "meant"), [
    ("grep", "textkit_grep"),            # the subcommand alone
    ("hashsun", "hashsum"),              # a letter wrong
    ("grp", "textkit_grep"),             # a word nearly spelt
    ("TextKit_Grep", "textkit_grep"),    # the case
    ("textkit-grep", "textkit_grep"),    # kebab for snake
    ("jsonFmt", "jsonkit_fmt"),          # camelCase, a word short
    ("wait", "job_wait"),
    ("count_words", "textkit_count"),    # the tool's word among words of one's own
    ("grep_lines", "textkit_grep"),
    ("grp_lines", "textkit_grep"),       # one of them nearly spelt
    ("textkit_cont", "textkit_count"),   # close as a whole before sharing a word
])
def test_the_name_meant_comes_first(wanted: str, meant: str) -> None:
    assert closest_names(wanted, BUNDLED)[0] == meant


def test_a_word_many_names_share_names_them_shortest_first_up_to_the_limit() -> None:
    assert closest_names("jsonkit", BUNDLED) == ["jsonkit_fmt", "jsonkit_get", "jsonkit_keys"]
    assert closest_names("dates", BUNDLED, limit=1) == ["dates_add"]


def test_nothing_close_is_nothing_suggested() -> None:
    assert closest_names("translate", BUNDLED) == []
    assert closest_names("nosuchtool", BUNDLED) == []  # as long as search_tools, and no word of it
    # A word too common to say which tool was meant (a re-check: jsonkit_get for get_weather).
    for common in ("get_weather", "http_get", "list_files", "file_info"):
        assert closest_names(common, [*BUNDLED, "job_list", "dates_info"]) == [], common


def test_no_work_for_a_name_too_long_for_a_tool_or_among_more_names_than_the_search_is_for() -> None:
    assert closest_names("hashsum" + "x" * LONGEST_NAME, BUNDLED) == []
    many = [*BUNDLED, *(f"generated_{n}" for n in range(MOST_NAMES))]
    assert closest_names("hashsun", many) == []
    assert closest_names("hashsun", many[:MOST_NAMES]) == ["hashsum"]
