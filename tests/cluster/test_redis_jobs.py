"""Jobs on a real Redis shared by two job managers in one process, as two replicas would be:
either answers for the other's jobs, a wait wakes on the end, a cancel reaches the runner,
and a replica that stops renewing its lease has its jobs taken over or marked interrupted."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
import pytest
import redis.asyncio as aioredis

from tests.cluster.servers import RedisServer
from tests.jobs.conftest import Gate, start_job
from toolbay.cluster.connection import open_checked, pool_for
from toolbay.cluster.jobs import CANCEL_CHANNEL, FINISHED, GONE, UNFINISHED, RedisJobStore, _job_key, _lease_key
from toolbay.errors import JobStoreUnavailable, NoSuchJob, StorageDamaged, StorageError, StorageGone
from toolbay.jobs import JobManager, JobRecord, JobView
from toolbay.jobs.manager import Recover
from toolbay.jobs.store import DAMAGED_RECORD
from toolbay.words import CallContext, ToolResult

pytestmark = pytest.mark.anyio

class Replicas:
    """Makes job managers on the test's Redis, each with its own client, as replicas have."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.clients: list[aioredis.Redis] = []

    async def client(self) -> aioredis.Redis:
        self.clients.append(await open_checked(self.url))
        return self.clients[-1]

    def manager(self, client: aioredis.Redis, *, lease_s: float = 10.0, recover: Recover | None = None,
                **options: Any) -> JobManager:
        return JobManager(RedisJobStore(client, lease_s=lease_s), sync_budget_s=0.01, poll_interval_s=1.0,
                          recover=recover, takeover_interval_s=lease_s / 4, **options)


@pytest.fixture
async def replica(redis_url: str) -> AsyncIterator[Replicas]:
    replicas = Replicas(redis_url)
    yield replicas
    for client in replicas.clients:
        await client.aclose()


async def two(replica: Replicas, stack: AsyncExitStack, **options: object) -> list[JobManager]:
    managers = []
    for _ in range(2):
        client = await replica.client()
        managers.append(await stack.enter_async_context(replica.manager(client, **options)))
    return managers


async def woken_by_the_end(other: JobManager, gate: Gate, job_id: str) -> JobView:
    """``other``'s wait for alice's job ``job_id``, whose ``gate`` is opened once the wait is
    registered on ``other`` (before the job ends): it must be woken by the end, not poll."""
    async def open_when_waiting() -> None:
        while not other.store._ended:
            await anyio.sleep(0)
        gate.open()

    async with anyio.create_task_group() as group:
        group.start_soon(open_when_waiting)
        return await other.wait("alice", job_id, timeout_s=3600)


async def test_a_job_started_on_one_replica_is_read_waited_on_and_listed_on_the_other(
        replica: Replicas) -> None:
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        assert (await other.status("alice", job_id)).status == "running"
        assert [v.id for v in await other.list("alice")] == [job_id]
        with pytest.raises(NoSuchJob):
            await other.status("mallory", job_id)  # another owner sees nothing
        assert await other.result("alice", job_id) is None

        with anyio.fail_after(10):
            view = await woken_by_the_end(other, gate, job_id)
        assert view.status == "completed"
        result = await other.result("alice", job_id)
        assert result is not None and result.text == "done"
        events = [e.kind for e in await other.events("alice", job_id)]
        assert events[0] == "started" and events[-1] == "finished"


async def test_a_cancel_on_one_replica_stops_the_job_running_on_the_other(
        replica: Replicas) -> None:
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        with anyio.fail_after(20):
            view = await other.cancel("alice", job_id)
        assert view.status == "cancelled"
        assert gate.seen_cancel  # the guest's cancel flag was set on the replica running it
        result = await other.result("alice", job_id)
        assert result is not None and "cancelled" in result.text


