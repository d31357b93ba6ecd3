"""Job manager timings on a real SQLite file.

    python -m bench.bench_jobs [--jobs 1000] [--samples 300]

1. submit → running: a declared-background call, from calling run_or_background until
   the work starts (goal: median < 5 ms), and until the durable job id is returned.
2. 1,000 short jobs end to end (submit, job_wait, job_result), one after another and
   all at once, against the same 1,000 calls made inline in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolbay.jobs import JobManager, SqliteJobStore  # noqa: E402
from toolbay.words import CallContext, ToolResult  # noqa: E402

OWNER = "bench"


async def short_work(context: CallContext) -> ToolResult:
    await anyio.sleep(0)
    return ToolResult(text="ok", structured={"n": 1})


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


async def submit_to_running(manager: JobManager, samples: int) -> tuple[list[float], list[float]]:
    to_running, to_answer = [], []
    for _ in range(samples):
        started = anyio.Event()
        t_started = [0.0]

        async def work(context: CallContext, started: anyio.Event = started,
                       t_started: list[float] = t_started) -> ToolResult:
            t_started[0] = time.perf_counter()
            started.set()
            return ToolResult(text="ok")

        t0 = time.perf_counter()
        answer = await manager.run_or_background(OWNER, "bench", {}, work, CallContext(caller=OWNER),
                                                 background=True)
        to_answer.append(time.perf_counter() - t0)
        await started.wait()
        to_running.append(t_started[0] - t0)
        assert answer.structured is not None
        await manager.wait(OWNER, answer.structured["job_id"], None)
    return to_running, to_answer


async def one_job(manager: JobManager) -> None:
    answer = await manager.run_or_background(OWNER, "bench", {}, short_work, CallContext(caller=OWNER),
                                             background=True)
    assert answer.structured is not None
    job_id = answer.structured["job_id"]
    await manager.wait(OWNER, job_id, None)
    result = await manager.result(OWNER, job_id)
    assert result is not None and result.text == "ok"


async def timed(fn, n: int) -> float:  # noqa: ANN001
    t0 = time.perf_counter()
    await fn(n)
    return time.perf_counter() - t0


async def main(jobs: int, samples: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteJobStore(Path(tmp) / "jobs.sqlite3")
        async with JobManager(store, sync_budget_s=30, max_concurrent=64, max_per_caller=64) as manager:
            to_running, to_answer = await submit_to_running(manager, samples)
            print(f"submit → running, median of {samples}: {ms(statistics.median(to_running))} "
                  f"(p95 {ms(statistics.quantiles(to_running, n=20)[18])}; goal < 5 ms)")
            print(f"submit → job id answered (job stored durably), median: {ms(statistics.median(to_answer))}")

            async def direct(n: int) -> None:
                for _ in range(n):
                    await short_work(CallContext(caller=OWNER))

            async def inline(n: int) -> None:
                for _ in range(n):
                    await manager.run_or_background(OWNER, "bench", {}, short_work, CallContext(caller=OWNER))

            async def as_jobs(n: int) -> None:
                for _ in range(n):
                    await one_job(manager)

            async def as_jobs_at_once(n: int) -> None:
                async with anyio.create_task_group() as tg:
                    for _ in range(n):
                        tg.start_soon(one_job, manager)

            t_direct = await timed(direct, jobs)
            t_inline = await timed(inline, jobs)
            t_jobs = await timed(as_jobs, jobs)
            t_at_once = await timed(as_jobs_at_once, jobs)
    print(f"{jobs} short calls made inline, no manager:        {t_direct:.3f} s")
    print(f"{jobs} short calls through the manager, inline:    {t_inline:.3f} s "
          f"(x{t_inline / t_direct:.1f} of direct)")
    print(f"{jobs} short jobs end to end, one after another:   {t_jobs:.3f} s "
          f"(x{t_jobs / t_direct:.1f} of direct, x{t_jobs / t_inline:.1f} of inline via manager; "
          f"{t_jobs / jobs * 1000:.2f} ms per job)")
    print(f"{jobs} short jobs end to end, all at once (64 at a time): {t_at_once:.3f} s "
          f"(x{t_at_once / t_direct:.1f} of direct, x{t_at_once / t_inline:.1f} of inline via manager)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=300)
    options = parser.parse_args()
    anyio.run(main, options.jobs, options.samples)
