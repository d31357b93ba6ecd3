"""``search_tools``: find tools for a task, with their full schemas, best first.

In search-first disclosure most tools are not listed in full (or at all); the model
describes what it needs, in the tools' language, and gets the tools that fit with everything it
needs to call them. The tools found join this session's listing. Finding a tool grants
nothing: a call of it is authorised, validated and approved like any other.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolbay.handlers.base import CallContext, Handler, PermissionTier, ToolDefinition, ToolResult

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
# A request for a tool is a sentence or two. The search runs on the event loop and its cost
# grows with the query (about half a second for a megabyte), so a longer query is refused by
# validation, with its length, rather than searched.
MAX_QUERY_CHARS = 2000
# How much of a request the answer says back.
_ECHOED_CHARS = 120

# (query, limit, context) -> {"results": [{"name", "description", "inputSchema", "score"}], "no_match": bool}
Search = Callable[[str, int, CallContext], Awaitable[Mapping[str, Any]]]

DEFINITION = ToolDefinition(
    name="search_tools",
    title="Search tools",
    description=(
        "Find tools for a task. Describe what you need in a few words, in the language the tools are "
        "described in (words are matched, not meanings: try other words if nothing fits), or give a "
        "tool's exact name. Returns the best tools you may use, best first, each with its input "
        "schema, ready to call; or no_match when none fits (then do not guess a name)."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
                      "description": "What the tool should do, or its name."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                      "description": "At most this many tools."},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    tier=PermissionTier.READ,
    source="builtin",
)


# With ``[search] semantic`` the words still decide whether anything fits; meaning then ranks.
_BY_MEANING = DEFINITION.description.replace(
    "(words are matched, not meanings: try other words if nothing fits)",
    "(words are matched first, then ranked by meaning too: try other words if nothing fits)")


class SearchToolsHandler(Handler):
    runs_inline = True
    for_every_caller = True  # it returns only tools the caller may use

    def __init__(self, search: Search, *, semantic: bool = False) -> None:
        super().__init__(dataclasses.replace(DEFINITION, description=_BY_MEANING) if semantic else DEFINITION)
        self._search = search

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        query = str(arguments.get("query", "")).strip()
        if not query:
            return ToolResult.error("query is empty: describe the task, or give a tool's name")
        limit = int(arguments.get("limit", DEFAULT_LIMIT))
        found = await self._search(query, max(1, min(limit, MAX_LIMIT)), context)
        results = list(found["results"])
        # The request is the caller's own: said back in part, not 2,000 characters again.
        asked = repr(query) if len(query) <= _ECHOED_CHARS else repr(query[:_ECHOED_CHARS]) + "…"
        if found["no_match"] or not results:
            text = f"No tool matches {asked}. Try other words, or a shorter request."
        else:
            lines = [f"{len(results)} {'tool' if len(results) == 1 else 'tools'} for {asked}, best first; "
                     "each can be called now:"]
            for result in results:
                lines.append(json.dumps(result, ensure_ascii=False))
            text = "\n".join(lines)
        return ToolResult(text=text, structured={"results": results, "no_match": bool(found["no_match"])})