async def test_a_dead_replicas_read_job_runs_again_elsewhere_and_its_other_jobs_read_interrupted(
        replica: Replicas) -> None:
    gate, rerun = Gate(), Gate("done again")
    ended = anyio.Event()

    def recover(record: JobRecord) -> Callable[[CallContext], object] | None:
        if record.tool != "reader":
            return None

        async def work(ctx: CallContext) -> ToolResult:
            result = await rerun(ctx)
            ended.set()
            return result

        return work

    async with AsyncExitStack() as stack:
        survivor = await stack.enter_async_context(
            replica.manager(await replica.client(), lease_s=1.0, recover=recover))
        # A replica that stops renewing its lease, as one killed would: its lease (1 s) runs out.
        dying = JobManager(StoppedHeart(await replica.client(), lease_s=1.0),
                           sync_budget_s=0.01)
        await stack.enter_async_context(dying)
        reader = await start_job(dying, gate, tool="reader")
        writer = await start_job(dying, gate, tool="writer")
        with anyio.fail_after(30):  # the survivor looks every 0.25 s
            await rerun.started.wait()
            interrupted = await survivor.wait("alice", writer, timeout_s=30)
            assert interrupted.status == "interrupted"
            assert "call writer again" in (await survivor.result("alice", writer)).text  # type: ignore[union-attr]
            # Not dead after all (cut off from Redis, or stalled): its runs end, while the survivor
            # runs the read job again. Its end of that job was recorded over the survivor's run
            # (a 30 s job shown as running 12 s); its end of the write job was lost, the record
            # saying it did not run and to call it again, though it had run to its end.
            gate.open()
            assert await dying.drain(30) == 0
            assert (await survivor.status("alice", reader)).status == "running"
            rerun.open()
            view = await survivor.wait("alice", reader, timeout_s=30)
            await ended.wait()
        assert view.status == "completed"
        assert (await survivor.result("alice", reader)).text == "done again"  # type: ignore[union-attr]
        written = await survivor.status("alice", writer)
        assert written.status == "completed" and written.reason is None  # not the takeover's reason
        assert (await survivor.result("alice", writer)).text == "done"  # type: ignore[union-attr]


class StoppedHeart(RedisJobStore):
    async def _keep_lease(self, on_cancel: Any = None) -> None:
        await anyio.sleep_forever()


