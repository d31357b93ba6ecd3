"""Tools as clients see them: definitions turned into ``types.Tool`` and paged."""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from toolbay.handlers.base import ToolAnnotations, ToolDefinition


def definition_to_tool(definition: ToolDefinition, execution: types.ToolExecution | None = None) -> types.Tool:
    """The wire form of a definition. Every value comes from toolbay's own typed definition,
    so it is not validated again (about 60 microseconds a tool, which a catalog of thousands
    would pay on every listing): see ``_trusted``."""
    meta: dict[str, object] = {"toolbay/source": definition.source}
    if definition.tier is not None:
        meta["toolbay/tier"] = definition.tier.value
    if definition.keywords:
        meta["toolbay/keywords"] = list(definition.keywords)
    annotations = _trusted(types.ToolAnnotations, {"title": definition.title, **_hints(definition.annotations)})
    return _trusted(types.Tool, {
        "name": definition.name,
        "title": definition.title,
        "description": definition.description,
        "input_schema": _as_dict(definition.input_schema),
        "execution": execution,
        "output_schema": _as_dict(definition.output_schema) if definition.output_schema else None,
        "icons": None,
        "annotations": annotations,
        "meta": meta,
    })


Model = TypeVar("Model", bound=BaseModel)


def _trusted(model: type[Model], values: dict[str, Any]) -> Model:
    """An instance of ``model`` holding ``values``, one for each of its fields (a test checks
    they are all there), unvalidated. What ``model_construct`` does without its per-field
    work: the four slots every pydantic model has, set as its ``__setstate__`` (unpickling)
    sets them, but straight through their descriptors (a catalog of thousands is listed)."""
    instance = model.__new__(model)
    _set_dict(instance, values)
    _set_fields_set(instance, _all_fields(model))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


@functools.cache
def _all_fields(model: type[BaseModel]) -> set[str]:
    """One set for every instance: each has all its fields set, and pydantic only ever adds a
    field to it (on assignment), which leaves it as it is."""
    return set(model.model_fields)


def _as_dict(schema: Mapping[str, Any]) -> dict[str, Any]:
    return schema if type(schema) is dict else dict(schema)


@functools.cache
def _hints(hints: ToolAnnotations) -> dict[str, bool]:
    return {
        "read_only_hint": hints.read_only,
        "destructive_hint": hints.destructive,
        "idempotent_hint": hints.idempotent,
        "open_world_hint": hints.open_world,
    }


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        if not text.startswith("o:"):
            raise ValueError(text)
        offset = int(text[2:])
        if offset < 0:
            raise ValueError(text)
        return offset
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise MCPError(code=types.INVALID_PARAMS, message=f"invalid cursor {cursor!r}") from None


def page(
    definitions: Sequence[ToolDefinition],
    cursor: str | None,
    page_size: int,
    execution: types.ToolExecution | None = None,
) -> types.ListToolsResult:
    """One page of tools. The cursor is an offset into the name-sorted list: a tool added
    between pages can shift the listing by one, which a list_changed notification announces."""
    start = decode_cursor(cursor)
    chunk = definitions[start : start + page_size]
    end = start + len(chunk)
    next_cursor = encode_cursor(end) if end < len(definitions) else None
    return types.ListToolsResult(tools=[definition_to_tool(d, execution) for d in chunk], next_cursor=next_cursor)
