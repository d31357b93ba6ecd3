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


def wire_meta(result: ToolResult) -> dict[str, Any] | None:
    """``result.meta`` as ``_meta``. Keys are toolbay's, so namespaced; one starting with "_" is
    a name others read as it is (``_subagent``, the sub-agent envelope)."""
    return {key if key[0] == "_" else META_PREFIX + key: value
            for key, value in result.meta.items() if key != RESOURCE_LINK} or None


def tool_result_to_mcp(result: ToolResult) -> types.CallToolResult:
    structured: Any = None
    if result.structured is not None:
        structured = dict(result.structured)
    link = result.meta.get(RESOURCE_LINK)
    meta = wire_meta(result)
    stderr = result.meta.get("stderr")
    stderr = stderr if isinstance(stderr, str) and stderr and not result.is_error else None
    # A successful run's standard error, as a block of its own after the exact output (alone
    # when the output is empty).
    content: list[types.ContentBlock] = [
        *([types.TextContent(type="text", text=result.text)] if result.text or stderr is None else []),
        *([types.TextContent(type="text", text=f"stderr:\n{stderr}")] if stderr is not None else [])]
    if isinstance(link, dict):  # the whole of a result too long to answer, as a resource
        content.append(types.ResourceLink(type="resource_link", **link))
    return types.CallToolResult(
        content=content,
        structured_content=structured,
        is_error=result.is_error,
        _meta=meta,
    )