class StalledHeart(RedisJobStore):
    """A replica that cannot renew its lease until ``resume`` is set (cut off from Redis, or
    stopped with SIGSTOP), then renews it as before."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.resume = anyio.Event()

    async def _renew_lease(self) -> None:
        if self._renewing_since is not None and not self.resume.is_set():  # its first renewal, at open, goes
            await self.resume.wait()
        await super()._renew_lease()


async def test_a_replica_back_after_its_read_job_was_taken_over_stops_running_it(replica: Replicas) -> None:
    """Taken for dead while it was only cut off or stalled, a replica ran on the read job the
    survivor ran again: the job ran twice at once (an outside check: both runs in full)."""
    mine, rerun = Gate("done here"), Gate("done again")

    def recover(record: JobRecord) -> Callable[[CallContext], object] | None:
        return rerun if record.tool == "reader" else None

    async with AsyncExitStack() as stack:
        survivor = await stack.enter_async_context(
            replica.manager(await replica.client(), lease_s=1.0, recover=recover))
        stalled = StalledHeart(await replica.client(), lease_s=1.0)
        cut_off = await stack.enter_async_context(JobManager(stalled, sync_budget_s=0.01))
        reader = await start_job(cut_off, mine, tool="reader")
        with anyio.fail_after(30):
            await rerun.started.wait()  # taken over: its lease ran out
            stalled.resume.set()
            assert await cut_off.drain(30) == 0  # stopped here, though its gate never opened
            assert mine.seen_cancel
            assert (await survivor.status("alice", reader)).status == "running"
            rerun.open()
            view = await survivor.wait("alice", reader, timeout_s=30)
        assert view.status == "completed"
        assert (await survivor.result("alice", reader)).text == "done again"  # type: ignore[union-attr]
        mine.open()


async def test_a_redis_outage_is_a_tool_error_for_job_reads_and_the_running_job_still_ends(
        own_redis: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    client = await open_checked(own_redis.url)
    gate = Gate()
    try:
        async with JobManager(RedisJobStore(client), sync_budget_s=0.01) as manager:
            job_id = await start_job(manager, gate)
            own_redis.stop()
            # A refusal with when to try again; where Redis is stays in the operator's log.
            with pytest.raises(JobStoreUnavailable, match="shared job store") as refused:
                await manager.list("alice")
            assert refused.value.meta == {"retry_after": 5.0} and isinstance(refused.value, StorageError)
            assert str(own_redis.port) not in refused.value.message and "127.0.0.1" not in refused.value.message
            with pytest.raises(JobStoreUnavailable):
                await manager.status("mallory", job_id)
            own_redis.start()
            gate.open()
            # The restarted Redis is empty (no persistence in this test, unlike deploy/): the
            # record is gone, so the end has nothing to be written to. It was dropped without a
            # word, and the job said unknown (an outside check): the manager answers for it from
            # memory, the log saying why, and serves new jobs.
            with anyio.fail_after(30):
                ended = await manager.wait("alice", job_id, timeout_s=30)
            assert ended.status == "completed"
            assert "its record is gone from the shared job store" in caplog.text
            again = Gate()
            again.open()
            second = await start_job(manager, again)
            with anyio.fail_after(30):
                assert (await manager.wait("alice", second, timeout_s=30)).status == "completed"
    finally:
        await client.aclose()


async def test_a_job_that_ends_while_redis_is_paused_is_recorded_once_it_answers(
        own_redis: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    """Redis stopped (SIGSTOP) as a job ends: the end cannot be written then (the command times
    out), and is written once Redis answers again, as another replica sees it."""
    # The replica's client as the cluster makes it, but with a command timeout of 1 s, not 5 s:
    # what is asserted is what follows the timeout, not its length.
    client = aioredis.Redis.from_pool(pool_for(own_redis.url, socket_timeout=1.0))
    await client.ping()
    reader = await open_checked(own_redis.url)
    gate = Gate()
    assert own_redis.process is not None
    try:
        async with JobManager(RedisJobStore(client), sync_budget_s=0.01) as manager:
            job_id = await start_job(manager, gate)
            own_redis.process.send_signal(signal.SIGSTOP)
            try:
                gate.open()
                with anyio.fail_after(120):  # a guard against a hang only
                    while not any("could not record" in r.getMessage() for r in caplog.records):
                        await anyio.sleep(0.05)
            finally:
                own_redis.process.send_signal(signal.SIGCONT)
            with anyio.fail_after(120):
                # Here the job is over: its end written, or given up on for good.
                await manager.wait("alice", job_id, timeout_s=120)
            store = RedisJobStore(reader)  # another replica's view: what is in Redis
            record, result = await store.get("alice", job_id), await store.get_result("alice", job_id)
        assert record is not None and record.status == "completed"
        assert result is not None and result.text == "done"
    finally:
        await client.aclose()
        await reader.aclose()


async def test_a_burst_of_jobs_ending_together_is_recorded_whole(replica: Replicas) -> None:
    gate = Gate()
    async with AsyncExitStack() as stack:
        manager = await stack.enter_async_context(
            replica.manager(await replica.client(), max_concurrent=300, max_per_caller=300))
        ids = [await start_job(manager, gate) for _ in range(300)]
        gate.open()  # 300 ends written at once: more than the client's connections
        with anyio.fail_after(60):
            views = [await manager.wait("alice", job_id, timeout_s=60) for job_id in ids]
        assert {view.status for view in views} == {"completed"}
        assert len(await manager.list("alice", "completed", limit=1000)) == 300


async def test_a_replica_stopped_for_a_deploy_leaves_its_read_jobs_to_another(
        replica: Replicas) -> None:
    gate, rerun = Gate(), Gate("done after the deploy")

    def recover(record: JobRecord) -> Callable[[CallContext], object] | None:
        return rerun if record.tool == "reader" else None

    async with AsyncExitStack() as stack:
        survivor = await stack.enter_async_context(
            replica.manager(await replica.client(), lease_s=1.0, recover=recover))
        async with replica.manager(await replica.client(), lease_s=1.0, recover=recover) as stopping:
            reader = await start_job(stopping, gate, tool="reader")
            writer = await start_job(stopping, gate, tool="writer")
        # Stopped: its lease is dropped at once, the writer is interrupted, the reader left.
        assert (await survivor.status("alice", writer)).status == "interrupted"
        with anyio.fail_after(30):
            await rerun.started.wait()
            rerun.open()
            view = await survivor.wait("alice", reader, timeout_s=30)
        assert view.status == "completed"
        assert (await survivor.result("alice", reader)).text == "done after the deploy"  # type: ignore[union-attr]


async def test_a_job_brought_back_unfinished_by_an_older_copy_of_redis_is_recovered_by_its_replica(
        replica: Replicas) -> None:
    """Redis restored from a snapshot taken while the job ran says it still runs on a replica
    that keeps its lease, so nobody took it over: "running" for ever, job_cancel changed
    nothing, until that replica was restarted."""
    from toolbay.cluster.jobs import FINISHED, UNFINISHED, _job_key

    async with AsyncExitStack() as stack:
        client = await replica.client()
        manager = await stack.enter_async_context(replica.manager(client, lease_s=0.4))
        gate = Gate()
        gate.open()
        job_id = await start_job(manager, gate)
        with anyio.fail_after(30):
            assert (await manager.wait("alice", job_id, timeout_s=30)).status == "completed"
        # What the older copy holds: the job as it was while it ran.
        await client.hset(_job_key(job_id), mapping={"status": "running", "finished_at": "", "result": ""})
        await client.zrem(FINISHED, job_id)
        await client.zadd(UNFINISHED, {job_id: 1.0})
        with anyio.fail_after(30):
            while (ended := await manager.status("alice", job_id)).status == "running":
                await anyio.sleep(0.05)
        assert ended.status == "interrupted"


async def test_a_job_queued_again_to_run_after_a_crash_records_its_new_start(replica: Replicas) -> None:
    async with RedisJobStore(await replica.client()) as store:
        await store.create(JobRecord(id="job_r", owner="alice", tool="cat", status="queued", created_at=1.0,
                                     updated_at=1.0))
        await store.set_status("job_r", "running", at=2.0)
        first = await store.get("alice", "job_r")
        await store.set_status("job_r", "queued", at=10.0)  # the replica died; another runs it again
        await store.set_status("job_r", "running", at=11.0)
        await store.finish("job_r", "completed", ToolResult("done"), at=12.0)
        record = await store.get("alice", "job_r")
    assert first is not None and first.started_at == 2.0  # a job made queued gets its start too
    assert record is not None and (record.started_at, record.finished_at) == (11.0, 12.0)


async def test_a_replica_stopped_for_a_deploy_hands_its_read_jobs_over_at_once_not_a_lease_later(
        replica: Replicas) -> None:
    """Its lease was deleted, which reads like a lease lost in a Redis outage: the others waited
    a whole lease_s before taking its jobs (19 s at the default 10; found by an outside probe).
    With a lease of a minute, a job handed over within the test's 30 s was handed over at once."""
    gate, rerun = Gate(), Gate("done after the deploy")

    def recover(record: JobRecord) -> Callable[[CallContext], object] | None:
        return rerun if record.tool == "reader" else None

    def manager(client: aioredis.Redis) -> JobManager:
        return JobManager(RedisJobStore(client, lease_s=60.0), sync_budget_s=0.01, recover=recover,
                          takeover_interval_s=0.05)

    async with manager(await replica.client()) as survivor:
        async with manager(await replica.client()) as stopping:
            reader = await start_job(stopping, gate, tool="reader")
        with anyio.fail_after(30):
            await rerun.started.wait()
            rerun.open()
            view = await survivor.wait("alice", reader, timeout_s=30)
        assert view.status == "completed"


