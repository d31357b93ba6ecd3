"""The corpus of real captured help texts, as test cases.

Each program folder holds ``long.txt`` (``--help``), optionally ``short.txt`` (``-h``),
``sub-*.txt`` (subcommands' ``--help``), ``regression-lock.json`` (the describer's own
earlier reading, checked by eye; not truth): either the description
with its ``input_schema``, or ``{"not_help": true}`` for output that must be refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolbay.errors import NotHelpError
from toolbay.helptext import build_tool_schema, describe_help

CORPUS = Path(__file__).resolve().parent / "corpus"
# Real programs captured with truth after the corpus goals were set, whose figures are reported
# apart (bench/bench_helptext_accuracy.py) until they are merged into corpus/ (see its README.md).
CORPUS_ROUND3 = Path(__file__).resolve().parent / "corpus-round3"


def program_folders(corpus: Path = CORPUS) -> list[Path]:
    return sorted(p.parent for p in corpus.glob("*/*/long.txt"))


def observed(folder: Path) -> dict[str, Any]:
    short = folder / "short.txt"
    try:
        short_bytes = short.read_bytes() if short.exists() else None
        desc = describe_help((folder / "long.txt").read_bytes(), short_bytes)
    except NotHelpError:
        return {"not_help": True}
    document = desc.to_dict()
    document["input_schema"] = build_tool_schema(desc).input_schema
    return document
