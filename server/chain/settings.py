"""The ``[chain]`` section of the configuration: authentication, rate limits, access,
approval and audit. ``toolbay.config.Settings.chain`` holds it raw; ``ChainSettings.parse``
validates it. Example ``toolbay.toml``::

    [chain.auth]
    tokens_file = "tokens.toml"            # hashed static tokens (toolbay token new)
    local_scopes = ["tools:exec"]          # the stdio caller
    anonymous_scopes = ["tools:read"]      # HTTP with no authentication (loopback only)
    resource_url = "https://tools.example.com/mcp"   # public URL, for the OAuth metadata

    [chain.auth.jwt]
    jwks_file = "jwks.json"                # or key = "...", or key_file = "public.pem"
    issuer = "https://issuer.example.com"
    audience = "https://tools.example.com/mcp"

    [chain.rate_limits]
    per_caller = "10/second;1000/hour"
    per_caller_tool = "5/second"
    global = "100/second"
    storage = "memory://"                  # redis://host:6379 to share between replicas

    [chain.access]
    deny = ["danger_*"]
    [chain.access.scopes.ci]
    tiers = ["read", "write"]
    allow = ["lint*", "fmt"]

    [chain.approval]
    tiers = ["exec"]
    when_unsupported = "deny"

    [chain.audit]
    file = "audit.jsonl"

Relative paths are taken relative to ``base_dir`` (the config file's folder) when the
policies are built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolbay.config import OTHER_SECTIONS, SettingPath, describe_validation_error
from toolbay.errors import ConfigError

Tier = Literal["read", "write", "exec"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


class JwtSettings(_Section):
    key: str | None = Field(None, description="HMAC secret (32+ bytes) or PEM public key.")
    key_file: SettingPath | None = Field(None, description="File holding the HMAC secret or PEM public key.")
    jwks_file: SettingPath | None = Field(None, description="A local JWKS document ({\"keys\": [...]}).")
    issuer: str | None = None
    audience: str | list[str] | None = None
    algorithms: list[str] | None = None
    leeway_s: float = Field(30.0, ge=0, le=600)
    require_exp: bool = True


class AuthSettings(_Section):
    tokens_file: SettingPath | None = None
    jwt: JwtSettings | None = None
    local_scopes: list[str] = Field(default_factory=lambda: ["tools:exec"])
    anonymous_scopes: list[str] = Field(default_factory=lambda: ["tools:exec"])
    resource_url: str | None = None
    authorization_servers: list[str] = Field(default_factory=list)


class RateLimitSettings(_Section):
    per_caller: str | list[str] | None = None
    per_caller_tool: str | list[str] | None = None
    everyone: str | list[str] | None = Field(None, alias="global")
    storage: str = "memory://"
    strategy: Literal["moving-window", "sliding-window-counter", "fixed-window"] = "moving-window"


class ScopeSettings(_Section):
    tiers: list[Tier]
    allow: list[str] = Field(default_factory=lambda: ["*"])
    deny: list[str] = Field(default_factory=list)


class AccessSettings(_Section):
    allow: list[str] = Field(default_factory=lambda: ["*"])
    deny: list[str] = Field(default_factory=list)
    scopes: dict[str, ScopeSettings] = Field(default_factory=dict)


class ApprovalSettings(_Section):
    tiers: list[Tier] = Field(default_factory=list)
    when_unsupported: Literal["allow", "deny"] = "deny"
    # A question nobody answers refuses the call then, rather than holding it for ever.
    timeout_s: float = Field(300.0, gt=0, le=86400)


class AuditSettings(_Section):
    file: SettingPath | None = None


class ChainSettings(_Section):
    auth: AuthSettings = Field(default_factory=AuthSettings)
    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)
    access: AccessSettings = Field(default_factory=AccessSettings)
    approval: ApprovalSettings = Field(default_factory=ApprovalSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)

    @classmethod
    def parse(cls, data: dict[str, Any] | None, config_file: Path | None = None) -> ChainSettings:
        """Validates the raw ``[chain]`` table; a bad value becomes a ``ConfigError`` naming it, and
        ``config_file`` (the file the settings were read from, ``Settings.config_file``) where it is set there."""
        try:
            return cls.model_validate(data or {})
        except ValidationError as exc:
            raise ConfigError(describe_validation_error(exc, config_file, root=cls, section="chain")) from None


OTHER_SECTIONS["chain"] = ChainSettings  # its names, for the configuration's hints (toolbay.config)
