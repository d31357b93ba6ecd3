"""Stage 3, authorize: may this caller use this tool? Also filters ``tools/list``.

The scopes model (copied into the README):

- Every tool has a permission tier: ``read`` < ``write`` < ``exec``. It comes from the
  help text's ``PermissionLevel:`` line or the configuration; a tool that declares none
  counts as ``exec``.
- ``tools:read``, ``tools:write`` and ``tools:exec`` grant tiers, each including the ones
  below it: ``tools:write`` may use read and write tools, ``tools:exec`` every tool.
- ``tool:<pattern>`` grants the tools whose names match the fnmatch pattern, at any tier
  (``tool:textkit_*``, ``tool:wc``).
- The configuration may define named scopes (``[chain.access.scopes.ci]``) as a set of
  tiers plus ``allow`` / ``deny`` name patterns, and may override the built-in ones.
- The configuration's server-wide ``allow`` / ``deny`` patterns apply to everyone and
  win over every scope: a denied tool is never listed or callable.
- A caller may use a tool when the server-wide patterns let it through and at least
  one of its scopes grants it. Unknown scopes grant nothing.
- Built-ins that act only on the caller's own jobs or on tools it may use (``search_tools``,
  the ``job_*`` tools: ``Handler.for_every_caller``) need no scope.

``tools/list`` shows a caller only the tools it may use (``Authorizer.visible``); a call
is checked again here, because a listing is never a grant (the catalog may have changed,
or the client may call a name it never saw).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from toolbay.auth.scopes import AUTHORING_SCOPES
from toolbay.chain.base import CheckStage, definition_of, principal_of
from toolbay.chain.call import ToolCall
from toolbay.errors import Forbidden
from toolbay.words import PermissionTier, Principal, ToolDefinition

READ, WRITE, EXEC = PermissionTier.READ, PermissionTier.WRITE, PermissionTier.EXEC
TOOL_SCOPE_PREFIX = "tool:"
# Where a caller's scopes come from, for a refusal that names one it lacks.
_SCOPES_FROM = ("([chain.auth] local_scopes for the stdio caller, anonymous_scopes for an HTTP caller without a token, "
                "a token's own for a token's holder)")
_NOT_HELD = f"this caller does not have {_SCOPES_FROM}."


# Decisions kept (about 10 MB at most) before all are forgotten: room for a catalog of 10,000
# tools for several callers' scopes. At 8,192, such a catalog was decided anew at every listing
# and search (a search for a word every tool has spent 0.6 s of the event loop on it).
_MOST_DECISIONS = 65_536


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


@dataclass(frozen=True, slots=True)
class ScopeGrant:
    """What one scope lets its holder use: tools of these tiers, by name pattern."""

    tiers: frozenset[PermissionTier]
    allow: tuple[str, ...] = ("*",)
    deny: tuple[str, ...] = ()

    def grants(self, name: str, tier: PermissionTier) -> bool:
        return tier in self.tiers and _matches(name, self.allow) and not _matches(name, self.deny)


BUILTIN_GRANTS: Mapping[str, ScopeGrant] = {
    "tools:read": ScopeGrant(frozenset({READ})),
    "tools:write": ScopeGrant(frozenset({READ, WRITE})),
    "tools:exec": ScopeGrant(frozenset({READ, WRITE, EXEC})),
}
_TIER_SCOPE = {READ: "tools:read", WRITE: "tools:write", EXEC: "tools:exec"}
# Every ``tools:`` scope that means something without configuration.
KNOWN_TOOL_SCOPES = (*BUILTIN_GRANTS, *AUTHORING_SCOPES)


class Authorizer:
    """Decides which tools a principal may use. Used by ``tools/list`` and at call time."""

    def __init__(
        self,
        *,
        scopes: Mapping[str, ScopeGrant] | None = None,
        allow: Sequence[str] = ("*",),
        deny: Sequence[str] = (),
    ) -> None:
        """
        Args:
            scopes: named scopes from the configuration, added to (or replacing) the built-in ones.
            allow: server-wide: only tools matching one of these patterns may be used at all.
            deny: server-wide: tools matching one of these are never listed or called.
        """
        self.grants: dict[str, ScopeGrant] = {**BUILTIN_GRANTS, **(scopes or {})}
        self.allow = tuple(allow)
        self.deny = tuple(deny)
        # Built-in tools that act only on the caller's own jobs or its own tools (``Handler.for_every_caller``).
        self.every_caller: frozenset[str] = frozenset()
        # Built-in tools that need a scope besides their tier's (``Handler.needs_scope``).
        self.required_scopes: dict[str, str] = {}
        # Decisions depend only on (scopes, name, tier): cache them, a list of many tools
        # and every call ask the same few questions.
        self._decisions: dict[tuple[frozenset[str], str, PermissionTier], str | None] = {}

    def let_every_caller_use(self, names: Iterable[str]) -> None:
        """Any caller may use these built-in tools, whatever its scopes."""
        self.every_caller = frozenset(names)
        self._decisions.clear()

    def require_scopes(self, scopes: Mapping[str, str]) -> None:
        """These built-in tools need these scopes, besides what their tier needs."""
        self.required_scopes = dict(scopes)
        self._decisions.clear()

    def can_use(self, principal: Principal, definition: ToolDefinition) -> bool:
        return self.reason(principal, definition) is None

    def visible(self, principal: Principal, definitions: Iterable[ToolDefinition]) -> list[ToolDefinition]:
        """The definitions this principal may use, for its ``tools/list``."""
        return [d for d in definitions if self.reason(principal, d) is None]

    def reason(self, principal: Principal, definition: ToolDefinition) -> str | None:
        """None when the principal may use the tool; otherwise one sentence saying why not."""
        key = (principal.scopes, definition.name, definition.effective_tier)
        try:
            return self._decisions[key]
        except KeyError:
            pass
        decision = self._decide(principal.scopes, definition.name, definition.effective_tier)
        if len(self._decisions) >= _MOST_DECISIONS:
            self._decisions.clear()
        self._decisions[key] = decision
        return decision

    def _grant_for(self, scope: str) -> ScopeGrant | None:
        grant = self.grants.get(scope)
        if grant is None and scope.startswith(TOOL_SCOPE_PREFIX) and len(scope) > len(TOOL_SCOPE_PREFIX):
            grant = ScopeGrant(frozenset(PermissionTier), allow=(scope[len(TOOL_SCOPE_PREFIX):],))
        return grant

    def disabled(self, name: str) -> bool:
        """Whether the server-wide patterns (``[chain.access] allow``/``deny``) keep the tool
        from every caller: it is then neither listed nor called."""
        return self.denies(name) or not _matches(name, self.allow)

    def denies(self, name: str) -> bool:
        """Whether the server-wide ``deny`` patterns name the tool (they win over ``allow``)."""
        return _matches(name, self.deny)

    def _decide(self, scopes: frozenset[str], name: str, tier: PermissionTier) -> str | None:
        if self.disabled(name):
            return f"The tool {name!r} is disabled on this server by its configuration."
        if name in self.every_caller:
            return None
        needed = self.required_scopes.get(name)
        if needed is not None and needed not in scopes:
            # Not "your token": the stdio caller has none (its scopes are [chain.auth] local_scopes).
            return f"The tool {name!r} needs the {needed} scope, which {_NOT_HELD}"
        grants = [g for g in map(self._grant_for, scopes) if g is not None]
        if any(g.grants(name, tier) for g in grants):
            return None
        held = ", ".join(sorted(scopes)) or "none"
        if any(tier in g.tiers for g in grants):
            return (f"Your scopes ({held}) do not include the tool {name!r}. "
                    f"Ask the operator for the scope {TOOL_SCOPE_PREFIX}{name} {_SCOPES_FROM}.")
        return (f"The tool {name!r} needs the {tier.value!r} permission tier, which your scopes ({held}) "
                f"do not grant. Ask the operator for the scope {_TIER_SCOPE[tier]} "
                f"or {TOOL_SCOPE_PREFIX}{name} {_SCOPES_FROM}.")


class Authorize(CheckStage):
    name = "authorize"

    def __init__(self, authorizer: Authorizer) -> None:
        self.authorizer = authorizer

    async def check(self, call: ToolCall) -> None:
        definition = definition_of(call)
        refusal = self.authorizer.reason(principal_of(call), definition)
        if refusal is not None:
            raise Forbidden(refusal, tool=definition.name, tier=definition.effective_tier.value)
