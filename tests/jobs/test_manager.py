"""The job manager on a real SQLite store: inline first, a job after the budget."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.jobs.conftest import Gate, MakeManager, context, instant, start_job
from toolbay.errors import JobStoreUnavailable, NoSuchJob, QueueFull, StorageDamaged
from toolbay.jobs import JobManager, JobRecord, SqliteJobStore
from toolbay.jobs.manager import as_job
from toolbay.words import CallContext, ToolResult

pytestmark = pytest.mark.anyio


async def test_a_call_that_finishes_within_the_budget_returns_its_own_result_and_leaves_no_job(
        make_manager: MakeManager) -> None:
    async with make_manager(sync_budget_s=5) as manager:
        result = await manager.run_or_background("alice", "quick", {}, instant, context())
        assert result.text == "quick" and result.structured == {"n": 1}
        assert await manager.list("alice") == []


async def test_a_call_that_outlives_the_budget_becomes_a_job_and_goes_on(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager(sync_budget_s=0.01, poll_interval_s=3) as manager:
        answer = await manager.run_or_background("alice", "slow", {"n": 1}, gate, context())
        job_id = answer.structured["job_id"]
        assert answer.structured == {"job_id": job_id, "status": "running", "poll_interval_s": 3}
        assert "job_wait" in answer.text and job_id in answer.text and not answer.is_error
        assert (await manager.status("alice", job_id)).status == "running"

        gate.open()
        with anyio.fail_after(5):
            view = await manager.wait("alice", job_id, timeout_s=30)
        assert view.status == "completed"
        result = await manager.result("alice", job_id)
        assert result is not None and result.text == "done" and result.structured == {"answer": 42}


async def test_a_declared_background_call_becomes_a_job_at_once(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager(sync_budget_s=60) as manager:
        with anyio.fail_after(5):
            answer = await manager.run_or_background("alice", "slow", {}, gate, context(), background=True)
        assert answer.structured["status"] == "running"
        gate.open()


async def test_wait_returns_as_soon_as_the_job_ends_not_at_the_timeout(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        gate.open()
        with anyio.fail_after(5):  # far below the 3600 s asked for
            view = await manager.wait("alice", job_id, timeout_s=3600)
        assert view.finished


async def test_wait_gives_up_after_its_timeout_with_the_job_still_running(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        view = await manager.wait("alice", job_id, timeout_s=0.01)
        assert view.status == "running"
        assert await manager.result("alice", job_id) is None
        gate.open()


async def test_a_tool_error_ends_the_job_failed_with_the_tools_message(make_manager: MakeManager) -> None:
    async def refuses(ctx: CallContext) -> ToolResult:
        await anyio.sleep(0)
        return ToolResult.error("input.txt does not exist")

    async with make_manager() as manager:
        job_id = await start_job(manager, refuses)
        with anyio.fail_after(5):
            assert (await manager.wait("alice", job_id, None)).status == "failed"
        result = await manager.result("alice", job_id)
        assert result is not None and result.is_error and result.text == "input.txt does not exist"


async def test_a_crash_in_a_background_job_is_a_failed_job_with_a_generic_message(
        make_manager: MakeManager, caplog: pytest.LogCaptureFixture) -> None:
    async def crashes(ctx: CallContext) -> ToolResult:
        raise RuntimeError("secret internal detail")

    async with make_manager() as manager:
        job_id = await start_job(manager, crashes)
        with anyio.fail_after(5):
            await manager.wait("alice", job_id, None)
        result = await manager.result("alice", job_id)
    assert result is not None and result.is_error and "secret" not in result.text
    assert "secret internal detail" in caplog.text


async def test_a_crash_within_the_budget_is_raised_to_the_caller_as_without_jobs(
        make_manager: MakeManager) -> None:
    async def crashes(ctx: CallContext) -> ToolResult:
        raise RuntimeError("boom")

    async with make_manager(sync_budget_s=5) as manager:
        with pytest.raises(RuntimeError, match="boom"):
            await manager.run_or_background("alice", "boom", {}, crashes, context())


async def test_cancel_sets_the_calls_cancelled_event_and_records_the_reason(make_manager: MakeManager) -> None:
    gate = Gate()
    ctx = context()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate, ctx=ctx)
        with anyio.fail_after(5):
            await gate.started.wait()
            view = await manager.cancel("alice", job_id, "the user changed their mind")
        assert ctx.cancelled.is_set() and gate.seen_cancel
        assert view.status == "cancelled" and view.reason == "the user changed their mind"
        result = await manager.result("alice", job_id)
        assert result is not None and result.is_error and "the user changed their mind" in result.text
        kinds = [e.kind for e in await manager.events("alice", job_id)]
        assert kinds == ["started", "output", "finished"]


async def test_a_job_run_by_another_server_on_the_same_folder_is_cancelled_through_the_store(
        make_manager: MakeManager) -> None:
    """Two stdio sessions on one data folder are one local caller: the second lists the first's
    job, and its job_cancel answered "is running" while the job ran on (found by an outside probe)."""
    gate = Gate()
    ctx = context()
    async with make_manager() as running, make_manager(cancel_grace_s=30) as other:
        job_id = await start_job(running, gate, ctx=ctx)
        with anyio.fail_after(30):
            await gate.started.wait()
            view = await other.cancel("alice", job_id, "stopped from the other window")
        assert ctx.cancelled.is_set()
        assert (view.status, view.reason) == ("cancelled", "stopped from the other window")


async def test_another_server_on_the_folder_shows_the_progress_of_a_job_and_sends_it_to_a_waiter(
        make_manager: MakeManager) -> None:
    """On a second server (or replica) job_status showed no progress and job_wait sent none,
    though the store held it (found by an outside probe)."""
    reported = anyio.Event()
    gate = Gate()
    contexts: list[CallContext] = []

    async def counting(ctx: CallContext) -> ToolResult:
        contexts.append(ctx)
        await ctx.report_progress(1, 3, "first of three")
        reported.set()
        return await gate(ctx)

    heard: list[tuple[float, float | None, str | None]] = []

    async def hear(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))
        if message is not None and "second of three" in message:  # sent on, or in the first step
            gate.open()

    async with make_manager(progress_write_interval_s=0) as running, make_manager() as other:
        job_id = await start_job(running, counting)
        with anyio.fail_after(30):
            await reported.wait()
            while (await other.status("alice", job_id)).progress is None:  # recorded in the store
                await anyio.sleep(0.01)
            seen = await other.status("alice", job_id)
            assert seen.progress is not None and seen.progress["message"] == "first of three"
            async with anyio.create_task_group() as group:
                group.start_soon(contexts[0].report_progress, 2, 3, "second of three")
                view = await other.wait("alice", job_id, None, on_progress=hear)
    assert view.status == "completed"
    messages = [message for _, _, message in heard]
    assert any("second of three" in (m or "") for m in messages) and messages[-1] == f"job {job_id} completed"
    assert "first of three" not in messages[1:], heard  # what the first step said is not sent again
    values = [done for done, _, _ in heard]
    assert values == sorted(values) and len(set(values)) == len(values)  # only ever forward


class DamagedAtTheEnd(SqliteJobStore):
    """A job database that turned out damaged by the time a job ended (a page overwritten while
    serving; SQLite finds it only when it reads that page, which a test cannot time)."""

    async def finish(self, job_id: str, status: Any, result: ToolResult, *, at: float, reason: str | None = None,
                     events: Any = None) -> None:
        raise StorageDamaged(f"the job database {self.path} is damaged (database disk image is malformed)")


async def test_a_job_whose_end_a_damaged_store_cannot_take_is_answered_from_memory(db_path: Path) -> None:
    """Its waiters were told "running" for ever, and a server whose client had gone stayed the
    whole drain time retrying (found by an outside probe)."""
    gate = Gate()
    async with JobManager(DamagedAtTheEnd(db_path), sync_budget_s=0.05) as manager:
        job_id = await start_job(manager, gate)
        gate.open()
        with anyio.fail_after(30):
            view = await manager.wait("alice", job_id, None)
        assert view.status == "completed"
        result = await manager.result("alice", job_id)
        assert result is not None and result.text == "done"
        assert manager.running_jobs == 0  # nothing left for a draining server to wait for


async def test_a_job_ending_after_its_database_was_deleted_is_not_retried_for_ever(db_path: Path) -> None:
    """Its end was written again and again to a database that cannot come back, and a server whose
    client had gone stayed the whole drain time retrying (found by an outside check)."""
    gate = Gate()
    async with JobManager(SqliteJobStore(db_path), sync_budget_s=0.05) as manager:
        await start_job(manager, gate)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        gate.open()
        with anyio.fail_after(20):
            while manager.running_jobs:  # nothing left for a draining server to wait for
                await anyio.sleep(0.02)


class FullUntilFreed(SqliteJobStore):
    """A data folder whose disk is full when the job ends, until ``freed`` is set (a test cannot
    fill a real disk it does not own)."""

    freed = False

    async def finish(self, job_id: str, status: Any, result: ToolResult, *, at: float, reason: str | None = None,
                     events: Any = None) -> None:
        if not self.freed:
            raise OSError(28, "No space left on device")
        await super().finish(job_id, status, result, at=at, reason=reason, events=events)


async def test_a_job_whose_end_a_full_disk_refuses_says_so_until_it_is_recorded(db_path: Path) -> None:
    """It showed plain "running" for as long as the disk stayed full: its caller could not tell a
    job at work from one whose result was waiting to be saved (found by an outside check)."""
    gate, store = Gate(), FullUntilFreed(db_path)
    async with JobManager(store, sync_budget_s=0.05) as manager:
        job_id = await start_job(manager, gate)
        gate.open()
        with anyio.fail_after(20):
            while (view := await manager.status("alice", job_id)).end_refused is None:
                await anyio.sleep(0.02)
        assert view.status == "running" and view.structured()["end_refused"] == "No space left on device"
        assert ("its tool has ended, but the server could not record its end yet (No space left on device), "
                "and tries again until it can") in view.sentence()
        store.freed = True
        with anyio.fail_after(20):
            done = await manager.wait("alice", job_id, None)
        assert done.status == "completed" and done.end_refused is None
        result = await manager.result("alice", job_id)
        assert result is not None and result.text == "done"


async def test_cancelling_a_finished_job_changes_nothing(make_manager: MakeManager) -> None:
    async with make_manager() as manager:
        job_id = await start_job(manager, instant)
        with anyio.fail_after(5):
            await manager.wait("alice", job_id, None)
        assert (await manager.cancel("alice", job_id)).status == "completed"


async def test_another_caller_sees_no_such_job(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        for ask in (manager.status, manager.result, manager.cancel, manager.events):
            with pytest.raises(NoSuchJob):
                await ask("mallory", job_id)
        with pytest.raises(NoSuchJob):
            await manager.wait("mallory", job_id, 1)
        assert await manager.list("mallory") == []
        assert not gate.seen_cancel
        gate.open()


async def test_an_unknown_job_is_no_such_job(make_manager: MakeManager) -> None:
    async with make_manager() as manager:
        with pytest.raises(NoSuchJob):
            await manager.status("alice", "job_doesnotexist")


async def test_jobs_over_the_limit_wait_in_a_queue_with_their_position(make_manager: MakeManager) -> None:
    gates = [Gate(f"job {i}") for i in range(4)]
    async with make_manager(max_concurrent=2, max_per_caller=2) as manager:
        ids = [await start_job(manager, gate) for gate in gates]
        views = [await manager.status("alice", job_id) for job_id in ids]
        assert [(v.status, v.position) for v in views] == [
            ("running", None), ("running", None), ("queued", 1), ("queued", 2)]
        assert "number 2 in the queue" in views[3].sentence()

        gates[0].open()
        with anyio.fail_after(5):
            await manager.wait("alice", ids[0], None)
            await gates[2].started.wait()
        assert [(await manager.status("alice", i)).position for i in ids[2:]] == [None, 1]
        for gate in gates:
            gate.open()
        with anyio.fail_after(5):
            for job_id in ids:
                assert (await manager.wait("alice", job_id, None)).status == "completed"
        assert (await manager.events("alice", ids[3]))[0].kind == "started"


async def test_one_caller_at_its_limit_does_not_hold_up_another(make_manager: MakeManager) -> None:
    gates = [Gate() for _ in range(3)]
    async with make_manager(max_concurrent=4, max_per_caller=1) as manager:
        first, second = [(await manager.run_or_background("alice", "slow", {}, g, context("alice"),
                                                          background=True)).structured for g in gates[:2]]
        bob = (await manager.run_or_background("bob", "slow", {}, gates[2], context("bob"),
                                               background=True)).structured
        assert (first["status"], second["status"], bob["status"]) == ("running", "queued", "running")
        assert second["position"] == 1
        for gate in gates:
            gate.open()


async def test_a_caller_with_as_many_calls_waiting_as_it_may_is_refused_at_once_and_others_are_not(
        make_manager: MakeManager) -> None:
    """Queued calls had no cap: a caller at max_per_caller queued hundreds of 4 MB calls, each
    held in the server's memory until it ran (5 GB, an outside check)."""
    gates = [Gate(f"alice {i}") for i in range(3)]
    async with make_manager(max_concurrent=4, max_per_caller=1, max_queued_per_caller=2) as manager:
        started = [(await manager.run_or_background("alice", "slow", {}, gate, context("alice"),
                                                    background=True)).structured for gate in gates]
        assert [job["status"] for job in started] == ["running", "queued", "queued"]
        with pytest.raises(QueueFull, match=r"2 calls waiting .*max_queued_per_caller"):
            await manager.run_or_background("alice", "slow", {}, Gate(), context("alice"), background=True)
        bob = Gate("bob")
        assert (await manager.run_or_background("bob", "slow", {}, bob, context("bob"),
                                                background=True)).structured["status"] == "running"
        for gate in [*gates, bob]:
            gate.open()


