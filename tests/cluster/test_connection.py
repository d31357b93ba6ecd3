"""The cluster's Redis connections across a Redis restart, on a real ``redis-server``: no
command fails on a connection the pool held from before, and a listener that was reconnected
behind the caller's back still wakes its waiters."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
import redis

from tests.cluster.servers import RedisServer
from tests.jobs.conftest import Gate, start_job
from toolbay.cluster.connection import open_checked
from toolbay.cluster.jobs import RedisJobStore
from toolbay.errors import ConfigError
from toolbay.jobs import JobManager

pytestmark = pytest.mark.anyio


async def test_no_command_fails_on_a_connection_pooled_before_a_redis_restart(own_redis: RedisServer) -> None:
    client = await open_checked(own_redis.url)
    try:
        # Ten connections in the pool at once, each idle when Redis goes.
        await client.set("kept", "no")
        async with anyio.create_task_group() as group:
            for _ in range(10):
                group.start_soon(client.blpop, ["nothing"], 0.2)
        own_redis.stop(graceful=True)
        own_redis.start()
        answers: list[object] = []

        async def read() -> None:
            answers.append(await client.ping())

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                for _ in range(10):
                    group.start_soon(read)
    finally:
        await client.aclose()
    assert answers == [True] * 10


@pytest.fixture
def persistent_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis", persistent=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def wait_across(url: str, meanwhile: Callable[[], None]) -> list[str]:
    """Two replicas on ``url``: a job runs on one while the other waits for it; once the wait
    is registered, ``meanwhile`` runs, then the job ends. Returns what the wait saw."""
    gate = Gate()
    waited: list[str] = []
    async with AsyncExitStack() as stack:
        managers = []
        for _ in range(2):
            client = await open_checked(url)
            stack.push_async_callback(client.aclose)
            managers.append(await stack.enter_async_context(
                JobManager(RedisJobStore(client), sync_budget_s=0.01, poll_interval_s=1.0)))
        runner, other = managers
        job_id = await start_job(runner, gate)
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:

                async def wait() -> None:
                    waited.append((await other.wait("alice", job_id, timeout_s=3600)).status)

                group.start_soon(wait)
                while not other.store._ended:  # the wait is registered: it must be woken
                    await anyio.sleep(0)
                meanwhile()
                gate.open()
    return waited


async def test_a_wait_on_another_replicas_job_ends_when_the_job_ends_right_after_a_redis_restart(
        persistent_redis: RedisServer) -> None:

    def restart() -> None:
        persistent_redis.stop(graceful=True)
        persistent_redis.start()

    # The end is published whenever it is: before or after the waiting replica's channel is
    # back, the waiter learns of it.
    assert await wait_across(persistent_redis.url, restart) == ["completed"]


async def test_a_wait_ends_when_the_job_ends_while_redis_drops_the_listeners_connection(
        redis_url: str) -> None:

    def drop_listeners() -> None:
        # As on `CLIENT KILL`, an idle timeout or a proxy: the job ends while the listeners
        # reconnect, its end published to nobody.
        with redis.Redis.from_url(redis_url) as plain:
            assert plain.client_kill_filter(_type="pubsub") >= 2

    assert await wait_across(redis_url, drop_listeners) == ["completed"]


async def test_a_tls_url_to_a_redis_without_tls_says_tls_may_be_the_question(own_redis: RedisServer) -> None:
    # A plain Redis waits for the rest of what it took for a command: the start said only
    # "Timeout connecting to server".
    with pytest.raises(ConfigError) as refused:
        await open_checked(own_redis.url.replace("redis://", "rediss://", 1))
    assert "rediss:// speaks TLS: if this Redis does not, write redis://" in str(refused.value)


async def test_a_plain_url_to_a_redis_that_speaks_only_tls_says_tls_may_be_the_question(tmp_path: Path) -> None:
    # It said only "Connection reset by peer" (a re-check).
    server = RedisServer(tmp_path / "redis", tls_only=True)
    server.start()
    try:
        with pytest.raises(ConfigError) as refused:
            await open_checked(server.url)
    finally:
        server.stop()
    assert "(if this Redis speaks only TLS, write rediss://)" in str(refused.value), refused.value
