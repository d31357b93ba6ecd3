"""Standard streams of a guest: input from memory, output captured in memory up to a cap."""

from __future__ import annotations

from typing import Protocol


class Sink(Protocol):
    """Where a guest's output goes: ``CappedOutput``, or stderr's ``GuestStderr`` around one."""

    def write(self, data: bytes | memoryview) -> int: ...


class CappedOutput:
    """Keeps the first ``limit`` bytes written; counts the rest as dropped.

    The guest is told every write succeeded, so a tool that prints too much still finishes.
    """

    __slots__ = ("limit", "buffer", "dropped")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buffer = bytearray()
        self.dropped = 0

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
