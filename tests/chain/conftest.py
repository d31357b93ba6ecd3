"""Fixtures for the call chain: a trivial tool, calls to it, keys and tokens."""

from __future__ import annotations

import time
import types
from collections.abc import Callable, Mapping
from typing import Any

import jwt
import limits.aio.storage.memory
import pytest

import toolbay.chain.ratelimit
from toolbay.chain.call import ToolCall
from toolbay.handlers.base import Handler
from toolbay.words import CallContext, PermissionTier, Principal, ToolDefinition, ToolResult, Transport

HMAC_SECRET = "a-test-secret-that-is-long-enough-for-hs256"
ISSUER = "https://issuer.test"
AUDIENCE = "https://tools.test/mcp"

COUNT_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1},
        "count": {"type": "integer", "minimum": 1},
        "mode": {"enum": ["fast", "slow"]},
    },
    "required": ["text"],
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class EchoHandler(Handler):
    """Answers with its arguments; stands in for any tool."""

    def __init__(self, definition: ToolDefinition, *, fail: bool = False) -> None:
        super().__init__(definition)
        self.calls = 0
        self.fail = fail

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        self.calls += 1
        if self.fail:
            return ToolResult.error("the tool failed")
        return ToolResult(text=f"echo {dict(arguments)}")


def tool(name: str = "echo", tier: PermissionTier | None = PermissionTier.READ,
         schema: Mapping[str, Any] = COUNT_SCHEMA, **options: Any) -> EchoHandler:
    return EchoHandler(ToolDefinition(name=name, description="echoes", input_schema=schema, tier=tier), **options)


def make_call(
    handler: Handler | None = None,
    arguments: dict[str, Any] | None = None,
    *,
    name: str | None = None,
    transport: Transport = "http",
    credential: str | None = None,
    principal: Principal | None = None,
) -> ToolCall:
    handler = handler if handler is not None or name else tool()
    return ToolCall(
        name=name or (handler.name if handler else "nothing"),
        arguments=arguments if arguments is not None else {"text": "hi"},
        context=CallContext(request_id="1"),
        transport=transport,
        handler=handler,
        credential=credential,
        principal=principal,
    )


async def run_handler(call: ToolCall) -> ToolResult:
    """The endpoint the chain ends in: runs the call's handler."""
    assert call.handler is not None
    return await call.handler.handle(call.arguments, call.context)


def hs256_token(**claims: Any) -> str:
    now = int(time.time())
    body = {"sub": "alice", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600,
            "scope": "tools:read"}
    body.update(claims)
    return jwt.encode({k: v for k, v in body.items() if v is not None}, HMAC_SECRET, algorithm="HS256")


@pytest.fixture
def principal() -> Callable[..., Principal]:
    def make(*scopes: str, id: str = "alice") -> Principal:
        return Principal(id=id, scopes=frozenset(scopes), kind="token")

    return make


class Clock:
    """Stands in for ``time`` in the rate limiter and its in-memory storage, so that a window
    passes when a test says so, not while it sleeps (nor, on a busy machine, between two calls
    that were meant to fall in one window)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now

    @classmethod
    def installed(cls, monkeypatch: pytest.MonkeyPatch) -> Clock:
        clock = cls()
        fake = types.SimpleNamespace(time=clock.time)
        monkeypatch.setattr(limits.aio.storage.memory, "time", fake)
        monkeypatch.setattr(toolbay.chain.ratelimit, "time", fake)
        return clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock.installed(monkeypatch)