async def test_a_status_and_a_listing_read_neither_arguments_nor_result(redis_url: str) -> None:
    """Each job_status read the job's whole hash, its result with it (a large one at every
    poll), and a listing page every job's; a run reads its arguments still."""
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client, lease_s=10.0)
        big = "x" * 1_000_000
        await store.create(JobRecord(id="job_big", owner="alice", tool="t", arguments={"text": big},
                                     status="running", created_at=1.0, updated_at=1.0))
        [unfinished] = [r for r in await store.list_unfinished() if r.id == "job_big"]
        assert unfinished.arguments == {"text": big}
        await store.finish("job_big", "completed", ToolResult(big), at=2.0)
        status = await store.get("alice", "job_big")
        assert status is not None and (status.status, status.finished_at, status.arguments) == ("completed", 2.0, {})
        assert [(r.id, r.status, r.arguments) for r in await store.list_jobs("alice")] == [
            ("job_big", "completed", {})]
        assert await store.get("mallory", "job_big") is None
        assert await store.get("alice", "job_none") is None
        assert await store.get_result("alice", "job_big") == ToolResult(big)
    finally:
        await client.aclose()


async def _running_jobs(store: RedisJobStore, owner: str, count: int) -> None:
    """Jobs job_<o>0 .. of ``owner`` (``<o>``: its first letter), running, created at 1, 2, ..."""
    for n in range(count):
        await store.create(JobRecord(id=f"job_{owner[0]}{n}", owner=owner, tool="t", arguments={}, status="running",
                                     created_at=float(n + 1), updated_at=float(n + 1)))


