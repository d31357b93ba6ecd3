"""A request answered before its body has been read says that its connection closes.

The server closes such a connection (``toolbay.protocol.connection_guard``: the rest of the
body is wanted by no one), but the answer did not say so: a client that had sent its whole body
(a 413 past the SDK's 4 MiB, a 401 to a request with no token) kept the connection for its
next request, which then failed (httpx: ``ReadError``) instead of going on a new one. Answered
``Connection: close`` (uvicorn then ends the connection itself), the client opens another.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class CloseAfterEarlyAnswer:
    """ASGI middleware: see the module."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        body_read = False

        async def receive_noting_the_end() -> Message:
            nonlocal body_read
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_read = True  # its last piece, or the client gone
            return message

        async def send_saying_close(message: Message) -> None:
            if message["type"] == "http.response.start" and not body_read:
                message = {**message, "headers": [*message.get("headers", ()), (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive_noting_the_end, send_saying_close)


def _has_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        lowered = name.lower()
        if lowered == b"content-length":
            return value.strip() not in (b"0", b"")
        if lowered == b"transfer-encoding":
            return True
    return False
