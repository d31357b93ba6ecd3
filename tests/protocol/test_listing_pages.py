"""Pages of tools/list go on from the last tool a page held, whatever changed in between."""

from __future__ import annotations

from toolbay.protocol.listing import encode_cursor, page
from toolbay.words import ToolDefinition

NAMES = [f"tool_{letter}" for letter in "abcdefghij"]


def _tools(names: list[str]) -> list[ToolDefinition]:
    return [ToolDefinition(name=name, description=f"{name}.", input_schema={"type": "object"}) for name in names]


def _names(result: object) -> list[str]:
    return [tool.name for tool in result.tools]  # type: ignore[attr-defined]


def test_a_tool_removed_or_added_before_the_cursor_between_pages_skips_and_repeats_nothing() -> None:
    first = page(_tools(NAMES), None, 3)
    assert _names(first) == ["tool_a", "tool_b", "tool_c"] and first.next_cursor is not None
    # An offset cursor skipped tool_d once tool_b went, and repeated tool_c once tool_bb came
    # (an outside check: 17 live tools missed at 8,000).
    without_b = [name for name in NAMES if name != "tool_b"]
    assert _names(page(_tools(without_b), first.next_cursor, 3)) == ["tool_d", "tool_e", "tool_f"]
    with_bb = sorted([*NAMES, "tool_bb"])
    assert _names(page(_tools(with_bb), first.next_cursor, 3)) == ["tool_d", "tool_e", "tool_f"]
    # The last tool of the page itself gone: the next one after its name.
    without_c = [name for name in NAMES if name != "tool_c"]
    assert _names(page(_tools(without_c), first.next_cursor, 3)) == ["tool_d", "tool_e", "tool_f"]


def test_every_tool_comes_once_over_all_pages_and_the_last_page_has_no_cursor() -> None:
    seen, cursor = [], None
    while True:
        result = page(_tools(NAMES), cursor, 4)
        seen += _names(result)
        cursor = result.next_cursor
        if cursor is None:
            break
    assert seen == NAMES


def test_an_offset_cursor_of_an_older_server_is_still_read() -> None:
    assert _names(page(_tools(NAMES), encode_cursor(8), 3)) == ["tool_i", "tool_j"]
