"""The HTTP bearer middleware, driven as an ASGI app, and the bind-safety check."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.server.auth.middleware.auth_context import get_access_token

from toolbay.auth import BearerAuthMiddleware, TokenStore, bearer_credential, check_bind_safety, hash_token
from toolbay.auth.tokens import TokenEntry
from toolbay.errors import ConfigError

pytestmark = pytest.mark.anyio


class Inner:
    """The guarded app: remembers who reached it."""

    def __init__(self) -> None:
        self.reached: list[tuple[str, str | None, str | None]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        token = get_access_token()
        self.reached.append((scope["path"], token.client_id if token else None, bearer_credential(_Req(scope))))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


class _Req:
    def __init__(self, scope: dict[str, Any]) -> None:
        self.scope = scope


async def request(app: Any, path: str, token: str | None = None, method: str = "POST") -> tuple[int, dict, Any]:
    headers = [(b"host", b"127.0.0.1:8765")]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {"type": "http", "method": method, "path": path, "headers": headers, "scheme": "http",
             "server": ("127.0.0.1", 8765)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    head = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], head, json.loads(body) if head.get("content-type") == "application/json" else body


@pytest.fixture
def inner() -> Inner:
    return Inner()


@pytest.fixture
def app(inner: Inner) -> BearerAuthMiddleware:
    store = TokenStore([TokenEntry("ci-bot", hash_token("tb_good"), ("tools:read",))])
    return BearerAuthMiddleware(inner, verifier=store)


@pytest.mark.parametrize("path", ["/mcp", "/sse", "/messages/"])
async def test_a_request_without_a_token_gets_401_pointing_at_the_metadata(app: Any, path: str) -> None:
    status, head, body = await request(app, path)
    prefix = path.rstrip("/")
    assert status == 401
    assert head["www-authenticate"] == (
        'Bearer error_description="A bearer token is required.", '
        f'resource_metadata="http://127.0.0.1:8765/.well-known/oauth-protected-resource{prefix}"')
    assert body["error_description"] == "A bearer token is required."


async def test_a_wrong_token_gets_401_invalid_token(app: Any, inner: Inner) -> None:
    status, head, _ = await request(app, "/mcp", token="tb_bad")
    assert status == 401 and head["www-authenticate"].startswith('Bearer error="invalid_token"')
    assert inner.reached == []


async def test_a_good_token_reaches_the_app_with_the_sdk_access_token_set(app: Any, inner: Inner) -> None:
    status, _, _ = await request(app, "/mcp", token="tb_good")
    assert status == 200
    assert inner.reached == [("/mcp", "ci-bot", "tb_good")]


async def test_paths_outside_the_protected_ones_pass_untouched(app: Any, inner: Inner) -> None:
    assert (await request(app, "/healthz"))[0] == 200
    assert (await request(app, "/mcpx"))[0] == 200


async def test_the_protected_resource_metadata_is_served_without_a_token(inner: Inner) -> None:
    app = BearerAuthMiddleware(inner, verifier=TokenStore([]), authorization_servers=["https://issuer.test"])
    status, head, body = await request(app, "/.well-known/oauth-protected-resource/mcp", method="GET")
    assert status == 200 and head["access-control-allow-origin"] == "*"
    assert body == {"resource": "http://127.0.0.1:8765/mcp", "bearer_methods_supported": ["header"],
                    "scopes_supported": ["tools:read", "tools:write", "tools:exec"], "resource_name": "toolbay",
                    "authorization_servers": ["https://issuer.test"]}


async def test_a_configured_public_url_is_used_in_the_metadata_and_the_challenge(inner: Inner) -> None:
    app = BearerAuthMiddleware(inner, verifier=TokenStore([]), resource_url="https://tools.example.com/mcp")
    _, head, _ = await request(app, "/mcp")
    assert 'resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"' in \
        head["www-authenticate"]
    _, _, body = await request(app, "/.well-known/oauth-protected-resource/mcp", method="GET")
    assert body["resource"] == "https://tools.example.com/mcp"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_loopback_addresses_may_serve_without_authentication(host: str) -> None:
    check_bind_safety(host, auth_configured=False, allow_insecure=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "tools.example.com"])
def test_other_addresses_need_authentication_or_the_insecure_flag(host: str) -> None:
    with pytest.raises(ConfigError, match=f"refusing to serve HTTP on {host}.*--insecure-no-auth"):
        check_bind_safety(host, auth_configured=False, allow_insecure=False)
    check_bind_safety(host, auth_configured=True, allow_insecure=False)
    check_bind_safety(host, auth_configured=False, allow_insecure=True)
