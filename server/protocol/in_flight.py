"""How many MCP requests this process is answering now, on every transport: with the job
manager's count of calls, what tells a quiet server (``toolbay.freed_memory``) from one in the
middle of a burst whose requests are still being read or checked (a re-check found memory
collected mid-burst, and the burst's memory then kept for good)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the assembly imports this module, which must not load the MCP SDK (serve loads it beside)
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

_answering = 0


def requests_in_flight() -> int:
    return _answering


class CountedRequests:
    """Server middleware: counts each request from its start to its answer."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        global _answering
        _answering += 1
        try:
            return await call_next(ctx)
        finally:
            _answering -= 1
