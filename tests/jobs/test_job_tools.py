"""The five built-in job tools, called the way the server calls any handler."""

from __future__ import annotations

import anyio
import jsonschema
import pytest

from tests.jobs.conftest import Gate, MakeManager, context, instant, start_job
from toolbay.errors import NoSuchJob
from toolbay.handlers.jobs import job_tools
from toolbay.jobs import JobManager

pytestmark = pytest.mark.anyio


def tools(manager: JobManager) -> dict:
    return {tool.name: tool for tool in job_tools(manager)}


async def test_job_cancel_alone_is_not_hinted_read_only(make_manager: MakeManager) -> None:
    """Authorised as a read (a caller's own jobs), job_cancel was hinted readOnlyHint: true, which a
    client may take as leave to run it unasked; a cancel stops work. The others only read."""
    from toolbay.protocol.listing import definition_to_tool

    async with make_manager() as manager:
        hints = {name: definition_to_tool(tool.definition).annotations for name, tool in tools(manager).items()}
    assert {name: (h.read_only_hint, h.destructive_hint, h.idempotent_hint) for name, h in hints.items()} == {
        "job_cancel": (False, True, True), "job_list": (True, False, True), "job_result": (True, False, True),
        "job_status": (True, False, True), "job_wait": (True, False, True)}


async def test_there_are_five_job_tools_with_valid_input_schemas(make_manager: MakeManager) -> None:
    async with make_manager() as manager:
        by_name = tools(manager)
    assert sorted(by_name) == ["job_cancel", "job_list", "job_result", "job_status", "job_wait"]
    for tool in by_name.values():
        jsonschema.Draft202012Validator.check_schema(tool.definition.input_schema)
        assert tool.definition.description


