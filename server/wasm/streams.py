"""Standard streams of a guest: input from memory, output captured in memory up to a cap."""

from __future__ import annotations

from typing import Protocol

from toolbay.flooding import flood_mark


class Sink(Protocol):
    """Where a guest's output goes: ``CappedOutput``, or stderr's ``GuestStderr`` around one."""

    def write(self, data: bytes | memoryview) -> int: ...


class CappedOutput:
    """Keeps the first ``limit`` bytes written; counts the rest as dropped.

    The guest is told every write succeeded, so a tool that prints too much still finishes,
    unless it drops ``flood_bytes`` (``toolbay.flooding``).
    """

    __slots__ = ("limit", "buffer", "dropped", "flood_bytes")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buffer = bytearray()
        self.dropped = 0
        self.flood_bytes = flood_mark(limit)

    def write(self, data: bytes | memoryview) -> int:
        room = self.limit - len(self.buffer)
        if room >= len(data):
            self.buffer += data
        else:
            if room > 0:
                self.buffer += data[:room]
            self.dropped += len(data) - max(room, 0)
        return len(data)

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    @property
    def flooded(self) -> bool:
        return self.dropped > self.flood_bytes


def flood_reason(stream: str, output: CappedOutput) -> str | None:
    """Why a run is stopped for writing without end to ``stream``, or None."""
    if not output.flooded:
        return None
    return (f"it went on writing to {stream} far past its output limit ({_size(output.limit)} kept, "
            f"{_size(output.dropped)} more dropped)")


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):.3g} MiB" if count >= 1024 * 1024 else f"{count / 1024:.3g} KiB"
