"""A client's deeply nested message leaves the finalizers of other objects room to run."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.protocol.hostile_messages import HOSTILE_MESSAGES
from toolbay.protocol.parse_errors import read_json


def _depth(levels: int) -> int:
    return 0 if levels == 0 else 1 + _depth(levels - 1)


def _frames_below() -> int:
    frame, count = sys._getframe(1), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1
    return count


@contextlib.contextmanager
def finalizers_waiting(count: int = 200) -> Iterator[None]:
    """``count`` objects wait in cycles for the collector while the body runs, each finalizer
    needing as much stack as it has here, short of a margin: run anywhere deeper (in a JSON
    reader's recursion) it fails. On leaving, every one has been finalized, and none failed."""
    finalized: list[int] = []
    room = sys.getrecursionlimit() - _frames_below() - 50

    class Resource:
        """Held in a cycle, as an exception's traceback holds the frames that hold a stream."""

        def __init__(self) -> None:
            self.cycle = self

        def __del__(self) -> None:
            finalized.append(_depth(room))

    unraisable: list[Any] = []
    hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        gc.collect()
        for _ in range(count):
            Resource()
        yield
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert not unraisable, [str(u.exc_value) for u in unraisable]
    assert len(finalized) == count
    assert gc.isenabled()


@pytest.mark.parametrize("name", ["100,000 nested arrays", "5,000 nested objects in arguments"])
def test_garbage_waiting_as_a_deep_message_is_read_is_finalized_whole(name: str) -> None:
    with finalizers_waiting(), pytest.raises(RecursionError):
        read_json(HOSTILE_MESSAGES[name])


@pytest.mark.parametrize(("head", "request_id"), [
    ('{"jsonrpc": "2.0", "id": 7, "method": "x", "params": ', 7),
    ('{"jsonrpc": "2.0", "id": "a\\"b", "method": "x", "params": ', 'a"b'),
    # Given twice: JSON readers keep the last (a re-check answered under the first).
    ('{"jsonrpc": "2.0", "id": 12, "id": 13, "method": "x", "params": ', 13),
    ('{"jsonrpc": "2.0", "method": "x", "params": ', None),  # after the nesting, if at all: unread
    ('{"jsonrpc": "2.0", "id": true, "method": "x", "params": ', None),  # no id of a right kind
])
def test_a_request_too_deep_to_read_is_answered_under_the_id_before_its_nesting(
        head: str, request_id: object) -> None:
    from toolbay.protocol.parse_errors import id_before_nesting

    assert id_before_nesting(head + "[" * 100_000 + "]" * 100_000 + "}") == request_id
