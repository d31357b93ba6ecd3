"""Logging to stderr (and a file when configured). Never to stdout: on stdio, stdout is the wire.

Two formats (``log_format``): ``text``, one line per record for people, and ``json``, one JSON
object per line for log collectors, with ``time``, ``level``, ``logger`` and ``message``, an
``exc_info`` traceback when there is one, and the call's ``tool``, ``request_id`` and ``job_id``
when the record was written while serving one (``call_fields``; the app and the job manager
set them, and only when JSON is on, as nothing else reads them).
"""

from __future__ import annotations

import contextvars
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from toolbay.control_chars import one_line, shown

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
LogFormat = Literal["text", "json"]

# The SDK and HTTP stack's loggers, chatty at info.
QUIETED_LOGGERS = ("mcp", "uvicorn", "httpx2", "httpcore2", "sse_starlette")

_NO_FIELDS: dict[str, str] = {}  # never changed: each binding makes a new dict
_call_fields: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("toolbay_log_fields",
                                                                              default=_NO_FIELDS)  # noqa: B039
_structured = False


def structured() -> bool:
    """Whether records carry the call's fields (JSON logs are on)."""
    return _structured


@contextmanager
def call_fields(**fields: str | None) -> Iterator[None]:
    """Records written inside (this task and the tasks it starts) carry ``fields`` too."""
    if not _structured:
        yield
        return
    token = _call_fields.set({**_call_fields.get(), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        _call_fields.reset(token)


def add_call_fields(**fields: str | None) -> None:
    """As ``call_fields``, for the rest of this task (a job's own task)."""
    if _structured:
        _call_fields.set({**_call_fields.get(), **{k: v for k, v in fields.items() if v is not None}})


class _CallFields(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _call_fields.get().items():
            setattr(record, key, value)
        return True


def _json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    class IsoTimes(JsonFormatter):
        # ISO 8601 in UTC, as the audit log writes it and log collectors read it without a
        # pattern: logging's own "2026-12-03 16:29:33,659" says no time zone.
        def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
            return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")

    return IsoTimes("%(asctime)s %(levelname)s %(name)s %(message)s",
                    rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
                    json_ensure_ascii=False)


class _ShownFormatter(logging.Formatter):
    """Lines whose control characters are written as escapes (``toolbay.control_chars``): a
    module's error, logged, set the title of the terminal that showed the log (JSON lines
    escape them already)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802
        # The message on one line: a file's name or a module's error with a line break in it
        # began a line that read as another record ("ok\n09:99:99 CRITICAL toolbay.auth: ...").
        # A traceback, added after the message, keeps its lines.
        record.message = one_line(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        return shown(super().format(record))


class _StandardErrorHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes, not to the stream it was made
    with: while a progress bar is drawn on a terminal, rich puts a proxy there that prints
    above the bar (a record written past it landed on the bar's line)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass  # always the current sys.stderr


class _LogFileHandler(logging.FileHandler):
    """The log file, whose failed write (a full disk) is said once, in one line on stderr: the
    logging module's own ``handleError`` printed a traceback of some 35 lines for every line
    logged. Said again if the file fails again after a line got through."""

    def __init__(self, log_file: Path) -> None:
        super().__init__(log_file, encoding="utf-8")
        self._failing = False
        self._failed_now = False

    def emit(self, record: logging.LogRecord) -> None:
        self._failed_now = False
        super().emit(record)
        if not self._failed_now:
            self._failing = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        self._failed_now = True
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handleError(record)  # a fault of the record's (its arguments), not of the file
            return
        if not self._failing:
            self._failing = True
            # Logged, so that it reaches stderr in the configured format; this handler is
            # failing, and says nothing more of it.
            logging.getLogger(__name__).error(
                "cannot write the log file %s (%s): its lines are on stderr only until it can be written again",
                shown(self.baseFilename), error.strerror or error)


def make_log_file(log_file: Path) -> None:
    """Makes the log file and its folders where missing (raises ``OSError`` where it cannot).
    The log names callers, tools and files: made by toolbay, folder and file are its user's
    alone, as the data folder and the audit log are (they were 755 and 644)."""
    missing = [folder for folder in (log_file.parent, *log_file.parent.parents) if not folder.exists()]
    for folder in reversed(missing):  # each made 700 (mkdir's parents=True makes those above 755)
        folder.mkdir(mode=0o700, exist_ok=True)
    os.close(os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600))


def configure_logging(level: str = "info", log_file: Path | None = None, log_format: LogFormat = "text") -> None:
    global _structured
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    _structured = log_format == "json"
    stream = _StandardErrorHandler()
    stream.setFormatter(_json_formatter() if _structured else _ShownFormatter(FORMAT, datefmt="%H:%M:%S"))
    root.addHandler(stream)
    if log_file is not None:
        make_log_file(log_file)
        file_handler = _LogFileHandler(log_file)
        file_handler.setFormatter(_json_formatter() if _structured else _ShownFormatter(FORMAT))
        root.addHandler(file_handler)
    if _structured:
        for handler in root.handlers:
            handler.addFilter(_CallFields())
    root.setLevel(level.upper())
    # The SDK and HTTP stack are chatty at info; their warnings still show.
    for name in QUIETED_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))


def say_as_configured(log_format: LogFormat, logger_name: str, message: str) -> None:
    """One warning on stderr before logging is configured (read with the settings), in the
    configured format: a log collector reading JSON lines choked on the one plain line."""
    if log_format != "json":
        print(f"toolbay: warning: {message}", file=sys.stderr)
        return
    record = logging.LogRecord(logger_name, logging.WARNING, __file__, 0, message, None, None)
    print(_json_formatter().format(record), file=sys.stderr)
