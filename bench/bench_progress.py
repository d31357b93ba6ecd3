"""Guest progress: how soon a line the guest writes reaches the client, and what it costs.

    python -m bench.bench_progress [--rounds 5] [--steps 40] [--step-ms 50]

1. Latency: the `progress` fixture, served over stdio by a `serve` subprocess and called by
   the SDK's client, writes ``toolbay:progress I/N at <time>`` every ``step_ms``; the client
   notes when each notification arrives. Median and minimum per round (goal: median < 20 ms),
   beside the guest's own run time and the same call with its lines left out (--quiet).
2. Floods: a million progress lines in one run, against the same lines without the mark
   (ordinary stderr, dropped past its limit) and against printing nothing, in CPU seconds of
   the whole process (the guest's thread and the one draining its pipes), and toolbay's own
   share: the CPU its stderr reader spends on the same bytes, against the whole run (the rest
   is the guest formatting and writing its lines, which a guest printing nothing does not do).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp import Client, StdioServerParameters  # noqa: E402

from toolbay.wasm import RunRequest, SandboxLimits, WasmRuntime  # noqa: E402
from toolbay.wasm.progress import GuestStderr, ProgressReport  # noqa: E402
from toolbay.wasm.streams import CappedOutput  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "wasm" / "progress.wasm"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def latency(rounds: int, steps: int, step_ms: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        extensions = Path(folder) / "extensions"
        extensions.mkdir()
        shutil.copy2(FIXTURE, extensions / FIXTURE.name)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLBAY_")}
        params = StdioServerParameters(
            command=sys.executable, cwd=folder, env={**env, "PYTHONPATH": str(REPO_ROOT)},
            args=["-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", f"{folder}/data"])
        async with Client(params, mode="legacy") as client:
            print(f"1. progress line written → notification at the client (stdio), {steps} lines "
                  f"{step_ms} ms apart per call")
            arguments = {"steps": steps, "step_ms": step_ms, "timestamps": True}
            for number in range(1, rounds + 1):
                delays: list[float] = []

                async def heard(done: float, total: float | None, message: str | None,
                                delays: list[float] = delays) -> None:
                    if message and message.startswith("at "):
                        delays.append(time.time() - float(message[3:]))

                result = await client.call_tool("progress", arguments, progress_callback=heard)
                quiet = await client.call_tool("progress", {**arguments, "quiet": True})
                run_s = (result.meta or {}).get("toolbay/duration_ms", 0) / 1000
                quiet_s = (quiet.meta or {}).get("toolbay/duration_ms", 0) / 1000
                median = statistics.median(delays)
                print(f"   round {number}: {len(delays)}/{steps} heard, latency median {ms(median)}, "
                      f"min {ms(min(delays))}, max {ms(max(delays))}; the call took {run_s:.3f} s, "
                      f"{quiet_s:.3f} s without its lines (ratio {run_s / quiet_s:.3f})")


def host_share(lines: int) -> float:
    """CPU seconds toolbay itself spends on a flood: the same bytes the guest writes, fed
    through the stderr reader in the 64 KiB chunks a drained pipe hands over."""
    text = b"".join(b"toolbay:progress %d/%d step %d\n" % (i, lines, i) for i in range(1, lines + 1))
    sink = GuestStderr(CappedOutput(4096), lambda report: None)
    view = memoryview(text)
    started = time.process_time()
    for offset in range(0, len(text), 65536):
        sink.write(view[offset:offset + 65536])
    sink.close()
    return time.process_time() - started


def floods(rounds: int, lines: int) -> None:
    runtime = WasmRuntime()
    module = runtime.load(FIXTURE)
    limits = SandboxLimits(timeout_s=600)
    print(f"2. {lines:,} progress lines in one run (stderr buffered by the guest), CPU seconds of the process")
    ratios: dict[str, list[float]] = {"vs same lines": [], "vs nothing": [], "host share": []}
    for number in range(1, rounds + 1):
        figures = {}
        for label, flags in (("progress lines", []), ("same lines, no mark", ["--plain-lines"]),
                             ("printing nothing", ["--quiet"])):
            reports: list[ProgressReport] = []
            started = time.process_time()
            runtime.run(module, RunRequest(argv=["progress", "--steps", str(lines), "--step-ms", "0", "--buffered",
                                                 *flags], limits=limits, on_progress=reports.append))
            figures[label] = (time.process_time() - started, len(reports))
        flood, plain, nothing = (figures[k][0] for k in figures)
        host = host_share(lines)
        ratios["vs same lines"].append(flood / plain)
        ratios["vs nothing"].append(flood / nothing)
        ratios["host share"].append(host / flood)
        print(f"   round {number}: progress lines {flood:.3f} s ({figures['progress lines'][1]} reports handed on), "
              f"same lines without the mark {plain:.3f} s (ratio {flood / plain:.3f}), "
              f"printing nothing {nothing:.3f} s (ratio {flood / nothing:.3f}); "
              f"toolbay's reading and parsing of those lines {host:.3f} s = {100 * host / flood:.1f} % of the run")
    for label, values in ratios.items():
        print(f"   {label}: min {min(values):.3f}, median {statistics.median(values):.3f}")
    runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--step-ms", type=int, default=50)
    parser.add_argument("--lines", type=int, default=1_000_000)
    options = parser.parse_args()
    anyio.run(latency, options.rounds, options.steps, options.step_ms)
    floods(options.rounds, options.lines)


if __name__ == "__main__":
    main()
