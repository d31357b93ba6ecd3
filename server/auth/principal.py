"""Who a credential stands for: ``Principal``s from verified tokens, the local user, and
``FirstAccepting`` to try several verifiers (a tokens file and a JWT issuer) in turn.
"""

from __future__ import annotations

import getpass
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from toolbay.words import Principal

if TYPE_CHECKING:  # the MCP SDK is loaded by the server, not by the CLI's commands
    from mcp.server.auth.provider import AccessToken, TokenVerifier


def principal_from_access_token(token: AccessToken) -> Principal:
    """The caller a verified token stands for.

    The id is the token's subject when it has one (a JWT's ``sub``: the same person
    through any client) and its client id otherwise (a tokens-file entry). Tokens that
    carry claims came from a JWT; the others from the tokens file.
    """
    kind: Literal["jwt", "token"] = "jwt" if token.claims is not None else "token"
    return Principal(
        id=token.subject or token.client_id,
        scopes=frozenset(token.scopes),
        kind=kind,
        claims=dict(token.claims or {}),
    )


def local_principal(scopes: Iterable[str], name: str | None = None) -> Principal:
    """The person who started the server, calling over stdio (or the CLI)."""
    if name is None:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = "local"
    return Principal(id=name, scopes=frozenset(scopes), kind="local")


def verifier_generation(verifier: object) -> object:
    """What changes when a verifier's answers may have changed (a tokens file read again);
    None for one whose answers never change (a JWT key)."""
    generation = getattr(verifier, "generation", None)
    return generation() if callable(generation) else None


def changed_token_clients(verifier: object) -> frozenset[str]:
    """The client ids a tokens file's new reading changed since last asked (see
    ``TokenStore.take_changed_clients``); none for a verifier whose answers never change."""
    take = getattr(verifier, "take_changed_clients", None)
    return take() if callable(take) else frozenset()


def verifiers_in(verifier: object) -> tuple[object, ...]:
    """The verifiers ``verifier`` asks (a ``FirstAccepting``'s), or itself alone."""
    return tuple(getattr(verifier, "verifiers", (verifier,)))


def token_client_scopes(verifier: object, client_id: str) -> frozenset[str] | None:
    """The scopes the tokens files behind ``verifier`` grant ``client_id`` now (none once it
    has no token left), or None when no tokens file is behind it."""
    scopes_of = [found for found in (getattr(one, "scopes_of", None) for one in verifiers_in(verifier))
                 if callable(found)]
    if not scopes_of:
        return None
    return frozenset().union(*(scopes(client_id) for scopes in scopes_of))


class FirstAccepting:
    """A ``TokenVerifier`` that asks each verifier in order and takes the first yes."""

    def __init__(self, verifiers: Sequence[TokenVerifier]) -> None:
        self.verifiers = tuple(verifiers)

    def generation(self) -> tuple[object, ...]:
        """The generations of the verifiers that have them (see ``TokenStore.generation``)."""
        return tuple(verifier_generation(verifier) for verifier in self.verifiers)

    def take_changed_clients(self) -> frozenset[str]:
        return frozenset().union(*(changed_token_clients(verifier) for verifier in self.verifiers))

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            verified = await verifier.verify_token(token)
            if verified is not None:
                return verified
        return None
