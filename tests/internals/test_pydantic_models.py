"""A model built slot by slot (``toolbay.internals.pydantic_models``) is the one pydantic
builds: this fails when pydantic changes the slots every model has."""

from __future__ import annotations

import mcp_types as types

from toolbay.internals.pydantic_models import trusted_instance


def test_a_trusted_tool_equals_a_validated_one() -> None:
    values = {
        "name": "hashsum", "title": "hashsum", "description": "Digests.",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "execution": None, "output_schema": None, "icons": None,
        "annotations": types.ToolAnnotations(read_only_hint=True), "meta": {"toolbay/tier": "read"},
    }
    assert set(values) == set(types.Tool.model_fields)
    trusted = trusted_instance(types.Tool, dict(values))
    validated = types.Tool(**values)
    assert trusted == validated
    assert trusted.model_fields_set == set(types.Tool.model_fields)
    assert trusted.model_dump(by_alias=True, exclude_none=True) == validated.model_dump(by_alias=True,
                                                                                        exclude_none=True)
    assert trusted.model_dump_json(by_alias=True, exclude_none=True) == validated.model_dump_json(
        by_alias=True, exclude_none=True)
