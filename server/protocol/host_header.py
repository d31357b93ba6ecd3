"""The Host and Origin headers as the SDK's checks of them (DNS rebinding) should read them.

Host names are compared in one case (RFC 9110: a host name is case-insensitive): the SDK
compares them as written, so ``Host: LOCALHOST:8765`` was refused (421) by a server that
takes ``localhost:8765``. A request with two Host or two Origin headers is refused (400): the
SDK reads the first, a proxy in front may have read the other, and no client sends two.
"""

from __future__ import annotations

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

_CHECKED = (b"host", b"origin")


class HostNamesInOneCase:
    """ASGI middleware: see the module."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        seen: set[bytes] = set()
        upper = False
        for name, value in scope["headers"]:
            lowered = name.lower()
            if lowered in _CHECKED:
                if lowered in seen:
                    response = PlainTextResponse(f"Bad Request: more than one {lowered.decode().title()} header",
                                                 status_code=400)
                    await response(scope, receive, send)
                    return
                seen.add(lowered)
                upper = upper or value != value.lower()
        if upper:  # a copy only then: every request passes here, and clients write them in lower case
            scope = {**scope, "headers": [(name, value.lower() if name.lower() in _CHECKED else value)
                                          for name, value in scope["headers"]]}
        await self.app(scope, receive, send)
