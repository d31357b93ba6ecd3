"""The chain behind a real HTTP server: scopes, rate limits, argument validation, approval by
elicitation and the audit file, each as the SDK's client sees it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from tests.chain.conftest import Clock
from tests.chain_e2e.conftest import Tokens, audit_lines, connect, refusal_of, running, served_client, text_of
from toolbay.config import Settings

pytestmark = pytest.mark.anyio


async def test_a_tool_above_the_token_s_tier_is_hidden_and_refused_with_the_reason(
    make_settings: Callable[..., Settings], tokens: Tokens
) -> None:
    async with served_client(make_settings(), tokens["reader"]) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("hashsum", {"text": "abc"})
    assert "hashsum" not in names and "textkit_case" in names
    assert result.is_error is True
    assert refusal_of(result)["code"] == "forbidden"
    assert "needs the 'exec' permission tier" in text_of(result)
    assert "tools:exec or tool:hashsum" in text_of(result)


async def test_a_tool_scope_shows_and_allows_only_the_matching_tools(
    make_settings: Callable[..., Settings], tokens: Tokens
) -> None:
    async with served_client(make_settings(), tokens["textkit-only"]) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        allowed = await client.call_tool("textkit_case", {"to": "upper", "stdin": "a"})
        refused = await client.call_tool("jsonkit_fmt", {"input": "{}"})
    # Besides its tools, only the built-ins that act on the caller's own jobs and on the tools it may use.
    assert {name for name in names if not name.startswith("textkit_")} == {
        "search_tools", "job_status", "job_wait", "job_result", "job_list", "job_cancel"}
    assert allowed.is_error is False
    assert refused.is_error is True
    assert "do not include the tool 'jsonkit_fmt'" in text_of(refused)


async def test_a_caller_allowed_one_tool_may_follow_the_job_it_became_and_search(
    make_settings: Callable[..., Settings], tokens: Tokens
) -> None:
    """A ``tool:`` scope granted the tool but not job_wait or job_result, so its job was lost to
    its caller; nor search_tools, which search-first disclosure lists as essential."""
    async with served_client(make_settings("\n[jobs]\nsync_budget_s = 0\n"), tokens["textkit-only"]) as client:
        accepted = await client.call_tool("textkit_case", {"to": "upper", "stdin": "quiet"})
        job_id = accepted.structured_content["job_id"] if accepted.structured_content else None
        assert job_id is not None, text_of(accepted)
        ended = await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": 30})
        result = await client.call_tool("job_result", {"job_id": job_id})
        listed = await client.call_tool("job_list", {})
        found = await client.call_tool("search_tools", {"query": "change the case of text"})
        beyond = await client.call_tool("search_tools", {"query": "hashsum"})
    assert ended.is_error is False and result.is_error is False, text_of(result)
    assert text_of(result).strip() == "QUIET"
    assert job_id in text_of(listed)
    assert found.is_error is False and "textkit_case" in text_of(found)
    # Search still returns only what the caller may use.
    assert "hashsum" not in [hit["name"] for hit in (beyond.structured_content or {}).get("results", [])]


async def test_a_caller_over_the_rate_limit_is_told_when_to_retry_and_recovers_after_the_window(
    make_settings: Callable[..., Settings], tokens: Tokens, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The limiter's clock is the test's (the server runs in this process): the three calls fall
    # in one window however slowly a busy machine answers them, and the window passes when
    # the test moves the clock on by the time the refusal gave.
    clock = Clock.installed(monkeypatch)
    settings = make_settings('\n[chain.rate_limits]\nper_caller_tool = "2/second"\n')
    arguments = {"to": "upper", "stdin": "x"}
    async with running(settings) as url:
        with anyio.fail_after(30):
            async with connect(url, tokens["reader"]) as reader, connect(url, tokens["operator"]) as operator:
                first = [await reader.call_tool("textkit_case", arguments) for _ in range(2)]
                limited = await reader.call_tool("textkit_case", arguments)
                someone_else = await operator.call_tool("textkit_case", arguments)
                retry_after = refusal_of(limited)["retry_after"]
                clock.now += retry_after + 0.01  # just past the time the refusal named
                recovered = await reader.call_tool("textkit_case", arguments)
    assert [r.is_error for r in first] == [False, False]
    assert limited.is_error is True
    assert refusal_of(limited)["code"] == "rate_limited"
    assert 0 < retry_after <= 1
    assert "Rate limit 2 per 1 second" in text_of(limited) and "Retry after" in text_of(limited)
    assert someone_else.is_error is False  # the limit is per caller
    assert recovered.is_error is False


INVALID_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("a wrong type", {"to": "upper", "stdin": 5}, "$.stdin: expected string, got 5"),
    ("a missing required property", {"stdin": "x"}, "$.to: missing required property"),
    ("an unknown property", {"to": "upper", "colour": "red"}, "$.colour: unknown property"),
    ("a value outside the enum", {"to": "shout"}, '$.to: expected one of "upper"'),
    ("a wrong type inside a list", {"to": "upper", "file": ["a.txt", 3]}, "$.file[1]: expected string"),
]


async def test_every_kind_of_invalid_argument_is_refused_with_its_path(
    make_settings: Callable[..., Settings], tokens: Tokens
) -> None:
    async with served_client(make_settings(), tokens["reader"]) as client:
        results = [await client.call_tool("textkit_case", arguments) for _, arguments, _ in INVALID_CALLS]
    for (kind, _, expected), result in zip(INVALID_CALLS, results, strict=True):
        assert result.is_error is True, kind
        assert refusal_of(result)["code"] == "invalid_arguments", kind
        assert expected in text_of(result), (kind, text_of(result))


def answering(action: str, asked: list[str]) -> Any:
    """An elicitation callback that records the question and gives ``action``."""

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action)  # type: ignore[arg-type]

    return callback


@pytest.mark.parametrize(
    ("action", "runs", "reason"),
    [
        ("accept", True, None),
        ("decline", False, "The user declined to run 'hashsum'"),
        ("cancel", False, "The user cancelled the approval of 'hashsum'"),
    ],
)
async def test_an_exec_tool_runs_only_when_the_person_approves_it(
    make_settings: Callable[..., Settings], tokens: Tokens, action: str, runs: bool, reason: str | None
) -> None:
    asked: list[str] = []
    settings = make_settings('\n[chain.approval]\ntiers = ["exec"]\n')
    async with served_client(settings, tokens["operator"], elicitation_callback=answering(action, asked)) as client:
        result = await client.call_tool("hashsum", {"text": "abc"})
    assert len(asked) == 1 and "'hashsum' (exec tier)" in asked[0] and '"text": "abc"' in asked[0]
    if runs:
        assert result.is_error is False
        assert hashlib.sha256(b"abc").hexdigest() in text_of(result)
    else:
        assert result.is_error is True
        assert refusal_of(result)["code"] == "approval_denied"
        assert reason is not None and reason in text_of(result)


async def test_an_exec_tool_is_refused_when_the_client_cannot_ask_its_user(
    make_settings: Callable[..., Settings], tokens: Tokens
) -> None:
    settings = make_settings('\n[chain.approval]\ntiers = ["exec"]\n')
    async with served_client(settings, tokens["operator"]) as client:  # no elicitation_callback
        result = await client.call_tool("hashsum", {"text": "abc"})
        read_tier = await client.call_tool("textkit_case", {"to": "upper", "stdin": "a"})
    assert result.is_error is True
    assert "cannot ask its user (no elicitation support)" in text_of(result)
    assert read_tier.is_error is False  # only the exec tier needs approval


async def test_the_audit_file_has_a_line_per_call_with_secrets_redacted(
    make_settings: Callable[..., Settings], tokens: Tokens, config_dir: Path
) -> None:
    secret = "hunter2-do-not-log"
    async with served_client(make_settings(), tokens["operator"]) as client:
        await client.call_tool("textkit_case", {"to": "upper", "stdin": "fine"})
        await client.call_tool("textkit_case", {"to": "upper", "password": secret})
    ok, refused = audit_lines(config_dir)
    who = (ok["caller"], ok["caller_kind"], ok["transport"], ok["tool"])
    assert who == ("operator", "token", "http", "textkit_case")
    assert ok["outcome"] == "ok" and ok["arguments"] == {"to": "upper", "stdin": "fine"}
    assert refused["outcome"] == "refused:invalid_arguments"
    assert refused["arguments"]["password"] == "[REDACTED]"
    written = (config_dir / "audit.jsonl").read_text(encoding="utf-8")
    assert secret not in written
    assert tokens["operator"] not in written


async def test_an_approval_answered_with_an_error_refuses_the_call_even_where_clients_that_cannot_ask_may_run(
    make_settings: Callable[..., Settings], tokens: Tokens
) -> None:
    """A client that declared elicitation and answered with a JSON-RPC error was taken for one
    that cannot ask: refused as "no elicitation support", and run where when_unsupported =
    "allow" lets such clients run (an outside probe)."""
    from mcp.shared.exceptions import MCPError

    async def erring(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise MCPError(code=-32000, message="the user's screen is locked")

    settings = make_settings('\n[chain.approval]\ntiers = ["exec"]\nwhen_unsupported = "allow"\n')
    async with served_client(settings, tokens["operator"], elicitation_callback=erring) as client:
        result = await client.call_tool("hashsum", {"text": "abc"})
    assert result.is_error is True and refusal_of(result)["code"] == "approval_denied"
    assert "answered the approval of 'hashsum' with an error" in text_of(result)
    assert hashlib.sha256(b"abc").hexdigest() not in text_of(result)
