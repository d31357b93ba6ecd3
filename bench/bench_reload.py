"""Hot reload latency: a file landing in the extension folder → ``notifications/tools/list_changed``
at a connected client (the SDK's client, in process, legacy mode), against describing that file
alone in the same run.

    python bench/bench_reload.py [--drops 40] [--transport memory|stdio]

Each drop writes a module nobody has seen (greet v1 or v2 with a unique custom section), so it
is really compiled and its ``--help`` really run: no description or compiled-module cache hit.
The baseline describes another unseen variant of the same module with ``Discovery`` directly.
Goal: median landing → notification under 300 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp import Client, StdioServerParameters

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # runnable as a script, without PYTHONPATH

from toolbay.assembly import assemble  # noqa: E402
from toolbay.config import load_settings  # noqa: E402
from toolbay.discovery import Discovery  # noqa: E402
from toolbay.protocol.mcp_server import build_mcp_server  # noqa: E402
from toolbay.wasm import WasmRuntime  # noqa: E402

SOURCES = [REPO_ROOT / "tests" / "fixtures" / "wasm" / f"greet_v{n}.wasm" for n in (1, 2)]
TIMEOUT_S = 20.0


def _leb128(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def unseen_variant(source: Path, tag: str) -> bytes:
    """The module with a custom section appended: same code, new sha256."""
    name = b"toolbay-bench"
    body = _leb128(len(name)) + name + tag.encode()
    return source.read_bytes() + b"\x00" + _leb128(len(body)) + body


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


class Notified:
    def __init__(self) -> None:
        self.at: list[float] = []
        self._event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.at.append(time.perf_counter())
            self._event.set()
            self._event = anyio.Event()

    async def after(self, seen: int) -> float:
        with anyio.fail_after(TIMEOUT_S):
            while len(self.at) <= seen:
                await self._event.wait()
        return self.at[seen]


async def describe_alone(discovery: Discovery, scratch: Path, data: bytes) -> float:
    path = scratch / "greet.wasm"
    path.write_bytes(data)
    started = time.perf_counter()
    outcome = await anyio.to_thread.run_sync(discovery.describe_file_sync, path)
    elapsed = time.perf_counter() - started
    assert outcome.handlers and not outcome.from_cache, outcome.skipped
    return elapsed


async def drops(client: Client, notified: Notified, folder: Path, discovery: Discovery, scratch: Path,
                count: int, run_id: str) -> tuple[list[float], list[float]]:
    to_notice, to_describe = [], []
    await client.list_tools()
    for i in range(count + 1):
        source = SOURCES[i % 2]
        seen = len(notified.at)
        data = unseen_variant(source, f"{run_id}-drop-{i}")
        target = folder / "greet.wasm"
        target.write_bytes(data)
        landed = time.perf_counter()
        arrived = await notified.after(seen)
        alone = await describe_alone(discovery, scratch, unseen_variant(source, f"{run_id}-alone-{i}"))
        if i == 0:
            continue  # warm-up: the first drop also pays for imports and the first compile
        to_notice.append(arrived - landed)
        to_describe.append(alone)
    return to_notice, to_describe


async def main(count: int, transport: str) -> None:
    run_id = f"{os.getpid()}-{time.time_ns()}"
    with tempfile.TemporaryDirectory(prefix="bench-reload-") as tmp:
        root = Path(tmp)
        folder, scratch, data_dir = root / "extensions", root / "scratch", root / "data"
        for path in (folder, scratch, data_dir):
            path.mkdir()
        settings = load_settings(None, extensions=[folder], data_dir=data_dir, workspace=root)
        # The baseline uses its own runtime and caches, so neither side warms the other's.
        baseline_runtime = WasmRuntime(cache_dir=root / "baseline-modules")
        baseline = Discovery(load_settings(None, extensions=[scratch], data_dir=root / "baseline", workspace=root),
                             baseline_runtime)
        notified = Notified()
        try:
            if transport == "memory":
                async with (
                    assemble(settings) as app,
                    Client(build_mcp_server(app, "memory"), mode="legacy", message_handler=notified) as client,
                ):
                    to_notice, to_describe = await drops(client, notified, folder, baseline, scratch, count, run_id)
            else:
                params = StdioServerParameters(
                    command=sys.executable,
                    args=["-m", "toolbay", "serve", "--extensions", str(folder), "--data-dir", str(data_dir)],
                    cwd=str(REPO_ROOT),
                    env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
                )
                async with Client(params, mode="legacy", message_handler=notified) as client:
                    to_notice, to_describe = await drops(client, notified, folder, baseline, scratch, count, run_id)
        finally:
            baseline_runtime.close()

    ratios = [n / d for n, d in zip(to_notice, to_describe, strict=False)]
    print(f"hot reload over {transport}: {count} drops of unseen modules (greet v1/v2, ~34 KB)")
    print(f"{'':34}{'median':>10}{'p95':>10}{'min':>10}{'max':>10}")
    for label, values, unit in (
        ("landing → list_changed at client", to_notice, "ms"),
        ("describe the file alone", to_describe, "ms"),
        ("ratio (per drop)", ratios, "x"),
    ):
        scale = 1000 if unit == "ms" else 1
        row = [statistics.median(values), percentile(values, 0.95), min(values), max(values)]
        print(f"{label:34}" + "".join(f"{v * scale:>8.1f}{unit:>2}" for v in row))
    overhead = [n - d for n, d in zip(to_notice, to_describe, strict=False)]
    print(f"overhead beyond describing (watch quiet time, stability check, rescan, notify): "
          f"median {statistics.median(overhead) * 1000:.1f} ms, p95 {percentile(overhead, 0.95) * 1000:.1f} ms")
    goal = statistics.median(to_notice) < 0.3
    print(f"goal median < 300 ms: {'met' if goal else 'NOT met'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drops", type=int, default=40)
    parser.add_argument("--transport", choices=["memory", "stdio"], default="memory")
    arguments = parser.parse_args()
    anyio.run(main, arguments.drops, arguments.transport)