async def test_a_damaged_job_record_is_said_as_damaged_and_the_callers_other_jobs_stay_listed(redis_url: str) -> None:
    """A status no job has, a time that is not a number, a string where a job's hash should be
    (edits by hand): each was an internal error, or "cannot reach Redis, retry after 5 seconds",
    for every listing of its caller, for good (an outside check). The SQLite store reads such a
    row as a failed job saying it is damaged; so does this one."""
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client, lease_s=10.0)
        await _running_jobs(store, "dora", 4)
        await client.hset(_job_key("job_d1"), "status", "weird")
        await client.hset(_job_key("job_d2"), "created_at", "yesterday")
        await client.hset(_job_key("job_d4"), mapping={
            "id": "job_d4", "owner": "dora", "tool": "t", "status": "running", "created_at": "inf",
            "updated_at": "1e300", "reason": b"\xff"})
        await client.zadd("toolbay:jobs:owner:dora", {"job_d4": 5.0})
        await client.delete(_job_key("job_d3"))
        await client.set(_job_key("job_d3"), "garbage")
        listed = {r.id: (r.status, r.reason) for r in await store.list_jobs("dora")}
        assert listed["job_d0"] == ("running", None)
        assert listed["job_d1"] == ("failed", f"{DAMAGED_RECORD} (status 'weird' is no job's)")
        assert listed["job_d2"] == ("running", f"{DAMAGED_RECORD} (created_at is not a time)")
        assert "job_d3" not in listed
        # Not a time though a number ("inf", 1e300), and bytes that are not UTF-8 (a re-check)
        assert listed["job_d4"] == ("running", f"{DAMAGED_RECORD} (created_at is not a time; updated_at is not a "
                                               "time; a text that is not UTF-8)")
        with pytest.raises(StorageDamaged, match="holds a damaged record"):
            await store.get("dora", "job_d3")
    finally:
        await client.aclose()


