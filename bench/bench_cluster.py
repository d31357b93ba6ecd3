"""Several replicas on Redis: calls per second of 1 vs 3 replicas behind haproxy, and job
submit → running on Redis vs SQLite, in the same run.

    python bench/bench_cluster.py [--rounds R] [--seconds S] [--connections C] [--jobs N] [--only-lane]

1. Two clusters on one real ``redis-server``, each behind its own real haproxy (round robin):
   one with a single ``toolbay serve --transport http`` replica, one with three. The load is
   raw HTTP/1.1 keep-alive connections through haproxy, each one ``echo`` call at a time
   (stateless requests: the cluster keeps no session), every answer checked. Rounds alternate
   the two clusters. Printed per round: calls per second of each, the ratio 3/1, and the
   replicas' CPU per call (all replicas' processes summed, read from /proc). On a machine with
   fewer cores than replicas the ratio is bounded by the cores; the CPU per call shows what
   one more replica costs.
2. The quick lane on a stateless replica: two clusters of one replica each, one with the
   lane (the default) and one without (``quick_lane = false``), the same load, rounds
   alternating. Printed per round: calls per second and CPU per call of each, and the ratios
   lane/without.
3. The job manager alone, in this process: ``--jobs`` calls declared background, each timed
   from the call to its answer (the job recorded as running in the store, so any replica can
   read it), on a SQLite store and on a Redis store, rounds alternating. Printed per round: the
   median milliseconds per submit of each and the ratio Redis/SQLite.

Every figure is printed for every round, then min and median.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import http_caller, process_cpu_s  # noqa: E402
from tests.cluster.replicas import Cluster, start_cluster, stop_cluster  # noqa: E402
from tests.cluster.servers import RedisServer  # noqa: E402

MESSAGE = "hello from the cluster benchmark"


def cluster_cpu_s(cluster: Cluster) -> float:
    return sum(process_cpu_s(replica.process.pid) for replica in cluster.replicas)


async def load(cluster: Cluster, seconds: float, connections: int) -> tuple[float, float, int]:
    """Calls per second, replicas' CPU ms per call, wrong answers."""
    counts = {"calls": 0, "wrong": 0}
    wrong: list[str] = []
    connection = http_caller("127.0.0.1", cluster.balancer.port, None, tool="echo", text=MESSAGE, counts=counts,
                             wrong=wrong)
    await asyncio.gather(*(connection(time.perf_counter() + 1.0) for _ in range(connections)))  # warm
    counts.update(calls=0, wrong=0)
    cpu_before, started = cluster_cpu_s(cluster), time.perf_counter()
    await asyncio.gather(*(connection(started + seconds) for _ in range(connections)))
    elapsed, cpu = time.perf_counter() - started, cluster_cpu_s(cluster) - cpu_before
    for answer in wrong:
        print(f"      a wrong answer: {answer}")
    return counts["calls"] / elapsed, cpu / max(counts["calls"], 1) * 1000, counts["wrong"]


@dataclass(frozen=True)
class Setup:
    """One cluster of a comparison: its name in the table, its replicas, settings for them."""

    name: str
    replicas: int
    environment: dict[str, str] | None = None


async def compare(folder: Path, redis: RedisServer, args: argparse.Namespace, measured: Setup,
                  reference: Setup, what: str) -> None:
    """Both clusters under the same load, rounds alternating which goes first; every round,
    then the ratios measured/reference (calls per second, CPU per call), min and median."""
    # Nothing compiled before: the first replica of each cluster compiles the tools itself.
    compiled = folder / "compiled"
    (compiled / "modules").mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        clusters = []
        for setup in (measured, reference):
            # A call on this loaded machine may take longer than the tests' budget: never a job here.
            cluster = start_cluster(folder / setup.name.replace(" ", "-"), redis, compiled, setup.replicas,
                                    limited=False, extra_tools=("echo",), sync_budget_s=30,
                                    environment=setup.environment)
            stack.callback(stop_cluster, cluster)
            clusters.append(cluster)
        mine, theirs = clusters
        rate_ratios, cpu_ratios = [], []
        a, b = measured.name, reference.name
        print(f"\n{'round':>5} {a + '/s':>14} {b + '/s':>14} {'ratio':>6} {'CPU ms/call ' + a:>24} "
              f"{'CPU ms/call ' + b:>24} {'ratio':>6} {'wrong':>6}")
        for round_no in range(1, args.rounds + 1):
            order = (mine, theirs) if round_no % 2 else (theirs, mine)
            figures = {id(c): await load(c, args.seconds, args.connections) for c in order}
            (rate_a, cpu_a, wrong_a), (rate_b, cpu_b, wrong_b) = figures[id(mine)], figures[id(theirs)]
            rate_ratios.append(rate_a / rate_b)
            cpu_ratios.append(cpu_a / cpu_b)
            print(f"{round_no:>5} {rate_a:>14.0f} {rate_b:>14.0f} {rate_ratios[-1]:>6.2f} {cpu_a:>24.2f} "
                  f"{cpu_b:>24.2f} {cpu_ratios[-1]:>6.2f} {wrong_a:>3}/{wrong_b}")
        print(f"{what}: calls/s min {min(rate_ratios):.2f}, median {statistics.median(rate_ratios):.2f}; "
              f"CPU per call min {min(cpu_ratios):.2f}, median {statistics.median(cpu_ratios):.2f}")


