"""After a crash: which unfinished jobs the server may simply run again.

A job of a read-tier tool only reads (it sees the workspace read-only), so running it again
from the start gives what the first run would have given: the job manager resumes it under its
own id, and the caller's ``job_wait``/``job_result`` go on working. Any other job may have
changed files half way, and an agent tool's needs its caller's client: it stays interrupted,
and its text tells the model to check and call again. Runs are resumed without the call chain:
the caller passed it when the job was made.
"""

from __future__ import annotations

from collections.abc import Callable

from toolbay.catalog import Catalog
from toolbay.jobs.manager import Recover, Work
from toolbay.jobs.store import JobRecord
from toolbay.words import PermissionTier


def read_jobs_recovery(catalog: Callable[[], Catalog]) -> Recover:
    """The manager's ``recover``: the work of a read-tier tool still in the ``catalog()`` of the
    moment, else None."""

    def recover(record: JobRecord) -> Work | None:
        handler = catalog().get(record.tool)
        if handler is None or handler.runs_inline or handler.definition.effective_tier is not PermissionTier.READ:
            return None
        if not handler.runs_again_without_its_caller:
            return None
        arguments = dict(record.arguments)
        return lambda context: handler.handle(arguments, context)

    return recover
