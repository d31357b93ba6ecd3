"""A ``ToolResult`` as an MCP answer (``toolbay.protocol.results``): structured content a client
cannot read is left out, the text keeps it."""

from __future__ import annotations

from typing import Any

from toolbay.protocol.results import MAX_STRUCTURED_DEPTH, nested_deeper_than, tool_result_to_mcp
from toolbay.words import ToolResult


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_structured_content_nested_past_the_limit_is_left_out_with_a_note() -> None:
    at_limit = tool_result_to_mcp(ToolResult(text="t", structured={"result": nested(MAX_STRUCTURED_DEPTH - 1)}))
    assert at_limit.structured_content == {"result": nested(MAX_STRUCTURED_DEPTH - 1)} and at_limit.meta is None
    past = tool_result_to_mcp(ToolResult(text="t", structured={"result": nested(MAX_STRUCTURED_DEPTH)},
                                         meta={"exit_code": 0}))
    assert past.structured_content is None and past.content[0].text == "t"
    assert past.meta == {"toolbay/exit_code": 0,
                         "toolbay/structured_omitted": f"nested deeper than {MAX_STRUCTURED_DEPTH} levels; "
                                                       "the text holds it"}


def test_depth_is_measured_without_recursion_even_far_past_pythons_stack() -> None:
    assert nested_deeper_than({"a": {"b": [1, {"c": []}]}}, 3)
    assert not nested_deeper_than({"a": {"b": [1, {"c": []}]}}, 5)
    assert not nested_deeper_than("text", 0)
    assert nested_deeper_than(nested(100_000), 1000)
