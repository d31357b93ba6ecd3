"""The built-in job tools, always listed: job_status, job_wait, job_result, job_cancel, job_list.

Each is a ``Handler`` over one ``JobManager``; a job belongs to ``context.job_owner`` (the
caller's ``Principal.job_owner``), so a job is only ever seen by whoever started it (anyone
else gets ``NoSuchJob``, raised for the server to translate like every ``CallRefused``).

    catalog.extend(job_tools(manager))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, get_args

from toolbay.handlers.base import Handler
from toolbay.jobs.store import MAX_OFFSET, JobStatus
from toolbay.jobs.views import result_uri
from toolbay.words import CallContext, PermissionTier, ToolAnnotations, ToolDefinition, ToolResult

if TYPE_CHECKING:
    from toolbay.jobs.manager import JobManager
    from toolbay.jobs.views import JobView

# One job_wait answers within this, whatever it is asked: clients give up on a request
# after a while (the TypeScript SDK, which many clients use, after 60 s by default), and a
# model asking for longer should get "still running, call again", not a timeout error.
MAX_WAIT_S = 50.0
DEFAULT_PREVIEW_BYTES = 64 * 1024

_JOB_ID = {"type": "string", "description": "The job id, as returned when the call became a job (job_...)."}
_STATUSES = list(get_args(JobStatus))  # the store's own list, not a copy of it


def _schema(properties: Mapping[str, Any], required: tuple[str, ...] = ("job_id",)) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(required),
            "additionalProperties": False}


def _view_result(view: JobView) -> ToolResult:
    return ToolResult(text=view.sentence(), structured=view.structured(), meta={"job_id": view.id})


class JobTool(Handler):
    """A tool over the job manager. Subclasses set ``NAME``, ``DESCRIPTION``, ``SCHEMA``."""

    runs_inline = True  # a job_wait must never itself become a job
    for_every_caller = True  # a job is only ever seen by the caller who started it
    counted_per_caller = False

    NAME: ClassVar[str]
    DESCRIPTION: ClassVar[str]
    SCHEMA: ClassVar[Mapping[str, Any]] = _schema({"job_id": _JOB_ID})
    supports_cancellation = True

    # MCP's hints, where the read tier's (read-only, idempotent) are not what the tool does.
    HINTS: ClassVar[ToolAnnotations | None] = None

    def __init__(self, manager: JobManager) -> None:
        super().__init__(ToolDefinition(name=self.NAME, description=self.DESCRIPTION, input_schema=self.SCHEMA,
                                        title=self.NAME.replace("_", " ").capitalize(),
                                        tier=PermissionTier.READ, keywords=("job", "background"), hints=self.HINTS))
        self.manager = manager


class JobStatusTool(JobTool):
    NAME = "job_status"
    DESCRIPTION = ("Tells where a background job is now: queued (with its place in the queue), running "
                   "(with its latest progress), or ended (completed, failed, cancelled, interrupted). "
                   "Returns at once; use job_wait to wait for the end instead of calling this in a loop.")

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return _view_result(await self.manager.status(context.job_owner, arguments["job_id"]))


class JobWaitTool(JobTool):
    NAME = "job_wait"
    DESCRIPTION = ("Waits for a background job to end and returns its status as soon as it has ended, or "
                   "when timeout_s seconds have passed, whichever comes first. Then call job_result to read "
                   "the output. If it is still running after the timeout, call job_wait again. "
                   "Sends the job's progress as progress notifications while it waits.")
    SCHEMA = _schema({
        "job_id": _JOB_ID,
        "timeout_s": {"type": "number", "minimum": 0, "default": 30,
                      "description": f"How long to wait at most, in seconds (default 30; one call waits "
                                     f"{MAX_WAIT_S:g} s at the most, then call again)."},
    })

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        given = arguments.get("timeout_s", 30)
        # Bounded before float(): a JSON integer past a float's range (10**309) is a number the
        # schema takes, and float() of it raised OverflowError (an internal error).
        asked = max(float(min(given, MAX_WAIT_S)), 0.0)
        view = await self.manager.wait(context.job_owner, arguments["job_id"], asked,
                                       on_progress=context.report_progress)
        result = _view_result(view)
        if self.manager.stopping and not view.finished:
            result.text += (" The server was told to stop, and answered at once: the job stops with it unless "
                            "another server takes it over. Call job_status once the server is back.")
        elif given > MAX_WAIT_S and not view.finished:
            result.text += f" (job_wait waits {MAX_WAIT_S:g} s at the most per call.)"
        return result


class JobResultTool(JobTool):
    NAME = "job_result"
    DESCRIPTION = ("Returns the output of a background job that has ended, exactly as the tool itself "
                   "would have returned it (a very long one: its start, and a link to the whole as a resource). "
                   "For a job that has not ended yet it says so; call job_wait first.")

    def __init__(self, manager: JobManager, *, preview_bytes: int = DEFAULT_PREVIEW_BYTES) -> None:
        super().__init__(manager)
        self.preview_bytes = preview_bytes

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        job_id = arguments["job_id"]
        result = await self.manager.result(context.job_owner, job_id)
        if result is None:
            view = await self.manager.status(context.job_owner, job_id)
            # A job whose end is being recorded has ended for its tool, not yet for its caller.
            why = ("there is no result until its end is recorded" if view.end_refused
                   else "it has not ended yet, so there is no result")
            return ToolResult(text=f"{view.state()}; {why}. {view.next_step()}",
                              structured=view.structured(), is_error=True, meta={"job_id": job_id})
        meta = {**result.meta, "job_id": job_id}
        size = len(result.text.encode())
        if size <= self.preview_bytes:
            return ToolResult(text=result.text, structured=result.structured, is_error=result.is_error, meta=meta)
        # Too long to answer whole: a preview, and the whole as a resource the client can read.
        uri = result_uri(job_id)
        preview = result.text.encode()[:self.preview_bytes].decode("utf-8", errors="ignore")
        note = (f"\n\n[This is the first {_amount(len(preview.encode()))} of {_amount(size)}. The whole result "
                f"is the resource {uri}: read it with resources/read.]")
        meta["resource_link"] = {"uri": uri, "name": f"result of job {job_id}", "mimeType": "text/plain",
                                 "size": size}
        return ToolResult(text=preview + note, is_error=result.is_error, meta=meta)


def _amount(size: int) -> str:
    """Bytes as a person reads them: "4,100 bytes" below 10 KiB (4,100 and 4,096 read apart, where
    "4 KiB of 4 KiB" did not), "10.7 KiB", "2.5 MiB"."""
    if size < 10 * 1024:
        return f"{size:,} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:,.1f} KiB"
    return f"{size / (1024 * 1024):,.1f} MiB"


class JobCancelTool(JobTool):
    NAME = "job_cancel"
    # A caller may cancel its own jobs (the read tier), but a cancel stops work: no read-only hint,
    # which a client may take as leave to run it unasked. Cancelling twice is cancelling once.
    HINTS = ToolAnnotations(read_only=False, destructive=True, idempotent=True)
    DESCRIPTION = ("Stops a background job that is queued or running and records why. A job that has "
                   "already ended is left as it is. Returns the job's status afterwards.")
    SCHEMA = _schema({
        "job_id": _JOB_ID,
        "reason": {"type": "string", "maxLength": 500,
                   "description": "Why the job is being stopped, kept with the job (optional)."},
    })

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        reason = arguments.get("reason") or "cancelled by the caller"
        before = await self.manager.status(context.job_owner, arguments["job_id"])
        view = before if before.finished else await self.manager.cancel(context.job_owner, arguments["job_id"], reason)
        answer = _view_result(view)
        if before.finished:
            # Said so, as `toolbay jobs cancel` and tasks/cancel say it: the answer was the job's
            # status alone, read as if the cancel had done something.
            answer.text = f"Nothing to cancel: the job had already ended. {answer.text}"
        elif not view.finished:
            # Run by another server that has not stopped it yet (a replica that died, say, until
            # another takes the job over): the answer was "is running", "cancelled": false, as if
            # the cancel had been lost (an outside check).
            answer.text = ("The cancel is recorded, and the job has not stopped yet: the server running it stops it "
                           "when it sees the request, or, if that server has stopped, the one that takes the job "
                           f"over. Call job_wait to see it end. {answer.text}")
        answer.structured = {**view.structured(), "cancelled": not before.finished and view.status == "cancelled",
                             "cancel_requested": not before.finished}
        return answer


class JobListTool(JobTool):
    NAME = "job_list"
    DESCRIPTION = ("Lists your background jobs, newest first, optionally only those with one status. "
                   "Each entry has the job id, the tool, and its status.")
    SCHEMA = _schema({
        "status": {"type": "string", "enum": _STATUSES, "description": "Only jobs with this status (optional)."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20,
                  "description": "At most this many jobs (default 20)."},
        # At most what the job database can count to (SQLite's integers): 2**63 was an internal error.
        "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0,
                   "description": "Skip this many of the newest first (the next_offset of the page before)."},
    }, required=())

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        limit, offset = int(arguments.get("limit", 20)), int(arguments.get("offset", 0))
        views = await self.manager.list(context.job_owner, arguments.get("status"), limit=limit, offset=offset)
        text = "\n".join(v.sentence() for v in views) or "You have no jobs" + (
            f" with status {arguments['status']}" if arguments.get("status") else "") + (
            " past that offset." if offset else ".")
        structured: dict[str, Any] = {"jobs": [v.structured() for v in views]}
        if len(views) == limit:  # there may be more: older jobs
            structured["next_offset"] = offset + limit
            text += f"\nMore may follow: call job_list with offset {offset + limit}."
        return ToolResult(text=text, structured=structured)


JOB_TOOLS: tuple[type[JobTool], ...] = (JobStatusTool, JobWaitTool, JobResultTool, JobCancelTool, JobListTool)


def job_tools(manager: JobManager, *, preview_bytes: int = DEFAULT_PREVIEW_BYTES) -> list[JobTool]:
    """The five built-in job tools over ``manager``; ``job_result`` answers a result longer
    than ``preview_bytes`` with its start and a ``resource_link`` to the whole."""
    return [JobResultTool(manager, preview_bytes=preview_bytes) if tool is JobResultTool else tool(manager)
            for tool in JOB_TOOLS]
