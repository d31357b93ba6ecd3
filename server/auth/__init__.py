"""Who is calling: bearer tokens on HTTP, the local user on stdio.

- ``tokens.TokenStore``: static tokens from a tokens file, stored as SHA-256 hashes
  (``hash_token``, ``new_token`` for ``toolbay token new``).
- ``jwt_verifier.JwtVerifier``: JWTs checked against a shared key, a PEM public key or a
  local JWKS document (issuer, audience, exp/nbf with leeway).
- ``principal``: ``principal_from_access_token``, ``local_principal``, ``FirstAccepting``.
- ``http.BearerAuthMiddleware``: 401 + ``WWW-Authenticate`` + protected-resource metadata
  for ``/mcp``, ``/sse`` and ``/messages/`` (see that module for how to mount it);
  ``bearer_credential(ctx.request)`` gives the chain the caller's token.
- ``bind.check_bind_safety``: no unauthenticated HTTP beyond loopback unless told so.

Both verifiers implement the SDK's ``TokenVerifier`` protocol
(``async verify_token(token) -> AccessToken | None``), so they also plug into the SDK's own
HTTP auth machinery. The call chain's authenticate stage (``toolbay.chain.authenticate``)
uses the same verifier, so a call is authenticated on every transport.
"""

from typing import TYPE_CHECKING

from toolbay.auth.bind import check_bind_safety, is_loopback
from toolbay.auth.principal import FirstAccepting, local_principal, principal_from_access_token
from toolbay.auth.tokens import TokenEntry, TokenStore, hash_token, new_token

if TYPE_CHECKING:
    from toolbay.auth.http import BearerAuthMiddleware, bearer_credential
    from toolbay.auth.jwt_verifier import JwtVerifier

# Loaded with their first use, not with the package: PyJWT and cryptography (JwtVerifier) only
# for a server that takes JWTs, the MCP SDK's HTTP auth (the middleware) only for a server on
# HTTP. `toolbay token new` and the CLI's other commands need neither.
_LOADED_ON_USE = {"JwtVerifier": "toolbay.auth.jwt_verifier",
                  "BearerAuthMiddleware": "toolbay.auth.http", "bearer_credential": "toolbay.auth.http"}


def __getattr__(name: str) -> object:
    if name in _LOADED_ON_USE:
        import importlib

        return getattr(importlib.import_module(_LOADED_ON_USE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "BearerAuthMiddleware",
    "FirstAccepting",
    "JwtVerifier",
    "TokenEntry",
    "TokenStore",
    "bearer_credential",
    "check_bind_safety",
    "hash_token",
    "is_loopback",
    "local_principal",
    "new_token",
    "principal_from_access_token",
]