async def test_unfinished_jobs_are_read_though_ones_arguments_are_nested_too_deeply(redis_url: str) -> None:
    """A job's arguments in Redis edited by hand to JSON nested too deeply for Python's reader
    (100,000 brackets) raised RecursionError, not the ValueError looked for, in the reading of the
    unfinished jobs a replica takes over or marks interrupted as it starts; arguments that are
    not JSON are said as a damaged record, and so are these."""
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client, lease_s=10.0)
        await _running_jobs(store, "nina", 2)
        await client.hset(_job_key("job_n1"), "arguments", "[" * 100_000 + "]" * 100_000)
        found = {record.id: record for record in await store.list_unfinished()}
        assert found["job_n0"].reason is None
        damaged = found["job_n1"]
        assert damaged.arguments == {} and (damaged.reason or "").startswith(f"{DAMAGED_RECORD} (arguments: ")
    finally:
        await client.aclose()


async def test_a_stored_result_nested_too_deeply_is_said_lost(redis_url: str) -> None:
    """A job's stored result edited by hand to JSON nested too deeply for Python's reader raised
    RecursionError, not the errors looked for: its job_result was an internal error where a
    result that is not JSON is said lost, with a word to run the tool again."""
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client, lease_s=10.0)
        await _running_jobs(store, "rita", 1)
        await client.hset(_job_key("job_r0"), "result", "[" * 100_000 + "]" * 100_000)
        result = await store.get_result("rita", "job_r0")
        assert result is not None and result.is_error and "Run the tool again" in result.text
    finally:
        await client.aclose()


async def test_a_job_whose_creation_failed_halfway_is_not_left_listed_as_running(redis_url: str) -> None:
    """Redis runs every command of a transaction though one fails: with the index of unfinished
    jobs damaged, the record landed without it, and a job its caller was told had stopped was
    listed as running for ever (an outside check)."""
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client, lease_s=10.0)
        saved = await client.dump(UNFINISHED)
        await client.delete(UNFINISHED)
        await client.set(UNFINISHED, "garbage")
        try:
            with pytest.raises(StorageDamaged):
                await store.create(JobRecord(id="job_half", owner="hal", tool="t", arguments={}, status="running",
                                             created_at=1.0, updated_at=1.0))
        finally:
            await client.delete(UNFINISHED)
            if saved is not None:
                await client.restore(UNFINISHED, 0, saved)
        assert await store.get("hal", "job_half") is None
        assert await store.list_jobs("hal") == []
        # The owner's index damaged instead: the id was left among the unfinished (a re-check).
        await client.set("toolbay:jobs:owner:hal", "garbage")
        with pytest.raises(StorageDamaged):
            await store.create(JobRecord(id="job_half2", owner="hal", tool="t", arguments={}, status="running",
                                         created_at=1.0, updated_at=1.0))
        assert await client.zscore(UNFINISHED, "job_half2") is None
        assert await client.exists(_job_key("job_half2")) == 0
    finally:
        await client.aclose()


async def test_a_job_that_ends_after_its_record_is_gone_is_said_lost_not_dropped(redis_url: str) -> None:
    """Redis restarted without its data while a job ran: its end was dropped without a word, and
    its caller told there was no such job (an outside check). The store says the record is
    gone, and the manager answers for the job from memory."""
    client = await open_checked(redis_url)
    try:
        store = RedisJobStore(client, lease_s=10.0)
        await store.create(JobRecord(id="job_gone", owner="gil", tool="t", arguments={}, status="running",
                                     created_at=1.0, updated_at=1.0))
        await client.delete(_job_key("job_gone"))
        with pytest.raises(StorageGone, match="its record is gone from the shared job store"):
            await store.finish("job_gone", "completed", ToolResult("done"), at=2.0)
    finally:
        await client.aclose()


