"""Every way a call can end becomes a ``ToolResult``: this is where errors turn into results.

- A ``CallRefused`` (unknown tool, bad arguments, rate limit, ...) becomes an ``is_error``
  result whose text tells the model what to change, with the details in
  ``meta["refusal"]``.
- Anything else is a fault of toolbay or a tool: it is logged with its traceback and the
  model gets a generic sentence with an incident id, never a traceback.

Turning a ``ToolResult`` into an MCP answer is wire work (``toolbay.protocol.results``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping

from toolbay.errors import CallRefused
from toolbay.words import ToolResult

logger = logging.getLogger(__name__)


def refusal_to_result(refusal: CallRefused) -> ToolResult:
    return ToolResult(
        text=refusal.message,
        is_error=True,
        meta={"refusal": {"code": refusal.code, **refusal.meta}},
    )


def crash_to_result(tool: str, exc: BaseException) -> ToolResult:
    incident = uuid.uuid4().hex[:12]
    logger.error("tool %r failed unexpectedly (incident %s)", tool, incident, exc_info=exc)
    return ToolResult(
        text=(
            f"The tool {tool!r} failed because of an internal error (incident {incident}). "
            "The server logged the details; trying again with other arguments may help."
        ),
        is_error=True,
        meta={"incident": incident},
    )


def outcome_of(result: ToolResult) -> str:
    """How a call ended, in one word: ``ok``, ``tool_error`` (the tool ran and said it failed),
    ``job`` (it went on in the background), ``refused_<code>`` (the chain stopped it) or
    ``crash`` (toolbay's own fault). The metrics' ``outcome`` label and the spans' ``toolbay.outcome``."""
    meta = result.meta
    refusal = meta.get("refusal")
    if isinstance(refusal, Mapping):
        return f"refused_{refusal.get('code', 'other')}"
    if "incident" in meta:
        return "crash"
    if job_started(result) is not None:
        return "job"
    return "tool_error" if result.is_error else "ok"


def job_started(result: ToolResult) -> str | None:
    """The id of the job a call went on as, when ``result`` is the "goes on as job J" answer
    (the job tools' own answers carry a job id too, but name the job's tool)."""
    job = result.meta.get("job_id")
    structured = result.structured
    if isinstance(job, str) and isinstance(structured, Mapping) and "tool" not in structured and not result.is_error:
        return job
    return None
