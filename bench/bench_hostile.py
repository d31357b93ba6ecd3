"""Hostile guests: how soon past its limit each one is stopped and answered as a tool error.

    python -m bench.bench_hostile [--rounds 5]

Each hostile fixture (a runaway loop, a sleep in the host, a memory bomb, an output flood, a
trap, a stack overflow, a help that never ends) is called through the wasm handler with a
1 s limit, as tests/wasm/test_hostile.py calls them. Printed per case: the wall time of every
round, the minimum and the median, and the median over the limit (goal: within the limit +
0.5 s, 1.5x). Reference measured in the same run: a friendly call (`args`) on the same runtime,
so the time a stop adds past the limit reads against what any call costs.
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

from tests.wasm.test_hostile import HOSTILE, LIMITS, handler_for  # noqa: E402
from toolbay.wasm import WasmRuntime  # noqa: E402
from toolbay.words import CallContext  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "wasm"


async def timed(handler: object) -> float:
    started = time.perf_counter()
    await handler.handle({}, CallContext())  # type: ignore[attr-defined]
    return time.perf_counter() - started


async def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / "workspace"
        workspace.mkdir()
        runtime = WasmRuntime(Path(scratch) / "modules")
        try:
            friendly = handler_for(runtime, runtime.load(FIXTURES / "args.wasm"), ["args", "x"], workspace)
            reference = [await timed(friendly) for _ in range(rounds)]
            print(f"reference: a friendly call, {rounds} rounds: "
                  + " ".join(f"{r * 1000:.1f}" for r in reference) + " ms; "
                  f"min {min(reference) * 1000:.1f} ms, median {statistics.median(reference) * 1000:.1f} ms")
            print(f"hostile calls, limit {LIMITS.timeout_s:g} s (goal: median within the limit + 0.5 s)")
            for case in sorted(HOSTILE):
                argv, _ = HOSTILE[case]
                handler = handler_for(runtime, runtime.load(FIXTURES / f"{argv[0]}.wasm"), argv, workspace)
                walls = [await timed(handler) for _ in range(rounds)]
                median = statistics.median(walls)
                past = max(median - LIMITS.timeout_s, 0.0)
                per_call = past / statistics.median(reference)
                print(f"  {case:22s} " + " ".join(f"{w:.3f}" for w in walls)
                      + f" s | min {min(walls):.3f} median {median:.3f} s"
                      + f" | median/limit {median / LIMITS.timeout_s:.2f}x"
                      + f" | past the limit {past * 1000:.0f} ms = {per_call:.1f}x a friendly call"
                      + ("" if median <= LIMITS.timeout_s + 0.5 else "  MISSED"))
        finally:
            runtime.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    anyio.run(main, parser.parse_args().rounds)
