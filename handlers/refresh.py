"""``refresh_tools``: rescan the extension folders on demand.

Some clients ignore ``notifications/tools/list_changed``; this tool lets the model
(or the user) ask for the folders to be read again and hear what changed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolbay.handlers.base import Handler
from toolbay.words import CallContext, PermissionTier, ToolDefinition, ToolResult

# Rescans for the caller of the context; returns {"added": [...], "removed": [...], "changed": [...]},
# naming only tools that caller may know of, and for the server's local caller "not_described":
# each file that could not be described, as "NAME: why", and "still_describing": the files still
# being described in the background (announced when they are done).
Rescan = Callable[[CallContext], Awaitable[Mapping[str, list[str]]]]

DEFINITION = ToolDefinition(
    name="refresh_tools",
    title="Refresh tools",
    description=(
        "Rescan the tool folders now and report which tools were added, removed or changed. "
        "Use it when a tool you expect is missing; then list the tools again."
    ),
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    tier=PermissionTier.READ,
    source="builtin",
)


class RefreshToolsHandler(Handler):
    runs_inline = True

    def __init__(self, rescan: Rescan) -> None:
        super().__init__(DEFINITION)
        self._rescan = rescan

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        change = dict(await self._rescan(context))
        not_described = change.pop("not_described", [])
        still_describing = change.pop("still_describing", [])
        parts = [f"{label}: {', '.join(names)}" for label, names in change.items() if names]
        text = ("Tools " + "; ".join(parts) + "." if parts
                else "No change so far." if still_describing else "No change: the tools are up to date.")
        if not_described:
            text += " Files that could not be described: " + "; ".join(not_described) + "."
        if still_describing:
            text += (" Still being described: " + ", ".join(still_describing)
                     + "; their tools are announced (tools/list_changed) when they are ready, and one that "
                     "fails is named by the next refresh_tools.")
        structured = {k: list(v) for k, v in change.items()}
        if not_described:
            structured["not_described"] = list(not_described)
        if still_describing:
            structured["still_describing"] = list(still_describing)
        return ToolResult(text=text, structured=structured)
