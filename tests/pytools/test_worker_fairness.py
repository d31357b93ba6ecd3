"""A module's workers are shared fairly among callers: a freed worker goes to the waiting call
of the caller holding the fewest, not to the next call of a caller with many in line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from toolbay.pytools.workers import WorkerPool, WorkerSpec

pytestmark = pytest.mark.anyio

# Each call waits for the folder's "open" file, then writes its name to the order file.
GATED = """
import os, time


def get_tool_schemas():
    return [{"name": "gated_run", "description": "Waits for a gate", "input_schema": {"type": "object"}}]


def dispatch(name, args):
    while not os.path.exists(os.path.join(args["folder"], "open")):
        time.sleep(0.005)
    with open(os.path.join(args["folder"], "order.txt"), "a") as order:
        order.write(args["who"] + "\\n")
    return args["who"]
"""


async def no_credentials(name: str, key: str, env_var: str | None) -> tuple[str | None, str]:
    return None, "none here"


async def test_a_callers_one_call_is_served_before_another_callers_batch_goes_on(tmp_path: Path) -> None:
    """With first come first served, a caller's batch held the module's workers while it had
    calls, and another caller's quick call waited behind all of it (an outside probe: 24 s
    for a 0.2 s call)."""
    module = tmp_path / "gated.py"
    module.write_text(GATED, encoding="utf-8")
    pool = WorkerPool(WorkerSpec(path=str(module), module="gated", confine=False), max_workers=1)
    ran: list[str] = []

    async def run(caller: str, who: str) -> None:
        answer: dict[str, Any] = await pool.call("gated_run", {"folder": str(tmp_path), "who": who}, {},
                                                 no_credentials, caller=caller)
        ran.append(str(answer.get("text")))

    try:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for who in ("a1", "a2", "a3"):
                    group.start_soon(run, "alice", who)
                    await anyio.sleep(0)
                while len(pool._waiting) < 2:  # a1 runs (or starts its worker), a2 and a3 wait
                    await anyio.sleep(0.005)
                group.start_soon(run, "bob", "b1")
                while len(pool._waiting) < 3:
                    await anyio.sleep(0.005)
                (tmp_path / "open").touch()
    finally:
        await pool.close()
    order = (tmp_path / "order.txt").read_text().split()
    assert order == ["a1", "b1", "a2", "a3"], order
    assert sorted(ran) == ["a1", "a2", "a3", "b1"]
