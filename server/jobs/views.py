"""How a job is shown to a caller: one view type, one sentence for the model, one
structured form for clients. Used by the manager's answers and the built-in job tools."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from toolbay.jobs.store import TERMINAL, JobRecord, JobStatus
from toolbay.words import ToolResult


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
        }
        data.update({k: v for k, v in optional.items() if v is not None})
        if not self.finished:
            data["poll_interval_s"] = self.poll_interval_s
        return data

    def sentence(self) -> str:
        """One line a model can act on: where the job is and what to call next."""
        head = f"Job {self.id} ({self.tool}) is {self.status}"
        if self.status == "queued" and self.position is not None:
            head += f", number {self.position} in the queue"
        if self.reason:
            head += f": {self.reason}"
        if self.progress and not self.finished:
            head += f" — progress {progress_text(self.progress)}"
        return f"{head}. {self.next_step()}"

    def next_step(self) -> str:
        if self.finished:
            return f"Call job_result with job_id {self.id!r} to read its output."
        return (f"Call job_wait with job_id {self.id!r} to wait for it to end "
                f"(or job_status to check on it, about every {self.poll_interval_s:g} s), "
                "then job_result to read its output.")


def progress_text(progress: Mapping[str, Any]) -> str:
    done, total, message = progress.get("progress"), progress.get("total"), progress.get("message")
    text = f"{done:g}/{total:g}" if total else f"{done:g}"
    return f"{text} ({message})" if message else text


def accepted(view: JobView) -> ToolResult:
    """The answer to a call that goes on as a job: the job id and the next call to make."""
    place = f", number {view.position} in the queue" if view.position is not None else ""
    text = (f"The call to {view.tool} goes on in the background as job {view.id} "
            f"(status: {view.status}{place}). {view.next_step()}")
    structured = {"job_id": view.id, "status": view.status, "poll_interval_s": view.poll_interval_s}
    if view.position is not None:
        structured["position"] = view.position
    return ToolResult(text=text, structured=structured, meta={"job_id": view.id})
