"""Rate limits on a real Redis: shared by limiters that share it (as replicas do), with the
same strategies and promises as in memory, and an outage that is a tool error or a pass,
never a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.cluster.servers import RedisServer, end, subprocess_drain, wait_for_line
from tests.conftest import as_if_run_before
from toolbay.chain.ratelimit import RateLimiter, RateLimits
from toolbay.cluster.connection import open_checked, shown
from toolbay.errors import ConfigError, LimitsUnavailable, RateLimited

pytestmark = pytest.mark.anyio

Make = Callable[..., RateLimiter]


@pytest.fixture
async def make_limiter() -> AsyncIterator[Make]:
    made: list[RateLimiter] = []

    def make(*args: object, **kwargs: object) -> RateLimiter:
        made.append(RateLimiter(*args, **kwargs))  # type: ignore[arg-type]
        return made[-1]

    yield make
    for limiter in made:
        await limiter.aclose()


async def admitted(limiter: RateLimiter, attempts: int, caller: str = "alice") -> int:
    count = 0
    for _ in range(attempts):
        try:
            await limiter.check(caller, "echo")
            count += 1
        except RateLimited:
            pass
    return count


@pytest.mark.parametrize("strategy", ["moving-window", "fixed-window", "sliding-window-counter"])
async def test_three_limiters_on_one_redis_admit_the_limit_between_them(
    redis_url: str, strategy: str, make_limiter: Make,
) -> None:
    rates = RateLimits.parse(everyone="10/hour")
    replicas = [make_limiter(rates, storage=redis_url, strategy=strategy) for _ in range(3)]
    total = sum([await admitted(limiter, 8) for limiter in replicas])
    assert total == 10


async def test_limiters_on_a_redis_reached_by_its_unix_socket_share_the_limit(
    tmp_path: Path, make_limiter: Make,
) -> None:
    """``[cluster] redis = "unix:///path"`` (a form its settings take and suggest) with any rate
    limit stopped the server at start: "unknown storage scheme : async+unix://" (an outside check)."""
    socket_path = tmp_path / "r.sock"
    process = subprocess.Popen([RedisServer(tmp_path).binary, "--port", "0", "--unixsocket", str(socket_path),
                                "--dir", str(tmp_path), "--save", "", "--daemonize", "no"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wait_for_line(process, "accept connections", "redis-server")  # "... at /path/r.sock" on a socket alone
    drain = subprocess_drain(process)
    try:
        rates = RateLimits.parse(everyone="5/hour")
        replicas = [make_limiter(rates, storage=f"unix://{socket_path}") for _ in range(2)]
        assert sum([await admitted(limiter, 4) for limiter in replicas]) == 5
    finally:
        end(process, drain)


async def test_a_refusal_on_another_limiter_says_when_to_retry(redis_url: str, make_limiter: Make) -> None:
    first, second = (make_limiter(RateLimits.parse(per_caller="2/minute"), storage=redis_url) for _ in range(2))
    await first.check("bob", "echo")
    await first.check("bob", "echo")
    with pytest.raises(RateLimited) as refused:
        await second.check("bob", "echo")
    assert 0 < refused.value.retry_after <= 60
    assert "'bob'" in refused.value.message
    await second.check("carol", "echo")  # another caller is not held up


async def test_a_redis_outage_fails_closed_with_a_tool_error(own_redis: RedisServer, make_limiter: Make) -> None:
    limiter = make_limiter(RateLimits.parse(per_caller="100/second"), storage=own_redis.url)
    await limiter.check("alice", "echo")
    own_redis.stop()
    with pytest.raises(LimitsUnavailable) as refused:
        await limiter.check("alice", "echo")
    assert "rate limits" in refused.value.message and refused.value.meta["retry_after"] > 0
    own_redis.start()  # same port: the limiter reconnects by itself
    await limiter.check("alice", "echo")


async def test_a_redis_outage_fails_open_when_configured(own_redis: RedisServer, make_limiter: Make) -> None:
    limiter = make_limiter(RateLimits.parse(per_caller="1/hour"), storage=own_redis.url, on_outage="open")
    await limiter.check("alice", "echo")
    own_redis.stop()
    for _ in range(3):
        await limiter.check("alice", "echo")  # let through, uncounted
    own_redis.start()
    await limiter.check("alice", "echo")  # the restarted Redis is empty: counted afresh
    with pytest.raises(RateLimited):
        await limiter.check("alice", "echo")


async def test_an_unreachable_redis_is_one_clear_configuration_error(redis_server: RedisServer) -> None:
    with pytest.raises(ConfigError, match=r"\[cluster\] redis: cannot reach redis://127.0.0.1:1/0"):
        await open_checked("redis://127.0.0.1:1/0")
    assert shown("redis://user:secret@host:6379/0") == "redis://user:***@host:6379/0"


async def test_a_redis_that_asks_for_a_password_none_was_given_for_says_where_it_goes(own_redis: RedisServer) -> None:
    """Redis's own words ("HELLO must be called with the client already authenticated...") did not
    say that a password was missing (an outside probe)."""
    client = await open_checked(own_redis.url)  # logged in before the password is asked for
    await client.config_set("requirepass", "s3cret-pass")
    connections = (await client.info("stats"))["total_connections_received"]
    with pytest.raises(ConfigError, match=r"asks for a password: give it in the URL, redis://:PASSWORD@"):
        await open_checked(own_redis.url)
    # Asked once: a refused login was asked again over 16 connections, 3.5 s before it was said.
    assert (await client.info("stats"))["total_connections_received"] - connections == 1
    await client.aclose()
    with_password = own_redis.url.replace("redis://", "redis://:s3cret-pass@")
    await (await open_checked(with_password)).aclose()


def bare_environment(home: Path, **variables: str) -> dict[str, str]:
    """Nothing of the caller's environment but the shared bytecode folder (tests/conftest.py)."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "PYTHONPYCACHEPREFIX": os.environ["PYTHONPYCACHEPREFIX"],
            **variables}