async def test_a_model_can_follow_a_job_from_status_to_wait_to_result(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        t = tools(manager)
        job_id = await start_job(manager, gate)
        status = await t["job_status"].handle({"job_id": job_id}, context())
        assert status.structured["status"] == "running" and "job_wait" in status.text

        early = await t["job_result"].handle({"job_id": job_id}, context())
        assert early.is_error and "has not ended" in early.text

        gate.open()
        with anyio.fail_after(5):
            waited = await t["job_wait"].handle({"job_id": job_id, "timeout_s": 300}, context())
        assert waited.structured["status"] == "completed" and "job_result" in waited.text

        result = await t["job_result"].handle({"job_id": job_id}, context())
        assert (result.text, result.structured, result.is_error) == ("done", {"answer": 42}, False)
        assert result.meta["job_id"] == job_id


async def test_job_cancel_stops_the_job_with_the_given_reason(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        with anyio.fail_after(5):
            answer = await tools(manager)["job_cancel"].handle({"job_id": job_id, "reason": "too slow"}, context())
        assert answer.structured["status"] == "cancelled" and answer.structured["reason"] == "too slow"
        assert answer.structured["cancelled"] is True  # was missing, and there only where nothing was done


async def test_job_cancel_of_a_job_that_has_ended_says_there_was_nothing_to_cancel(make_manager: MakeManager) -> None:
    """The answer was the job's status alone ("... has completed."), as if the cancel had done
    something, where `toolbay jobs cancel` says "nothing to cancel" and tasks/cancel refuses."""
    async with make_manager() as manager:
        job_id = await start_job(manager, instant)
        t = tools(manager)
        with anyio.fail_after(5):
            await t["job_wait"].handle({"job_id": job_id, "timeout_s": 300}, context())
            answer = await t["job_cancel"].handle({"job_id": job_id}, context())
        result = await t["job_result"].handle({"job_id": job_id}, context())
    assert answer.text.startswith("Nothing to cancel: the job had already ended.") and not answer.is_error
    assert answer.structured["status"] == "completed" and answer.structured["cancelled"] is False
    assert result.is_error is False and result.structured == {"n": 1}  # the result is kept as it was


async def test_job_list_lists_the_callers_jobs_and_filters_by_status(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        listing = await tools(manager)["job_list"].handle({}, context())
        assert [j["job_id"] for j in listing.structured["jobs"]] == [job_id]
        none = await tools(manager)["job_list"].handle({"status": "failed"}, context())
        assert none.structured == {"jobs": []} and none.text == "You have no jobs with status failed."
        gate.open()


async def test_job_list_pages_through_every_job(make_manager: MakeManager) -> None:
    """With more jobs than one page holds, the oldest could not be reached (found by an outside probe)."""
    async with make_manager() as manager:
        made = [await start_job(manager, instant) for _ in range(7)]
        with anyio.fail_after(10):
            for job_id in made:
                await manager.wait("alice", job_id, None)
        seen: list[str] = []
        arguments: dict[str, int] = {"limit": 3}
        while True:
            page = await tools(manager)["job_list"].handle(arguments, context())
            seen += [j["job_id"] for j in page.structured["jobs"]]
            if "next_offset" not in page.structured:
                break
            assert f"offset {page.structured['next_offset']}" in page.text
            arguments = {"limit": 3, "offset": page.structured["next_offset"]}
    assert sorted(seen) == sorted(made) and len(seen) == len(made)  # each once


async def test_every_job_tool_refuses_another_callers_job(make_manager: MakeManager) -> None:
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        for name, tool in tools(manager).items():
            if name == "job_list":
                assert (await tool.handle({}, context("mallory"))).structured == {"jobs": []}
                continue
            with pytest.raises(NoSuchJob):
                await tool.handle({"job_id": job_id, "timeout_s": 0}, context("mallory"))
        gate.open()


async def test_job_wait_shortens_a_long_timeout_and_says_so(make_manager: MakeManager,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import toolbay.handlers.jobs

    monkeypatch.setattr(toolbay.handlers.jobs, "MAX_WAIT_S", 0.2)
    gate = Gate()
    async with make_manager() as manager:
        job_id = await start_job(manager, gate)
        with anyio.fail_after(5):
            waited = await tools(manager)["job_wait"].handle({"job_id": job_id, "timeout_s": 10_000}, context())
        gate.open()
    assert waited.is_error is False and waited.structured["status"] == "running"
    assert "0.2 s at the most" in waited.text


async def test_numbers_past_a_floats_or_the_databases_range_are_answered_not_internal_errors(
    make_manager: MakeManager,
) -> None:
    # JSON integers the schemas took: float(10**309) raised OverflowError in job_wait, and an
    # offset of 2**63 failed in SQLite; both reached the caller as internal errors.
    gate = Gate()
    async with make_manager() as manager:
        t = tools(manager)
        job_id = await start_job(manager, gate)
        gate.open()
        with anyio.fail_after(5):
            waited = await t["job_wait"].handle({"job_id": job_id, "timeout_s": 10**309}, context())
        assert waited.structured["status"] == "completed"
        offset_schema = t["job_list"].definition.input_schema["properties"]["offset"]
    validator = jsonschema.Draft202012Validator(offset_schema)
    assert not validator.is_valid(2**63) and validator.is_valid(2**63 - 1)


async def test_job_cancel_of_a_job_another_server_has_not_stopped_yet_says_the_cancel_is_recorded(
        make_manager: MakeManager) -> None:
    """Run by another server on the data folder (or a replica that died, until another takes
    the job over): the answer was "is running", "cancelled": false, as if the cancel had been
    lost (an outside check). Here the running server heeds it after the answer."""
    gate = Gate()
    async with make_manager() as runner, make_manager(cancel_grace_s=0.0) as other:
        job_id = await start_job(runner, gate)
        answer = await tools(other)["job_cancel"].handle({"job_id": job_id}, context())
        assert answer.text.startswith("The cancel is recorded, and the job has not stopped yet") and not answer.is_error
        assert answer.structured["status"] == "running"
        assert (answer.structured["cancelled"], answer.structured["cancel_requested"]) == (False, True)
        with anyio.fail_after(30):
            waited = await tools(other)["job_wait"].handle({"job_id": job_id, "timeout_s": 300}, context())
        assert waited.structured["status"] == "cancelled" and gate.seen_cancel
