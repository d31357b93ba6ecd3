"""Rate limits per caller, per caller × tool and for everyone, on real ``limits`` storage."""

from __future__ import annotations

import pytest

from tests.chain.conftest import Clock, make_call, run_handler, tool
from toolbay.chain.ratelimit import RateLimit, RateLimiter, RateLimits
from toolbay.errors import ConfigError, RateLimited
from toolbay.words import Principal

pytestmark = pytest.mark.anyio


async def calls_allowed(limiter: RateLimiter, caller: str, tool_name: str, attempts: int) -> int:
    allowed = 0
    for _ in range(attempts):
        try:
            await limiter.check(caller, tool_name)
            allowed += 1
        except RateLimited:
            pass
    return allowed


async def test_a_caller_over_its_limit_is_refused_with_the_time_to_retry(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="3/minute"))
    assert await calls_allowed(limiter, "alice", "echo", 3) == 3
    clock.now += 20
    with pytest.raises(RateLimited) as refused:
        await limiter.check("alice", "echo")
    assert refused.value.retry_after == pytest.approx(40, abs=0.01)
    assert refused.value.meta["retry_after"] == pytest.approx(40, abs=0.01)
    assert "3 per 1 minute" in refused.value.message and "'alice'" in refused.value.message


async def test_a_caller_may_call_again_once_the_window_has_passed(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="2/second"))
    assert await calls_allowed(limiter, "alice", "echo", 5) == 2
    clock.now += 1.01
    assert await calls_allowed(limiter, "alice", "echo", 5) == 2


async def test_callers_are_counted_apart(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="2/minute"))
    assert await calls_allowed(limiter, "alice", "echo", 4) == 2
    assert await calls_allowed(limiter, "bob", "echo", 4) == 2


async def test_the_per_tool_limit_leaves_the_callers_other_tools_alone(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller_tool="1/minute"))
    assert await calls_allowed(limiter, "alice", "echo", 3) == 1
    assert await calls_allowed(limiter, "alice", "wc", 3) == 1
    with pytest.raises(RateLimited, match="on tool 'echo'"):
        await limiter.check("alice", "echo")


async def test_the_global_limit_counts_everyone_together(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(everyone="3/minute"))
    assert await calls_allowed(limiter, "alice", "echo", 2) == 2
    assert await calls_allowed(limiter, "bob", "wc", 2) == 1
    with pytest.raises(RateLimited, match="all callers together"):
        await limiter.check("carol", "echo")


async def test_a_call_refused_by_one_limit_uses_up_none_of_the_others(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="1/minute", everyone="2/minute"))
    assert await calls_allowed(limiter, "alice", "echo", 10) == 1
    assert await calls_allowed(limiter, "bob", "echo", 1) == 1


async def test_several_limits_apply_together(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="2/second;3/minute"))
    assert await calls_allowed(limiter, "alice", "echo", 5) == 2
    clock.now += 1.5
    assert await calls_allowed(limiter, "alice", "echo", 5) == 1


@pytest.mark.parametrize("strategy", ["moving-window", "sliding-window-counter", "fixed-window"])
async def test_every_strategy_enforces_the_limit(clock: Clock, strategy: str) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="5/minute"), strategy=strategy)
    assert await calls_allowed(limiter, "alice", "echo", 20) == 5


async def test_the_stage_limits_by_the_authenticated_caller(clock: Clock) -> None:
    stage = RateLimit(RateLimiter(RateLimits.parse(per_caller="1/minute")))
    echo = tool()
    alice = Principal(id="alice")
    await stage(make_call(echo, principal=alice), run_handler)
    refused = make_call(echo, principal=alice)
    with pytest.raises(RateLimited):
        await stage(refused, run_handler)
    assert echo.calls == 1
    assert "ratelimit" in refused.timings


def test_a_limit_that_is_not_a_limit_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="^chain\\.rate_limits\\.per_caller: 'ten a second'"):
        RateLimits.parse(per_caller="ten a second")


def test_an_unknown_storage_or_strategy_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="rate_limits.storage"):
        RateLimiter(RateLimits.parse(per_caller="1/second"), storage="nosuch://x")
    with pytest.raises(ConfigError, match="rate_limits.strategy"):
        RateLimiter(RateLimits.parse(per_caller="1/second"), strategy="leaky-bucket")


async def test_polling_a_job_is_counted_against_the_server_wide_limit_only(clock: Clock) -> None:
    """job_status and job_wait were refused after a caller's few calls a minute, cutting it off
    from the results of the jobs it was told to poll every couple of seconds."""
    from toolbay.handlers.jobs import JobStatusTool

    assert JobStatusTool.counted_per_caller is False
    limiter = RateLimiter(RateLimits.parse(per_caller="2/minute", per_caller_tool="2/minute", everyone="5/minute"))
    for _ in range(5):
        await limiter.check("alice", "job_status", per_caller=False)
    with pytest.raises(RateLimited) as refused:  # the server as a whole is still protected
        await limiter.check("alice", "job_status", per_caller=False)
    assert "all callers together" in refused.value.message


async def test_the_stage_counts_a_tool_per_caller_unless_the_tool_says_otherwise(clock: Clock) -> None:
    limiter = RateLimiter(RateLimits.parse(per_caller="1/minute"))
    stage = RateLimit(limiter)
    polled = tool("job_status")
    polled.counted_per_caller = False  # as the job tools declare
    counted = tool("echo")
    alice = Principal(id="alice", scopes=frozenset(), kind="token")
    await stage(make_call(counted, principal=alice), run_handler)
    with pytest.raises(RateLimited):
        await stage(make_call(counted, principal=alice), run_handler)
    for _ in range(3):
        await stage(make_call(polled, principal=alice), run_handler)


async def test_names_no_tool_has_share_one_count_per_caller_and_are_not_repeated(clock: Clock) -> None:
    """A name no tool has was a count of its own (a key of the caller's making, megabytes long,
    one per name tried) and came back whole in the refusal."""
    from toolbay.auth import local_principal

    limiter = RateLimiter(RateLimits.parse(per_caller_tool="2/minute"))
    stage = RateLimit(limiter)
    caller = local_principal([], "mallory")
    names = [letter * 1_000_000 for letter in "abc"]
    await stage.check(make_call(None, name=names[0], principal=caller))
    await stage.check(make_call(None, name=names[1], principal=caller))
    with pytest.raises(RateLimited) as refused:
        await stage.check(make_call(None, name=names[2], principal=caller))
    assert "on names no tool has" in refused.value.message and len(refused.value.message) < 200
    await stage.check(make_call(tool(), principal=caller))  # a tool it has is counted apart


async def test_a_store_that_cannot_be_reached_is_said_at_start_unless_calls_go_through_without_it() -> None:
    """An unreachable store started the server without a word, then refused every call."""
    from toolbay.errors import ConfigError

    closed = RateLimiter(RateLimits.parse(per_caller="1/second"), storage="redis://127.0.0.1:1")
    lets_through = RateLimiter(RateLimits.parse(per_caller="1/second"), storage="redis://127.0.0.1:1", on_outage="open")
    try:
        with pytest.raises(ConfigError, match=r"rate_limits.storage: redis://127.0.0.1:1 cannot be reached"):
            await closed.check_reachable()
        await lets_through.check_reachable()
        await RateLimiter(RateLimits.parse(per_caller="1/second")).check_reachable()  # memory://
    finally:
        await closed.aclose()
        await lets_through.aclose()
