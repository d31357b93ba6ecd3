"""Bearer authentication for the HTTP transports, as one ASGI middleware.

``BearerAuthMiddleware`` guards every path under its ``protected_paths`` (``/mcp`` for
streamable HTTP, ``/sse`` and ``/messages`` for legacy SSE): a request without a valid
``Authorization: Bearer ...`` gets ``401`` with a ``WWW-Authenticate`` header naming the
OAuth protected-resource metadata document (RFC 9728, as the MCP authorization spec asks),
and the middleware serves that document at ``/.well-known/oauth-protected-resource[/path]``.
A request that passes carries ``scope["user"]`` (the SDK's ``AuthenticatedUser``, so the
SDK ties sessions to the credential that opened them) and ``scope["auth"]``, and the SDK's
``get_access_token()`` works inside it.

Why not the SDK's ``streamable_http_app(auth=..., token_verifier=...)``: it guards only the
streamable HTTP path, and its metadata route needs an authorization server URL, which a
tokens-file deployment does not have. This middleware does the same for every transport.

Mounting (the lead's serving layer)::

    from starlette.middleware import Middleware
    from toolbay.auth.http import BearerAuthMiddleware

    app = Starlette(
        routes=[...],                       # /mcp, /sse, /messages/
        middleware=[Middleware(BearerAuthMiddleware, verifier=policies.verifier,
                               resource_url=settings_public_url_or_None,
                               authorization_servers=[jwt_issuer] if jwt_issuer else [])],
        lifespan=...,
    )
    # or wrap an existing app: app = BearerAuthMiddleware(app, verifier=...)

Mount it only when a verifier is configured (``check_bind_safety`` decides whether serving
without one is allowed). Inside ``on_call_tool`` take the credential for the chain with
``bearer_credential(ctx.request)``: the chain's authenticate stage checks it again, so the
chain holds on every transport, whatever is mounted in front of it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, TokenVerifier
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolbay.auth.principal import principal_from_access_token
from toolbay.auth.revocation import HeldRequests
from toolbay.words import Principal

WELL_KNOWN = "/.well-known/oauth-protected-resource"


class BearerAuthMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        verifier: TokenVerifier,
        *,
        protected_paths: Sequence[str] = ("/mcp", "/sse", "/messages"),
        resource_url: str | None = None,
        authorization_servers: Sequence[str] = (),
        scopes_supported: Sequence[str] = ("tools:read", "tools:write", "tools:exec"),
        resource_name: str = "toolbay",
    ) -> None:
        """
        Args:
            app: the ASGI app to guard.
            verifier: decides whether a bearer token is valid (``TokenStore``, ``JwtVerifier``...).
            protected_paths: path prefixes that need a token; everything else passes untouched.
            resource_url: this server's public URL (``https://tools.example.com/mcp``); when
                unset, it is derived from each request's scheme and Host header.
            authorization_servers: issuers that mint tokens for this server, for the metadata.
            scopes_supported: advertised in the metadata document.
            resource_name: advertised in the metadata document.
        """
        self.app = app
        self.verifier = verifier
        self.protected_paths = tuple(p.rstrip("/") for p in protected_paths)
        self.resource_url = resource_url
        self.authorization_servers = list(authorization_servers)
        self.scopes_supported = list(scopes_supported)
        self.resource_name = resource_name
        self.held = HeldRequests(verifier)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path == WELL_KNOWN or path.startswith(WELL_KNOWN + "/"):
            await self._send_metadata(scope, send, path[len(WELL_KNOWN):])
            return
        prefix = self._protected_prefix(path)
        if prefix is None or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        given = sum(1 for key, _value in scope.get("headers", ()) if key.lower() == b"authorization")
        if given > 1:
            # One was taken, the first: a proxy in front that checks another would pass a request
            # served as a caller it never checked (RFC 6750: a malformed request is a 400).
            said = f"Send one Authorization header; this request has {given}."
            await _send_json(send, 400, {"error": "invalid_request", "error_description": said}, [])
            return
        token = _bearer(scope)
        if token is None:
            await self._send_401(scope, send, prefix, None, "A bearer token is required.")
            return
        access = await self.verifier.verify_token(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            await self._send_401(scope, send, prefix, "invalid_token",
                                 "The bearer token is invalid, expired, or not issued for this server.")
            return
        user = AuthenticatedUser(access)
        scope["user"] = user
        scope["auth"] = AuthCredentials(access.scopes)
        reset = auth_context_var.set(user)
        answer = _AnswerSeen(send)
        body = _BodyKept(receive)
        try:
            with self.held.held(token, receive) as held:
                # A GET is a stream held open (SSE, a listening stream): it hears of a revoked
                # token as of its client leaving, and ends as it would then. Others are cancelled.
                await self.app(scope, held.receive if scope["method"] == "GET" else body.receive, answer.send)
        finally:
            auth_context_var.reset(reset)
        if held.revoked.is_set():
            # Its token was revoked or expired while it was open (``toolbay.auth.revocation``).
            if not answer.started:
                await self._send_401(scope, send, prefix, "invalid_token", _NO_LONGER_HOLDS)
            elif not answer.ended:
                # A request answered on a stream (a job_wait) gets its answer: the stream's end
                # alone left the client to guess why it had none ("SSE stream ended without a response").
                request_id = body.request_id() if answer.streaming else None
                ending = b"" if request_id is None else _sse_error(request_id, _NO_LONGER_HOLDS)
                await send({"type": "http.response.body", "body": ending, "more_body": False})

    def _protected_prefix(self, path: str) -> str | None:
        for prefix in self.protected_paths:
            if path == prefix or path.startswith(prefix + "/"):
                return prefix
        return None

    def _origin(self, scope: Scope) -> str:
        if self.resource_url:
            parts = urlsplit(self.resource_url)
            return f"{parts.scheme}://{parts.netloc}"
        host = header_of(scope, b"host")
        if host is None:
            server = scope.get("server") or ("localhost", None)
            host = server[0] if server[1] is None else f"{server[0]}:{server[1]}"
        return f"{scope.get('scheme', 'http')}://{host}"

    async def _send_401(self, scope: Scope, send: Send, prefix: str, error: str | None, description: str) -> None:
        metadata_url = f"{self._origin(scope)}{WELL_KNOWN}{prefix}"
        params = [f'error="{error}"'] if error else []
        params += [f'error_description="{description}"', f'resource_metadata="{metadata_url}"']
        body = {"error": error or "invalid_request", "error_description": description}
        await _send_json(send, 401, body, [(b"www-authenticate", ("Bearer " + ", ".join(params)).encode())])

    async def _send_metadata(self, scope: Scope, send: Send, resource_path: str) -> None:
        cors = [(b"access-control-allow-origin", b"*"), (b"access-control-allow-methods", b"GET, OPTIONS")]
        if scope["method"] == "OPTIONS":
            await _send_json(send, 204, None, cors)
            return
        if scope["method"] != "GET":
            await _send_json(send, 405, {"error": "method_not_allowed"}, [(b"allow", b"GET, OPTIONS")])
            return
        document: dict[str, Any] = {
            "resource": self.resource_url or f"{self._origin(scope)}{resource_path or '/'}",
            "bearer_methods_supported": ["header"],
            "scopes_supported": self.scopes_supported,
            "resource_name": self.resource_name,
        }
        if self.authorization_servers:
            document["authorization_servers"] = self.authorization_servers
        await _send_json(send, 200, document, cors)


def bearer_credential(request: Any) -> str | None:
    """The bearer token of an HTTP request (``ctx.request`` in a handler), or None (stdio)."""
    if request is None:
        return None
    scope = getattr(request, "scope", None)
    if scope is None:
        return None
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser):
        access: AccessToken = user.access_token
        return access.token
    return _bearer(scope)


def header_of(scope: Scope, name: bytes) -> str | None:
    """The value of header ``name`` (lower case) in an ASGI scope, or None."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