async def replicas_bench(folder: Path, redis: RedisServer, args: argparse.Namespace) -> None:
    await compare(folder, redis, args, Setup("3 replicas", 3), Setup("1 replica", 1), "3 replicas / 1 replica")


async def lane_bench(folder: Path, redis: RedisServer, args: argparse.Namespace) -> None:
    await compare(folder, redis, args, Setup("lane", 1), Setup("without lane", 1, {"TOOLBAY_QUICK_LANE": "false"}),
                  "stateless quick lane / without")


async def submit_ms(manager: object, count: int) -> list[float]:
    from toolbay.words import CallContext, ToolResult

    release = asyncio.Event()

    async def work(context: CallContext) -> ToolResult:
        await release.wait()
        return ToolResult(text="done")

    times = []
    for _ in range(count):
        started = time.perf_counter()
        answer = await manager.run_or_background(  # type: ignore[attr-defined]
            "bench", "wait", {}, work, CallContext(caller="bench"), background=True)
        times.append((time.perf_counter() - started) * 1000)
        assert answer.structured["status"] == "running", answer.structured
    release.set()
    return times


async def jobs_bench(folder: Path, redis: RedisServer, args: argparse.Namespace) -> None:
    from toolbay.cluster.connection import open_checked
    from toolbay.cluster.jobs import RedisJobStore
    from toolbay.jobs import JobManager, SqliteJobStore

    client = await open_checked(redis.url)
    try:
        managers = {
            "sqlite": JobManager(SqliteJobStore(folder / "jobs.sqlite3"), max_concurrent=args.jobs,
                                 max_per_caller=args.jobs),
            "redis": JobManager(RedisJobStore(client), max_concurrent=args.jobs, max_per_caller=args.jobs),
        }
        async with contextlib.AsyncExitStack() as stack:  # closed in reverse, as they were entered
            for manager in managers.values():
                await stack.enter_async_context(manager)
            ratios = []
            print(f"\n{'round':>5} {'SQLite ms/submit':>17} {'Redis ms/submit':>16} {'Redis/SQLite':>13}")
            for round_no in range(1, args.rounds + 1):
                order = ("sqlite", "redis") if round_no % 2 else ("redis", "sqlite")
                medians = {}
                for name in order:
                    medians[name] = statistics.median(await submit_ms(managers[name], args.jobs))
                    await managers[name].drain(60)
                ratios.append(medians["redis"] / medians["sqlite"])
                sqlite_ms, redis_ms = medians["sqlite"], medians["redis"]
                print(f"{round_no:>5} {sqlite_ms:>17.3f} {redis_ms:>16.3f} {ratios[-1]:>13.2f}")
            print(f"job submit → running, Redis / SQLite: min {min(ratios):.2f}, "
                  f"median {statistics.median(ratios):.2f}")
    finally:
        await client.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--skip-replicas", action="store_true", help="without the 1 vs 3 replicas part")
    parser.add_argument("--only-lane", action="store_true", help="only the quick lane part")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-cluster-") as temp:
        folder = Path(temp)
        redis = RedisServer(folder / "redis")
        redis.start()
        try:
            if not (args.skip_replicas or args.only_lane):
                await replicas_bench(folder, redis, args)
            await lane_bench(folder, redis, args)
            if not args.only_lane:
                await jobs_bench(folder, redis, args)
        finally:
            redis.stop()


if __name__ == "__main__":
    asyncio.run(main())
