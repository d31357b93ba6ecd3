"""What a replica (stateless HTTP, under ``[cluster]``) says it sends to a client of the
handshake protocols (2025-11-25 and before): no list changes.

Such a client's requests are answered each on its own, with no session to reach it later: its
listening GET stream is accepted and never carries anything, so it hears of a changed folder
only when it lists again (as the README says). The handshake said ``listChanged: true`` for
tools and prompts all the same (an outside check), and a client that trusts it never lists
again. A client of 2026-07-28 asks for changes with ``subscriptions/listen``, which every
replica feeds; it does not send ``initialize``.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

_LISTS = ("tools", "prompts", "resources")


class NoListChangesWithoutSessions:
    """Server middleware: see the module."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method != "initialize" or not isinstance(result, dict):
            return result
        if result.get("protocolVersion") in MODERN_PROTOCOL_VERSIONS:
            return result
        capabilities = result.get("capabilities")
        if not isinstance(capabilities, dict):
            return result
        said = {kind: {**value, "listChanged": False} if isinstance(value, dict) and value.get("listChanged") else value
                for kind, value in capabilities.items() if kind in _LISTS}
        return {**result, "capabilities": {**capabilities, **said}}