async def test_a_freed_slot_goes_to_the_caller_with_the_fewest_calls_running(make_manager: MakeManager) -> None:
    """In arrival order alone, alice's third call (queued first) took the slot her first call
    freed, and bob, with nothing running, waited behind every call she had queued."""
    alice = [Gate(f"alice {i}") for i in range(4)]
    bob = Gate("bob")
    async with make_manager(max_concurrent=2, max_per_caller=2) as manager:
        ids = [await start_job(manager, gate) for gate in alice]
        bobs = (await manager.run_or_background("bob", "slow", {}, bob, context("bob"), background=True)).structured
        assert bobs["status"] == "queued" and bobs["position"] == 3

        alice[0].open()
        with anyio.fail_after(5):
            await bob.started.wait()
        assert [(await manager.status("alice", i)).status for i in ids] == ["completed", "running", "queued", "queued"]
        assert alice[2].calls == 0

        alice[1].open()  # alice has one call running, bob one: the slot is hers again, her earliest
        with anyio.fail_after(5):
            await alice[2].started.wait()
        assert alice[3].calls == 0
        for gate in [*alice, bob]:
            gate.open()
        with anyio.fail_after(5):
            assert (await manager.wait("bob", bobs["job_id"], None)).status == "completed"
            for job_id in ids:
                assert (await manager.wait("alice", job_id, None)).status == "completed"


