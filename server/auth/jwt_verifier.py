"""JWT bearer tokens, verified locally against a shared key, a public key or a JWKS document.

Checked on every token: the signature (only with the algorithms the key allows, never
``none``, never an HMAC secret confused with a public key), ``exp`` (required unless told
otherwise) and ``nbf`` with a little leeway, ``iss`` when an issuer is configured, ``aud``
when an audience is configured (strongly advised: without it a token minted for another
service by the same issuer would be accepted).

Claims read into the ``AccessToken``: scopes from ``scope`` (space separated, RFC 9068),
``scp`` or ``scopes``; ``client_id`` from ``client_id``, ``azp`` or ``sub``; ``subject``
from ``sub``; every claim is kept in ``claims``. A token with none of ``sub``, ``client_id``
and ``azp`` is refused: it names no caller to own its jobs, tools and limits.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from mcp.server.auth.provider import AccessToken

from toolbay.errors import ConfigError

logger = logging.getLogger(__name__)

_CURVE_ALGORITHMS = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512", "secp256k1": "ES256K"}


class JwtVerifier:
    """A ``TokenVerifier`` (``mcp.server.auth.provider``) for JWTs.

    Give exactly one of ``key`` (an HMAC secret, or a PEM public key) or ``jwks`` (a JWKS
    document, ``{"keys": [...]}``; a key is chosen by the token's ``kid``).
    """

    def __init__(
        self,
        *,
        key: str | bytes | None = None,
        jwks: Mapping[str, Any] | None = None,
        algorithms: Sequence[str] | None = None,
        issuer: str | None = None,
        audience: str | Sequence[str] | None = None,
        leeway_s: float = 30.0,
        require_exp: bool = True,
    ) -> None:
        if (key is None) == (jwks is None):
            raise ConfigError("JWT verification needs exactly one of a key or a JWKS document")
        self.issuer = issuer
        self.audience = audience
        self.leeway_s = leeway_s
        self._require = ["exp"] if require_exp else []
        self._key: Any = None
        self._key_algorithms: list[str] = []
        self._jwks: jwt.PyJWKSet | None = None
        self._algorithms = list(algorithms) if algorithms else None
        if key is not None:
            self._key, self._key_algorithms = _load_key(key, self._algorithms)
        else:
            try:
                self._jwks = jwt.PyJWKSet.from_dict(dict(jwks or {}))
            except jwt.PyJWTError as exc:
                raise ConfigError(f"the JWKS document cannot be used: {exc}") from exc

    @classmethod
    def from_key_file(cls, path: Path, **options: Any) -> JwtVerifier:
        return cls(key=_read(path, "JWT key file"), **options)

    @classmethod
    def from_jwks_file(cls, path: Path, **options: Any) -> JwtVerifier:
        try:
            document = json.loads(_read(path, "JWKS file"))
        except ValueError as exc:
            raise ConfigError(f"JWKS file {path} is not valid JSON: {exc}") from exc
        return cls(jwks=document, **options)

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.count(".") != 2:
            # No JWT at all: a tokens file's token (say one just removed from it) tried here after
            # the file's, which logged "JWT refused: Not enough segments" at every request.
            logger.debug("not a JWT (a JWT is three parts joined by dots)")
            return None
        try:
            claims = self.decode(token)
        except jwt.PyJWTError as exc:
            logger.info("JWT refused: %s", exc)
            return None
        if not any(isinstance(claims.get(name), str) and claims[name] for name in _IDENTITY_CLAIMS):
            # Jobs, personal tools and rate limits belong to a caller: a token that names none
            # would share them with every other such token.
            logger.info("JWT refused: it names no caller (none of %s)", ", ".join(_IDENTITY_CLAIMS))
            return None
        return _access_token(token, claims, self.audience, self.leeway_s)

    def decode(self, token: str) -> dict[str, Any]:
        """The verified claims; raises ``jwt.PyJWTError`` saying why a token is refused."""
        key, algorithms = self._key_for(jwt.get_unverified_header(token))
        return jwt.decode(
            token,
            key,
            algorithms=algorithms,
            audience=self.audience,
            issuer=self.issuer,
            leeway=self.leeway_s,
            options={"require": self._require, "verify_aud": self.audience is not None},
        )

    def _key_for(self, header: Mapping[str, Any]) -> tuple[Any, list[str]]:
        if self._jwks is None:
            return self._key, self._key_algorithms
        kid = header.get("kid")
        if kid is not None:
            try:
                jwk = self._jwks[kid]
            except KeyError:
                raise jwt.InvalidKeyError(f"no key with kid {kid!r} in the JWKS document") from None
        elif len(self._jwks.keys) == 1:
            jwk = self._jwks.keys[0]
        else:
            raise jwt.InvalidKeyError("the token names no kid and the JWKS document holds several keys")
        allowed = [jwk.algorithm_name]
        if self._algorithms is not None:
            allowed = [a for a in allowed if a in self._algorithms]
        return jwk.key, allowed


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be read: {exc.strerror or exc}") from exc


def _load_key(key: str | bytes, algorithms: list[str] | None) -> tuple[Any, list[str]]:
    text = key.decode("utf-8") if isinstance(key, bytes) else key
    if "-----BEGIN" not in text:
        if algorithms and not all(a.startswith("HS") for a in algorithms):
            raise ConfigError("a shared JWT secret can only verify HS256/HS384/HS512 tokens")
        if len(text.encode("utf-8")) < 32:
            raise ConfigError("the shared JWT secret is shorter than 32 bytes; use a longer random secret")
        return text, algorithms or ["HS256"]
    try:
        public = load_pem_public_key(text.encode("utf-8"))
    except ValueError as exc:
        raise ConfigError(f"the JWT key is not a PEM public key: {exc}") from exc
    natural = _algorithms_for(public)
    if algorithms:
        natural = [a for a in algorithms if a in natural]
        if not natural:
            raise ConfigError(f"the JWT public key cannot verify any of {algorithms}")
    return public, natural


def _algorithms_for(public: Any) -> list[str]:
    if isinstance(public, rsa.RSAPublicKey):
        return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]
    if isinstance(public, ec.EllipticCurvePublicKey):
        return [_CURVE_ALGORITHMS.get(public.curve.name, "ES256")]
    if isinstance(public, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
        return ["EdDSA"]
    raise ConfigError(f"unsupported JWT public key type {type(public).__name__}")


def _scopes(claims: Mapping[str, Any]) -> list[str]:
    for name in ("scope", "scp", "scopes"):
        value = claims.get(name)
        if isinstance(value, str):
            return value.split()
        if isinstance(value, list):
            return [str(v) for v in value]
    return []


_IDENTITY_CLAIMS = ("sub", "client_id", "azp")


def _access_token(token: str, claims: dict[str, Any], audience: str | Sequence[str] | None,
                  leeway_s: float) -> AccessToken:
    subject = claims.get("sub")
    client_id = claims.get("client_id") or claims.get("azp") or subject
    aud = claims.get("aud")
    expected = [audience] if isinstance(audience, str) else list(audience or [])
    given = [aud] if isinstance(aud, str) else list(aud or [])
    resource = next((a for a in expected if a in given), given[0] if given else None)
    exp = claims.get("exp")
    return AccessToken(
        token=token,
        client_id=str(client_id),
        scopes=_scopes(claims),
        # When the server stops taking it: its exp plus the leeway the check above allowed (the
        # HTTP layer refuses a token past expires_at, and refused one within the leeway).
        expires_at=int(exp + leeway_s) if isinstance(exp, int | float) else None,
        resource=resource,
        subject=str(subject) if subject is not None else None,
        claims=claims,
    )
