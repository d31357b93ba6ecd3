"""MCP Tasks over the job manager, through the SDK's in-memory client on a tiny server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from handlers.base import CallContext
from server.jobs import JobManager
from server.protocol.tasks import TASK_EXECUTION, install, tasks_capability
from tests.jobs.conftest import Gate, MakeManager

pytestmark = pytest.mark.anyio


class TaskServer(Server):
    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(*args, **kwargs)
        capabilities.tasks = tasks_capability()
        return capabilities


def tiny_server(manager: JobManager, gate: Gate) -> Server:
    """One tool, ``slow``, dispatched through the manager the way toolbay's on_call_tool does."""

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="slow", input_schema={"type": "object"},
                                                       execution=TASK_EXECUTION)])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name != "slow":
            return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")],
                                        is_error=True)
        result = await manager.run_or_background("local", params.name, params.arguments or {}, gate,
                                                  CallContext(caller="local"))
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text)],
                                    structured_content=dict(result.structured or {}), is_error=result.is_error)

    server = TaskServer("tiny", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    install(server, manager, owner_of=lambda ctx: "local")
    return server


@pytest.fixture
async def client_and_gate(make_manager: MakeManager) -> AsyncIterator[tuple[Client, Gate]]:
    gate = Gate("finished")
    async with make_manager(sync_budget_s=60) as manager, Client(tiny_server(manager, gate),
                                                                   mode="legacy") as client:
        yield client, gate
        gate.open()


async def call_as_task(client: Client, name: str = "slow") -> dict[str, Any]:
    # The SDK client checks every tools/call answer against CallToolResult, so a task
    # answer is read off the raw request and validated as the CreateTaskResult it is.
    params = {"name": name, "arguments": {}, "task": {"ttl": 60_000}}
    raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
    assert "resultType" not in raw
    return types.CreateTaskResult.model_validate(raw).task.model_dump()


async def test_the_server_advertises_tasks_and_tools_that_support_them(client_and_gate) -> None:
    client, _ = client_and_gate
    assert client.server_capabilities.tasks is not None
    assert client.server_capabilities.tasks.requests.tools.call is not None
    tools = await client.list_tools()
    assert tools.tools[0].execution.task_support == "optional"


async def test_a_task_augmented_call_answers_a_task_at_once_and_round_trips(client_and_gate) -> None:
    client, gate = client_and_gate
    with anyio.fail_after(5):  # the budget is 60 s: only a task answers this fast
        task = await call_as_task(client)
    assert task["status"] == "working" and task["poll_interval"] == 1000
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
    with pytest.raises(MCPError, match="no such tool"):
        await call_as_task(client, "missing")


async def test_a_plain_call_is_untouched_by_the_task_middleware(make_manager: MakeManager) -> None:
    gate = Gate("inline")
    gate.open()
    async with make_manager(sync_budget_s=60) as manager, Client(tiny_server(manager, gate),
                                                                   mode="legacy") as client:
        result = await client.call_tool("slow", {})
    assert result.content[0].text == "inline" and not result.is_error