async def test_a_queued_job_can_be_cancelled_before_it_starts(make_manager: MakeManager) -> None:
    running, queued = Gate(), Gate()
    async with make_manager(max_concurrent=1) as manager:
        await manager.run_or_background("alice", "slow", {}, running, context(), background=True)
        job_id = await start_job(manager, queued)
        view = await manager.cancel("alice", job_id, "not needed")
        assert view.status == "cancelled" and queued.calls == 0
        running.open()


async def test_progress_is_recorded_and_forwarded_to_the_caller(make_manager: MakeManager) -> None:
    forwarded: list[tuple[float, float | None, str | None]] = []
    gate = Gate()

    async def forward(done: float, total: float | None, message: str | None) -> None:
        forwarded.append((done, total, message))

    async def reports(ctx: CallContext) -> ToolResult:
        await ctx.report_progress(1, 3, "reading")
        await gate.opened.wait()
        await ctx.report_progress(3, 3, "done")
        return ToolResult(text="ok")

    async with make_manager(progress_write_interval_s=0) as manager:
        answer = await manager.run_or_background("alice", "work", {}, reports, context(report_progress=forward))
        job_id = answer.structured["job_id"]
        assert (await manager.status("alice", job_id)).progress == {"progress": 1, "total": 3, "message": "reading"}
        gate.open()
        with anyio.fail_after(5):
            await manager.wait("alice", job_id, None)
        events = await manager.events("alice", job_id)
    # The caller hears the tool's reports and that the call went on as a job, then nothing:
    # its progress token ended with its request.
    # The step moves on by a thousandth: it claims next to no work done, and leaves 2 of 3 to the tool.
    assert forwarded == [(1, 3, "reading"), (1.001, 3, f"goes on in the background as job {job_id} (running)")]
    assert [(e.kind, dict(e.data)) for e in events if e.kind == "progress"] == [
        ("progress", {"progress": 1, "total": 3, "message": "reading"}),
        ("progress", {"progress": 3, "total": 3, "message": "done"}),
    ]
    assert [e.kind for e in events] == ["started", "progress", "progress", "output", "finished"]


