"""Authorization: tier scopes, tool scopes, configured scopes and server-wide patterns."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.chain.conftest import make_call, run_handler, tool
from toolbay.chain.authorize import Authorize, Authorizer, ScopeGrant
from toolbay.errors import Forbidden, UnknownTool
from toolbay.words import PermissionTier, Principal

pytestmark = pytest.mark.anyio
READ, WRITE, EXEC = PermissionTier.READ, PermissionTier.WRITE, PermissionTier.EXEC
Make = Callable[..., Principal]


@pytest.mark.parametrize(
    ("scope", "usable"),
    [("tools:read", {READ}), ("tools:write", {READ, WRITE}), ("tools:exec", {READ, WRITE, EXEC})],
)
def test_each_tier_scope_includes_the_tiers_below_it(principal: Make, scope: str, usable: set) -> None:
    authorizer = Authorizer()
    for tier in (READ, WRITE, EXEC):
        assert authorizer.can_use(principal(scope), tool(tier=tier).definition) == (tier in usable)


def test_a_tool_without_a_declared_tier_needs_exec(principal: Make) -> None:
    undeclared = tool(tier=None).definition
    assert not Authorizer().can_use(principal("tools:write"), undeclared)
    assert Authorizer().can_use(principal("tools:exec"), undeclared)


def test_a_tool_scope_grants_matching_tools_at_any_tier(principal: Make) -> None:
    caller = principal("tool:text*")
    assert Authorizer().can_use(caller, tool("textkit_upper", tier=EXEC).definition)
    assert not Authorizer().can_use(caller, tool("wc", tier=READ).definition)


def test_a_caller_without_scopes_may_use_nothing(principal: Make) -> None:
    assert not Authorizer().can_use(principal(), tool(tier=READ).definition)


def test_unknown_scopes_grant_nothing(principal: Make) -> None:
    assert not Authorizer().can_use(principal("admin", "tool:"), tool(tier=READ).definition)


def test_configured_scopes_grant_their_tiers_within_their_patterns(principal: Make) -> None:
    authorizer = Authorizer(scopes={"ci": ScopeGrant(frozenset({READ, WRITE}), allow=("lint*",), deny=("lint_fix",))})
    assert authorizer.can_use(principal("ci"), tool("lint_check", tier=WRITE).definition)
    assert not authorizer.can_use(principal("ci"), tool("lint_fix", tier=READ).definition)
    assert not authorizer.can_use(principal("ci"), tool("lint_run", tier=EXEC).definition)
    assert not authorizer.can_use(principal("ci"), tool("wc", tier=READ).definition)


def test_the_server_wide_deny_list_wins_over_every_scope(principal: Make) -> None:
    authorizer = Authorizer(deny=("danger_*",))
    denied = tool("danger_rm", tier=READ).definition
    assert not authorizer.can_use(principal("tools:exec", "tool:danger_rm"), denied)
    assert "disabled on this server" in (authorizer.reason(principal("tools:exec"), denied) or "")


def test_the_server_wide_allow_list_hides_everything_else(principal: Make) -> None:
    authorizer = Authorizer(allow=("wc",))
    assert authorizer.can_use(principal("tools:exec"), tool("wc").definition)
    assert not authorizer.can_use(principal("tools:exec"), tool("echo").definition)


def test_the_listing_shows_only_the_tools_the_caller_may_use(principal: Make) -> None:
    definitions = [tool("cat", tier=READ).definition, tool("rm", tier=WRITE).definition,
                   tool("sh", tier=EXEC).definition]
    assert [d.name for d in Authorizer().visible(principal("tools:write"), definitions)] == ["cat", "rm"]


def test_a_caller_s_rights_over_ten_thousand_tools_are_worked_out_once(principal: Make) -> None:
    """The decisions were kept up to 8,192 and then forgotten all at once: over a catalog of
    10,000 tools every listing and every search decided every tool anew, and a search for a
    word they all have took 0.6 s of the event loop (an outside check). Counted here as the
    decisions made, not timed."""

    class Counted(Authorizer):
        made = 0

        def _decide(self, scopes: frozenset[str], name: str, tier: PermissionTier) -> str | None:
            Counted.made += 1
            return super()._decide(scopes, name, tier)

    definitions = [tool(f"report_{number}", tier=READ).definition for number in range(10_000)]
    authorizer, caller = Counted(), principal("tools:read")
    for _ in range(3):
        assert len(authorizer.visible(caller, definitions)) == 10_000
    assert Counted.made == 10_000


def test_the_reason_names_the_tier_needed_and_the_scope_to_ask_for(principal: Make) -> None:
    reason = Authorizer().reason(principal("tools:read"), tool("sh", tier=EXEC).definition)
    assert reason == ("The tool 'sh' needs the 'exec' permission tier, which your scopes (tools:read) do not "
                      "grant. Ask the operator for the scope tools:exec or tool:sh ([chain.auth] local_scopes for "
                      "the stdio caller, anonymous_scopes for an HTTP caller without a token, a token's own for a "
                      "token's holder).")


def test_the_reason_says_when_the_tier_is_granted_but_not_the_tool(principal: Make) -> None:
    authorizer = Authorizer(scopes={"ci": ScopeGrant(frozenset({READ}), allow=("lint*",))})
    reason = authorizer.reason(principal("ci"), tool("wc", tier=READ).definition)
    assert reason is not None and "do not include the tool 'wc'" in reason


async def test_a_call_to_a_tool_the_caller_may_not_use_is_refused_before_it_runs(principal: Make) -> None:
    sh = tool("sh", tier=EXEC)
    with pytest.raises(Forbidden, match="needs the 'exec' permission tier") as refused:
        await Authorize(Authorizer())(make_call(sh, principal=principal("tools:read")), run_handler)
    assert sh.calls == 0
    assert refused.value.meta == {"tool": "sh", "tier": "exec"}


async def test_a_call_to_a_tool_the_caller_may_use_runs(principal: Make) -> None:
    cat = tool("cat", tier=READ)
    result = await Authorize(Authorizer())(make_call(cat, principal=principal("tools:read")), run_handler)
    assert not result.is_error and cat.calls == 1


async def test_a_call_to_an_unknown_tool_is_refused_as_unknown(principal: Make) -> None:
    with pytest.raises(UnknownTool, match="no tool named 'nope'"):
        await Authorize(Authorizer())(make_call(None, name="nope", principal=principal("tools:exec")), run_handler)
