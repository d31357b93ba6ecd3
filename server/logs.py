"""Logging to stderr (and a file when configured). Never to stdout: on stdio, stdout is the wire."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


# The SDK and HTTP stack's loggers, chatty at info.
QUIETED_LOGGERS = ("mcp", "uvicorn", "httpx2", "httpcore2", "sse_starlette")


def configure_logging(level: str = "info", log_file: Path | None = None) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stream = logging.StreamHandler(sys.stderr)
    stream.setFormatter(logging.Formatter(FORMAT, datefmt="%H:%M:%S"))
    root.addHandler(stream)
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(log_file, encoding="utf-8")
        file_handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(file_handler)
    root.setLevel(level.upper())
    # The SDK and HTTP stack are chatty at info; their warnings still show.
    for name in QUIETED_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
