"""What /metrics costs per call: server CPU per call with metrics on and off, in the same run.

    python bench/bench_metrics.py [--calls N] [--rounds R]

Two apps over the same bundled tools in this process, one with ``[http] metrics`` on (the
default on HTTP) and one with it off; each takes the same calls through ``app.call`` (the whole
chain, the dispatch and, when on, the metrics), rounds alternating so both see the same machine.
The figure is this process's CPU time per call and the ratio on/off per round, min and median.
The wire (HTTP parsing, JSON) is left out: it is the same either way and would only dilute it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolbay.assembly import assemble  # noqa: E402
from toolbay.chain.call import ToolCall  # noqa: E402
from toolbay.config import load_settings  # noqa: E402
from toolbay.metrics import ServerMetrics  # noqa: E402
from toolbay.words import CallContext, ToolResult  # noqa: E402


async def cpu_per_call(app: object, calls: int) -> float:
    """CPU seconds per call of ``app.call`` on hashsum (the quick path: the chain, the
    dispatch and the metrics are most of what it costs)."""
    started = time.process_time()
    for _ in range(calls):
        call = ToolCall(name="hashsum", arguments={"text": "abc"}, context=CallContext(), transport="http")
        result = await app.call(call)  # type: ignore[attr-defined]
        assert not result.is_error, result.text
    return (time.process_time() - started) / calls


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        # Cranelift from the start for both: a baseline-compiled first app would be slower for that alone.
        common = {"data_dir": Path(data), "transport": "http", "port": 0, "discovery": {"quick_compile": False}}
        on_settings = load_settings(None, **common)
        off_settings = load_settings(None, **common, http={"metrics": False})
        async with assemble(on_settings, watch=False) as on, assemble(off_settings, watch=False) as off:
            assert on.metrics is not None and off.metrics is None
            await cpu_per_call(on, 200)
            await cpu_per_call(off, 200)  # warm both
            ratios, on_us, off_us = [], [], []
            print(f"{'round':>5} {'off µs/call':>12} {'on µs/call':>11} {'on/off':>7}")
            for round_no in range(1, args.rounds + 1):
                first, second = (on, off) if round_no % 2 else (off, on)
                a = await cpu_per_call(first, args.calls)
                b = await cpu_per_call(second, args.calls)
                with_metrics, without = (a, b) if first is on else (b, a)
                on_us.append(with_metrics * 1e6)
                off_us.append(without * 1e6)
                ratios.append(with_metrics / without)
                print(f"{round_no:>5} {off_us[-1]:>12.1f} {on_us[-1]:>11.1f} {ratios[-1]:>7.3f}")
    print(f"on/off CPU per call: min {min(ratios):.3f}, median {statistics.median(ratios):.3f}; "
          f"added per call (median): {statistics.median(on_us) - statistics.median(off_us):.1f} µs")
    # The metrics' own share, alone: the same observations a call makes, many times over.
    metrics = ServerMetrics(lambda: {}, lambda: 0)
    result = ToolResult(text="ok")
    timings = {"authenticate": 1e-5, "ratelimit": 1e-5, "authorize": 1e-5, "validate": 1e-5, "tool": 1e-4}
    alone = []
    for _ in range(args.rounds):
        started = time.process_time()
        for _ in range(100_000):
            metrics.observe_call("hashsum", result, timings, 1e-3)
        alone.append((time.process_time() - started) / 100_000 * 1e6)
    print("observe_call alone, µs per call, every round: " + ", ".join(f"{u:.2f}" for u in alone)
          + f"; min {min(alone):.2f}, median {statistics.median(alone):.2f}")


if __name__ == "__main__":
    asyncio.run(main())
