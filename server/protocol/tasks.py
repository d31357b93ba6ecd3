"""MCP Tasks (protocol 2025-11-25) on the job manager: a task is a job.

The SDK has only the types, so the wiring is three pieces (``install`` adds the first two):

- ``TaskMiddleware``: a ``ServerMiddleware`` that sees a ``tools/call`` carrying ``task``,
  runs the call through the normal ``on_call_tool`` inside ``as_job()`` (so the whole
  chain applies and the manager makes it a job at once), and answers
  ``{"task": {...}}`` itself. It must answer as a middleware: a handler's result is
  checked against ``CallToolResult`` on the way out.
- ``TaskHandlers``: ``tasks/get``, ``tasks/result``, ``tasks/list``, ``tasks/cancel`` as
  plain ``(ctx, params)`` handlers for ``Server.add_request_handler`` (the SDK's).
- ``tasks_capability()`` for ``ServerCapabilities.tasks`` and ``TASK_EXECUTION`` for
  ``Tool.execution``: the SDK's ``get_capabilities`` knows nothing of tasks.

Results are answered as dicts without ``resultType``, which 2025 peers do not know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from toolbay.errors import NoSuchJob, NotATask
from toolbay.jobs.manager import JobManager, as_job
from toolbay.jobs.store import MAX_OFFSET
from toolbay.jobs.views import JobView, iso
from toolbay.protocol.results import META_PREFIX
from toolbay.words import ToolResult

RELATED_TASK = "io.modelcontextprotocol/related-task"
PAGE_SIZE = 100

OwnerOf = Callable[[ServerRequestContext[Any, Any]], str]
ToCallResult = Callable[[ToolResult], types.CallToolResult]

TASK_EXECUTION = types.ToolExecution(task_support="optional")
# Where a call's answer says why it was refused (``toolbay.outcomes.refusal_to_result``).
REFUSAL_META = f"{META_PREFIX}refusal"

_TASK_STATUS: dict[str, types.TaskStatus] = {
    "queued": "working", "running": "working", "completed": "completed", "failed": "failed",
    "cancelled": "cancelled", "interrupted": "failed",
}


def tasks_capability() -> types.ServerTasksCapability:
    """What to put in ``ServerCapabilities.tasks``: list, cancel, and task-augmented tools/call."""
    return types.ServerTasksCapability(
        list=types.TasksListCapability(), cancel=types.TasksCancelCapability(),
        requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(
            call=types.TasksCallCapability())),
    )


def task_of(view: JobView, manager: JobManager) -> types.Task:
    """The task a job is, as the protocol describes it."""
    message = view.sentence()
    return types.Task(
        task_id=view.id, status=_TASK_STATUS[view.status], status_message=message,
        created_at=iso(view.created_at) or "", last_updated_at=iso(view.updated_at) or "",
        ttl=int(manager.retention_s * 1000), poll_interval=int(view.poll_interval_s * 1000),
    )


def call_result_of(result: ToolResult) -> types.CallToolResult:
    """A plain ``ToolResult`` → ``CallToolResult`` (pass the server's own converter if it has one)."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=dict(result.structured) if result.structured is not None else None,
        is_error=result.is_error, _meta=dict(result.meta) or None,
    )


def wire(model: BaseModel, **extra: Any) -> dict[str, Any]:
    data = model.model_dump(by_alias=True, mode="json", exclude_none=True, exclude={"result_type"})
    return {**data, **extra}


class TaskMiddleware:
    """Answers a task-augmented ``tools/call`` with ``{"task": ...}``; passes everything else."""

    def __init__(self, manager: JobManager) -> None:
        self.manager = manager

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        # A task of no fields ({}: ttl is optional) asks for a task too.
        if (ctx.method != "tools/call" or params.get("task") is None
                or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS):
            return await call_next(ctx)
        with as_job() as ticket:
            answer = await call_next(ctx)
        if ticket.job_id is None or ticket.owner is None:
            # Refused before it could run (unknown tool, not allowed, bad arguments): no task. The
            # refusal's details (its code, a rate limit's retry_after) go with it, as on a call.
            refusal = _refusal_of(answer)
            code = types.METHOD_NOT_FOUND if refusal.get("code") == NotATask.code else types.INVALID_PARAMS
            raise MCPError(code=code, message=_text_of(answer) or "The call was refused.",
                           data={REFUSAL_META: refusal} if refusal else None)
        view = await self.manager.status(ticket.owner, ticket.job_id)
        return wire(types.CreateTaskResult(task=task_of(view, self.manager)))


