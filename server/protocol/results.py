"""The one place where a ``ToolResult`` becomes an MCP answer (``isError`` when the tool
failed; ``meta`` travels as ``_meta`` under the ``toolbay/`` prefix; a successful run's stderr
is a second text block). Errors became results
before they got here (``toolbay.outcomes``)."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from toolbay.words import ToolResult

META_PREFIX = "toolbay/"
# A ``ToolResult.meta`` entry that becomes a ``resource_link`` content block: {"uri", "name", ...}.
RESOURCE_LINK = "resource_link"
# The deepest structured content sent. The SDK's client refuses a message nested deeper than
# 200 levels (its JSON parser's limit) and, over stdio, then never answers its caller; the
# result's text still holds the whole output.
MAX_STRUCTURED_DEPTH = 100


def tool_result_to_mcp(result: ToolResult) -> types.CallToolResult:
    structured: Any = None
    notes: dict[str, Any] = {}
    if result.structured is not None:
        structured = dict(result.structured)
        if nested_deeper_than(structured, MAX_STRUCTURED_DEPTH):
            structured = None
            notes["structured_omitted"] = f"nested deeper than {MAX_STRUCTURED_DEPTH} levels; the text holds it"
    link = result.meta.get(RESOURCE_LINK)
    # Keys are toolbay's, so namespaced; one starting with "_" is a name others read as it
    # is (``_subagent``, the sub-agent envelope).
    meta = {key if key[0] == "_" else META_PREFIX + key: value
            for key, value in {**result.meta, **notes}.items() if key != RESOURCE_LINK} or None
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=result.text)]
    stderr = result.meta.get("stderr")
    if isinstance(stderr, str) and stderr and not result.is_error:
        # A successful run's standard error, as a block of its own after the exact output.
        content.append(types.TextContent(type="text", text=f"stderr:\n{stderr}"))
    if isinstance(link, dict):  # the whole of a result too long to answer, as a resource
        content.append(types.ResourceLink(type="resource_link", **link))
    return types.CallToolResult(
        content=content,
        structured_content=structured,
        is_error=result.is_error,
        _meta=meta,
    )


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` (JSON-like) has objects or arrays more than ``limit`` levels deep,
    itself being level 1. Walked without recursion: a result may be deeper than Python's stack."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))
    return False
