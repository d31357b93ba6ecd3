"""Streamable HTTP: a plain JSON answer for requests that can have nothing to stream.

The streamable HTTP transport answers a request POST either with an SSE stream, which can
carry progress notifications and the server's own requests (elicitation) before the answer,
or with one ``application/json`` body; the specification lets the server choose per request.
The SDK chooses once per server, and its SSE answer costs more than everything else in a
quick call put together (a response stream, three tasks, a ping timer, three socket writes).

So this module chooses per request. A request gets the JSON body when nothing can travel
before its answer: it carries no progress token, and it is ``initialize``, ``ping``,
``tools/list``, or a ``tools/call`` of a tool the app expects to answer at once without
asking anyone (``Toolbay.answers_at_once``). Everything else keeps the SSE stream.

How: an ASGI middleware reads the POST body (small ones only), decides, and marks the task
handling the request in a context variable; the SDK's transport reads
``is_json_response_enabled`` while it handles that request, and a subclass makes that
attribute consult the mark. The mark holds for that task alone: tasks started while the
request is handled inherit the variable (the session's own tasks, when the request opens a
session) but must go on treating messages the SDK's usual way.
The SDK's session manager builds its transports by a module-level name, which is pointed at
the subclass (``install``, through ``toolbay.internals.mcp_sdk``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Callable
from typing import Any

from mcp.server.streamable_http import StreamableHTTPServerTransport
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolbay.internals.mcp_sdk import use_streamable_http_transport

# Bodies larger than this are not buffered here, and get the SSE stream.
MAX_BUFFERED_BODY = 256 * 1024

_ALWAYS_PLAIN = frozenset({"initialize", "ping", "tools/list"})

# The task whose request is answered with plain JSON.
_plain_json_task: contextvars.ContextVar[asyncio.Task[Any] | None] = contextvars.ContextVar(
    "toolbay_plain_json_task", default=None)


class PerRequestJsonTransport(StreamableHTTPServerTransport):
    """The SDK's transport, answering with JSON when this request was found to need no stream."""

    @property
    def is_json_response_enabled(self) -> bool:
        if self._json_always:
            return True
        marked = _plain_json_task.get()
        return marked is not None and marked is asyncio.current_task()

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        self._json_always = value


def install() -> None:
    """Makes the SDK's session manager build ``PerRequestJsonTransport`` (idempotent)."""
    use_streamable_http_transport(PerRequestJsonTransport)


class PlainJsonForQuickRequests:
    """ASGI middleware for the streamable HTTP endpoint; see the module docstring.

    ``answers_at_once(tool_name)`` says whether a call of that tool will be answered at once
    with nothing sent before the answer.
    """

    def __init__(self, app: ASGIApp, answers_at_once: Callable[[str], bool], path: str = "/mcp") -> None:
        self.app = app
        self.answers_at_once = answers_at_once
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        messages, body = await read_small_body(receive)
        plain = body is not None and self._needs_no_stream(body)
        token = _plain_json_task.set(asyncio.current_task() if plain else None)
        try:
            await self.app(scope, replay(messages, receive), send)
        finally:
            _plain_json_task.reset(token)

    def _needs_no_stream(self, body: bytes) -> bool:
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):  # the SDK's parser answers it with a parse error
            return False
        if not isinstance(message, dict) or "id" not in message:
            return False  # a batch, or a notification (answered 202 either way)
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            return False
        method = message.get("method")
        if method in _ALWAYS_PLAIN:
            return True
        if method == "tools/call" and "task" not in params:
            name = params.get("name")
            return isinstance(name, str) and self.answers_at_once(name)
        return False


async def read_small_body(receive: Receive) -> tuple[list[Message], bytes | None]:
    """The request's messages as received, and its body when it is complete and small."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None  # e.g. the client went away
        size += len(message.get("body", b""))
        if size > MAX_BUFFERED_BODY:
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages)


def replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives back what was read, then goes on with the real one."""
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