def _refusal_of(answer: HandlerResult) -> dict[str, Any]:
    meta = answer.get("_meta") if isinstance(answer, dict) else None
    refusal = meta.get(REFUSAL_META) if isinstance(meta, dict) else None
    return refusal if isinstance(refusal, dict) else {}


def _text_of(answer: HandlerResult) -> str:
    if isinstance(answer, dict):
        return " ".join(c.get("text", "") for c in answer.get("content", []) if isinstance(c, dict))
    return ""


class TaskHandlers:
    """``tasks/*`` request handlers over the job manager. ``owner_of(ctx)`` must name the
    caller exactly as ``CallContext.caller`` does for the same client."""

    def __init__(self, manager: JobManager, owner_of: OwnerOf, *,
                 to_call_result: ToCallResult = call_result_of) -> None:
        self.manager = manager
        self.owner_of = owner_of
        self.to_call_result = to_call_result

    def register(self, server: Any) -> None:
        """Adds the four handlers to a low-level ``mcp.server.Server``."""
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, self.get)
        server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, self.result)
        server.add_request_handler("tasks/list", types.PaginatedRequestParams, self.list)
        server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, self.cancel)

    async def _view(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> JobView:
        try:
            return await self.manager.status(self.owner_of(ctx), task_id)
        except NoSuchJob as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=exc.message) from None

    async def get(self, ctx: ServerRequestContext[Any, Any], params: types.GetTaskRequestParams) -> dict[str, Any]:
        return wire(task_of(await self._view(ctx, params.task_id), self.manager))

    async def result(self, ctx: ServerRequestContext[Any, Any],
                     params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        """Blocks until the task has ended (as the protocol asks), then answers the call's result."""
        await self._view(ctx, params.task_id)
        owner = self.owner_of(ctx)
        await self.manager.wait(owner, params.task_id, None)
        result = await self.manager.result(owner, params.task_id)
        assert result is not None
        call_result = self.to_call_result(result)
        meta = {**(call_result.meta or {}), RELATED_TASK: {"taskId": params.task_id}}
        return wire(call_result.model_copy(update={"meta": meta}))

    async def list(self, ctx: ServerRequestContext[Any, Any],
                   params: types.PaginatedRequestParams) -> dict[str, Any]:
        try:
            offset = int(params.cursor or 0)
        except ValueError:
            offset = -1
        # Only a cursor this server gave: "-1" was taken, and one past SQLite's integers
        # ("99999999999999999999999") failed in the database, answered with code 0.
        if not 0 <= offset <= MAX_OFFSET:
            raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor")
        views = await self.manager.list(self.owner_of(ctx), limit=PAGE_SIZE, offset=offset)
        answer = wire(types.ListTasksResult(tasks=[task_of(v, self.manager) for v in views]))
        if len(views) == PAGE_SIZE:
            answer["nextCursor"] = str(offset + PAGE_SIZE)
        return answer

    async def cancel(self, ctx: ServerRequestContext[Any, Any],
                     params: types.CancelTaskRequestParams) -> dict[str, Any]:
        view = await self._view(ctx, params.task_id)
        if view.finished:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"Cannot cancel task {params.task_id}: it has already ended ({view.status}).")
        view = await self.manager.cancel(self.owner_of(ctx), params.task_id, "cancelled by the client (tasks/cancel)")
        return wire(task_of(view, self.manager))


def install(server: Any, manager: JobManager, owner_of: OwnerOf, *,
            to_call_result: ToCallResult = call_result_of) -> TaskHandlers:
    """Registers the ``tasks/*`` handlers and the middleware on a low-level ``Server``.

    The server must still advertise ``tasks_capability()`` (override ``get_capabilities``)
    and set ``execution=TASK_EXECUTION`` on the tools it lists.
    """
    handlers = TaskHandlers(manager, owner_of, to_call_result=to_call_result)
    handlers.register(server)
    server.middleware.append(TaskMiddleware(manager))
    return handlers
