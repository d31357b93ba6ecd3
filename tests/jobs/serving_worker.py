"""Run by test_takeover.py as a separate process: a server on the data folder that starts a
job of the tool ``read`` and one of ``write`` which never end, says READY and their ids, and
waits to be killed."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from toolbay.jobs import JobManager, SqliteJobStore
from toolbay.words import CallContext, ToolResult


async def main(db_path: str, serving_lock: str) -> None:
    never = anyio.Event()

    async def run(context: CallContext) -> ToolResult:
        await never.wait()
        return ToolResult(text="never")

    async with JobManager(SqliteJobStore(db_path), serving_lock=Path(serving_lock)) as manager:
        ids = []
        for tool in ("read", "write"):
            answer = await manager.run_or_background("alice", tool, {}, run, CallContext(caller="alice"),
                                                     background=True)
            ids.append(answer.structured["job_id"])
        print("READY", *ids, flush=True)
        await never.wait()


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:3])
