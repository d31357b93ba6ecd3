"""Tools as clients see them: definitions turned into ``types.Tool`` and paged."""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from toolbay.errors import echoed
from toolbay.internals.pydantic_models import trusted_instance
from toolbay.words import ToolAnnotations, ToolDefinition


def definition_to_tool(definition: ToolDefinition, execution: types.ToolExecution | None = None) -> types.Tool:
    """The wire form of a definition. Every value comes from toolbay's own typed definition,
    so it is not validated again (about 60 microseconds a tool, which a catalog of thousands
    would pay on every listing): see ``toolbay.internals.pydantic_models``."""
    meta: dict[str, object] = {"toolbay/source": definition.source}
    if definition.tier is not None:
        meta["toolbay/tier"] = definition.tier.value
    if definition.keywords:
        meta["toolbay/keywords"] = list(definition.keywords)
    if definition.version:
        meta["toolbay/version"] = definition.version
    annotations = trusted_instance(types.ToolAnnotations, {"title": definition.title, **_hints(definition.annotations)})
    return trusted_instance(types.Tool, {
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
        raise MCPError(code=types.INVALID_PARAMS, message=f"invalid cursor {echoed(cursor)}") from None


def _after_name_cursor(name: str) -> str:
    return base64.urlsafe_b64encode(f"n:{name}".encode()).decode()


def _start_of(definitions: Sequence[ToolDefinition], cursor: str | None) -> int:
    """Where the page ``cursor`` asks for begins in the name-sorted ``definitions``: after the
    last tool the previous page held, by its name. An offset moved with every tool added or
    removed before it between pages: a removal skipped live tools, an addition repeated some
    (an outside check at 8,000 tools). An offset cursor of an older server is still read."""
    if cursor:
        with contextlib.suppress(ValueError, binascii.Error, UnicodeDecodeError):
            text = base64.urlsafe_b64decode(cursor.encode()).decode()
            if text.startswith("n:"):
                last = text[2:]
                return next((at for at, definition in enumerate(definitions) if definition.name > last),
                            len(definitions))
    return decode_cursor(cursor)


def page(
    definitions: Sequence[ToolDefinition],
    cursor: str | None,
    page_size: int,
    execution: Callable[[ToolDefinition], types.ToolExecution | None] = lambda definition: None,
) -> types.ListToolsResult:
    """One page of the name-sorted ``definitions``, each with what ``execution`` says of it. The
    next page's cursor names the last tool of this one (``_start_of``)."""
    start = _start_of(definitions, cursor)
    chunk = definitions[start : start + page_size]
    end = start + len(chunk)
    next_cursor = _after_name_cursor(chunk[-1].name) if chunk and end < len(definitions) else None
    return types.ListToolsResult(tools=[definition_to_tool(d, execution(d)) for d in chunk], next_cursor=next_cursor)