_NO_LONGER_HOLDS = "The bearer token no longer holds (it was revoked or has expired); the request was ended."
# A JSON-RPC error of the implementation's own range: the request was ended, not refused as sent.
_TOKEN_ENDED_CODE = -32001
# A request's body is kept, to answer it by its id, only up to this size (a job_wait is small;
# a tool call may carry a megabyte of text and run for minutes).
_KEPT_BODY_BYTES = 1024 * 1024


def _sse_error(request_id: str | int, message: str) -> bytes:
    """A server-sent event carrying a JSON-RPC error for ``request_id``, as the SDK writes its answers."""
    error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": _TOKEN_ENDED_CODE, "message": message}}
    return f"event: message\r\ndata: {json.dumps(error)}\r\n\r\n".encode()


class _BodyKept:
    """Passes a request's body on, keeping it while it is small, to read its id later."""

    __slots__ = ("_receive", "_chunks", "_size")

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._chunks: list[bytes] = []
        self._size = 0

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request" and self._size <= _KEPT_BODY_BYTES:
            chunk = message.get("body", b"")
            self._size += len(chunk)
            self._chunks.append(chunk)
        return message

    def request_id(self) -> str | int | None:
        """The id of the one JSON-RPC request the body held, if it was one and was kept whole."""
        if self._size > _KEPT_BODY_BYTES:
            return None
        try:
            request = json.loads(b"".join(self._chunks))
        except ValueError:
            return None
        request_id = request.get("id") if isinstance(request, dict) and "method" in request else None
        return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


class _AnswerSeen:
    """Passes an answer on, noting whether it has begun and ended, and whether it is a stream."""

    __slots__ = ("_send", "started", "ended", "streaming")

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False
        self.ended = False
        self.streaming = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            self.streaming = any(name.lower() == b"content-type" and value.startswith(b"text/event-stream")
                                 for name, value in message.get("headers", ()))
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            self.ended = True
        await self._send(message)


def _bearer(scope: Scope) -> str | None:
    value = header_of(scope, b"authorization")
    if value is None:
        return None
    scheme, _, token = value.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


async def _send_json(send: Send, status: int, body: Any, headers: list[tuple[bytes, bytes]]) -> None:
    payload = b"" if body is None else json.dumps(body).encode()
    start_headers = [(b"content-length", str(len(payload)).encode()), *headers]
    if body is not None:
        start_headers.insert(0, (b"content-type", b"application/json"))
    await send({"type": "http.response.start", "status": status, "headers": start_headers})
    await send({"type": "http.response.body", "body": payload})


def verified_principal(request: Any) -> Principal | None:
    """The caller whose token the HTTP layer already verified for this request (``ctx.request``
    in a handler), or None: no request (stdio), or no token on it."""
    scope = getattr(request, "scope", None) if request is not None else None
    user = scope.get("user") if scope is not None else None
    if isinstance(user, AuthenticatedUser):
        return principal_from_access_token(user.access_token)
    return None
