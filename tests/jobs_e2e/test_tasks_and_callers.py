"""MCP Tasks over streamable HTTP, and jobs kept apart by caller (two bearer tokens)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.jobs_e2e.conftest import (
    Callers,
    Progress,
    Stopwatch,
    call,
    http_client,
    http_server,
    settings_for,
    start_job,
    structured,
    text,
    write_config,
)

pytestmark = pytest.mark.anyio

JOB_LIST_REQUEST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "job_list", "arguments": {}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


async def call_as_task(client: Client, arguments: dict[str, Any], tool: str = "slow") -> types.Task:
    # The SDK client checks a tools/call answer against CallToolResult, so a task answer is
    # read off the raw request and validated as the CreateTaskResult it is.
    params = {"name": tool, "arguments": arguments, "task": {"ttl": 60_000}}
    raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
    assert "resultType" not in raw
    return types.CreateTaskResult.model_validate(raw).task


async def get_task(client: Client, task_id: str) -> types.GetTaskResult:
    request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, types.GetTaskResult)


@pytest.fixture
async def server_url(tmp_path: Path, extensions: Path, data_dir: Path, callers: Callers) -> AsyncIterator[str]:
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, tokens_file=callers.tokens_file)
    async with http_server(settings_for(config)) as (url, _):
        yield url


async def test_a_task_augmented_call_round_trips_through_tasks_get_result_list_and_cancel(
    tmp_path: Path, extensions: Path, data_dir: Path, callers: Callers
) -> None:
    # A sync budget far longer than the tool runs: a plain call would be answered with its
    # result, so a task answered while "working" was answered at once, on any machine.
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, tokens_file=callers.tokens_file,
                          jobs={"sync_budget_s": 30})
    with anyio.fail_after(60):
        async with http_server(settings_for(config)) as (server_url, _), \
                http_client(server_url, callers.tokens["alice"]) as client:
            assert client.server_capabilities.tasks is not None
            task = await call_as_task(client, {"ms": 600, "message": "from a task"})
            payload = await client.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id)),
                types.CallToolResult)
            finished = await get_task(client, task.task_id)

            doomed = await call_as_task(client, {"ms": 60_000, "busy": True})
            got = await get_task(client, doomed.task_id)
            listed = await client.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
            clock = Stopwatch()
            cancelled = await client.session.send_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=doomed.task_id)),
                types.CancelTaskResult)
            cancel_took = clock.elapsed
            with pytest.raises(MCPError):  # an ended task cannot be cancelled again
                await client.session.send_request(
                    types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=doomed.task_id)),
                    types.CancelTaskResult)
            as_a_job = await call(client, "job_result", {"job_id": doomed.task_id})

    assert task.status == "working" and task.task_id.startswith("job_")
    assert got.status == "working"
    assert payload.is_error is False and text(payload).strip() == "from a task"
    assert payload.meta is not None and payload.meta["io.modelcontextprotocol/related-task"] == {
        "taskId": task.task_id}
    assert "toolbay/exit_code" in payload.meta, "tasks/result carries the same _meta as tools/call"
    assert finished.status == "completed"
    assert {t.task_id for t in listed.tasks} == {task.task_id, doomed.task_id}
    assert cancelled.status == "cancelled" and cancel_took < 15  # the guest would run 60 s
    assert as_a_job.is_error is True and "tasks/cancel" in text(as_a_job)


async def test_another_caller_cannot_see_wait_for_read_or_cancel_the_job(
    server_url: str, callers: Callers
) -> None:
    with anyio.fail_after(30):
        async with http_client(server_url, callers.tokens["alice"]) as alice, \
                http_client(server_url, callers.tokens["bob"]) as bob:
            job_id = await start_job(alice, {"ms": 400, "message": "alice's"})
            task = await call_as_task(alice, {"ms": 60_000})
            foreign = {name: await call(bob, name, {"job_id": job_id})
                       for name in ("job_status", "job_wait", "job_result", "job_cancel")}
            bob_list = structured(await call(bob, "job_list", {}))
            bob_tasks = await bob.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
            with pytest.raises(MCPError):
                await get_task(bob, task.task_id)
            with pytest.raises(MCPError):
                await bob.session.send_request(
                    types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task.task_id)),
                    types.CancelTaskResult)
            await call(alice, "job_wait", {"job_id": job_id, "timeout_s": 30})
            mine = await call(alice, "job_result", {"job_id": job_id})
            still_running = await get_task(alice, task.task_id)
            await call(alice, "job_cancel", {"job_id": task.task_id})
        # A caller without a token is refused at the door, before any method is read.
        async with httpx2.AsyncClient(timeout=30) as nobody:
            unauthenticated = await nobody.post(server_url, json=JOB_LIST_REQUEST, headers=MCP_HEADERS)

    for name, result in foreign.items():
        assert result.is_error is True, (name, text(result))
        assert job_id in text(result) and "alice" not in text(result), (name, text(result))
    assert bob_list["jobs"] == []
    assert bob_tasks.tasks == []
    assert text(mine).strip() == "alice's"
    assert still_running.status == "working", "bob's tasks/cancel did not touch alice's task"
    assert unauthenticated.status_code == 401, unauthenticated.text
    assert "Bearer" in unauthenticated.headers.get("www-authenticate", "")
    assert job_id not in unauthenticated.text


async def test_a_task_augmented_call_of_a_quick_tool_is_still_answered_with_a_task(
    server_url: str, callers: Callers
) -> None:
    # Quick tools are normally answered at once on the event loop; a client that asked for a
    # task must get one all the same.
    with anyio.fail_after(30):
        async with http_client(server_url, callers.tokens["alice"]) as client:
            for _ in range(3):
                plain = await call(client, "slow", {"ms": 0, "message": "quick"})
            task = await call_as_task(client, {"ms": 0, "message": "quick"})
            payload = await client.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id)),
                types.CallToolResult)
    assert text(plain).strip() == "quick"
    assert task.task_id
    assert text(payload).strip() == "quick"


async def test_a_token_named_like_the_local_user_sees_none_of_the_local_users_jobs_nor_they_its(
    tmp_path: Path, extensions: Path, data_dir: Path
) -> None:
    """Ids of different kinds are chosen by different people: a tokens file's client id that
    spells the OS user's name (``root`` in a container) is another caller than that user's
    stdio sessions and ``toolbay call`` on the same data folder. It listed and read their jobs."""
    import getpass
    import json
    import subprocess
    import sys

    from toolbay.auth import new_token
    from toolbay.chain.call import ToolCall
    from toolbay.words import CallContext

    user = getpass.getuser()
    token, digest = new_token()
    tokens_file = tmp_path / "tokens.toml"
    tokens_file.write_text(f'[[tokens]]\nclient_id = "{user}"\nsha256 = "{digest}"\nscopes = ["tools:exec"]\n',
                           encoding="utf-8")
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, tokens_file=tokens_file)
    with anyio.fail_after(60):
        async with http_server(settings_for(config)) as (server_url, app), \
                http_client(server_url, token) as holder:
            holders_job = await start_job(holder, {"ms": 400, "message": "the token holder's"})
            await call(holder, "job_wait", {"job_id": holders_job, "timeout_s": 30})
            # The local user, as `toolbay call` reaches the same app.
            local = await app.call(ToolCall(name="slow", arguments={"ms": 400, "message": "the local user's"},
                                            context=CallContext(), transport="cli"))
            local_job = str(local.meta["job_id"])
            holder_sees = structured(await call(holder, "job_list", {}))
            holder_reads = await call(holder, "job_result", {"job_id": local_job})

    def jobs_list(*owner: str) -> list[str]:
        shown = subprocess.run([sys.executable, "-m", "toolbay", "jobs", "list", "--json", "--data-dir", str(data_dir),
                                *owner], capture_output=True, text=True, check=True)
        return [job["job_id"] for job in json.loads(shown.stdout)]

    assert [job["job_id"] for job in holder_sees["jobs"]] == [holders_job]
    assert holder_reads.is_error is True and "the local user's" not in text(holder_reads)
    assert jobs_list() == [local_job]  # the local user's own, by default
    assert jobs_list("--owner", f"token:{user}") == [holders_job]


async def test_a_tasks_result_past_a_mebibyte_as_an_event_reaches_the_sdk_client(
    tmp_path: Path, extensions: Path, data_dir: Path, callers: Callers
) -> None:
    """tasks/result was answered as an SSE stream, whose one event the SDK's client refuses past
    1 MiB: 600,000 quotes (1.2 MB as JSON) came back as "Server-sent event exceeded the 1048576
    byte limit", though the same result answered a tools/call, in JSON, whole."""
    config = write_config(tmp_path / "toolbay.toml", extensions, data_dir, tokens_file=callers.tokens_file)
    with anyio.fail_after(60):
        async with http_server(settings_for(config)) as (server_url, _), \
                http_client(server_url, callers.tokens["alice"]) as client:
            task = await call_as_task(client, {"from": "a", "to": '"' * 10, "stdin": "a" * 60_000},
                                      tool="textkit_replace")
            payload = await client.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id)),
                types.CallToolResult)
            # With a progress token too (the SDK's client sends one given a progress callback).
            followed = Progress()
            again = await client.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id)),
                types.CallToolResult, progress_callback=followed)
            listed = await client.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
    assert payload.is_error is False and text(payload) == '"' * 600_000
    assert again.is_error is False and text(again) == '"' * 600_000
    assert [t.task_id for t in listed.tasks] == [task.task_id]
