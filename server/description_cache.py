"""Tool descriptions cached on disk by the file's sha256, so a warm start runs no guest.

Every description lives in one index file, ``descriptions/index``, read in one go:

    toolbay-descriptions/2 <parser version> <crc32> <length of the listings part>
    <listings: {"<sha256>-<stem>": (used, skipped, ((tool_name, path, listing, at, size), ...))}>
    <descriptions: each command's full description, JSON texts back to back>

A warm start loads only the listings part (what ``tools/list`` needs); a command's
description is ``descriptions[at : at + size]``, parsed on the tool's first call. The
listings are plain data (dicts, tuples, strings, numbers) in ``marshal`` form, which loads
twice as fast as JSON. marshal is only safe on data one wrote oneself: everything after the
first line is covered by the checksum, and the data folder is trusted already (it holds
compiled native code, ``modules/``). An index that is damaged is ignored with a warning
(its tools are described again and the index is rewritten); one written for another
parser version is ignored quietly.

Writes are batched (``flush``), atomic (temporary file + rename) and merged with what
another server sharing the folder wrote since it was read. ``used`` is the day an entry
was last used, refreshed at most daily, for ``toolbay.cache_pruning``.

The cache is an optimisation, never a source of truth: any fault in it costs describing
a tool again, nothing else.
"""

from __future__ import annotations

import json
import logging
import marshal
import os
import threading
import time
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from toolbay.atomic_files import replacing
from toolbay.defaults import DESCRIPTION_INDEX_NAME

logger = logging.getLogger(__name__)

MAGIC = "toolbay-descriptions/2"
MARSHAL_VERSION = 4  # the format of Python 3.4 and later
# Bump when the help parser or the cached shape changes so that old descriptions are redone.
PARSER_VERSION = "218"
INDEX_NAME = DESCRIPTION_INDEX_NAME
# A long cold start saves what it has described at least this often (seconds).
FLUSH_EVERY_S = 5.0
DAY_S = 86400

# One described file as the index holds it: (used, skipped, commands), each command being
# (tool_name, path, listing, at, size). Tuples, not objects: a warm start loads thousands.
Command = tuple[str, tuple[str, ...], dict[str, Any], int, int]
Record = tuple[int, tuple[str, ...], tuple[Command, ...]]
Signature = tuple[int, int, int]


