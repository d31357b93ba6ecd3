"""Jobs: calls that outlive their request, kept in a store that survives restarts.

    store.py    JobStore (the interface), JobRecord, JobEvent, statuses
    sqlite.py   SqliteJobStore, the embedded default
    manager.py  JobManager: inline first, background after the budget, queue, cancel
    progress.py ProgressRelay: a job's progress to the requests waiting on it
    views.py    JobView and the texts a model reads
"""

from toolbay.jobs.manager import JobManager, as_job, job_asked_for
from toolbay.jobs.sqlite import SqliteJobStore
from toolbay.jobs.store import INTERRUPTED_BY_RESTART, TERMINAL, JobEvent, JobRecord, JobStatus, JobStore
from toolbay.jobs.views import JobView

__all__ = [
    "INTERRUPTED_BY_RESTART", "TERMINAL", "JobEvent", "JobManager", "JobRecord", "JobStatus", "JobStore",
    "JobView", "SqliteJobStore", "as_job", "job_asked_for",
]
