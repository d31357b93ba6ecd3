"""Values in the job stores that toolbay did not write, nested too deeply for Python's JSON reader,
leave the finalizers of other objects room to run.

A collection that starts while the reader is that deep runs whatever finalizers wait with no
stack left: each failed ("Exception ignored in ..."), and what it should have closed stayed open.
A hand's or another program's value in the job database or in Redis did that in a server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.protocol.test_deep_json import finalizers_waiting
from toolbay.cluster.jobs import _cancel_request, _event
from toolbay.jobs.sqlite import _event_data
from toolbay.jobs.store import result_from_json

NESTED = "[" * 100_000 + "]" * 100_000


def _stored_result(text: str) -> object:
    try:
        return result_from_json(text)
    except RecursionError:  # said lost by both stores (tests/jobs/test_sqlite_store.py, tests/cluster)
        return None


READERS: dict[str, Callable[[str], Any]] = {
    "an event's data in the job database": _event_data,
    "a stored result": _stored_result,
    "a message on Redis's cancel channel": _cancel_request,
    "an entry of a job's event list in Redis": lambda text: _event("job_1", text),
}


@pytest.mark.parametrize("reader", list(READERS))
def test_garbage_waiting_as_a_foreign_value_is_read_is_finalized_whole(reader: str) -> None:
    with finalizers_waiting():
        READERS[reader](NESTED)
