"""The chain as a whole: the order of the stages, and a call through every one of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.chain.conftest import make_call, run_handler, tool
from toolbay.auth import hash_token
from toolbay.chain import (
    Approve,
    Audit,
    Authenticate,
    Authorize,
    ChainPolicies,
    ChainSettings,
    RateLimit,
    Validate,
    build_chain,
    default_stages,
)
from toolbay.chain.approve import Answer
from toolbay.chain.call import CallNext, ToolCall
from toolbay.errors import ApprovalDenied, ConfigError, Forbidden, InvalidArguments, RateLimited, UnknownTool
from toolbay.words import PermissionTier, ToolResult

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self, name: str, seen: list[str]) -> None:
        self.name, self.seen = name, seen

    async def __call__(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        self.seen.append(self.name)
        return await call_next(call)


async def test_the_chain_runs_the_stages_in_the_order_given_then_the_endpoint() -> None:
    seen: list[str] = []

    async def endpoint(call: ToolCall) -> ToolResult:
        seen.append("endpoint")
        return ToolResult(text="done")

    chain = build_chain([Recorder("a", seen), Recorder("b", seen)], endpoint)
    call = make_call(tool())
    assert (await chain(call)).text == "done"
    assert seen == ["a", "b", "endpoint"]
    assert call.timings["tool"] >= 0


@pytest.fixture
def settings(tmp_path: Path) -> ChainSettings:
    (tmp_path / "tokens.toml").write_text(
        f'[[tokens]]\nclient_id = "reader"\nsha256 = "{hash_token("tb_reader")}"\nscopes = ["tools:read"]\n'
        f'[[tokens]]\nclient_id = "admin"\nsha256 = "{hash_token("tb_admin")}"\nscopes = ["tools:exec"]\n')
    return ChainSettings.parse({
        "auth": {"tokens_file": "tokens.toml"},
        "rate_limits": {"per_caller": "3/minute"},
        "approval": {"tiers": ["exec"]},
        "audit": {"file": "audit.jsonl"},
    })


def test_the_default_order_is_audit_authenticate_ratelimit_authorize_validate_approve(
        settings: ChainSettings, tmp_path: Path) -> None:
    stages = default_stages(ChainPolicies.from_settings(settings, base_dir=tmp_path))
    assert [type(s) for s in stages] == [Audit, Authenticate, RateLimit, Authorize, Validate, Approve]


def test_stages_with_nothing_configured_are_left_out() -> None:
    stages = default_stages(ChainPolicies.from_settings(ChainSettings.parse({})))
    assert [type(s) for s in stages] == [Authenticate, Authorize, Validate]


async def test_a_call_passes_every_stage_and_each_is_timed(settings: ChainSettings, tmp_path: Path) -> None:
    async def accept(call: ToolCall, message: str) -> Answer:
        return "accept"

    policies = ChainPolicies.from_settings(settings, ask=accept, base_dir=tmp_path)
    chain = build_chain(default_stages(policies), run_handler)
    sh = tool("sh", tier=PermissionTier.EXEC)
    call = make_call(sh, credential="tb_admin")
    await chain(call)
    assert sh.calls == 1
    assert set(call.timings) == {"authenticate", "ratelimit", "authorize", "validate", "approve", "tool"}
    (line,) = [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert line["caller"] == "admin" and line["outcome"] == "ok"


async def test_each_refusal_comes_from_its_own_stage(settings: ChainSettings, tmp_path: Path) -> None:
    policies = ChainPolicies.from_settings(settings, base_dir=tmp_path)
    chain = build_chain(default_stages(policies), run_handler)
    with pytest.raises(UnknownTool):
        await chain(make_call(None, name="nope", credential="tb_reader"))
    with pytest.raises(Forbidden):
        await chain(make_call(tool("sh", tier=PermissionTier.EXEC), credential="tb_reader"))
    with pytest.raises(InvalidArguments):
        await chain(make_call(tool(), {"wrong": 1}, credential="tb_reader"))
    with pytest.raises(RateLimited):
        await chain(make_call(tool(), credential="tb_reader"))
    with pytest.raises(ApprovalDenied, match="cannot ask its user"):
        await chain(make_call(tool("sh", tier=PermissionTier.EXEC), credential="tb_admin"))
    outcomes = [json.loads(x)["outcome"] for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert outcomes == ["refused:unknown_tool", "refused:forbidden", "refused:invalid_arguments",
                        "refused:rate_limited", "refused:approval_denied"]


def test_a_jwt_section_needs_exactly_one_key_source() -> None:
    with pytest.raises(ConfigError, match="exactly one of key, key_file or jwks_file"):
        ChainPolicies.from_settings(ChainSettings.parse({"auth": {"jwt": {"issuer": "x"}}}))


def test_a_bad_chain_setting_names_its_path() -> None:
    with pytest.raises(ConfigError, match=r"chain\.approval\.tiers\.0"):
        ChainSettings.parse({"approval": {"tiers": ["root"]}})
