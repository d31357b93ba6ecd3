"""MCP Tasks through toolbay's own server and dispatch (the chain, the job manager, the Tasks
handlers), driven by the SDK's in-memory client, on a tool whose calls the test holds open."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.jobs.conftest import Gate
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.handlers.base import Handler
from toolbay.protocol.mcp_server import build_mcp_server
from toolbay.words import CallContext, PermissionTier, ToolDefinition, ToolResult

pytestmark = pytest.mark.anyio


class GateTool(Handler):
    """The ``slow`` tool: its calls run until the test opens the gate."""

    supports_cancellation = True

    def __init__(self, gate: Gate) -> None:
        super().__init__(ToolDefinition(name="slow", description="Runs until the test opens its gate.",
                                        input_schema={"type": "object"}, tier=PermissionTier.READ))
        self.gate = gate

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return await self.gate(context)


@asynccontextmanager
async def toolbay_with(gate: Gate, tmp_path: Path) -> AsyncIterator[Client]:
    """toolbay's own MCP server (its dispatch, chain, job manager and Tasks), in memory, with
    the gated tool in its catalog; the sync budget is long, so only a task answers at once."""
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    settings = load_settings(None, extensions=[extensions], data_dir=tmp_path / "data",
                             jobs={"sync_budget_s": 60})
    async with assemble(settings, watch=False, builtins=[GateTool(gate)]) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        yield client


@pytest.fixture
async def client_and_gate(tmp_path: Path) -> AsyncIterator[tuple[Client, Gate]]:
    gate = Gate("finished")
    async with toolbay_with(gate, tmp_path) as client:
        yield client, gate
        gate.open()


async def call_as_task(client: Client, name: str = "slow", task: dict[str, Any] | None = None) -> dict[str, Any]:
    # The SDK client checks every tools/call answer against CallToolResult, so a task
    # answer is read off the raw request and validated as the CreateTaskResult it is.
    params = {"name": name, "arguments": {}, "task": {"ttl": 60_000} if task is None else task}
    raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
    assert "resultType" not in raw
    return types.CreateTaskResult.model_validate(raw).task.model_dump()


async def test_the_server_advertises_tasks_and_tools_that_support_them(client_and_gate) -> None:
    client, _ = client_and_gate
    assert client.server_capabilities.tasks is not None
    assert client.server_capabilities.tasks.requests.tools.call is not None
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tools["slow"].execution.task_support == "optional"


async def test_a_task_augmented_call_answers_a_task_at_once_and_round_trips(client_and_gate) -> None:
    client, gate = client_and_gate
    with anyio.fail_after(5):  # the budget is 60 s: only a task answers this fast
        task = await call_as_task(client)
    assert task["status"] == "working" and task["poll_interval"] == 2000  # the job manager's poll interval
    task_id = task["task_id"]

    got = await client.session.send_request(types.GetTaskRequest(
        params=types.GetTaskRequestParams(task_id=task_id)), types.GetTaskResult)
    assert got.status == "working"
    listed = await client.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
    assert [t.task_id for t in listed.tasks] == [task_id]

    gate.open()
    with anyio.fail_after(5):  # tasks/result blocks until the task has ended
        result = await client.session.send_request(types.GetTaskPayloadRequest(
            params=types.GetTaskPayloadRequestParams(task_id=task_id)), types.CallToolResult)
    assert result.content[0].text == "finished" and result.structured_content == {"answer": 42}
    assert result.meta["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    got = await client.session.send_request(types.GetTaskRequest(
        params=types.GetTaskRequestParams(task_id=task_id)), types.GetTaskResult)
    assert got.status == "completed"


async def test_a_task_of_no_fields_is_a_task_too(client_and_gate) -> None:
    # ttl is optional, and the SDK's own TaskMetadata() is written {}: it was run as a plain call,
    # whose CallToolResult a client that asked for a task cannot read.
    client, gate = client_and_gate
    with anyio.fail_after(5):
        task = await call_as_task(client, task={})
    assert task["status"] == "working"
    gate.open()


async def test_tasks_cancel_stops_the_job_and_a_second_cancel_is_refused(client_and_gate) -> None:
    client, gate = client_and_gate
    task_id = (await call_as_task(client))["task_id"]
    request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
    with anyio.fail_after(5):
        cancelled = await client.session.send_request(request, types.CancelTaskResult)
    assert cancelled.status == "cancelled" and gate.seen_cancel
    with pytest.raises(MCPError, match="already ended"):
        await client.session.send_request(request, types.CancelTaskResult)


async def test_an_unknown_task_is_an_invalid_params_error(client_and_gate) -> None:
    client, _ = client_and_gate
    with pytest.raises(MCPError) as caught:
        await client.session.send_request(types.GetTaskRequest(
            params=types.GetTaskRequestParams(task_id="job_nope")), types.GetTaskResult)
    assert caught.value.error.code == types.INVALID_PARAMS


async def test_a_task_call_refused_before_it_runs_is_an_error_not_a_task(client_and_gate) -> None:
    client, _ = client_and_gate
    with pytest.raises(MCPError, match="no tool named 'missing'"):
        await call_as_task(client, "missing")


async def test_a_plain_call_is_untouched_by_the_task_middleware(tmp_path: Path) -> None:
    gate = Gate("inline")
    gate.open()
    async with toolbay_with(gate, tmp_path) as client:
        result = await client.call_tool("slow", {})
    assert result.content[0].text == "inline" and not result.is_error


@pytest.mark.parametrize("cursor", ["-1", "99999999999999999999999", "next"])
async def test_a_cursor_this_server_did_not_give_is_refused_as_invalid(client_and_gate, cursor: str) -> None:
    # "-1" was taken, and one past SQLite's integers failed in the database: answered with code 0
    # and the database's own words, and logged with a traceback.
    client, _ = client_and_gate
    with pytest.raises(MCPError) as refused:
        await client.session.send_request(types.ListTasksRequest(
            params=types.PaginatedRequestParams(cursor=cursor)), types.ListTasksResult)
    assert (refused.value.error.code, refused.value.error.message) == (types.INVALID_PARAMS, "Invalid cursor")


async def test_a_built_in_is_not_offered_as_a_task_and_a_task_augmented_call_of_one_does_not_run(
    client_and_gate,
) -> None:
    # Listed as optional like every tool, job_cancel run as a task cancelled the job, then its
    # caller was told the call was refused ("Invalid params", with the cancel's own answer).
    client, gate = client_and_gate
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tools["job_cancel"].execution is None and tools["refresh_tools"].execution is None
    assert tools["slow"].execution.task_support == "optional"
    task = await call_as_task(client)
    with pytest.raises(MCPError) as refused:
        await client.session._dispatcher.send_raw_request(
            "tools/call", {"name": "job_cancel", "arguments": {"job_id": task["task_id"]}, "task": {"ttl": 60_000}}, {})
    assert refused.value.error.code == types.METHOD_NOT_FOUND
    assert "answers at once and does not run as a task" in refused.value.error.message
    assert refused.value.error.data["toolbay/refusal"]["code"] == "not_a_task"
    got = await client.session.send_request(types.GetTaskRequest(
        params=types.GetTaskRequestParams(task_id=task["task_id"])), types.GetTaskResult)
    assert got.status == "working"  # not cancelled
    gate.open()
