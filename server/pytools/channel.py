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

import asyncio
import json
import os
import secrets
import struct
from collections.abc import Mapping
from typing import Any, cast

import anyio

HEADER = struct.Struct(">I")
# What the server holds of a worker's frames before it stops reading its pipe (a frame longer is
# read as its reader takes it).
_HELD_AT_MOST = 1 << 20
WROTE_TO_THE_CHANNEL = "the module wrote to the worker's own channel to the server (a file descriptor it did not open)"


def new_frame_id() -> str:
    """An id no module can have guessed or kept from an earlier frame."""
    return secrets.token_hex(8)


def frame(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False).encode()
    return HEADER.pack(len(body)) + body


class Answers(asyncio.Protocol):
    """The server's reading end of a pipe a worker writes its frames to, kept open on the event
    loop for the worker's life (registering the pipe with the loop at each call, and taking it
    off again, cost a fifth of a call's processor time over HTTP under uvloop). A pipe of the
    server's own, not the child's standard output the event loop makes, so that what is
    waiting in it can be asked at any time (``pending``) without reaching into the loop's
    streams."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._ended = False  # the worker's end closed: it ended (or ``close`` was called)
        self._closed = False
        self._paused = False
        self._arrived: anyio.Event | None = None
        self._transport: asyncio.ReadTransport | None = None

    @classmethod
    async def open(cls, fd: int) -> Answers:
        answers = cls()
        pipe = os.fdopen(fd, "rb", buffering=0)
        try:
            await asyncio.get_running_loop().connect_read_pipe(lambda: answers, pipe)
        except BaseException:
            pipe.close()
            raise
        return answers

    # -- asyncio.Protocol: called by the event loop ------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A read pipe's transport (uvloop's is not a subclass of asyncio's classes).
        self._transport = cast(asyncio.ReadTransport, transport)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if len(self._buffer) > _HELD_AT_MOST and self._transport is not None:
            # A worker writing on and on (no frame is read while it is idle): held in its pipe
            # until what is here has been read, not in the server's memory.
            self._transport.pause_reading()
            self._paused = True
        self._wake()

    def eof_received(self) -> bool:
        self._ended = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        if self._arrived is not None:
            self._arrived.set()

    # -- the server's side -------------------------------------------------------------------

    async def receive_exactly(self, size: int) -> bytes:
        """``size`` bytes; raises ``anyio.EndOfStream`` when the worker's end closed first (it
        ended), ``anyio.ClosedResourceError`` once ``close`` was called."""
        while len(self._buffer) < size:
            if self._closed:
                raise anyio.ClosedResourceError
            if self._ended:
                raise anyio.EndOfStream
            if self._paused and self._transport is not None:
                self._paused = False
                self._transport.resume_reading()
            self._arrived = anyio.Event()
            try:
                await self._arrived.wait()
            finally:
                self._arrived = None
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def pending(self) -> bool:
        """Whether anything has been written that no ``receive_exactly`` took (as far as the
        event loop has read): between calls, a worker that has answered has nothing to say."""
        return bool(self._buffer)

    def close(self) -> None:
        self._closed = True
        self._wake()
        if self._transport is not None:
            self._transport.close()
