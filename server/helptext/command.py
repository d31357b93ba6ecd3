"""``toolbay parse-help``: help bytes from files to the description as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from toolbay.errors import NotHelpError

from .describe import describe_help
from .schema import build_tool_schema


def run_parse_help(long_file: Path, short_file: Path | None, out: TextIO, err: TextIO) -> int:
    """Prints the description of the help in ``long_file`` (and ``short_file``).

    Exit status: 0 with JSON on ``out``; 2 with a one-line reason on ``err`` when the
    text is not help; 1 when a file cannot be read.
    """
    try:
        long = long_file.read_bytes()
        short = short_file.read_bytes() if short_file is not None else None
    except OSError as exc:
        err.write(f"cannot read help text: {exc}\n")
        return 1
    try:
        desc = describe_help(long, short)
    except NotHelpError as exc:
        err.write(f"not help: {exc.reason}\n")
        return 2
    document = desc.to_dict()
    document["input_schema"] = build_tool_schema(desc).input_schema
    out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return 0
