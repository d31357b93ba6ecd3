"""Types shared by the call path: who is calling, the call itself, and the stage signature.

Every chain stage (authenticate, rate-limit, authorize, validate, approve) and the
dispatcher behind them share one shape, ``async (call, call_next) -> ToolResult``,
so the chain is built once by folding a list (see ``server.chain``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from handlers.base import CallContext, Handler, ToolResult

Transport = Literal["stdio", "http", "sse", "memory", "cli"]


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling. Authentication always yields one, anonymous included."""

    id: str
    scopes: frozenset[str] = frozenset()
    kind: Literal["local", "token", "jwt", "anonymous"] = "anonymous"
    claims: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def anonymous(cls) -> Principal:
        return cls(id="anonymous")


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
    session: Any = None
    # Seconds spent in each stage, for the audit log.
    timings: dict[str, float] = field(default_factory=dict)
    # Set on a call a sub-agent makes: the request id of the agent_* call it serves (audited).
    parent_request_id: str | None = None


CallNext = Callable[[ToolCall], Awaitable[ToolResult]]


class Stage(Protocol):
    async def __call__(self, call: ToolCall, call_next: CallNext) -> ToolResult: ...
