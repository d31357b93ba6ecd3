"""The wasm runner's processor time per call, this toolbay against an older checkout, in one process.

    python bench/bench_runner_against.py OLD_TREE [--calls N] [--rounds R]

OLD_TREE is a checkout from before toolbay was an installed package (``server`` and
``handlers`` importable from it), e.g. ``git worktree add /tmp/old 589b9e0``. Both runners
serve the same bundled tool (hashsum) in the same process, with the same compiler
(Cranelift), through the handler's quick path (the way a server answers a small tool), and
the same module run bare in wasmtime for reference (bench_runner's); rounds alternate. Processor time of the
whole process (every thread) per call: independent of how loaded the machine is, unlike
calls per second.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_runner import bare_wasmtime  # noqa: E402

TOOL = ROOT / "extensions" / "hashsum.wasm"
ARGV = ["hashsum", "--text", "abc", "-a", "sha256"]


def cpu_per_call_ms(call: Callable[[], object], calls: int) -> float:
    call()
    started = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - started) / calls * 1000


def new_runner() -> Callable[[], object]:
    from toolbay.handlers.wasm import WasmHandler
    from toolbay.wasm import WasmRuntime
    from toolbay.words import CallContext, ToolDefinition

    runtime = WasmRuntime(Path(tempfile.mkdtemp(prefix="toolbay-new-")), quick_compile=False)
    handler = WasmHandler(ToolDefinition(name="hashsum", description="", input_schema={}), runtime,
                          runtime.load(TOOL), program_name="hashsum", to_argv=lambda _: ARGV[1:])
    return quick_or_worker(handler, CallContext())


def old_runner(tree: Path) -> Callable[[], object]:
    sys.path.insert(0, str(tree))
    try:
        from handlers.base import CallContext, ToolDefinition  # type: ignore[import-not-found]
        from handlers.wasm import WasmHandler  # type: ignore[import-not-found]
        from server.wasm import WasmRuntime  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tree))
    runtime = WasmRuntime(Path(tempfile.mkdtemp(prefix="toolbay-old-")))
    handler = WasmHandler(ToolDefinition(name="hashsum", description="", input_schema={}), runtime,
                          runtime.load(TOOL), program_name="hashsum", to_argv=lambda _: ARGV[1:])
    return quick_or_worker(handler, CallContext())


def quick_or_worker(handler: Any, context: Any) -> Callable[[], object]:
    """The server's way: the quick path, or a worker run when the tool is not (yet) quick."""
    loop = asyncio.new_event_loop()

    def call() -> object:
        answer = handler.answer_at_once({}, context)
        if answer is None:
            answer = loop.run_until_complete(handler.handle({}, context))
        assert not answer.is_error, answer.text
        return answer

    return call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old_tree", type=Path)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    runners = {"bare wasmtime": bare_wasmtime(TOOL, ARGV), "old toolbay": old_runner(options.old_tree),
               "toolbay": new_runner()}
    figures: dict[str, list[float]] = {name: [] for name in runners}
    print(f"processor time per call of {' '.join(ARGV)}, {options.calls} calls a round")
    for number in range(1, options.rounds + 1):
        for name, call in runners.items():
            figures[name].append(cpu_per_call_ms(call, options.calls))
        row = {name: values[-1] for name, values in figures.items()}
        print(f"  round {number}: " + ", ".join(f"{name} {ms:.3f} ms" for name, ms in row.items())
              + f"; toolbay / old {row['toolbay'] / row['old toolbay']:.2f}")
    ratios = [new / old for new, old in zip(figures["toolbay"], figures["old toolbay"], strict=True)]
    print(f"  toolbay / old toolbay: min {min(ratios):.2f}, median {statistics.median(ratios):.2f}")
    for name in ("old toolbay", "toolbay"):
        over = [ours - base for ours, base in zip(figures[name], figures["bare wasmtime"], strict=True)]
        print(f"  {name} over bare wasmtime: min {min(over):+.3f} ms, median {statistics.median(over):+.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
