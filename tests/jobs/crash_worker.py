"""Run by test_crash.py as a separate process: starts 50 jobs, lets every even one finish
(every tenth with a result large enough to go to a file), says READY and waits to be killed."""

from __future__ import annotations

import sys

import anyio

from toolbay.jobs import JobManager, SqliteJobStore
from toolbay.words import CallContext, ToolResult


async def main(db_path: str) -> None:
    never = anyio.Event()

    def work(i: int):  # noqa: ANN202
        async def run(context: CallContext) -> ToolResult:
            if i % 2:
                await never.wait()
            text = ("x" * 300_000) if i % 10 == 0 else f"result {i}"
            return ToolResult(text=text, structured={"i": i})
        return run

    async with JobManager(SqliteJobStore(db_path, large_result_bytes=1024), max_concurrent=64,
                          max_per_caller=64) as manager:
        ids = []
        for i in range(50):
            answer = await manager.run_or_background("alice", f"tool{i}", {"i": i}, work(i),
                                                     CallContext(caller="alice"), background=True)
            ids.append(answer.structured["job_id"])
        for job_id in ids[::2]:
            await manager.wait("alice", job_id, None)
        print("READY", *ids, flush=True)
        await never.wait()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
