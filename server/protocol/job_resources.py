"""Job results as MCP resources: ``toolbay://jobs/{job_id}/result``, for their owner only.

``resources/list`` lists the caller's ended jobs (newest first, pages of ``PAGE_SIZE``),
``resources/templates/list`` the one template, ``resources/read`` a result whole: the text
the tool returned and, when it returned structured content, that as JSON. Registering
``resources/list`` makes the SDK advertise the resources capability. A result too long for a
tool answer is sent as a preview plus a ``resource_link`` to this URI (``handlers/jobs.py``).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from toolbay.errors import NoSuchJob, echoed
from toolbay.jobs import JobManager
from toolbay.jobs.store import RESULT_LOST
from toolbay.jobs.views import RESULT_URI_TEMPLATE, result_uri
from toolbay.protocol.results import META_PREFIX, wire_meta
from toolbay.protocol.tasks import PAGE_SIZE, OwnerOf

# In a resource read's _meta: whether the job failed or was cancelled (its text is an error's).
IS_ERROR_META = META_PREFIX + "isError"

# Any id a listing gives: job_ and hex, as this server makes them, written as they are; an id
# of a row made by hand, percent-encoded (one with a space or a slash was listed, and could not
# be read: a re-check).
_URI = re.compile(r"toolbay://jobs/([^/?#]{1,600})/result")
# The JSON-RPC code the specification gives an unknown resource.
RESOURCE_NOT_FOUND = -32002


class JobResources:
    def __init__(self, manager: JobManager, owner_of: OwnerOf) -> None:
        self.manager = manager
        self.owner_of = owner_of

    def register(self, server: Any) -> None:
        server.add_request_handler("resources/list", types.PaginatedRequestParams, self.list)
        server.add_request_handler("resources/templates/list", types.PaginatedRequestParams, self.templates)
        server.add_request_handler("resources/read", types.ReadResourceRequestParams, self.read)

    # Answers are the SDK's result models, not dicts: the SDK shapes a model for the client's
    # protocol version (2026-07-28 results carry a ``resultType``, earlier ones must not).

    async def list(self, ctx: ServerRequestContext[Any, Any],
                   params: types.PaginatedRequestParams) -> types.ListResourcesResult:
        try:
            offset = int(params.cursor or 0)
        except ValueError:
            raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor") from None
        views = await self.manager.list(self.owner_of(ctx), limit=PAGE_SIZE, offset=offset)
        resources = [
            types.Resource(uri=result_uri(v.id), name=f"{v.tool} result ({v.id})", title=f"Result of job {v.id}",
                           description=v.state() + ".", mime_type="text/plain")
            for v in views if v.finished
        ]
        return types.ListResourcesResult(
            resources=resources, next_cursor=str(offset + PAGE_SIZE) if len(views) == PAGE_SIZE else None)

    async def templates(self, ctx: ServerRequestContext[Any, Any],
                        params: types.PaginatedRequestParams) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=RESULT_URI_TEMPLATE, name="job result", title="The result of a job",
            description="The whole output of one of your jobs that has ended (job ids come from job_list).",
            mime_type="text/plain")
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read(self, ctx: ServerRequestContext[Any, Any],
                   params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        match = _URI.fullmatch(uri)
        if match is None:
            raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {echoed(uri)} (job results are "
                           f"{RESULT_URI_TEMPLATE})")
        job_id = unquote(match.group(1))
        try:
            result = await self.manager.result(self.owner_of(ctx), job_id)
        except NoSuchJob:
            raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: there is no job {echoed(job_id)} "
                           "of yours") from None
        if result is None:
            raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Job {job_id} has not ended yet: its result is not "
                           "there to read. Call job_wait first.")
        if result.meta.get("reason") == RESULT_LOST:
            # Read as the resource's text, the sentence saying the result was lost passed for the result.
            raise MCPError(code=types.INTERNAL_ERROR, message=result.text)
        contents: list[types.TextResourceContents] = [
            types.TextResourceContents(uri=uri, mime_type="text/plain", text=result.text)]
        if result.structured is not None:
            contents.append(types.TextResourceContents(uri=uri, mime_type="application/json",
                                                       text=json.dumps(result.structured)))
        # A resource has no isError: a failed or cancelled job's text (its error, "was cancelled")
        # read as the job's output. Said in the result's _meta, as job_result's isError says it.
        meta = {**(wire_meta(result) or {}), IS_ERROR_META: result.is_error}
        return types.ReadResourceResult(contents=contents, _meta=meta)


def install(server: Any, manager: JobManager, owner_of: OwnerOf) -> JobResources:
    resources = JobResources(manager, owner_of)
    resources.register(server)
    return resources
