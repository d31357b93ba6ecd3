"""A Python tool module served by toolbay (in a worker process) vs FastMCP serving the same
function in its own process, in the same run; and the cold start of workers.

    python bench/bench_python_tools.py [--seconds S] [--rounds R] [--fastmcp-python PATH] [--modules N]

1. Calls per second of ``tests/fixtures/python/echo.py`` (``echo(stdin)``) over stdio and HTTP,
   under the raw load generators of ``bench/load.py`` (as ``bench/bench_calls.py`` measures the
   wasm echo), against FastMCP 4 serving the same function in process. The goal is >= 1.2x
   despite the process boundary. Servers' processor time per call includes their workers.
2. Cold start of one worker (start, confine, import, first answer) against starting a bare
   ``python -I -c pass``; each round's figure and the median and minimum are printed.
3. Describing ``--modules`` modules for the first time (a worker each) and again from the cache,
   against starting that many bare interpreters one after the other.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_calls import Servers, compare, fastmcp_python, http_measure, stdio_measure  # noqa: E402

ECHO_MODULE = ROOT / "tests" / "fixtures" / "python" / "echo.py"
GOAL = 1.2


def cpu_s() -> float:
    """This process's and its waited-for children's processor time."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bare_interpreter_s() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
    return time.perf_counter() - started


def worker_cold_start_s(module: Path) -> float:
    import anyio

    from toolbay.pytools import WorkerPool, WorkerSpec

    async def first_answer() -> float:
        pool = WorkerPool(WorkerSpec(path=str(module), module="echo"))

        async def no_credentials(name: str, key: str, env_var: str | None) -> tuple[str | None, str]:
            return None, ""

        started = time.perf_counter()
        answer = await pool.call("echo", {"stdin": "hi"}, {}, no_credentials)
        elapsed = time.perf_counter() - started
        await pool.close()
        assert answer.get("text") == "hi", answer
        return elapsed

    return anyio.run(first_answer)


def describe_many_s(folder: Path, data: Path) -> tuple[float, float, int]:
    """Wall and processor seconds for a keeper to list every module in ``folder``, and the tools."""
    import anyio

    from toolbay.catalog_keeper import CatalogKeeper
    from toolbay.config import load_settings

    settings = load_settings(None, extensions=[folder], data_dir=data, agents=[])  # the modules alone, no roles

    async def once() -> int:
        async with CatalogKeeper.open(settings) as keeper:
            return len(keeper.catalog.current)

    cpu, started = cpu_s(), time.perf_counter()
    tools = anyio.run(once)
    return time.perf_counter() - started, cpu_s() - cpu, tools


def line(label: str, values: list[float], reference: list[float], unit: str = "ms") -> None:
    scale, digits = (1000, 0) if unit == "ms" else (1, 2)
    rounds = " ".join(f"{v * scale:.{digits}f}" for v in values)
    ratio = statistics.median(values) / statistics.median(reference)
    print(f"  {label:34} median {statistics.median(values) * scale:7.{digits}f} {unit}, "
          f"min {min(values) * scale:7.{digits}f} {unit}  [rounds: {rounds}]  = {ratio:.2f}x the reference")


def cold_starts(rounds: int, modules: int) -> None:
    print(f"\ncold start, {rounds} rounds (reference: a bare `python -I -c pass`, same rounds)")
    bare = [bare_interpreter_s() for _ in range(rounds)]
    line("bare interpreter", bare, bare)
    line("one worker, to its first answer", [worker_cold_start_s(ECHO_MODULE) for _ in range(rounds)], bare)
    source = ECHO_MODULE.read_text(encoding="utf-8")
    cold, warm, cold_cpu, warm_cpu = [], [], [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="toolbay-bench-py-") as temp:
            folder, data = Path(temp) / "tools", Path(temp) / "data"
            folder.mkdir()
            for number in range(modules):
                text = source.replace('"echo"', f'"m{number}"').replace("def echo", f"def m{number}")
                (folder / f"m{number}.py").write_text(text, encoding="utf-8")
            wall, cpu, tools = describe_many_s(folder, data)
            assert tools == modules, (tools, modules)
            cold.append(wall)
            cold_cpu.append(cpu)
            wall, cpu, _ = describe_many_s(folder, data)
            warm.append(wall)
            warm_cpu.append(cpu)
    serial = [bare_interpreter_s() * modules for _ in range(rounds)]
    line(f"{modules} bare interpreters, one by one", serial, serial, "s")
    line(f"{modules} modules described, cold", cold, serial, "s")
    print(f"  {'':34} processor time: median {statistics.median(cold_cpu):.2f} s (server and workers)")
    line(f"{modules} modules listed from the cache", warm, serial, "s")
    print(f"  {'':34} processor time: median {statistics.median(warm_cpu):.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per server and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds alternating the servers; medians are shown")
    parser.add_argument("--fastmcp-python", help="a Python with fastmcp 4 (default: this one, or "
                                                  "$BENCH_FASTMCP_PYTHON)")
    parser.add_argument("--modules", type=int, default=100, help="modules for the cold start of many")
    parser.add_argument("--cold-only", action="store_true", help="skip the calls per second")
    args = parser.parse_args()

    ratios = []
    if not args.cold_only:
        python = fastmcp_python(args.fastmcp_python)
        if python is None:
            print("FastMCP 4 not found: pass --fastmcp-python or set BENCH_FASTMCP_PYTHON (see bench_calls.py)")
            return 2
        print(f"calls per second of a Python echo module: toolbay (worker process) vs FastMCP (in process), "
              f"medians of {args.rounds} alternating rounds of {args.seconds:g} s (goal >= {GOAL}x)")
        with tempfile.TemporaryDirectory(prefix="toolbay-bench-py-") as temp:
            servers = Servers(Path(temp), python, tool_file=ECHO_MODULE)
            for in_flight in (1, 8):
                ratios.append(compare(f"stdio, {in_flight} in flight", stdio_measure(servers, args.seconds, in_flight),
                                      args.rounds, goal=GOAL, lowest_goal=None)[0])
            for connections in (1, 8):
                ratios.append(compare(f"HTTP, {connections} connection{'s' if connections > 1 else ''}",
                                      http_measure(servers, args.seconds, connections), args.rounds, goal=GOAL,
                                      lowest_goal=None)[0])
    cold_starts(args.rounds, args.modules)
    return 0 if not ratios or min(ratios) >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