async def test_a_key_of_the_wrong_kind_among_the_unfinished_stops_no_takeover(redis_url: str) -> None:
    """One job's key holding a string stopped every pass that takes over a stopped replica's jobs,
    for as long as it stayed, said as "the store is unreachable?" (a re-check)."""
    client = await open_checked(redis_url)
    try:
        gone = RedisJobStore(client, lease_s=10.0, replica_id="gone-replica")
        await gone.create(JobRecord(id="job_orphan", owner="olga", tool="t", arguments={}, status="running",
                                    created_at=1.0, updated_at=1.0))
        await client.set(_lease_key("gone-replica"), GONE)  # it said it stopped
        await client.set(_job_key("job_bad"), "garbage")
        await client.zadd(UNFINISHED, {"job_bad": 1.0})
        taker = RedisJobStore(client, lease_s=10.0, replica_id="taker")
        assert [r.id for r in await taker.claim_orphans()] == ["job_orphan"]
        assert "job_orphan" in [r.id for r in await taker.list_unfinished()]
    finally:
        await client.delete(_job_key("job_bad"))
        await client.zrem(UNFINISHED, "job_bad")
        await client.aclose()


async def test_a_foreign_message_on_the_cancel_channel_stops_no_replica(replica: Replicas) -> None:
    """Anything published on ``toolbay:job-cancel`` that is no cancel request of toolbay's (another
    program's, typed by hand) ended every replica's job manager, and so every replica, at once:
    one ``PUBLISH toolbay:job-cancel hello`` stopped the whole cluster. It is logged and left."""
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        foreign = await replica.client()
        with anyio.fail_after(20):
            # Both replicas hear the channel once a message reaches two subscribers.
            while await foreign.publish(CANCEL_CHANNEL, "hello") < 2:
                await anyio.sleep(0.01)
            for message in ('{"reason": "no job named"}', '["job_x"]', '{"job_id": ["a"]}', b"\xff\xfe"):
                await foreign.publish(CANCEL_CHANNEL, message)
            view = await other.cancel("alice", job_id)  # heard after them, in order
        assert view.status == "cancelled"
        assert gate.seen_cancel


async def test_json_nested_too_deeply_on_the_channel_or_in_events_stops_no_replica(replica: Replicas) -> None:
    """A message on ``toolbay:job-cancel`` or an entry of a job's event list nested too deeply for
    Python's JSON reader (100,000 brackets: RecursionError, not the ValueError looked for) ended
    every replica's job manager at once, and made the job's status an internal error elsewhere."""
    gate = Gate()
    nested = "[" * 100_000 + "]" * 100_000
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        foreign = await replica.client()
        await foreign.rpush(f"{_job_key(job_id)}:events", nested)
        assert (await other.status("alice", job_id)).status == "running"
        assert [event.kind for event in await other.events("alice", job_id)][-1] == "damaged"
        with anyio.fail_after(20):
            while await foreign.publish(CANCEL_CHANNEL, nested) < 2:
                await anyio.sleep(0.01)
            view = await other.cancel("alice", job_id)  # heard after it, in order
        assert view.status == "cancelled"
        assert gate.seen_cancel


async def test_events_that_are_not_toolbays_leave_the_job_readable_on_every_replica(replica: Replicas) -> None:
    """Entries of a job's event list in Redis that toolbay did not write (not JSON, not an object,
    a time or kind of the wrong type: pushed by hand or by another program) made every job_status,
    job_wait and job_result of it on the replicas not running it an internal error. They are read
    as damaged events; the job is followed to its end."""
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        foreign = await replica.client()
        await foreign.rpush(f"{_job_key(job_id)}:events", "garbage", "[1]", '{"at": "x", "kind": 5, "data": 7}',
                            '{"kind": "progress", "at": 1e999, "data": {"progress": 1}}')
        assert (await other.status("alice", job_id)).status == "running"
        kinds = [event.kind for event in await other.events("alice", job_id)]
        assert kinds[0] == "started" and kinds.count("damaged") == 3
        gate.open()
        with anyio.fail_after(20):
            assert (await other.wait("alice", job_id, timeout_s=20)).status == "completed"
        assert (await other.result("alice", job_id)).text == "done"  # type: ignore[union-attr]


