"""After a crash: which unfinished jobs the server may simply run again.

A job of a read-tier tool only reads (it sees the workspace read-only), so running it again
from the start gives what the first run would have given: the job manager resumes it under its
own id, and the caller's ``job_wait``/``job_result`` go on working. Any other job may have
changed files half way, and an agent tool's needs its caller's client: it stays interrupted,
and its text tells the model to check and call again. Runs are resumed without the rest of the
call chain, which the caller passed when the job was made; but not where the caller may no
longer use the tool (``refusal_now``): the operator disabled it, or took the caller's token or
scope away, after the crash.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from toolbay.catalog import Catalog
from toolbay.jobs.manager import Recover, Work
from toolbay.jobs.store import JobRecord
from toolbay.words import PermissionTier, ToolDefinition

logger = logging.getLogger(__name__)


def read_jobs_recovery(catalog: Callable[[], Catalog],
                       refusal_now: Callable[[str, ToolDefinition], str | None] = lambda owner, definition: None,
                       ) -> Recover:
    """The manager's ``recover``: the work of a read-tier tool still in the ``catalog()`` of the
    moment that its owner may still use (``refusal_now(owner, definition)`` says why not), else None."""

    def recover(record: JobRecord) -> Work | None:
        handler = catalog().get(record.tool)
        if handler is None or handler.runs_inline or handler.definition.effective_tier is not PermissionTier.READ:
            return None
        if not handler.runs_again_without_its_caller:
            return None
        if (refused := refusal_now(record.owner, handler.definition)) is not None:
            logger.warning("job %s (%s) is not run again: its caller may no longer use the tool: %s",
                           record.id, record.tool, refused)
            return None
        arguments = dict(record.arguments)
        return lambda context: handler.handle(arguments, context)

    return recover
