"""``toolbay parse-help``: help bytes from files to the description as JSON."""

from __future__ import annotations

import json
import os
import sys

from toolbay.errors import NotHelpError

from . import HELP_BYTES_READ
from .describe import describe_help
from .records import TYPE_CHECKING
from .schema import build_tool_schema

if TYPE_CHECKING:
    from os import PathLike
    from typing import TextIO

    # pathlib is not imported at run time: with the modules it loads (urllib.parse,
    # ipaddress, fnmatch) it took 4 of the 57 ms of an installed ``parse-help``.
    HelpFile = str | PathLike[str]


def run_parse_help(long_file: HelpFile, short_file: HelpFile | None, out: TextIO, err: TextIO) -> int:
    """Prints the description of the help in ``long_file`` (and ``short_file``).

    Exit status: 0 with JSON on ``out``; 2 with a one-line reason on ``err`` when the
    text is not help or a file cannot be read. What cannot be written on ``err`` is dropped
    (``_say``); an error writing ``out`` is raised.
    """
    reading = long_file
    try:
        long = _read(long_file, err)
        reading = short_file if short_file is not None else long_file
        short = _read(short_file, err) if short_file is not None else None
    except OSError as exc:  # a read's error (EIO) names no file: it was "help text None"
        named = exc.filename if exc.filename is not None else reading
        _say(err, f"toolbay: cannot read help text {named}: {exc.strerror or exc}\n")
        return 2
    try:
        desc = describe_help(long, short)
    except NotHelpError as exc:
        _say(err, f"toolbay: not help: {exc.reason}\n")
        return 2
    if short is not None:
        # The short help only adds to the long one, and one that is not help adds nothing:
        # said, as the author gave it on purpose (it was dropped without a word).
        try:
            describe_help(short)
        except NotHelpError as exc:
            _say(err, f"toolbay: note: the --short text is not help ({exc.reason}); described from the long "
                 "one alone\n")
    document = desc.to_dict()
    document["input_schema"] = build_tool_schema(desc).input_schema
    out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return 0


def _say(err: TextIO, line: str) -> None:
    """Writes a note or a reason on ``err``, or drops it when it cannot be written (``2>/dev/full``,
    a reader gone): a note cost the JSON after it and the exit status, 1 for "cannot write the
    output", and a reason may not change the status it goes with."""
    try:
        err.write(line)
        err.flush()
    except OSError:
        _drop_unwritten(err)


def _drop_unwritten(err: TextIO) -> None:
    """Points ``err``'s descriptor at /dev/null: the text its buffer keeps after a failed write
    failed again at every flush, the last one at exit (status 120, whatever parse-help
    returned)."""
    try:
        number = err.fileno()
    except (OSError, ValueError):  # no descriptor (a StringIO): nothing is flushed to one later
        return
    from toolbay.null_device import discarding_descriptor  # only then: parse-help imports little

    devnull = discarding_descriptor()
    os.dup2(devnull, number)
    os.close(devnull)
    err.flush()


def _read(file: HelpFile, err: TextIO) -> bytes:
    """The first ``HELP_BYTES_READ`` bytes of ``file``, as much as the server reads of a help
    run, up to the last whole line; more is said on ``err`` and left unread."""
    if str(file) == "-":  # ``PROGRAM --help | toolbay parse-help -``
        if sys.stdin.isatty():  # typed or pasted, not piped: said, or it looked hung
            _say(err, "toolbay parse-help: reading the help text from standard input; end it with Ctrl-D\n")
        text = sys.stdin.buffer.read(HELP_BYTES_READ + 1)
    else:
        with open(file, "rb") as stream:
            text = stream.read(HELP_BYTES_READ + 1)
    if len(text) <= HELP_BYTES_READ:
        return text
    kept = text[:HELP_BYTES_READ]
    kept = kept[:kept.rfind(b"\n") + 1] or _whole_characters(kept)
    _say(err, f"toolbay: note: {'standard input' if str(file) == '-' else file} is longer than "
              f"{HELP_BYTES_READ >> 20} MiB; only its first {len(kept):,} bytes are described, as the server reads "
              "no more of a program's help\n")
    return kept


def _whole_characters(text: bytes) -> bytes:
    """``text`` without the start of a UTF-8 character cut at its end (a line of a MiB and more:
    the cut fell inside "é" and the text was said to hold bytes that are not UTF-8)."""
    end = len(text)
    while end > 0 and end > len(text) - 4 and text[end - 1] & 0xC0 == 0x80:
        end -= 1  # a continuation byte: look for its lead
    if end > 0 and text[end - 1] >= 0xC0:  # a lead whose character is not whole
        lead = text[end - 1]
        length = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        if len(text) - (end - 1) < length:
            return text[:end - 1]
    return text