def test_serve_with_an_unreachable_redis_says_so_in_one_line_and_exits_2(tmp_path: Path,
                                                                         shared_data_dir: Path) -> None:
    data_dir = as_if_run_before(tmp_path / "data", shared_data_dir)
    done = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0", "--data-dir", str(data_dir)],
        env=bare_environment(tmp_path, TOOLBAY_CLUSTER__REDIS="redis://127.0.0.1:1/0"),
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("toolbay: [cluster] redis: cannot reach redis://127.0.0.1:1/0")


@pytest.mark.parametrize(("url", "said"), [
    ("http://localhost:6379", "write a Redis URL"),
    # redis-py took a database it cannot read as database 0, and the replica served from it.
    ("redis://127.0.0.1:6379/1x", "the database after the host is a number: redis://host:port/0, not /1x"),
])
def test_a_url_that_is_not_redis_is_refused_at_start(tmp_path: Path, url: str, said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--transport", "http"],
        env=bare_environment(tmp_path, TOOLBAY_CLUSTER__REDIS=url),
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "cluster.redis" in done.stderr and said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("strategy", ["moving-window", "fixed-window", "sliding-window-counter"])
async def test_a_counter_holding_another_kind_of_value_counts_afresh(redis_url: str, strategy: str,
                                                                     make_limiter: Make) -> None:
    """A caller's counter in Redis holding another kind of value (a hash set by hand, or by another
    program using the database) was said to be an outage: every call of that caller was refused
    for good, "the store is unreachable, retry after 5 seconds", while the others' went through.
    It is cleared, and counts afresh."""
    limiter = make_limiter(RateLimits.parse(per_caller="2/hour"), storage=redis_url, strategy=strategy)
    assert await admitted(limiter, 1) == 1
    client = await open_checked(redis_url)
    try:
        damaged = await client.keys("*caller/alice*")
        assert damaged
        for key in damaged:
            await client.delete(key)
            await client.hset(key, "by", "hand")
    finally:
        await client.aclose()
    assert await admitted(limiter, 3) == 2  # counted afresh: the limit holds again
