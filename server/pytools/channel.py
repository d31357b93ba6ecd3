"""The wire between the server and a Python tool worker: frames (a 4-byte big-endian length,
then a JSON object), each naming the exchange it belongs to, and the server's reading end of
the worker's answers.

The worker holds the writing end of its answers' channel, and the module it serves runs in
the same process: a module that writes into that descriptor (a loop over descriptors, a C
library given the wrong number) can put a frame of its own shape there. Answered as the call's,
it shifted every later answer of that worker by one call, over HTTP to other callers. So every
frame carries the id of the server's message it answers (``init`` or a ``call``, a fresh random
id each), and a frame with another id ends the worker: it cannot be trusted to answer again.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import struct
from collections.abc import Mapping
from typing import Any

import anyio

HEADER = struct.Struct(">I")
WROTE_TO_THE_CHANNEL = "the module wrote to the worker's own channel to the server (a file descriptor it did not open)"


def new_frame_id() -> str:
    """An id no module can have guessed or kept from an earlier frame."""
    return secrets.token_hex(8)


def frame(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False).encode()
    return HEADER.pack(len(body)) + body


class Answers:
    """The server's reading end of a pipe a worker writes its frames to, read without blocking
    the event loop. A pipe of the server's own (not the child's standard output the event loop
    makes, a socket under uvloop), so that what is waiting in it can be asked at any time
    (``pending``) without reaching into the loop's streams."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd: int | None = fd
        self._buffer = bytearray()

    async def receive_exactly(self, size: int) -> bytes:
        """``size`` bytes; raises ``anyio.EndOfStream`` when the worker's end closed first (it
        ended), ``anyio.ClosedResourceError`` once ``close`` was called."""
        while len(self._buffer) < size:
            if self._fd is None:
                raise anyio.ClosedResourceError
            try:
                chunk = os.read(self._fd, max(size - len(self._buffer), 64 * 1024))
            except BlockingIOError:
                await anyio.wait_readable(self._fd)
                continue
            if not chunk:
                raise anyio.EndOfStream
            self._buffer += chunk
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def pending(self) -> bool:
        """Whether anything has been written that no ``receive_exactly`` took: between calls,
        a worker that has answered its call has nothing more to say."""
        if self._fd is not None:
            with contextlib.suppress(BlockingIOError):
                self._buffer += os.read(self._fd, 64 * 1024)  # b"" once the worker has ended: nothing said
        return bool(self._buffer)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            anyio.notify_closing(fd)  # a read waiting on it ends, rather than waiting on a reused number
            os.close(fd)
