"""One ``tools/call`` on its way through the chain, and the shape every stage shares.

Every chain stage (authenticate, rate-limit, authorize, validate, approve) and the
dispatcher behind them share one shape, ``async (call, call_next) -> ToolResult``,
so the chain is built once by folding a list (``toolbay.chain.build_chain``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from toolbay.handlers.base import Handler
from toolbay.words import CallContext, Principal, ToolResult, Transport

if TYPE_CHECKING:  # the MCP SDK is loaded by the server, not by the CLI's commands
    from mcp.server.session import ServerSession


@dataclass(slots=True)
class ToolCall:
    """One ``tools/call`` on its way through the chain."""

    name: str
    arguments: dict[str, Any]
    context: CallContext
    transport: Transport = "memory"
    # Set by the dispatcher from the catalog snapshot the call started with.
    handler: Handler | None = None
    principal: Principal | None = None
    # Raw credential presented on this transport (bearer token), if any.
    credential: str | None = None
    # The MCP request's session handle, for elicitation and progress; opaque to stages.
    session: ServerSession | None = None
    # Seconds spent in each stage, for the audit log.
    timings: dict[str, float] = field(default_factory=dict)
    # Set on a call a sub-agent makes: the request id of the agent_* call it serves (audited).
    parent_request_id: str | None = None


CallNext = Callable[[ToolCall], Awaitable[ToolResult]]


class Stage(Protocol):
    async def __call__(self, call: ToolCall, call_next: CallNext) -> ToolResult: ...
