"""Three real replicas on one real Redis behind a real round-robin haproxy, spoken to with the
SDK's own client: calls and job polling through any replica, a global limit across all of
them, ``kill -9`` of the replica running jobs, and a tool file announced on every replica."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import redis
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.cluster.replicas import GLOBAL_LIMIT, Cluster, logs_on_failure, start_cluster, stop_cluster
from tests.cluster.servers import RedisServer
from tests.conftest import FIXTURE_WASM

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory,
            shared_data_dir: Path) -> Iterator[Cluster]:
    running = start_cluster(tmp_path_factory.mktemp("cluster"), redis_server, shared_data_dir,
                            extra_tools=("progress",))
    try:
        yield running
    finally:
        stop_cluster(running)


@pytest.fixture
async def client(cluster: Cluster) -> AsyncIterator[Client]:
    async with Client(f"{cluster.url}/mcp", mode="legacy") as session:
        yield session


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return dict(result.structured_content)


async def calls_served(url: str, **labels: str) -> float:
    """The tools/calls a replica answered (with these labels), from its /metrics."""
    async with httpx2.AsyncClient(timeout=30) as http:
        text = (await http.get(f"{url}/metrics")).text
    return sum(sample.value for family in text_string_to_metric_families(text)
               for sample in family.samples if sample.name == "toolbay_calls_total"
               and labels.items() <= sample.labels.items())


async def test_a_jobs_polling_and_result_work_whichever_replica_each_request_lands_on(
        cluster: Cluster, client: Client) -> None:
    before = [await calls_served(r.url) for r in cluster.replicas]
    with anyio.fail_after(120):
        # The progress fixture with --gate runs until the test touches its file in the shared
        # workspace: a job still running while it is polled, however busy the machine.
        started = structured(await client.call_tool("progress", {"steps": 1, "step_ms": 0, "gate": "/workspace/go"}))
        job_id = started["job_id"]
        statuses = [structured(await client.call_tool("job_status", {"job_id": job_id}))["status"]
                    for _ in range(3)]
        assert statuses == ["running"] * 3
        (cluster.workspace / "go1").touch()
        waited = structured(await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": 60}))
        assert waited["status"] == "completed"
        results = [await client.call_tool("job_result", {"job_id": job_id}) for _ in range(3)]
        listed = structured(await client.call_tool("job_list", {}))
    assert all(r.content[0].text == "done 1 steps\n" for r in results)
    assert job_id in json.dumps(listed)
    after = [await calls_served(r.url) for r in cluster.replicas]
    # Round robin: every replica answered some of these calls, job tools included.
    assert all(a > b for a, b in zip(after, before, strict=True)), (before, after)
    assert sum([await calls_served(r.url, tool="progress", outcome="job") for r in cluster.replicas]) == 1
    assert sum([await calls_served(r.url, tool="job_status", outcome="ok") for r in cluster.replicas]) == 3


async def test_a_job_started_on_one_replica_is_cancelled_through_the_others(cluster: Cluster) -> None:
    with anyio.fail_after(120):
        async with Client(f"{cluster.replicas[0].url}/mcp", mode="legacy") as first:
            job_id = structured(await first.call_tool("slow", {"ms": 600000}))["job_id"]
        async with Client(f"{cluster.replicas[1].url}/mcp", mode="legacy") as second:
            cancelled = structured(await second.call_tool("job_cancel", {"job_id": job_id}))
        async with Client(f"{cluster.url}/mcp", mode="legacy") as anywhere:
            status = structured(await anywhere.call_tool("job_status", {"job_id": job_id}))
    assert cancelled["status"] == "cancelled" and status["status"] == "cancelled"


async def test_a_global_limit_holds_across_the_three_replicas_under_load(cluster: Cluster) -> None:
    admitted = refused = 0
    attempts = GLOBAL_LIMIT * 3

    async def caller(count: int) -> None:
        nonlocal admitted, refused
        async with Client(f"{cluster.url}/mcp", mode="legacy") as session:
            for _ in range(count):
                result = await session.call_tool("hashsum", {"text": "x"})
                if result.is_error:
                    assert "Rate limit" in result.content[0].text, result.content[0].text
                    refused += 1
                else:
                    admitted += 1

    with anyio.fail_after(55):  # well inside the limit's one-minute window
        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(caller, attempts // 6)
    # Other tests in this module used some of the window before: never more than the limit.
    assert admitted <= GLOBAL_LIMIT
    assert admitted + refused == attempts and refused >= attempts - GLOBAL_LIMIT
    with redis.Redis.from_url(cluster.redis.url) as plain:  # the next tests start from a fresh window
        for key in plain.scan_iter("LIMITS*"):
            plain.delete(key)


async def test_a_file_dropped_into_the_shared_folder_is_announced_on_every_replica(cluster: Cluster) -> None:
    heard: list[int] = []
    with anyio.fail_after(180):
        async with anyio.create_task_group() as group:
            ready = [anyio.Event() for _ in cluster.replicas]

            async def listen(index: int) -> None:
                async with Client(f"{cluster.replicas[index].url}/mcp") as session, \
                        session.listen(tools_list_changed=True) as subscription:
                    ready[index].set()
                    async for _event in subscription:
                        names = {tool.name for tool in (await session.list_tools()).tools}
                        if "echo" in names:
                            heard.append(index)
                            return

            for index in range(len(cluster.replicas)):
                group.start_soon(listen, index)
            for event in ready:
                await event.wait()
            shutil.copy(FIXTURE_WASM / "echo.wasm", cluster.extensions / "echo.wasm")
    assert sorted(heard) == [0, 1, 2]


async def test_a_tasks_end_reaches_listeners_on_every_replica(cluster: Cluster) -> None:
    """A job run on one replica and cancelled through another: a client listening on a third
    for the job's result hears that it changed (the task ended)."""
    with anyio.fail_after(120):
        async with Client(f"{cluster.replicas[1].url}/mcp", mode="legacy") as runner:
            job_id = structured(await runner.call_tool("slow", {"ms": 600000}))["job_id"]
        uri = f"toolbay://jobs/{job_id}/result"
        async with Client(f"{cluster.replicas[0].url}/mcp") as listener, \
                listener.listen(resource_subscriptions=[uri]) as subscription:
            async with Client(f"{cluster.replicas[2].url}/mcp", mode="legacy") as other:
                structured(await other.call_tool("job_cancel", {"job_id": job_id}))
            async for event in subscription:
                heard = getattr(event, "uri", None)
                break
            status = structured(await listener.call_tool("job_status", {"job_id": job_id}))
    assert heard == uri and status["status"] == "cancelled"