def today() -> int:
    """The day number ``used`` marks are kept in."""
    return int(time.time() // DAY_S)


class CachedCommand:
    """One tool of a described file. ``description`` (the parsed help) is read from the
    index on first use: listing a tool needs only ``listing``."""

    __slots__ = ("tool_name", "path", "listing", "_description", "_blob", "_at", "_size")

    def __init__(
        self,
        tool_name: str,
        path: tuple[str, ...],
        description: dict[str, Any] | None = None,
        # What ``tools/list`` needs, derived from ``description`` when it was cached, so that a
        # warm start neither rebuilds the description nor its schema (see ``toolbay.discovery``).
        listing: dict[str, Any] | None = None,
        blob: bytes = b"",
        at: int = 0,
        size: int = 0,
    ) -> None:
        """``description``, or where its JSON text is: ``blob[at : at + size]``."""
        self.tool_name = tool_name
        self.path = path
        self.listing = listing
        self._description = description
        self._blob, self._at, self._size = blob, at, size

    @property
    def description(self) -> dict[str, Any]:
        if self._description is None:
            self._description = json.loads(self.description_bytes())
        return self._description

    def description_bytes(self) -> bytes:
        if self._blob:
            return self._blob[self._at : self._at + self._size]
        return json.dumps(self._description, separators=(",", ":")).encode()


class CachedFile(NamedTuple):  # a tuple: a warm start makes thousands
    commands: tuple[CachedCommand, ...]
    skipped: tuple[str, ...] = ()


class IndexDamaged(ValueError):
    """The index file is not one this toolbay wrote whole."""


def _encode(
    entries: Iterable[tuple[str, Record, bytes]], parser_version: str,
) -> tuple[bytes, bytes, dict[str, Record]]:
    """The index file holding ``entries`` (key, record, the blob its offsets point into), in
    two parts (header and listings, descriptions), and the records as they are in it."""
    records: dict[str, Record] = {}
    parts: list[bytes] = []
    offset = 0
    for key, (used, skipped, commands), blob in entries:
        moved = []
        for name, path, listing, at, size in commands:
            parts.append(blob[at : at + size])
            moved.append((name, path, listing, offset, size))
            offset += size
        records[key] = (used, skipped, tuple(moved))
    body = marshal.dumps(records, MARSHAL_VERSION)
    blob = b"".join(parts)
    crc = zlib.crc32(blob, zlib.crc32(body))
    return f"{MAGIC} {parser_version} {crc:08x} {len(body)}\n".encode() + body, blob, records


def _decode(data: bytes) -> tuple[str, dict[str, Record], bytes]:
    """The parser version an index file was written for, its records and their blob."""
    header, _, rest = data.partition(b"\n")
    fields = header.decode("ascii", errors="replace").split(" ")
    if len(fields) != 4 or fields[0] != MAGIC:
        raise IndexDamaged("it does not start with the index header")
    try:
        crc, length = int(fields[2], 16), int(fields[3])
    except ValueError:
        raise IndexDamaged("its header is damaged") from None
    if zlib.crc32(rest) != crc or length > len(rest):
        raise IndexDamaged("its checksum does not match")
    try:
        records = marshal.loads(rest[:length])
    except (ValueError, EOFError, TypeError) as exc:
        raise IndexDamaged(f"its listings do not load: {exc}") from None
    if not isinstance(records, dict):
        raise IndexDamaged("its listings are not a table")
    return fields[1], records, rest[length:]


def _signature(stat: os.stat_result) -> Signature:
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def _record_of(entry: CachedFile, used: int) -> tuple[Record, bytes]:
    parts: list[bytes] = []
    commands = []
    offset = 0
    for command in entry.commands:
        raw = command.description_bytes()
        parts.append(raw)
        commands.append((command.tool_name, tuple(command.path), command.listing or {}, offset, len(raw)))
        offset += len(raw)
    return (used, tuple(entry.skipped), tuple(commands)), b"".join(parts)


class DescriptionCache:
    def __init__(self, folder: Path, parser_version: str = PARSER_VERSION) -> None:
        self.folder = folder
        self.file = folder / INDEX_NAME
        self.parser_version = parser_version
        self.hits = 0
        self.misses = 0
        self._lock = threading.RLock()
        self._records: dict[str, Record] | None = None  # read on first use
        self._blob = b""  # what the records' offsets point into...
        self._own_blobs: dict[str, bytes] = {}  # ...but for records put since the last read or write
        self._signature: Signature | None = None  # of the file as last read or written
        self._changed: set[str] = set()
        self._last_flush = time.monotonic()
        self._today = today()

    # -- reading -------------------------------------------------------------------------

    def get(self, sha256: str, stem: str) -> CachedFile | None:
        with self._lock:
            self._loaded()
            return self._get(sha256, stem)

    def get_many(self, wanted: Iterable[tuple[str, str]]) -> list[CachedFile | None]:
        """``get`` for each ``(sha256, stem)``, under one lock (a warm start asks for thousands)."""
        with self._lock:
            self._loaded()
            return [self._get(sha256, stem) for sha256, stem in wanted]

    def _get(self, sha256: str, stem: str) -> CachedFile | None:
        # The stem is part of the key because the tool name comes from the file name.
        key = f"{sha256}-{stem}"
        records = self._records
        assert records is not None
        record = records.get(key)
        found: CachedFile | None = None
        if record is not None:
            blob = self._own_blobs.get(key, self._blob)
            try:
                used, skipped, commands = record
                found = CachedFile(
                    tuple([CachedCommand(name, path, None, listing, blob, at, size)
                           for name, path, listing, at, size in commands]),
                    skipped,
                )
            except (ValueError, TypeError) as exc:
                logger.info("ignoring the cached description of %s: %s", stem, exc)
                del records[key]
            else:
                if used < self._today:
                    records[key] = (self._today, skipped, commands)
                    self._changed.add(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def _loaded(self) -> dict[str, Record]:
        if self._records is None:
            self._records, self._blob, self._signature = self._read(warn=True)
        return self._records

    def _read(self, *, warn: bool) -> tuple[dict[str, Record], bytes, Signature | None]:
        """The records on disk, their blob, and the file's signature."""
        try:
            with self.file.open("rb") as handle:
                signature = _signature(os.fstat(handle.fileno()))
                data = handle.read()
        except FileNotFoundError:
            return {}, b"", None
        except OSError as exc:
            logger.warning("cannot read the description index %s: %s", self.file, exc)
            return {}, b"", None
        try:
            version, records, blob = _decode(data)
        except IndexDamaged as exc:
            if warn:
                logger.warning("the description index %s is damaged (%s): its tools will be described again",
                               self.file, exc)
            return {}, b"", signature
        if version != self.parser_version:
            logger.info("the description index %s was written by another toolbay version: rebuilding it", self.file)
            return {}, b"", signature
        return records, blob, signature

    # -- writing -------------------------------------------------------------------------

    def put(self, sha256: str, stem: str, entry: CachedFile) -> None:
        """Records a description; it reaches the disk on the next ``flush`` (or within
        ``FLUSH_EVERY_S`` while many files are being described)."""
        with self._lock:
            self._loaded()
            self._set(f"{sha256}-{stem}", entry)
            if time.monotonic() - self._last_flush > FLUSH_EVERY_S:
                self.flush()

    def _set(self, key: str, entry: CachedFile) -> None:
        assert self._records is not None
        self._records[key], self._own_blobs[key] = _record_of(entry, self._today)
        self._changed.add(key)

    @property
    def unsaved(self) -> bool:
        """Whether there are changes for ``flush`` to save."""
        return bool(self._changed)

    def flush(self) -> None:
        """Saves what changed since the last flush, merged with what other servers saved."""
        with self._lock:
            self._last_flush = time.monotonic()
            self._today = today()
            if not self._changed or self._records is None:
                return
            ours = [(key, record, self._own_blobs.get(key, self._blob)) for key, record in self._records.items()]
            try:
                current: Signature | None = _signature(self.file.stat())
            except OSError:
                current = None
            if current is not None and current != self._signature:
                # Another server saved meanwhile: its entries, with ours changed since on top.
                records, blob, _ = self._read(warn=False)
                ours = [*((key, record, blob) for key, record in records.items() if key not in self._changed),
                        *(entry for entry in ours if entry[0] in self._changed)]
            try:
                self._write(ours)
            except (OSError, ValueError, TypeError) as exc:  # a full or read-only disk costs speed, nothing else
                logger.warning("could not save the description index: %s", exc)
                return
            self._changed.clear()

    def _write(self, entries: Iterable[tuple[str, Record, bytes]]) -> None:
        head, blob, records = _encode(entries, self.parser_version)
        self.folder.mkdir(parents=True, exist_ok=True)
        with replacing(self.file, suffix=".index") as handle:
            handle.write(head)
            handle.write(blob)
            handle.flush()
            signature = _signature(os.fstat(handle.fileno()))
        self._records, self._blob, self._own_blobs = records, blob, {}
        self._signature = signature

    # -- housekeeping --------------------------------------------------------------------

    def prune(self, keep: Iterable[str], unused_since_day: int) -> int:
        """Removes entries whose hash is not in ``keep`` and that were last used before
        ``unused_since_day``. Returns how many were removed."""
        keep = set(keep)
        with self._lock:
            self.flush()
            records, blob, _ = self._read(warn=False)
            stale = {key for key, record in records.items()
                     if key.split("-", 1)[0] not in keep and record[0] < unused_since_day}
            if stale:
                self._write((key, record, blob) for key, record in records.items() if key not in stale)
            return len(stale)
