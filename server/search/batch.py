"""``toolbay search --catalog TOOLS.jsonl --queries QUERIES.jsonl``: the engine over files.

Input: one MCP tool definition (``{"name", "description", "inputSchema"}``) a line, and
one query (``{"id", "query"}``) a line. Output, one line per query in input order:
``{"id", "results": [{"name", "score"}], "no_match": bool}``. This is how the search is
measured from outside, so the shape stays exactly this, and each ``id`` comes back as it was
given (a number stays a number: whoever compares ids compares them as they wrote them).

Tool lists made for other APIs are read too, as their authors would expect: ``parameters``
in place of ``inputSchema`` (function-calling definitions), and a definition wrapped in
``{"type": "function", "function": {...}}``. A file may begin with a byte-order mark.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from toolbay.errors import ToolbayError
from toolbay.redaction import is_secret_name, redacted
from toolbay.search.documents import definition_from_mcp
from toolbay.search.index import SearchIndex, SearchOutcome
from toolbay.words import ToolDefinition

# How standard input is named in place of a file, on the command line and in messages.
STDIN = "-"
# The longest line read: as large as a Python tool module may be, and no tool it defines is
# larger. A line of 60 MB was read whole, and its tool indexed, in 38 s and 2.4 GB of memory.
MAX_LINE_BYTES = 16 * 2**20


class SearchInputError(ToolbayError):
    """A catalog or query file that cannot be read as documented; says which line and why."""


def read_jsonl(source: Path | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of the file ``source``, or of standard
    input where it is None (queries piped in from another program)."""
    path = STDIN if source is None else source
    try:
        handle = os.fdopen(os.dup(sys.stdin.fileno()), "rb") if source is None else source.open("rb")
    except (OSError, ValueError, AttributeError) as exc:  # no standard input at all
        raise SearchInputError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    with handle:
        for number, raw in enumerate(_read(handle, path), 1):
            if raw is None:
                raise SearchInputError(f"{path}:{number}: a line longer than {MAX_LINE_BYTES // 2**20} MiB, more than "
                                       "any tool or query is; one tool or query a line")
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise SearchInputError(f"{path}:{number}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                                       "save the file as UTF-8") from None
            if not line.strip():
                continue
            try:
                value = json.loads(line, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_integer)
            except json.JSONDecodeError as exc:
                raise SearchInputError(f"{path}:{number}: not JSON ({exc.msg})") from None
            except RecursionError:
                raise SearchInputError(f"{path}:{number}: nested too deeply to be a tool or a query") from None
            except ValueError as exc:  # NaN or Infinity: no strict JSON reader takes them back
                raise SearchInputError(f"{path}:{number}: {exc}") from None
            if not isinstance(value, dict):
                raise SearchInputError(f"{path}:{number}: expected a JSON object")
            yield number, value


def _read(handle: BinaryIO, path: str | Path) -> Iterator[bytes | None]:
    """``_lines``, an error reading them said as one (a read error, EIO, was "cannot write the output")."""
    try:
        yield from _lines(handle)
    except OSError as exc:
        raise SearchInputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _lines(handle: BinaryIO) -> Iterator[bytes | None]:
    """The lines of a file whose lines end in LF, CRLF or a lone CR (an old Mac's), and None in
    place of one longer than ``MAX_LINE_BYTES`` (then no more). A CR within a line ends it unless
    the whole line is one JSON text: JSON takes a raw CR as white space between its tokens
    (``{"id": 1,\r"query": ...}``), as it never does inside a string."""
    for raw in _lf_lines(handle):
        if raw is None:
            yield None
            return
        body = raw[:-2] if raw.endswith(b"\r\n") else raw
        if b"\r" in body and not _one_json_text(body):
            pieces = body.split(b"\r")
            if any(len(piece.rstrip(b"\n")) > MAX_LINE_BYTES for piece in pieces):
                yield None
                return
            yield from pieces
        elif len(body.rstrip(b"\n")) > MAX_LINE_BYTES:
            yield None
            return
        else:
            yield body


def _lf_lines(handle: BinaryIO) -> Iterator[bytes | None]:
    """The file's lines ended by LF, read a block at a time, and None for one longer than
    ``MAX_LINE_BYTES``; a file whose lines end in lone CRs, which is one LF line as long as the
    file, is given in lines ended by CR once it is that long (no JSON text is, so its CRs end
    lines)."""
    pending = bytearray()
    while block := handle.read(1 << 20):
        pending += block
        start = 0
        while (end := pending.find(b"\n", start)) != -1:
            yield bytes(pending[start:end + 1])
            start = end + 1
        del pending[:start]
        if len(pending) > MAX_LINE_BYTES + 1:  # room for a CR before the LF still to come
            if b"\r" not in pending:
                yield None
                return
            *whole, rest = pending.split(b"\r")
            yield from (bytes(piece) + b"\r" for piece in whole)
            pending = bytearray(rest)
    if pending:
        yield bytes(pending)


def _one_json_text(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):  # a decoding error is a ValueError too
        return False
    return True


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value (numbers must be finite)")


class WrittenNumber(float):
    """A JSON number with a fraction or an exponent, and the text it was written as: a query's
    id ``1E2`` is given back as ``1E2``, not as Python writes the same number (``100.0``)."""

    text: str

    def __new__(cls, text: str) -> WrittenNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _integer(text: str) -> int | float:
    # -0 is an integer Python writes back as 0: kept as written, as a number with a fraction is.
    return WrittenNumber(text) if text == "-0" else int(text)


def _finite(text: str) -> float:
    value = WrittenNumber(text)
    if math.isinf(value):  # 1e999: valid JSON, but no JSON writer can give it back
        raise ValueError(f"{text} is too large a number (numbers must be finite)")
    return value


def read_catalog(source: Path | None, warn: Callable[[str], None] | None = None) -> list[ToolDefinition]:
    """The tools of ``source`` (None: standard input). A name given again replaces the earlier
    definition (a server lists a name once); ``warn`` hears how many names were given twice,
    and the first of them."""
    path = STDIN if source is None else source
    definitions: dict[str, ToolDefinition] = {}
    lines: dict[str, int] = {}
    again: list[tuple[str, int, int]] = []
    secret_named: list[int] = []
    for number, tool in read_jsonl(source):
        try:
            definition = definition_from_mcp(_as_mcp_tool(tool))
        except ValueError as exc:
            raise SearchInputError(f"{path}:{number}: {exc}") from None
        if is_secret_name(definition.name):
            # The server serves no tool so named (a name is shown as written): neither is it
            # searched here, nor printed in a result meant to be shared.
            secret_named.append(number)
            continue
        if definition.name in lines:
            again.append((definition.name, lines[definition.name], number))
        definitions[definition.name] = definition
        lines[definition.name] = number
    if secret_named and warn is not None:
        count = len(secret_named)
        warn(f"{path}: {count} {'tool is' if count == 1 else 'tools are'} named like a secret (a token's prefix and "
             f"a run of letters and digits) and left out, as the server serves none so named (line "
             f"{secret_named[0]}{' and more' if count > 1 else ''})")
    if again and warn is not None:
        name, first, later = again[0]
        warn(f"{path}: {len(again)} {'tool is' if len(again) == 1 else 'tools are'} defined again on a later line, "
             f"and the later definition is searched (the first: {name!r}, lines {first} and {later})")
    if not definitions and warn is not None:
        # An empty file, or a pipe closed before it gave anything: every query would be answered
        # no match, which reads as a verdict on the queries rather than on the catalog.
        warn(f"{path}: no tool definitions in it; every query is answered no match")
    return list(definitions.values())


def _as_mcp_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """``tool`` as an MCP definition, unwrapping a function-calling one (see the module)."""
    wrapped = tool.get("function")
    if tool.get("type") == "function" and isinstance(wrapped, dict):
        tool = wrapped
    # Null parameters are how a function-calling model dumped whole (OpenAI's SDK) says it has
    # none: no arguments, as its authors read it. An MCP tool's inputSchema has no such reading.
    if "inputSchema" not in tool and "input_schema" not in tool and tool.get("parameters") is not None:
        tool = {**tool, "inputSchema": tool["parameters"]}  # checked as inputSchema is
    return tool


def read_queries(source: Path | None) -> list[tuple[Any, str]]:
    """(id as given, text) of each query of ``source`` (None: standard input); a query without
    an id is named by its line number."""
    path = STDIN if source is None else source
    queries: list[tuple[Any, str]] = []
    for number, record in read_jsonl(source):
        query = record.get("query")
        if not isinstance(query, str):
            raise SearchInputError(f"{path}:{number}: a query needs a string 'query'")
        queries.append((record.get("id", str(number)), query))
    return queries


def outcome_record(identifier: Any, outcome: SearchOutcome) -> dict[str, Any]:
    return contract_record(identifier, ((hit.name, hit.score) for hit in outcome.hits), outcome.no_match)


def contract_record(identifier: Any, hits: Iterable[tuple[str, float]], no_match: bool) -> dict[str, Any]:
    """One query's answer as ``toolbay search --json`` prints it, exactly (the contract above):
    its id, each hit's name and score (to 4 places), best first, and whether nothing matched."""
    return {"id": identifier, "results": [{"name": name, "score": round(score, 4)} for name, score in hits],
            "no_match": no_match}


def record_line(record: dict[str, Any]) -> str:
    """One output line: ``record`` as JSON (ASCII: an id may hold a lone surrogate, which JSON
    allows escaped and no UTF-8 output can carry), its id written as the query file wrote it."""
    identifier = record["id"]
    if not isinstance(identifier, WrittenNumber):
        return json.dumps(record)
    rest = json.dumps({key: value for key, value in record.items() if key != "id"})  # never empty: "results" ...
    return f'{{"id": {identifier.text}, {rest[1:]}'


def run_batch(definitions: Iterable[ToolDefinition], queries: Iterable[tuple[Any, str]],
              limit: int, index: SearchIndex | None = None) -> Iterator[dict[str, Any]]:
    """One output record per query, searched over ``definitions`` as the server's index
    holds them: redacted (a token pasted into a description is not found by searching for it)."""
    index = index if index is not None else SearchIndex()
    index.put_many(redacted(definition) for definition in definitions)
    for identifier, query in queries:
        yield outcome_record(identifier, index.search(query, limit))
