"""Authentication: tokens files, JWTs, the local user and the anonymous caller."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from tests.chain.conftest import AUDIENCE, HMAC_SECRET, ISSUER, hs256_token, make_call, run_handler
from toolbay.auth import FirstAccepting, JwtVerifier, TokenStore, hash_token, local_principal, new_token
from toolbay.chain.authenticate import Authenticate, Authenticator
from toolbay.errors import ConfigError, Unauthenticated

pytestmark = pytest.mark.anyio


def write_tokens(path: Path, *entries: tuple[str, str, list[str]]) -> Path:
    lines = []
    for client_id, token, scopes in entries:
        lines += ["[[tokens]]", f'client_id = "{client_id}"', f'sha256 = "{hash_token(token)}"',
                  f"scopes = {json.dumps(scopes)}", ""]
    path.write_text("\n".join(lines))
    return path


@pytest.fixture
def store(tmp_path: Path) -> TokenStore:
    return TokenStore.from_file(write_tokens(tmp_path / "tokens.toml", ("ci-bot", "tb_right", ["tools:read"])))


def hs256_verifier(**options: object) -> JwtVerifier:
    return JwtVerifier(key=HMAC_SECRET, issuer=ISSUER, audience=AUDIENCE, **options)  # type: ignore[arg-type]


async def authenticate(authenticator: Authenticator, **call_options: object):
    call = make_call(**call_options)  # type: ignore[arg-type]
    await Authenticate(authenticator)(call, run_handler)
    return call.principal


async def test_a_token_from_the_tokens_file_names_its_client_and_scopes(store: TokenStore) -> None:
    principal = await authenticate(Authenticator(verifier=store), credential="tb_right")
    assert principal is not None
    assert (principal.id, principal.kind, principal.scopes) == ("ci-bot", "token", frozenset({"tools:read"}))


async def test_the_chain_sets_the_caller_on_the_handler_context(store: TokenStore) -> None:
    call = make_call(credential="tb_right")
    await Authenticate(Authenticator(verifier=store))(call, run_handler)
    assert call.context.caller == "ci-bot"
    assert call.timings["authenticate"] >= 0


async def test_a_call_without_a_token_is_refused_when_authentication_is_configured(store: TokenStore) -> None:
    with pytest.raises(Unauthenticated, match="needs a bearer token"):
        await authenticate(Authenticator(verifier=store), credential=None)


async def test_a_wrong_token_is_refused(store: TokenStore) -> None:
    with pytest.raises(Unauthenticated, match="invalid, expired"):
        await authenticate(Authenticator(verifier=store), credential="tb_wrong")


async def test_tokens_files_may_be_json(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": [{"client_id": "a", "sha256": hash_token("t"), "scopes": []}]}))
    assert (await TokenStore.from_file(path).verify_token("t")).client_id == "a"  # type: ignore[union-attr]


def test_a_tokens_file_holding_a_plaintext_token_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text('[[tokens]]\nclient_id = "a"\ntoken = "secret"\n')
    with pytest.raises(ConfigError, match="plaintext"):
        TokenStore.from_file(path)


def test_a_tokens_file_with_a_bad_hash_names_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text('[[tokens]]\nclient_id = "a"\nsha256 = "abc"\n')
    with pytest.raises(ConfigError, match="entry 1: 'sha256'"):
        TokenStore.from_file(path)


def test_new_tokens_are_random_and_come_with_their_hash() -> None:
    (first, first_hash), (second, _) = new_token(), new_token()
    assert first != second and first.startswith("tb_") and len(first) > 40
    assert hash_token(first) == first_hash


async def test_a_valid_jwt_yields_its_subject_and_scopes() -> None:
    token = hs256_token(scope="tools:read tools:write", client_id="app")
    principal = await authenticate(Authenticator(verifier=hs256_verifier()), credential=token)
    assert principal is not None
    assert (principal.id, principal.kind) == ("alice", "jwt")
    assert principal.scopes == frozenset({"tools:read", "tools:write"})
    assert principal.claims["client_id"] == "app"


@pytest.mark.parametrize(
    ("claims", "why"),
    [
        ({"exp": int(time.time()) - 3600}, "expired"),
        ({"aud": "https://other.test"}, "wrong audience"),
        ({"iss": "https://evil.test"}, "wrong issuer"),
        ({"exp": None}, "no expiry"),
        ({"nbf": int(time.time()) + 3600}, "not yet valid"),
        # Every such token would be one caller, "unknown", sharing jobs and limits.
        ({"sub": None}, "no caller named"),
        ({"sub": ""}, "an empty subject"),
    ],
)
async def test_a_jwt_is_refused_when(claims: dict[str, object], why: str) -> None:
    with pytest.raises(Unauthenticated):
        await authenticate(Authenticator(verifier=hs256_verifier()), credential=hs256_token(**claims))


async def test_a_jwt_without_a_subject_is_the_client_it_names() -> None:
    principal = await authenticate(Authenticator(verifier=hs256_verifier()),
                                   credential=hs256_token(sub=None, azp="reporting-app"))
    assert principal is not None and principal.id == "reporting-app"


async def test_a_jwt_signed_with_another_key_is_refused() -> None:
    forged = jwt.encode({"sub": "x", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 60},
                        "another-secret-that-is-also-long-enough", algorithm="HS256")
    assert await hs256_verifier().verify_token(forged) is None


async def test_a_jwt_expired_within_the_leeway_is_still_accepted() -> None:
    token = hs256_token(exp=int(time.time()) - 5)
    assert await hs256_verifier(leeway_s=30).verify_token(token) is not None


def test_a_short_shared_secret_is_refused_at_start() -> None:
    with pytest.raises(ConfigError, match="shorter than 32 bytes"):
        JwtVerifier(key="short")


def rsa_pair() -> tuple[rsa.RSAPrivateKey, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.public_key().public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, pem


async def test_an_rs256_jwt_is_verified_with_a_pem_public_key_file(tmp_path: Path) -> None:
    private, pem = rsa_pair()
    (tmp_path / "public.pem").write_text(pem)
    verifier = JwtVerifier.from_key_file(tmp_path / "public.pem", issuer=ISSUER, audience=AUDIENCE)
    token = jwt.encode({"sub": "bob", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 60},
                       private, algorithm="RS256")
    assert (await verifier.verify_token(token)).subject == "bob"  # type: ignore[union-attr]


async def test_an_hs256_token_made_with_the_public_key_as_secret_is_refused() -> None:
    # The classic algorithm-confusion attack: the public key is public.
    _, pem = rsa_pair()
    verifier = JwtVerifier(key=pem, audience=AUDIENCE)
    def part(data: dict[str, object]) -> bytes:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=")

    signing_input = part({"alg": "HS256", "typ": "JWT"}) + b"." + part(
        {"sub": "x", "aud": AUDIENCE, "exp": int(time.time()) + 60})
    signature = base64.urlsafe_b64encode(hmac.new(pem.encode(), signing_input, hashlib.sha256).digest())
    forged = (signing_input + b"." + signature.rstrip(b"=")).decode()
    assert await verifier.verify_token(forged) is None


async def test_an_es256_jwt_is_verified_with_the_key_named_by_its_kid_in_a_jwks_file(tmp_path: Path) -> None:
    signing = ec.generate_private_key(ec.SECP256R1())
    other = ec.generate_private_key(ec.SECP256R1())
    keys = []
    for kid, key in (("one", other), ("two", signing)):
        jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
        keys.append({**jwk, "kid": kid, "alg": "ES256", "use": "sig"})
    (tmp_path / "jwks.json").write_text(json.dumps({"keys": keys}))
    verifier = JwtVerifier.from_jwks_file(tmp_path / "jwks.json", issuer=ISSUER, audience=AUDIENCE)
    claims = {"sub": "carol", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 60}
    good = jwt.encode(claims, signing, algorithm="ES256", headers={"kid": "two"})
    wrong_kid = jwt.encode(claims, signing, algorithm="ES256", headers={"kid": "one"})
    unknown_kid = jwt.encode(claims, signing, algorithm="ES256", headers={"kid": "three"})
    assert (await verifier.verify_token(good)).subject == "carol"  # type: ignore[union-attr]
    assert await verifier.verify_token(wrong_kid) is None
    assert await verifier.verify_token(unknown_kid) is None


async def test_the_tokens_file_and_jwts_can_be_used_together(store: TokenStore) -> None:
    either = FirstAccepting([store, hs256_verifier()])
    assert (await either.verify_token("tb_right")).client_id == "ci-bot"  # type: ignore[union-attr]
    assert (await either.verify_token(hs256_token())).subject == "alice"  # type: ignore[union-attr]
    assert await either.verify_token("nonsense") is None


async def test_a_stdio_caller_is_the_local_user_with_the_configured_scopes(store: TokenStore) -> None:
    local = local_principal(["tools:read"], name="dev")
    principal = await authenticate(Authenticator(verifier=store, local=local), transport="stdio")
    assert principal == local and principal.kind == "local"


async def test_stdio_calls_are_refused_when_no_local_caller_is_configured() -> None:
    with pytest.raises(Unauthenticated, match="over stdio"):
        await authenticate(Authenticator(), transport="stdio")


async def test_http_without_authentication_configured_gives_the_anonymous_caller() -> None:
    from toolbay.words import Principal

    anonymous = Principal(id="anonymous", scopes=frozenset({"tools:read"}))
    assert await authenticate(Authenticator(anonymous=anonymous), credential="ignored") == anonymous
    with pytest.raises(Unauthenticated, match="no authentication configured"):
        await authenticate(Authenticator(), credential=None)


class _CountingVerifier:
    """A verifier that accepts one token and counts how often it was asked."""

    def __init__(self, expires_at: int | None) -> None:
        self.asked = 0
        self.expires_at = expires_at

    async def verify_token(self, token: str) -> object:
        from mcp.server.auth.provider import AccessToken

        self.asked += 1
        if token != "tb_good":
            return None
        return AccessToken(token=token, client_id="ci-bot", scopes=["tools:read"], expires_at=self.expires_at)


async def test_a_verified_token_is_not_verified_again_on_every_call() -> None:
    verifier = _CountingVerifier(expires_at=None)
    authenticator = Authenticator(verifier=verifier)  # type: ignore[arg-type]
    first = await authenticator.identify("http", "tb_good")
    second = await authenticator.identify("http", "tb_good")
    assert first == second and first.id == "ci-bot"
    assert verifier.asked == 1


async def test_a_remembered_token_is_not_trusted_past_its_own_expiry(monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    verifier = _CountingVerifier(expires_at=int(now) + 2)
    authenticator = Authenticator(verifier=verifier)  # type: ignore[arg-type]
    await authenticator.identify("http", "tb_good")
    monkeypatch.setattr(time, "time", lambda: now + 5)
    with pytest.raises(Unauthenticated):
        await authenticator.identify("http", "tb_good")
    assert verifier.asked == 2


async def test_a_refused_token_is_asked_about_every_time() -> None:
    verifier = _CountingVerifier(expires_at=None)
    authenticator = Authenticator(verifier=verifier)  # type: ignore[arg-type]
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            await authenticator.identify("http", "tb_bad")
    assert verifier.asked == 2


async def test_a_token_that_is_no_jwt_is_refused_without_a_line_at_info(caplog: pytest.LogCaptureFixture) -> None:
    # With a tokens file and JWTs both configured, a removed file token was tried as a JWT at every
    # request, each logging "JWT refused: Not enough segments".
    caplog.set_level(logging.INFO, logger="toolbay.auth.jwt_verifier")
    assert await hs256_verifier().verify_token("tb_" + "a" * 40) is None
    assert not [record for record in caplog.records if record.levelno >= logging.INFO], caplog.text
    assert await hs256_verifier().verify_token("a.b.c") is None and "JWT refused" in caplog.text  # a JWT shaped one is