async def test_a_redis_restart_mid_load_degrades_clearly_and_recovers_losing_no_finished_job(
        cluster: Cluster, client: Client) -> None:
    with anyio.fail_after(120):
        finished = structured(await client.call_tool("slow", {"ms": 500, "message": "survives the restart"}))
        done = structured(await client.call_tool("job_wait", {"job_id": finished["job_id"], "timeout_s": 60}))
        assert done["status"] == "completed"
        cluster.redis.stop(graceful=True)  # as an operator's restart: Redis writes its file and exits
        # Down: every replica answers, with tool errors that say what is wrong, never a 500.
        for _ in range(len(cluster.replicas)):
            limited = await client.call_tool("hashsum", {"text": "x"})
            assert limited.is_error and "cannot check its rate limits" in limited.content[0].text
        cluster.redis.start()
        # Back: each replica's next call reconnects; a few attempts reach every replica.
        answered = 0
        while answered < 2 * len(cluster.replicas):
            result = await client.call_tool("hashsum", {"text": "x"})
            answered = answered + 1 if not result.is_error else 0
        kept = await client.call_tool("job_result", {"job_id": finished["job_id"]})
    assert "survives the restart" in kept.content[0].text
    assert all(replica.process.poll() is None for replica in cluster.replicas)


async def test_kill_9_of_the_replica_running_jobs_hands_them_over_within_the_lease(cluster: Cluster) -> None:
    victim, survivors = cluster.replicas[-1], cluster.replicas[:-1]
    with logs_on_failure(cluster), anyio.fail_after(180):
        # The progress fixture (read tier here) with --gate: each job ends when the test touches
        # its files in the shared workspace, the reader only once its replica is dead.
        async with Client(f"{victim.url}/mcp", mode="legacy") as on_victim:
            finished_id = structured(await on_victim.call_tool(
                "progress", {"steps": 1, "step_ms": 0, "gate": "/workspace/kept"}))["job_id"]
            (cluster.workspace / "kept1").touch()
            done = structured(await on_victim.call_tool("job_wait", {"job_id": finished_id, "timeout_s": 60}))
            assert done["status"] == "completed"
            reader = structured(await on_victim.call_tool(
                "progress", {"steps": 2, "step_ms": 0, "gate": "/workspace/again"}))["job_id"]
            writer = structured(await on_victim.call_tool("slowwrite", {"ms": 600000}))["job_id"]
        victim.kill()
        for step in (1, 2):
            (cluster.workspace / f"again{step}").touch()
        async with Client(f"{cluster.url}/mcp", mode="legacy") as anywhere:
            read_view = structured(await anywhere.call_tool("job_wait", {"job_id": reader, "timeout_s": 60}))
            write_view = structured(await anywhere.call_tool("job_wait", {"job_id": writer, "timeout_s": 60}))
            read_result = await anywhere.call_tool("job_result", {"job_id": reader})
            write_result = await anywhere.call_tool("job_result", {"job_id": writer})
            kept = await anywhere.call_tool("job_result", {"job_id": finished_id})
        assert read_view["status"] == "completed" and read_result.content[0].text == "done 2 steps\n"
        assert write_view["status"] == "interrupted"
        assert "call slowwrite again" in write_result.content[0].text
        assert kept.content[0].text == "done 1 steps\n"  # a job that ended before the kill keeps its result
    for survivor in survivors:
        assert survivor.process.poll() is None
