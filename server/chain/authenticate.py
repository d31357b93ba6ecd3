"""Stage 1, authenticate: decide who is calling, or refuse with ``Unauthenticated``.

Policy: ``Authenticator``. On stdio (and the in-memory and CLI transports) the caller is
the local user with the scopes from the configuration. On HTTP and SSE the bearer token
the transport put in ``call.credential`` is verified by a ``TokenVerifier`` (a
``TokenStore``, a ``JwtVerifier`` or ``FirstAccepting`` of both) even when HTTP middleware
already checked it: the chain must hold whatever sits in front of it. What the chain itself
verified is remembered for ``VERIFIED_TTL_S`` (never past the token's own expiry, nor past a
new reading of the tokens file), so a JWT's signature is not checked again on every call of a
session, while a token whose scopes were cut in the tokens file loses them at once. HTTP with no
verifier configured (loopback, or ``--insecure-no-auth``) yields the anonymous principal
with the configured anonymous scopes.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from toolbay.auth.principal import principal_from_access_token, token_client_scopes, verifier_generation, verifiers_in
from toolbay.chain.base import CheckStage
from toolbay.chain.call import ToolCall
from toolbay.errors import Unauthenticated
from toolbay.words import Principal

if TYPE_CHECKING:
    from mcp.server.auth.provider import TokenVerifier

LOCAL_TRANSPORTS = frozenset({"stdio", "cli", "memory"})
VERIFIED_TTL_S = 30.0
MAX_REMEMBERED = 4096


class Authenticator:
    def __init__(
        self,
        *,
        verifier: TokenVerifier | None = None,
        local: Principal | None = None,
        anonymous: Principal | None = None,
    ) -> None:
        """
        Args:
            verifier: checks bearer tokens on HTTP/SSE; None means HTTP is unauthenticated.
            local: the caller on stdio/CLI/in-memory; None refuses local calls.
            anonymous: the caller on HTTP/SSE when no verifier is configured; None refuses them.
        """
        self.verifier = verifier
        self.local = local
        self.anonymous = anonymous
        # credential -> (trusted until, the verifier's generation then, principal); oldest first, bounded.
        self._verified: OrderedDict[str, tuple[float, object, Principal]] = OrderedDict()

    @property
    def configured(self) -> bool:
        """Whether HTTP callers must prove who they are (for ``check_bind_safety``)."""
        return self.verifier is not None

    def scopes_now(self, owner: str) -> frozenset[str] | None:
        """The scopes the caller that owns jobs as ``owner`` (``Principal.job_owner``) holds now:
        the local user's and anonymous callers' from the settings, a token's from the tokens file
        (none once its entries are gone). None where no one can tell without the credential
        (a JWT's claims, which the server does not keep)."""
        if self.local is not None and owner == self.local.job_owner:
            return self.local.scopes
        kind, _, client_id = owner.partition(":")
        if kind == "token":
            return token_client_scopes(self.verifier, client_id) or frozenset()
        if kind == "anonymous":
            return self.anonymous.scopes if self.anonymous is not None and self.verifier is None else frozenset()
        return None

    def scopes_granted(self) -> list[tuple[str, str]]:
        """Who holds which scope as the settings and tokens files say (a JWT's are known only
        when it comes): (who, scope), who in words for a log line."""
        granted = [("the local caller", scope) for scope in sorted(self.local.scopes)] if self.local else []
        if self.anonymous is not None and self.verifier is None:
            granted += [("anonymous callers", scope) for scope in sorted(self.anonymous.scopes)]
        for verifier in verifiers_in(self.verifier):
            given = getattr(verifier, "scopes_given", None)
            if callable(given):
                granted += [(f"the token of {client_id!r}", scope) for client_id, scope in given()]
        return granted

    async def authenticate(self, call: ToolCall) -> Principal:
        return await self.identify(call.transport, call.credential)

    async def identify(self, transport: str, credential: str | None) -> Principal:
        """Who presents ``credential`` on ``transport`` (also for ``tools/list``); raises ``Unauthenticated``."""
        if transport in LOCAL_TRANSPORTS:
            if self.local is None:
                raise Unauthenticated(f"This server does not accept calls over {transport}.")
            return self.local
        if self.verifier is None:
            if self.anonymous is None:
                raise Unauthenticated("This server has no authentication configured for HTTP callers.")
            return self.anonymous
        if not credential:
            raise Unauthenticated("This server needs a bearer token: send 'Authorization: Bearer <token>'.")
        now = time.time()
        generation = verifier_generation(self.verifier)
        remembered = self._verified.get(credential)
        if remembered is not None and remembered[0] > now and remembered[1] == generation:
            return remembered[2]
        access = await self.verifier.verify_token(credential)
        if access is None or (access.expires_at is not None and access.expires_at < now):
            raise Unauthenticated("The bearer token is invalid, expired, or not issued for this server.")
        principal = principal_from_access_token(access)
        until = now + VERIFIED_TTL_S
        if access.expires_at is not None:
            until = min(until, float(access.expires_at))
        self._verified[credential] = (until, generation, principal)
        self._verified.move_to_end(credential)
        while len(self._verified) > MAX_REMEMBERED:
            self._verified.popitem(last=False)
        return principal


class Authenticate(CheckStage):
    name = "authenticate"

    def __init__(self, authenticator: Authenticator) -> None:
        self.authenticator = authenticator

    async def check(self, call: ToolCall) -> None:
        principal = await self.authenticator.authenticate(call)
        call.principal = principal
        call.context.caller = principal.id
        call.context.owner = principal.job_owner
