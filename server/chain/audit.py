"""Stage 0, audit: one JSON line per call, wrapped around the whole chain.

Audit is the outermost stage, so it sees every call, refused ones included. Each line::

    {"time": "2025-01-01T12:00:00.123456+00:00", "caller": "ci-bot", "caller_kind": "token",
     "transport": "http", "tool": "wc", "request_id": "7", "arguments": {"path": "a.txt"},
     "outcome": "ok", "stages_ms": {"authenticate": 0.01, "ratelimit": 0.02, ...},
     "tool_ms": 3.2, "total_ms": 3.4}

A call made by a sub-agent (``agent_*`` through sampling) also carries
``"parent_request_id"``: the request id of the agent call it serves.
``outcome`` is ``ok``, ``job`` (it went on as the job ``job_id``), ``tool_error`` (the tool
answered ``isError``), ``refused:<code>``
(a ``CallRefused``; ``reason`` then holds its message), ``cancelled`` or ``crashed``.
Arguments are written with secrets hidden (``toolbay.redaction``, and the configured
credentials' values), cut to a line's worth (``toolbay.shortening``: each string its first
2,000 characters, 16,000 in all), and so is ``reason``.

Sink: ``AuditLog`` appends to a file with one ``os.write`` per line (no buffering, so
lines from concurrent calls never interleave and a crash loses nothing). A write that
fails (disk full, file removed) is reported on stderr through logging and the call goes
on: auditing must never break a call. Any object with ``write(record)`` can stand in.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from time import perf_counter
from typing import Any, Protocol

import anyio

from toolbay.blotting import blot, map_strings, written_forms
from toolbay.chain.call import CallNext, ToolCall
from toolbay.errors import ECHO_CHARACTERS, CallRefused, ConfigError
from toolbay.outcomes import job_started
from toolbay.redaction import redact_text
from toolbay.shortening import TEXT_CHARACTERS, shown_arguments, start_of
from toolbay.words import ToolResult

logger = logging.getLogger(__name__)


# A tool name longer than this is no tool's: the line keeps its start and its length, so that a
# caller cannot write megabytes into the log with each refused call.
LOGGED_NAME_CHARACTERS = 256


def _logged_name(name: str, credentials: Sequence[str] = ()) -> str:
    """A called name as logged: cut, and with secret-looking text hidden before the cut (a
    caller may call a tool that does not exist by a token's name)."""
    if len(name) <= LOGGED_NAME_CHARACTERS:
        return redact_text(name)
    return f"{start_of(name, ECHO_CHARACTERS, credentials)}... ({len(name)} characters)"


# The fields whose credentials ``shown_arguments`` blots out, in the windows it cuts them from.
_BLOTTED_WHEN_CUT = frozenset({"arguments", "reason"})


class AuditSink(Protocol):
    def write(self, record: Mapping[str, Any]) -> None: ...


class AuditLog:
    """Appends JSON lines to ``path`` (created with mode 0600 if missing)."""

    def __init__(self, path: Path) -> None:
        """Opens the file at once: one that cannot be written is said when the server starts
        (``ConfigError``), not by every call losing its line."""
        self.path = Path(path)
        self.failures = 0
        if self.path.is_dir():
            raise ConfigError(f"[chain.audit] file {self.path} is a folder, not a file")
        if self.path.is_fifo() or self.path.is_socket():  # its opening waited for a reader: the server hung
            raise ConfigError(f"[chain.audit] file {self.path} is a named pipe or a socket, not a file")
        try:
            self._fd: int | None = self._open()
        except OSError as exc:
            raise ConfigError(f"[chain.audit] file {self.path} cannot be written to ({exc.strerror or exc})") from None

    def _open(self) -> int:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # made here: its user's alone, as the file
        # O_NONBLOCK: a FIFO put in the file's place later fails to open (no reader) rather than
        # holding the event loop until one comes; a regular file's writes are not changed by it.
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)

    def write(self, record: Mapping[str, Any]) -> None:
        try:
            line = (json.dumps(record, ensure_ascii=False, default=str, separators=(",", ":")) + "\n").encode()
        except UnicodeEncodeError:
            # Half a UTF-16 pair in a caller's text ("\ud800"): no UTF-8 holds it, JSON's escape does.
            line = (json.dumps(record, default=str, separators=(",", ":")) + "\n").encode()
        try:
            if self._fd is None:
                self._fd = self._open()
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(f"short write ({written} of {len(line)} bytes)")
        except OSError as exc:
            self.failures += 1
            # Every failure would flood stderr when the disk is full: say the first and then every 1000th.
            if self.failures == 1 or self.failures % 1000 == 0:
                logger.error("audit log %s cannot be written (%s); %d line(s) lost so far",
                             self.path, exc, self.failures)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class Audit:
    name = "audit"

    def __init__(self, sink: AuditSink, hidden: Callable[[], Collection[str]] | None = None) -> None:
        self.sink = sink
        # The credentials' values: a caller may send one as an argument (or a tool's refusal
        # repeat it), and the log is read by more people than the credentials file.
        self.hidden = hidden

    async def __call__(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        started_at = datetime.now(UTC)
        started = perf_counter()
        outcome, reason, job = "crashed", None, None
        try:
            result = await call_next(call)
            # A call that went on as a job: its own outcome, as /metrics counts it, and the job's
            # id, which ties this line to job_status and the job's end.
            job = job_started(result)
            outcome = "tool_error" if result.is_error else ("job" if job else "ok")
            return result
        except CallRefused as exc:
            outcome, reason = f"refused:{exc.code}", exc.message
            raise
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled"
            raise
        finally:
            try:
                forms = written_forms(self.hidden()) if self.hidden is not None else ()
                record = self._record(call, started_at, perf_counter() - started, outcome, reason, forms)
                if forms:  # the other fields (the arguments and reason were, as they were cut)
                    record = {key: value if key in _BLOTTED_WHEN_CUT else map_strings(
                        value, lambda text: blot(text, forms), keys=True) for key, value in record.items()}
            except Exception as error:  # noqa: BLE001 - a call is written down whatever its arguments hold
                logger.warning("audit: the arguments of a call to %s could not be written (%s)",
                               _logged_name(call.name), type(error).__name__)
                record = self._record(replace(call, arguments={}), started_at, perf_counter() - started, outcome, None,
                                      ())
                record["arguments"] = f"[could not be written: {type(error).__name__}]"
            if job is not None:
                record["job_id"] = job
            self.sink.write(record)

    @staticmethod
    def _record(call: ToolCall, at: datetime, total: float, outcome: str, reason: str | None,
                credentials: Sequence[str]) -> dict[str, Any]:
        principal = call.principal
        timings = dict(call.timings)
        tool = timings.pop("tool", None)
        record: dict[str, Any] = {
            "time": at.isoformat(),
            "caller": principal.id if principal else None,
            "caller_kind": principal.kind if principal else None,
            "transport": call.transport,
            "tool": _logged_name(call.name, credentials),
            "request_id": call.context.request_id,
            "arguments": shown_arguments(call.arguments, credentials=credentials),
            "outcome": outcome,
            "stages_ms": {name: round(seconds * 1000, 4) for name, seconds in timings.items()},
            "tool_ms": round(tool * 1000, 4) if tool is not None else None,
            "total_ms": round(total * 1000, 4),
        }
        if reason is not None:
            record["reason"] = shown_arguments(reason, total=TEXT_CHARACTERS, credentials=credentials)
        if call.parent_request_id is not None:
            record["parent_request_id"] = call.parent_request_id
        return record
