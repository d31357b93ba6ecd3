"""Start-up benchmarks, each measured against a baseline in the same run.

    python bench/bench_startup.py [--files N] [--repeat R]

1. Warm start with N (default 1,000) cached tool descriptions: ``CatalogKeeper.open`` until the
   catalog is built plus one ``tools/list`` worth of ``types.Tool`` objects, vs only hashing
   the same N files. Goals: < 1 s, and <= 2x the hashing.
2. Cold start describing the bundled tools (empty data dir: compile, run ``--help``, parse)
   vs a warm start of the same tools.
3. Cold start as a client sees it (``bench/cold_start.py``): a real ``toolbay serve`` process
   to its first complete ``tools/list``, today's compiler settings against compiling with
   Cranelift up front, side by side, ``--rounds`` rounds. Goal: <= 0.3x, every bundled tool
   in the first listing. ``--only-cold`` runs this part alone.
4. The CLI (``bench/bench_cli.py``, which can also measure an installed wheel): ``toolbay
   parse-help`` on a real help text against ``python -c pass``, alternating, ``--cli-rounds``
   rounds. Goal: <= 3x. ``--only-cli`` runs this part alone.

The N files are tiny WASI modules made here with ``wasmtime.wat2wasm``: they all print the
same help text but carry a distinct data byte, so each has its own sha256 and its own cache
entry, as 1,000 real tools would.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import wasmtime  # noqa: E402

from toolbay.catalog_keeper import CatalogKeeper  # noqa: E402
from toolbay.config import BUNDLED_EXTENSIONS, load_settings  # noqa: E402
from toolbay.discovery import scan, sha256_of  # noqa: E402
from toolbay.protocol.listing import definition_to_tool  # noqa: E402
from toolbay.subagents.roles import read_roles  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import cold_start  # noqa: E402

HELP = (
    "Usage: tiny [OPTIONS] <TEXT>\n\n"
    "Prints a greeting for TEXT.\n\n"
    "Arguments:\n  <TEXT>  Text to greet\n\n"
    "Options:\n"
    "  -n, --count <N>  How many times to greet [default: 1]\n"
    "  -u, --upper      Greet in capitals\n"
    "  -h, --help       Print help\n"
)


def tiny_module(serial: int) -> bytes:
    """A WASI command that prints HELP whatever its arguments; ``serial`` makes its bytes unique."""
    text = HELP.encode()
    escaped = "".join(f"\\{b:02x}" for b in text)
    wat = f"""
    (module
      (import "wasi_snapshot_preview1" "fd_write"
        (func $fd_write (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (data (i32.const 0) "\\10\\00\\00\\00\\{len(text) & 0xff:02x}\\{len(text) >> 8:02x}\\00\\00")
      (data (i32.const 16) "{escaped}")
      (data (i32.const 4096) "serial {serial:08d}")
      (func (export "_start")
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
    """
    return wasmtime.wat2wasm(wat)


def _leb128(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def padded(module: bytes, size: int) -> bytes:
    """``module`` grown to about ``size`` bytes by a custom section, as real code would grow it."""
    room = size - len(module) - 16
    if room <= 0:
        return module
    name = b"bench-padding"
    payload = _leb128(len(name)) + name + bytes(room)
    return module + b"\x00" + _leb128(len(payload)) + payload


def make_tools(folder: Path, count: int, size: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for serial in range(count):
        (folder / f"tiny{serial:04d}.wasm").write_bytes(padded(tiny_module(serial), size))


async def start_and_list(settings: object) -> int:
    """What a client waits for at start: the catalog, then the first ``tools/list``."""
    async with CatalogKeeper.open(settings) as keeper:  # type: ignore[arg-type]
        tools = [definition_to_tool(d) for d in keeper.catalog.current.definitions()]
        return len(tools)


def best_of(repeat: int, run: Callable[[], Awaitable[object]]) -> tuple[float, float, object]:
    samples: list[float] = []
    value: object = None
    for _ in range(repeat):
        started = time.perf_counter()
        value = anyio.run(run)
        samples.append(time.perf_counter() - started)
    return min(samples), statistics.median(samples), value


async def _hash(paths: list[Path]) -> int:
    return len([sha256_of(path) for path in paths])


def warm_start(base: Path, files: int, size_kb: int, repeat: int, label: str) -> bool:
    tools = base / "extensions"
    started = time.perf_counter()
    make_tools(tools, files, size_kb * 1024)
    size = "tiny files" if size_kb == 0 else f"files of {size_kb} KiB"
    print(f"{label}. warm start, {files} cached descriptions, {size} (made in {time.perf_counter() - started:.1f} s)")

    # With the bundled role files, as a real start: their agent_* tools are listed too.
    settings = load_settings(None, extensions=[tools], data_dir=base / "data")
    roles = len(read_roles(settings.agents).roles)
    started = time.perf_counter()
    count = anyio.run(start_and_list, settings)
    print(f"   cold start describing them  {time.perf_counter() - started:8.2f} s ({count} tools)")
    if count != files + roles:
        print(f"   FAIL: expected {files} tools and {roles} agent tools, got {count}")
        return False
    paths = scan([tools])
    hash_best, hash_median, _ = best_of(repeat, lambda: _hash(paths))
    warm_best, warm_median, _ = best_of(repeat, lambda: start_and_list(settings))
    ratio = warm_best / hash_best
    print(f"   hashing only      {hash_best * 1000:8.1f} ms  (median {hash_median * 1000:.1f})")
    print(f"   open + tools/list {warm_best * 1000:8.1f} ms  (median {warm_median * 1000:.1f})")
    met = warm_best < 1.0 and ratio <= 2.0
    verdict = "met" if met else "MISSED"
    print(f"   ratio {ratio:.2f}x (goal <= 2x), absolute {warm_best:.3f} s (goal < 1 s): {verdict}\n")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1000, help="how many cached tools (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best is reported")
    parser.add_argument(
        "--sizes", type=lambda text: [int(x) for x in text.split(",")], default=[0, 44],
        help="file sizes in KiB, comma-separated (default 0,44: tiny, and hashsum.wasm's size)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the process cold start (default 3)")
    parser.add_argument("--only-cold", action="store_true", help="run only the process cold start")
    parser.add_argument("--cli-rounds", type=int, default=10, help="rounds of the CLI measure (default 10)")
    parser.add_argument("--only-cli", action="store_true", help="run only the CLI measure (bench/bench_cli.py)")
    args = parser.parse_args()
    failed = False
    if args.only_cold:
        return 0 if cold_start.run(BUNDLED_EXTENSIONS, args.rounds, "3") else 1
    if args.only_cli:
        return _cli(args.cli_rounds)

    with tempfile.TemporaryDirectory(prefix="toolbay-bench-startup-") as temp:
        base = Path(temp)
        for number, size_kb in enumerate(args.sizes, start=1):
            if not warm_start(base / f"{size_kb}kb", args.files, size_kb, args.repeat, f"1.{number}"):
                failed = True

        bundled = load_settings(None, extensions=[BUNDLED_EXTENSIONS], data_dir=base / "bundled-data")
        started = time.perf_counter()
        count = anyio.run(start_and_list, bundled)
        cold = time.perf_counter() - started
        warm_best, _, _ = best_of(args.repeat, lambda: start_and_list(bundled))
        print(f"2. bundled tools ({count} tools from {len(scan([BUNDLED_EXTENSIONS]))} files)")
        print(f"   cold start (empty data dir) {cold * 1000:8.1f} ms")
        print(f"   warm start                  {warm_best * 1000:8.1f} ms")
        print(f"   cold / warm {cold / warm_best:.0f}x\n")
    if not cold_start.run(BUNDLED_EXTENSIONS, args.rounds, "3"):
        failed = True
    if _cli(args.cli_rounds) != 0:
        failed = True
    return 1 if failed else 0


def _cli(rounds: int) -> int:
    import bench_cli

    print("\n4. the CLI: toolbay parse-help against python -c pass (bench/bench_cli.py; --installed there: a wheel)")
    return bench_cli.measure(sys.executable, rounds)


if __name__ == "__main__":
    sys.exit(main())
