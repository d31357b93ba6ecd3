"""Tools as clients see them: built without validation, they must be what validation would build."""

from __future__ import annotations

import mcp_types as types
import pytest

from toolbay.protocol.listing import definition_to_tool
from toolbay.words import PermissionTier, ToolDefinition

DEFINITIONS = [
    ToolDefinition(name="plain", description="Does a thing.", input_schema={"type": "object", "properties": {}}),
    ToolDefinition(
        name="full_tool", description="Does more.", title="full tool", tier=PermissionTier.READ, keywords=("a", "b"),
        input_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        output_schema={"type": "object"}, origin="wasm:/x/full.wasm", source="wasm", background=True,
    ),
]


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_a_listed_tool_is_what_validating_its_own_wire_form_gives(definition: ToolDefinition) -> None:
    tool = definition_to_tool(definition)
    assert set(vars(tool)) == set(types.Tool.model_fields)
    assert tool.annotations is not None and set(vars(tool.annotations)) == set(types.ToolAnnotations.model_fields)
    wire = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert types.Tool.model_validate(wire) == tool
    assert wire["annotations"].get("title") == definition.title
    assert wire["_meta"]["toolbay/source"] == definition.source


def test_changing_one_listed_tool_leaves_the_others_alone() -> None:
    first, second = (definition_to_tool(definition) for definition in DEFINITIONS)
    first.title = "renamed"
    assert second.title == "full tool"
    assert first.model_fields_set == second.model_fields_set == set(types.Tool.model_fields)