async def test_job_wait_hears_the_jobs_progress_in_increasing_steps(make_manager: MakeManager) -> None:
    heard: list[tuple[float, float | None, str | None]] = []
    gate = Gate()

    async def listen(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async def reports(ctx: CallContext) -> ToolResult:
        await gate.opened.wait()
        await ctx.report_progress(5, 10, "half")
        await ctx.report_progress(4, 10, "backwards")  # not forwarded: values only increase
        return ToolResult(text="ok")

    async with make_manager(progress_write_interval_s=0) as manager:
        job_id = await start_job(manager, reports)
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: manager.wait("alice", job_id, 5, on_progress=listen))
            with anyio.fail_after(5):
                while not heard:
                    await anyio.sleep(0.01)
            gate.open()
    assert heard == [(0, None, "running"), (5, 10, "half"), (10, 10, f"job {job_id} completed")]


async def test_a_task_caller_keeps_hearing_progress_until_the_job_ends(make_manager: MakeManager) -> None:
    heard: list[tuple[float, float | None, str | None]] = []
    gate = Gate()

    async def listen(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async with make_manager() as manager:
        with as_job() as ticket:
            await manager.run_or_background("alice", "slow", {}, gate, context(report_progress=listen))
        gate.open()
        with anyio.fail_after(5):
            await manager.wait("alice", str(ticket.job_id), None)
            while len(heard) < 2:
                await anyio.sleep(0.01)
    job_id = ticket.job_id
    assert heard == [(0, None, f"goes on in the background as job {job_id} (running)"),
                     (1, None, f"job {job_id} completed")]


async def test_a_call_that_has_to_queue_hears_its_place_then_that_it_went_background(
    make_manager: MakeManager,
) -> None:
    heard: list[tuple[float, float | None, str | None]] = []
    first, second = Gate(), Gate()

    async def listen(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async with make_manager(max_concurrent=1) as manager:
        await start_job(manager, first)
        answer = await manager.run_or_background("alice", "slow", {}, second, context(report_progress=listen))
        job_id = answer.structured["job_id"]
        first.open()
        second.open()
    assert heard == [(0, None, "queued, number 1 in the queue"),
                     (1, None, f"goes on in the background as job {job_id} (queued)")]


async def test_finished_jobs_and_their_results_survive_a_restart(make_manager: MakeManager) -> None:
    async with make_manager() as manager:
        job_id = (await manager.run_or_background("alice", "quick", {"x": 1}, instant, context(),
                                                  background=True)).structured["job_id"]
        with anyio.fail_after(5):
            await manager.wait("alice", job_id, None)
    async with make_manager() as manager:
        assert (await manager.status("alice", job_id)).status == "completed"
        result = await manager.result("alice", job_id)
        assert result is not None and result.text == "quick"


async def test_jobs_running_when_the_server_stops_are_interrupted_with_a_reason(
        make_manager: MakeManager) -> None:
    gate = Gate()
    ctx = context()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate, ctx=ctx)
        with anyio.fail_after(5):
            await gate.started.wait()
    assert ctx.cancelled.is_set()
    async with make_manager() as manager:
        view = await manager.status("alice", job_id)
        assert view.status == "interrupted" and "server stopped" in (view.reason or "")
        result = await manager.result("alice", job_id)
        assert result is not None and result.is_error and "interrupted" in result.text
        # As a job a crash left unfinished says it (an outside probe found SIGTERM's said less).
        assert "It did not finish and has no output; call" in result.text
        assert "check first what it already changed" in result.text


async def test_a_job_still_queued_when_the_server_stops_is_said_to_have_changed_nothing(
        make_manager: MakeManager) -> None:
    # It read as one that had run: "check first what it already changed".
    gate = Gate()
    async with make_manager(max_concurrent=1) as manager:
        await start_job(manager, gate)
        with anyio.fail_after(5):
            await gate.started.wait()
        queued = await start_job(manager, gate)
        assert (await manager.status("alice", queued)).status == "queued"
    async with make_manager() as manager:
        view = await manager.status("alice", queued)
        result = await manager.result("alice", queued)
    assert view.status == "interrupted" and "It never started" in view.next_step()
    assert result is not None and "It never started (it was waiting for its turn), so it changed nothing" in result.text
    assert "check first" not in result.text


async def test_jobs_older_than_the_retention_are_removed(db_path) -> None:
    now = [1000.0]
    store = SqliteJobStore(db_path)
    async with JobManager(store, retention_s=60, clock=lambda: now[0]) as manager:
        job_id = await start_job(manager, instant)
        with anyio.fail_after(5):
            await manager.wait("alice", job_id, None)
        now[0] += 59
        assert await manager.purge_expired() == 0
        now[0] += 2
        assert await manager.purge_expired() == 1
        with pytest.raises(NoSuchJob):
            await manager.status("alice", job_id)


async def test_list_shows_only_the_callers_jobs_filtered_by_status(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        done = await start_job(manager, instant)
        with anyio.fail_after(5):
            await manager.wait("alice", done, None)
        running = await start_job(manager, gate)
        await manager.run_or_background("bob", "quick", {}, instant, context("bob"), background=True)
        assert [v.id for v in await manager.list("alice")] == [running, done]
        assert [v.id for v in await manager.list("alice", "completed")] == [done]
        gate.open()


async def test_a_task_request_makes_the_call_a_job_and_reports_its_id(make_manager: MakeManager) -> None:
    from toolbay.jobs import as_job

    async with make_manager(sync_budget_s=60) as manager:
        with as_job() as ticket:
            answer = await manager.run_or_background("alice", "quick", {}, instant, context())
        assert ticket.job_id == answer.structured["job_id"]


async def test_the_end_of_a_job_refused_by_a_locked_database_is_recorded_once_the_lock_goes(
        db_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Another process (a second server, a backup, sqlite3 in a terminal) holds the file past
    the busy timeout just as a job ends: the end waits for the store, it is not dropped."""
    gate = Gate()
    store = SqliteJobStore(db_path, busy_timeout_s=0.05)
    async with JobManager(store, sync_budget_s=0.05, poll_interval_s=1.0) as manager:
        job_id = await start_job(manager, gate)
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            gate.open()
            with anyio.fail_after(30):
                while "could not record" not in caplog.text:  # the store refused once
                    await anyio.sleep(0.01)
            # Not yet ended for anyone: neither its waiters nor a server draining its jobs, nor
            # a caller polling its status (who would then ask for a result not there yet).
            assert await manager.drain(0.2) == 1
            assert await manager.result("alice", job_id) is None
            assert (await manager.status("alice", job_id)).status == "running"
            assert [view.status for view in await manager.list("alice")] == ["running"]
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        with anyio.fail_after(30):
            view = await manager.wait("alice", job_id, timeout_s=None)
        assert view.status == "completed"
        assert await manager.drain(30) == 0

    # The file has it: the next server on this data folder gives its result.
    async with SqliteJobStore(db_path) as reopened:
        record = await reopened.get("alice", job_id)
        assert record is not None and record.status == "completed"
        result = await reopened.get_result("alice", job_id)
        assert result is not None and result.text == "done"


class _WritesThenTimesOut(SqliteJobStore):
    """A shared store whose write of a new job timed out though it ran (a Redis that was paused
    runs the transaction once it answers): the job is there, and the server was told it is not."""

    async def create(self, record: JobRecord, events: Any = None) -> None:
        await super().create(record, events)
        raise JobStoreUnavailable(5.0)


async def test_a_job_its_caller_was_told_was_stopped_unrecorded_is_not_run_when_its_record_turns_up(
        db_path) -> None:
    # Paused Redis: the call was answered "could not be recorded, so it was stopped", with no
    # refusal code; the record landed later, and the server ran the job again as one it had lost.
    gate = Gate()
    ran_again: list[str] = []

    def recover(record: JobRecord) -> Any:
        ran_again.append(record.id)
        return gate

    async with JobManager(_WritesThenTimesOut(db_path), sync_budget_s=0.01, recover=recover) as manager:
        with pytest.raises(JobStoreUnavailable) as refused:
            await manager.run_or_background("alice", "slow", {}, gate, context())
        [record] = await manager.store.list_unfinished()
        await manager._recover([record])  # as the look for lost jobs does, two looks in a row
        view = await manager.status("alice", record.id)
    assert refused.value.code == "jobs_unavailable" and "so it was stopped" in refused.value.message
    assert ran_again == [] and view.status == "cancelled"


async def test_a_job_whose_cancel_its_dead_server_never_heeded_is_not_run_again(db_path) -> None:
    # kill -9 of the replica running a job, then job_cancel through another: the cancel was
    # recorded for a server that no longer read it, and the job was taken over and run to its end.
    gate = Gate()
    ran_again: list[str] = []

    def recover(record: JobRecord) -> Any:
        ran_again.append(record.id)
        return gate

    store = SqliteJobStore(db_path)
    async with JobManager(store, recover=recover) as manager:
        record = JobRecord(id="job_1", owner="alice", tool="slow", status="running", created_at=1.0,
                           updated_at=1.0, arguments={}, started_at=1.0)
        await store.create(record)
        await store.request_cancel("job_1", "cancelled by the caller", at=2.0)
        await manager._recover([record])  # as a replica taking over a dead one's jobs does
        view = await manager.status("alice", "job_1")
        result = await manager.result("alice", "job_1")
    assert ran_again == [] and view.status == "cancelled"
    assert result is not None and "was cancelled: cancelled by the caller" in result.text


async def test_a_job_running_when_its_database_is_deleted_is_answered_as_the_database_gone(db_path: Path) -> None:
    """Answered from memory, it was "running" for ever (its end could never be recorded), and a
    cancel waited out its grace before saying "running" again; every other job call said the
    server must be restarted, as the README says of them all."""
    from toolbay.errors import StorageGone

    gate = Gate()
    # A grace far past the bound below: "at once" is told from "after the grace" however slow the machine.
    async with JobManager(SqliteJobStore(db_path), sync_budget_s=0.05, cancel_grace_s=600) as manager:
        job_id = await start_job(manager, gate)
        for path in db_path.parent.glob(db_path.name + "*"):
            path.unlink()
        with anyio.fail_after(60):  # at once: not the cancel's grace of 600 s
            for ask in (manager.status("alice", job_id), manager.wait("alice", job_id, 1),
                        manager.result("alice", job_id), manager.cancel("alice", job_id)):
                with pytest.raises(StorageGone, match="was deleted while this server was using it"):
                    await ask
        gate.open()


@pytest.mark.parametrize("data", ['{"total": 5}', '{"progress": "half"}', '{"progress": 1e999}', '[1]'])
async def test_a_damaged_progress_report_in_the_store_is_left_out_of_the_jobs_status(
        db_path: Path, data: str) -> None:
    """job_status of a job run elsewhere was an internal error, and `toolbay jobs status` a
    traceback, on a progress report that was none; 1e999 was written as 'Infinity', not JSON."""
    import json
    import sqlite3

    from toolbay.jobs.views import JobView

    async with SqliteJobStore(db_path) as store:
        await store.create(JobRecord(id="job_p", owner="alice", tool="slow", status="running", created_at=1.0,
                                     updated_at=1.0, started_at=1.0))
    with sqlite3.connect(db_path) as conn:
        conn.execute("INSERT INTO job_events (job_id, at, kind, data) VALUES ('job_p', 2.0, 'progress', ?)", (data,))
    async with SqliteJobStore(db_path) as store:  # read as `toolbay jobs status` reads it: no recovery
        view = await JobManager(store).status("alice", "job_p")
    assert view.progress is None and isinstance(view, JobView)
    json.dumps(view.structured(), allow_nan=False)
    assert view.sentence().startswith("Job job_p (slow) is running.")


async def test_a_job_whose_end_waits_to_be_recorded_leaves_its_place_to_the_next_call(db_path: Path) -> None:
    """Four such jobs (a full disk) held the caller's four places: its next call, a quick one,
    waited in the queue and was refused as having run past the budget it waited out (an
    outside check)."""
    first, store = Gate(), FullUntilFreed(db_path)
    async with JobManager(store, sync_budget_s=0.05, max_concurrent=1, max_per_caller=1) as manager:
        job_id = await start_job(manager, first)
        first.open()
        with anyio.fail_after(20):
            while (await manager.status("alice", job_id)).end_refused is None:
                await anyio.sleep(0.02)
        with anyio.fail_after(20):  # runs at once, though the first job's end is not recorded yet
            quick = await manager.run_or_background("alice", "quick", {}, instant, context())
        assert quick.text == "quick" and not quick.is_error
        store.freed = True
        with anyio.fail_after(20):
            assert (await manager.wait("alice", job_id, None)).status == "completed"
