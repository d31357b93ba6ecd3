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
from toolbay.auth.http import BearerAuthMiddleware, bearer_credential
from toolbay.auth.principal import FirstAccepting, local_principal, principal_from_access_token
from toolbay.auth.tokens import TokenEntry, TokenStore, hash_token, new_token

if TYPE_CHECKING:
    from toolbay.auth.jwt_verifier import JwtVerifier


def __getattr__(name: str) -> object:
    # PyJWT and cryptography load with the first use of JwtVerifier, not with the package: a
    # server without JWTs never needs them.
    if name == "JwtVerifier":
        from toolbay.auth.jwt_verifier import JwtVerifier

        return JwtVerifier
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