async def test_an_event_whose_time_is_too_large_a_number_leaves_the_job_readable(replica: Replicas) -> None:
    """An event pushed by hand or by another program whose time is an integer too large for a
    float (JSON allows it) made every job_status of the job on the replicas not running it an
    internal error (OverflowError), as a damaged event of another kind no longer did."""
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        foreign = await replica.client()
        await foreign.rpush(f"{_job_key(job_id)}:events", '{"kind": "progress", "at": 1' + "0" * 400 + ', "data": {}}')
        assert (await other.status("alice", job_id)).status == "running"
        assert [event.at for event in await other.events("alice", job_id)][-1] == 0.0
        gate.open()
        with anyio.fail_after(20):
            assert (await other.wait("alice", job_id, timeout_s=20)).status == "completed"


async def test_an_event_list_of_another_kind_leaves_the_job_followed_to_its_end_on_every_replica(
        replica: Replicas) -> None:
    """A job's event list in Redis holding another kind of value (a string set by hand, or by
    another program) made its status a "damaged record" on the replicas not running it, and its
    end was half written: recorded but never published (their waiters slept on), the replica
    running it logging that it could not record it. It is read as a damaged event, and replaced
    by a fresh list when the job ends."""
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        foreign = await replica.client()
        await foreign.delete(f"{_job_key(job_id)}:events")
        await foreign.set(f"{_job_key(job_id)}:events", "by hand")
        assert (await other.status("alice", job_id)).status == "running"
        with anyio.fail_after(20):
            view = await woken_by_the_end(other, gate, job_id)
        assert view.status == "completed"
        assert (await other.result("alice", job_id)).text == "done"  # type: ignore[union-attr]
        assert [e.kind for e in await other.events("alice", job_id)][-1] == "finished"


async def test_an_end_index_of_another_kind_does_not_half_record_a_jobs_end(replica: Replicas) -> None:
    """The index of ended jobs in Redis holding another kind of value (a string set by hand) made
    every job's end half written: its status and result recorded, the job never published as
    ended, so waiters on the other replicas slept to their time limit. It is replaced by a fresh
    index and the end recorded whole."""
    gate = Gate()
    async with AsyncExitStack() as stack:
        runner, other = await two(replica, stack)
        job_id = await start_job(runner, gate)
        foreign = await replica.client()
        await foreign.set(FINISHED, "by hand")
        with anyio.fail_after(20):
            view = await woken_by_the_end(other, gate, job_id)
        assert view.status == "completed"
        assert await foreign.zscore(FINISHED, job_id) is not None  # listed for its purge


async def test_a_lease_of_another_kind_stops_no_takeover(redis_url: str) -> None:
    """A replica's lease key holding another kind of value (a hash set by hand) stopped every pass
    that takes over stopped replicas' jobs, those of replicas that had said they stopped too, for
    as long as it stayed. It is read as no lease (a live replica writes its own again at once)."""
    client = await open_checked(redis_url)
    try:
        for replica_id, job_id, created in (("odd-replica", "job_odd", 1.0), ("gone-replica", "job_orphan", 2.0)):
            await RedisJobStore(client, lease_s=10.0, replica_id=replica_id).create(JobRecord(
                id=job_id, owner="olga", tool="t", arguments={}, status="running", created_at=created,
                updated_at=created))
        await client.hset(_lease_key("odd-replica"), "by", "hand")
        await client.set(_lease_key("gone-replica"), GONE)  # it said it stopped
        taker = RedisJobStore(client, lease_s=10.0, replica_id="taker")
        assert [r.id for r in await taker.claim_orphans()] == ["job_orphan"]
    finally:
        await client.aclose()
