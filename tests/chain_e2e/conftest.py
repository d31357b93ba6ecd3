"""A real server for the chain: a config file with a tokens file made by ``toolbay token new``,
JWTs signed with a real key, an audit file, uvicorn on 127.0.0.1, and the SDK's own client.

``make_settings(chain_toml)`` writes ``toolbay.toml`` next to the tokens file and the JWT
public key (relative paths, as a user writes them) and loads it; ``running(settings)``
serves it over HTTP and yields the base URL; ``connect(url, token)`` is the SDK's client
with the bearer token in every request.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.assembly import assemble
from toolbay.cli import app as cli_app
from toolbay.config import Settings, load_settings
from toolbay.protocol.transports import serving_http

ISSUER = "https://issuer.test"
AUDIENCE = "http://toolbay.test/mcp"

# Who holds which tokens-file token, and the scopes it carries.
TOKEN_HOLDERS: dict[str, Sequence[str]] = {
    "reader": ["tools:read"],
    "textkit-only": ["tool:textkit_*"],
    "operator": ["tools:exec"],
}

# hashsum is read-tier in its help; the config raises it to exec so that approval applies.
BASE_TOML = f"""
tiers = {{"hashsum" = "exec"}}

[chain.auth]
tokens_file = "tokens.toml"

[chain.auth.jwt]
key_file = "jwt-public.pem"
issuer = "{ISSUER}"
audience = "{AUDIENCE}"

[chain.audit]
file = "audit.jsonl"
"""


@dataclass(frozen=True)
class Tokens:
    """Plain tokens as clients hold them (the server only has their hashes)."""

    by_holder: dict[str, str]

    def __getitem__(self, holder: str) -> str:
        return self.by_holder[holder]


@pytest.fixture(scope="session")
def signing_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def mint(signing_key: ec.EllipticCurvePrivateKey) -> Callable[..., str]:
    """``mint(sub, scope="tools:read", audience=AUDIENCE, expires_in=300)``: a signed JWT."""

    def make(sub: str, *, scope: str = "tools:read", audience: str = AUDIENCE, expires_in: float = 300) -> str:
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": audience, "sub": sub, "scope": scope,
                  "iat": now, "exp": now + int(expires_in)}
        return jwt.encode(claims, signing_key, algorithm="ES256")

    return make


@pytest.fixture
def config_dir(tmp_path: Path, signing_key: ec.EllipticCurvePrivateKey) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    public = signing_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    (folder / "jwt-public.pem").write_bytes(public)
    return folder


@pytest.fixture
def tokens(config_dir: Path) -> Tokens:
    """Tokens made by ``toolbay token new``; the tokens file is built from what it printed."""
    runner = CliRunner()
    by_holder: dict[str, str] = {}
    entries: list[str] = []
    for holder, scopes in TOKEN_HOLDERS.items():
        args = ["token", "new", "--client-id", holder]
        for scope in scopes:
            args += ["--scope", scope]
        result = runner.invoke(cli_app, args)
        assert result.exit_code == 0, result.output
        token, _, entry = result.stdout.partition("\n")
        by_holder[holder] = token
        entries.append(entry.strip())
    (config_dir / "tokens.toml").write_text("\n\n".join(entries) + "\n", encoding="utf-8")
    return Tokens(by_holder)


@pytest.fixture
def make_settings(config_dir: Path, tokens: Tokens, shared_data_dir: Path) -> Callable[[str], Settings]:
    """``make_settings(extra_toml)``: the base chain config plus ``extra_toml``, loaded from a file."""

    def make(extra: str = "") -> Settings:
        config = config_dir / "toolbay.toml"
        config.write_text(BASE_TOML + extra, encoding="utf-8")
        return load_settings(config, extensions=[BUNDLED_EXTENSIONS], data_dir=shared_data_dir, port=0)

    return make


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[str]:
    """The assembled app served by uvicorn on 127.0.0.1 (any free port); yields its base URL."""
    async with assemble(settings, watch=False) as app, serving_http(app) as url:
        yield url


@asynccontextmanager
async def connect(base_url: str, token: str | None, **client_options: Any) -> AsyncIterator[Client]:
    """The SDK's client on streamable HTTP (handshake era, as Claude Code), sending ``token``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
        transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
        async with Client(transport, mode="legacy", **client_options) as client:
            yield client


@asynccontextmanager
async def served_client(settings: Settings, token: str | None, **client_options: Any) -> AsyncIterator[Client]:
    """A server for ``settings`` and one client holding ``token``, all within 30 seconds."""
    async with running(settings) as url:
        with anyio.fail_after(30):
            async with connect(url, token, **client_options) as client:
                yield client


def text_of(result: Any) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


def refusal_of(result: Any) -> dict[str, Any]:
    """What the chain said about a refused call, from the result's ``_meta``."""
    meta = result.meta or {}
    refusal: dict[str, Any] = meta.get("toolbay/refusal", {})
    return refusal


def audit_lines(config_dir: Path) -> list[dict[str, Any]]:
    """The audit file's records, oldest first."""
    path = config_dir / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
