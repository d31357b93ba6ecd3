"""A tool's JSON output as structured content (``toolbay.handlers.base.structured_from_json``): what
the SDK's client can read is sent, a document nested deeper than it reads is left to the text."""

from __future__ import annotations

import json

import mcp.types as types
import pytest

from toolbay.handlers.base import structured_from_json
from toolbay.protocol.results import tool_result_to_mcp
from toolbay.words import ToolResult


@pytest.mark.parametrize(("text", "structured"), [
    ('{"a": [1, {"b": null}]}', {"a": [1, {"b": None}]}),
    ("[1, 2]", {"result": [1, 2]}),
    ('  "words"\n', {"result": "words"}),
    ("3.5", {"result": 3.5}),
    ("123456789012345678901234567890", {"result": 123456789012345678901234567890}),
    ("1e300", {"result": 1e300}),
    ('{"n": 1e-400, "e": "1e999"}', {"n": 0.0, "e": "1e999"}),  # an underflow is 0; a string is a string
])
def test_json_output_is_structured_content(text: str, structured: object) -> None:
    assert structured_from_json(text) == (structured, None)


@pytest.mark.parametrize("text", ["", "plain words", '{"a": 1} and more', '{"v": NaN}', '["\\ud800"]', "[1,",
                                  # past a float's range: infinity, which was sent on as null
                                  "1e999", '{"a": [2, -1E+400]}', "1" + "0" * 400 + ".5"])
def test_what_is_not_json_is_text_alone_without_a_note(text: str) -> None:
    assert structured_from_json(text) == (None, None)


def answer_line(structured: dict[str, object]) -> str:
    result = tool_result_to_mcp(ToolResult(text="t", structured=structured))
    return types.JSONRPCResponse(jsonrpc="2.0", id=1, result=result.model_dump(by_alias=True, exclude_none=True)) \
        .model_dump_json(by_alias=True)


def test_every_document_kept_is_one_the_sdks_client_reads_and_deeper_ones_are_left_out() -> None:
    deepest_kept = None
    for depth in range(150, 260):
        for text in ("[" * depth + "]" * depth, '{"a": ' * depth + "1" + "}" * depth):
            structured, omitted = structured_from_json(text)
            if structured is None:
                assert omitted == "nested too deeply for a client's JSON parser; the text holds it"
                continue
            deepest_kept = depth
            # The answer as it goes on the wire is read by the client's own parser.
            types.jsonrpc_message_adapter.validate_json(answer_line(structured))
    assert deepest_kept is not None and 190 <= deepest_kept < 200
    assert structured_from_json("[" * 100_000 + "]" * 100_000)[1] is not None  # no recursion in Python
    assert json.loads(answer_line({"a": 1}))["result"]["structuredContent"] == {"a": 1}
