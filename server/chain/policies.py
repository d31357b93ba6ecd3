"""The policy objects the stages apply, built once from ``ChainSettings``.

The serving layer keeps the ``ChainPolicies`` it builds: ``authorizer`` filters
``tools/list``, ``verifier`` goes to ``BearerAuthMiddleware``, ``authenticator.configured``
to ``check_bind_safety``, and ``default_stages(policies)`` makes the chain.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolbay.auth.principal import FirstAccepting, local_principal
from toolbay.auth.tokens import TokenStore
from toolbay.chain.approve import Answer, Approver, Ask
from toolbay.chain.audit import AuditLog, AuditSink
from toolbay.chain.authenticate import Authenticator
from toolbay.chain.authorize import KNOWN_TOOL_SCOPES, Authorizer, ScopeGrant
from toolbay.chain.call import ToolCall
from toolbay.chain.ratelimit import RateLimiter, RateLimits
from toolbay.chain.settings import AuthSettings, ChainSettings, JwtSettings
from toolbay.chain.validate import SchemaValidator
from toolbay.errors import ConfigError
from toolbay.words import METRICS_SCOPE, PermissionTier, Principal, ToolDefinition

if TYPE_CHECKING:
    from mcp.server.auth.provider import TokenVerifier

    from toolbay.auth.jwt_verifier import JwtVerifier


@dataclass(slots=True)
class ChainPolicies:
    authenticator: Authenticator
    authorizer: Authorizer
    validator: SchemaValidator
    limiter: RateLimiter | None = None
    approver: Approver | None = None
    audit: AuditSink | None = None
    # For the OAuth protected-resource metadata that BearerAuthMiddleware serves.
    resource_url: str | None = None
    authorization_servers: tuple[str, ...] = ()

    @property
    def verifier(self) -> TokenVerifier | None:
        return self.authenticator.verifier

    def refusal_now(self, owner: str, definition: ToolDefinition) -> str | None:
        """Why the caller that owns jobs as ``owner`` may not use the tool now, or None: the
        server-wide patterns, and its scopes where they can be told (``Authenticator.scopes_now``;
        a JWT's caller is held to the patterns alone). For a job a stopped server left, which
        is run again without its caller's request passing the chain."""
        scopes = self.authenticator.scopes_now(owner)
        if scopes is None:
            disabled = self.authorizer.disabled(definition.name)  # said first, whatever the scopes
            return self.authorizer.reason(Principal(id=owner), definition) if disabled else None
        return self.authorizer.reason(Principal(id=owner, scopes=scopes), definition)

    @classmethod
    def from_settings(
        cls,
        settings: ChainSettings,
        *,
        ask: Ask | None = None,
        base_dir: Path | None = None,
        local_name: str | None = None,
        shared_limits: str | None = None,
        on_outage: str = "closed",
    ) -> ChainPolicies:
        """
        Args:
            settings: the validated ``[chain]`` section.
            ask: asks the human for approval (see ``toolbay.chain.approve``); without it every
                client counts as unable to be asked.
            base_dir: the folder relative paths in the settings are relative to.
            local_name: the stdio caller's id (default: the login name).
            shared_limits: the cluster's Redis URL: rate-limit counters go there unless
                ``rate_limits.storage`` names a store of its own.
            on_outage: what the rate limiter does while a shared store fails (``[cluster] on_outage``).
        """
        base = base_dir or Path.cwd()
        _refuse_unknown_tool_scopes(settings)
        rates = RateLimits.parse(settings.rate_limits.per_caller, settings.rate_limits.per_caller_tool,
                                 settings.rate_limits.everyone)
        return cls(
            authenticator=_authenticator(settings.auth, base, local_name,
                                         known_tool_scopes={*KNOWN_TOOL_SCOPES, *settings.access.scopes}),
            authorizer=Authorizer(
                scopes={name: ScopeGrant(frozenset(PermissionTier(t) for t in s.tiers), tuple(s.allow), tuple(s.deny))
                        for name, s in settings.access.scopes.items()},
                allow=settings.access.allow,
                deny=settings.access.deny,
            ),
            validator=SchemaValidator(),
            limiter=RateLimiter(rates, storage=_limits_storage(settings, shared_limits),
                                strategy=settings.rate_limits.strategy, on_outage=on_outage)
            if rates else None,
            approver=Approver(ask or _cannot_ask, tiers=settings.approval.tiers,
                              when_unsupported=settings.approval.when_unsupported,
                              timeout_s=settings.approval.timeout_s)
            if settings.approval.tiers else None,
            audit=AuditLog(_resolve(base, settings.audit.file)) if settings.audit.file else None,
            resource_url=settings.auth.resource_url,
            authorization_servers=_authorization_servers(settings.auth),
        )


def _limits_storage(settings: ChainSettings, shared: str | None) -> str:
    own = settings.rate_limits.storage
    return shared if shared is not None and "storage" not in settings.rate_limits.model_fields_set else own


async def _cannot_ask(call: ToolCall, message: str) -> Answer:
    return "unsupported"


def _resolve(base: Path, path: Path) -> Path:
    return path if path.is_absolute() else base / path


# Scopes that name what they grant after their kind.
SCOPES_OF_PATTERNS = ("tool:", "catalog:")


def meant_scope(scope: str, known: Collection[str]) -> str | None:
    """The scope ``scope`` was most likely meant to be, or None where none is close: a pattern's
    kind misspelt or in another case ("Tool:hashsum", "catalogue:x"), else the closest of the
    others, whatever the case ("CI", "metric:read")."""
    _, colon, pattern = scope.partition(":")
    patterns = {f"{prefix}{pattern}" for prefix in SCOPES_OF_PATTERNS} if colon else set()
    by_case = {name.lower(): name for name in sorted({*known, METRICS_SCOPE, *patterns})}
    close = difflib.get_close_matches(scope.lower(), list(by_case), n=1)
    return by_case[close[0]] if close else None


def grants_nothing(scope: str, known: Collection[str]) -> bool:
    """Whether ``scope`` is none of ``known`` (the built-in ``tools:`` scopes and those
    ``[chain.access.scopes]`` defines), no pattern's (``tool:``, ``catalog:``) and not the
    metrics scope: it grants nothing."""
    return scope not in known and not scope.startswith(SCOPES_OF_PATTERNS) and scope != METRICS_SCOPE


def closest_scope(scope: str, known: Collection[str]) -> str | None:
    """The scope a ``scope`` that grants nothing was most likely meant to be: for a ``tools:``
    one the closest of ``known`` as written ("tools:exce": "tools:exec", not a pattern's
    "tool:exce"), else ``meant_scope``'s."""
    if scope.startswith("tools:"):
        close = difflib.get_close_matches(scope, sorted(known), n=1)
        return close[0] if close else None
    return meant_scope(scope, known)


def _refuse_unknown_tool_scopes(settings: ChainSettings) -> None:
    """A ``tools:`` scope given to the local or anonymous caller that is neither built in nor
    defined in ``[chain.access.scopes]`` grants nothing: a misspelt ``tools:exce`` would start a
    server that refuses every call its one caller makes. (A token's scopes are the token
    issuer's to choose; ``toolbay token new`` notes an unknown one.)"""
    known = {*KNOWN_TOOL_SCOPES, *settings.access.scopes}
    for setting, scopes in (("local_scopes", settings.auth.local_scopes),
                            ("anonymous_scopes", settings.auth.anonymous_scopes)):
        for scope in scopes:
            if not grants_nothing(scope, known):
                continue
            meant = closest_scope(scope, known)
            if scope.startswith("tools:"):
                hint = f" (did you mean {meant!r}?)" if meant else ""
                raise ConfigError(f"chain.auth.{setting}: {scope!r} grants nothing{hint}; the tools: scopes are "
                                  f"{', '.join(sorted(known))} (define others in [chain.access.scopes])")
            # A named scope misspelt ("cii" for [chain.access.scopes.ci]) granted nothing too, and
            # the server started refusing every call of that caller.
            # So did one of another case ("CI") or a misspelt kind ("tols:exec", "Catalog:x").
            if meant is not None:
                raise ConfigError(f"chain.auth.{setting}: {scope!r} grants nothing (did you mean {meant!r}?); the "
                                  f"scopes are {', '.join(sorted(known))}, {METRICS_SCOPE}, tool:PATTERN and "
                                  "catalog:PATTERN")


def _authorization_servers(auth: AuthSettings) -> tuple[str, ...]:
    """The configured issuers, or the JWT issuer when none is listed."""
    if auth.authorization_servers:
        return tuple(auth.authorization_servers)
    issuer = auth.jwt.issuer if auth.jwt is not None else None
    return (issuer,) if issuer else ()


def _authenticator(auth: AuthSettings, base: Path, local_name: str | None,
                   known_tool_scopes: Collection[str] = ()) -> Authenticator:
    verifiers: list[TokenVerifier] = []
    if auth.tokens_file is not None:
        verifiers.append(TokenStore.from_file(_resolve(base, auth.tokens_file), known_tool_scopes))
    if auth.jwt is not None:
        verifiers.append(_jwt_verifier(auth.jwt, base))
    verifier: TokenVerifier | None = None
    if len(verifiers) == 1:
        verifier = verifiers[0]
    elif verifiers:
        verifier = FirstAccepting(verifiers)
    return Authenticator(
        verifier=verifier,
        local=local_principal(auth.local_scopes, local_name),
        anonymous=Principal(id="anonymous", scopes=frozenset(auth.anonymous_scopes)),
    )


def _jwt_verifier(jwt: JwtSettings, base: Path) -> JwtVerifier:
    # PyJWT and cryptography are loaded only where JWTs are configured.
    from toolbay.auth.jwt_verifier import JwtVerifier

    sources = [s for s in (jwt.key, jwt.key_file, jwt.jwks_file) if s is not None]
    if len(sources) != 1:
        raise ConfigError("chain.auth.jwt: set exactly one of key, key_file or jwks_file")
    options: dict[str, Any] = {"issuer": jwt.issuer, "audience": jwt.audience, "algorithms": jwt.algorithms,
               "leeway_s": jwt.leeway_s, "require_exp": jwt.require_exp}
    if jwt.jwks_file is not None:
        return JwtVerifier.from_jwks_file(_resolve(base, jwt.jwks_file), **options)
    if jwt.key_file is not None:
        return JwtVerifier.from_key_file(_resolve(base, jwt.key_file), **options)
    return JwtVerifier(key=jwt.key, **options)
