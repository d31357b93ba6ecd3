"""The one place where outcomes become MCP answers.

- A ``ToolResult`` becomes a ``CallToolResult`` (``isError`` when the tool failed).
- A ``CallRefused`` (unknown tool, bad arguments, rate limit, ...) becomes an
  ``isError`` result whose text tells the model what to change, with the details
  in ``_meta["toolbay/refusal"]``.
- Anything else is a fault of toolbay or a tool: it is logged with its traceback
  and the model gets a generic sentence with an incident id, never a traceback.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import mcp_types as types

from handlers.base import ToolResult
from server.errors import CallRefused

logger = logging.getLogger(__name__)

META_PREFIX = "toolbay/"
# A ``ToolResult.meta`` entry that becomes a ``resource_link`` content block: {"uri", "name", ...}.
RESOURCE_LINK = "resource_link"


def tool_result_to_mcp(result: ToolResult) -> types.CallToolResult:
    structured: Any = None
    if result.structured is not None:
        structured = dict(result.structured)
    link = result.meta.get(RESOURCE_LINK)
    meta = {META_PREFIX + key: value for key, value in result.meta.items() if key != RESOURCE_LINK} or None
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=result.text)]
    if isinstance(link, dict):  # the whole of a result too long to answer, as a resource
        content.append(types.ResourceLink(type="resource_link", **link))
    return types.CallToolResult(
        content=content,
        structured_content=structured,
        is_error=result.is_error,
        _meta=meta,
    )


def refusal_to_result(refusal: CallRefused) -> ToolResult:
    return ToolResult(
        text=refusal.message,
        is_error=True,
        meta={"refusal": {"code": refusal.code, **refusal.meta}},
    )


def crash_to_result(tool: str, exc: BaseException) -> ToolResult:
    incident = uuid.uuid4().hex[:12]
    logger.error("tool %r failed unexpectedly (incident %s)", tool, incident, exc_info=exc)
    return ToolResult(
        text=(
            f"The tool {tool!r} failed because of an internal error (incident {incident}). "
            "The server logged the details; trying again with other arguments may help."
        ),
        is_error=True,
        meta={"incident": incident},
    )
