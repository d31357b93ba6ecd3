"""A request body read ahead by a middleware, then handed on as if unread.

``toolbay.protocol.plain_json`` reads a POST's body once, to decide how to answer it and
whether it is a JSON-RPC message at all (``toolbay.protocol.parse_errors``); the app behind
then receives the same messages again.
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope

# Bodies larger than this are not buffered (the app reads them itself, as they come).
MAX_BUFFERED_BODY = 256 * 1024
# The most the SDK's HTTP transports take (mcp.server.transport_security.DEFAULT_MAX_REQUEST_BODY_SIZE,
# which tests/protocol/test_http_transports.py holds this to): past it, 413.
MAX_REQUEST_BODY = 4 * 1024 * 1024


async def read_small_body(receive: Receive, limit: int = MAX_BUFFERED_BODY) -> tuple[list[Message], bytes | None]:
    """The request's messages as received, and its body when it is complete and no larger than
    ``limit``."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None  # e.g. the client went away
        size += len(message.get("body", b""))
        if size > limit:
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages)


def declared_past(scope: Scope, limit: int) -> bool:
    """Whether the request's Content-Length says its body is longer than ``limit`` (read before
    a byte of it: a body declared at a gigabyte waited for its time limit, and "Expect:
    100-continue" was told to send it)."""
    declared = next((value for name, value in scope.get("headers", ()) if name.lower() == b"content-length"), None)
    try:
        return declared is not None and int(declared) > limit
    except ValueError:
        return False  # uvicorn refuses a Content-Length that is no number before the app sees it


def replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives back what was read, then goes on with the real one."""
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
