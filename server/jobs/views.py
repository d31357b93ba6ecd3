"""How a job is shown to a caller: one view type, one sentence for the model, one
structured form for clients. Used by the manager's answers and the built-in job tools."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from toolbay.jobs.store import TERMINAL, JobRecord, JobStatus
from toolbay.words import ToolResult

# Where a job's whole result is read (resources/read): the id percent-encoded, so that any id a
# listing gives can be read back (one of a row made by hand may hold a space or a slash).
RESULT_URI_TEMPLATE = "toolbay://jobs/{job_id}/result"


def result_uri(job_id: str) -> str:
    return RESULT_URI_TEMPLATE.format(job_id=quote(job_id, safe=""))


def iso(t: float | None) -> str | None:
    return datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z") if t is not None else None


@dataclass(frozen=True, slots=True)
class JobView:
    """A job as its owner sees it now."""

    id: str
    tool: str
    status: JobStatus
    created_at: float
    updated_at: float
    poll_interval_s: float
    started_at: float | None = None
    finished_at: float | None = None
    reason: str | None = None
    # 1-based place in the queue while ``queued``.
    position: int | None = None
    # The latest progress report: {"progress", "total", "message"}.
    progress: Mapping[str, Any] | None = None
    # Its tool has ended, and the store refused its end so far, for this reason (a full disk):
    # it is written again until it is taken, and the job shows running until then.
    end_refused: str | None = None

    @classmethod
    def of(cls, record: JobRecord, poll_interval_s: float) -> JobView:
        return cls(id=record.id, tool=record.tool, status=record.status, created_at=record.created_at,
                   updated_at=record.updated_at, started_at=record.started_at,
                   finished_at=record.finished_at, reason=record.reason, poll_interval_s=poll_interval_s)

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL

    def structured(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "job_id": self.id, "tool": self.tool, "status": self.status,
            "created_at": iso(self.created_at), "updated_at": iso(self.updated_at),
        }
        optional = {
            "started_at": iso(self.started_at), "finished_at": iso(self.finished_at), "reason": self.reason,
            "position": self.position, "progress": dict(self.progress) if self.progress else None,
            "end_refused": self.end_refused,
        }
        data.update({k: v for k, v in optional.items() if v is not None})
        if not self.finished:
            data["poll_interval_s"] = self.poll_interval_s
        return data

    def sentence(self) -> str:
        """One line a model can act on: where the job is, then the one call to make next."""
        return f"{self.state()}. {self.next_step()}"

    def state(self) -> str:
        """Where the job is, in words that read right for every status."""
        head = f"Job {self.id} ({self.tool})"
        if self.status == "queued":
            place = f", number {self.position} in the queue" if self.position is not None else " in the queue"
            head += " is waiting" + place
        elif self.status == "running":
            head += " is running"
            if self.progress:
                head += f", progress {progress_text(self.progress)}"
        else:
            head += _ENDED[self.status]
            if self.reason:
                head += f": {self.reason}"
        if self.end_refused and not self.finished:
            head += (f"; its tool has ended, but the server could not record its end yet ({self.end_refused}), "
                     "and tries again until it can")
        return head

    def next_step(self) -> str:
        if self.status in ("completed", "failed"):
            what = "output" if self.status == "completed" else "error"
            return f"Call job_result with job_id {self.id!r} to read its {what}."
        if self.status == "cancelled":
            return f"It has no output; call {self.tool} again if you still need its result."
        if self.status == "interrupted":
            return interrupted_next_step(self.tool, started=self.started_at is not None)
        return (f"Call job_wait with job_id {self.id!r} to wait for it to end "
                f"(job_status checks on it at once; poll no more often than every {self.poll_interval_s:g} s).")


def interrupted_next_step(tool: str, started: bool) -> str:
    """What to do of a job that was interrupted: one that never started (queued when its server
    stopped) changed nothing, and is not said to have begun."""
    if not started:
        return f"It never started (it was waiting for its turn), so it changed nothing; call {tool} again to run it."
    return (f"It did not finish and has no output; call {tool} again to run it anew "
            "(if it writes files, check first what it already changed).")


_ENDED: dict[str, str] = {
    "completed": " has completed", "failed": " has failed", "cancelled": " was cancelled",
    "interrupted": " was interrupted",
}


def progress_text(progress: Mapping[str, Any]) -> str:
    done, total, message = progress.get("progress"), progress.get("total"), progress.get("message")
    text = f"{done:g}/{total:g}" if total else f"{done:g}"
    return f"{text} ({message})" if message else text


def accepted(view: JobView) -> ToolResult:
    """The answer to a call that goes on as a job: the job id and the next call to make."""
    where = "waits in the queue" if view.status == "queued" else "goes on in the background"
    place = f", number {view.position} in the queue" if view.position is not None else ""
    text = (f"The call to {view.tool} {where} as job {view.id} "
            f"(status: {view.status}{place}). {view.next_step()}")
    structured = {"job_id": view.id, "status": view.status, "poll_interval_s": view.poll_interval_s}
    if view.position is not None:
        structured["position"] = view.position
    return ToolResult(text=text, structured=structured, meta={"job_id": view.id})
