"""Where the server's time goes under load: a sampling profile, shared out by layer.

    python -m bench.profile_calls [--transport http|stdio] [--seconds S] [--connections N]
                                  [--rate HZ] [--py-spy PATH]

Starts ``toolbay serve`` on the ``echo`` fixture (as bench_calls does), puts ``bench/load.py``'s
raw load on it (over HTTP: N keep-alive connections, one call at a time each; over stdio: N calls
in flight on the server's pipes), and samples every thread of the server with py-spy
(``pip install py-spy``; it reads the process's memory, so it needs ptrace rights over it).
Each sample is charged to one layer: the innermost frame of the stack that belongs to a known
layer; frames of the standard library, of anyio and of pydantic count for the layer that called
them, except the event loop's own waiting and scheduling. Threads that wait (idle workers, the
epoch ticker between ticks) are left out. Prints samples per layer and their share, and the
server's processor time per call (from /proc, as bench_calls reports it). The samples include
the server's start-up (imports), a constant that longer ``--seconds`` make small.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_calls import MESSAGE, Servers, free_port, http_server  # noqa: E402
from bench.load import Load, http_load, stdio_load  # noqa: E402

# (layer, how a frame's file path starts), tried in order; the first match names the layer. py-spy
# gives paths relative to where they were imported from (``uvicorn/...``, ``server/wasm/...``
# for toolbay's own modules in a checkout, ``toolbay/wasm/...`` when installed).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("run (wasm sandbox)", ("server/wasm/", "toolbay/wasm/", "handlers/wasm", "toolbay/handlers/wasm",
                            "wasmtime/")),
    ("chain", ("server/chain/", "toolbay/chain/", "server/auth/", "toolbay/auth/")),
    ("catalog", ("server/catalog", "toolbay/catalog", "server/discovery", "toolbay/discovery")),
    ("app / jobs", ("server/app.py", "toolbay/app.py", "server/jobs/", "toolbay/jobs/", "server/outcomes",
                    "toolbay/outcomes", "server/sessions", "toolbay/sessions")),
    ("result conversion", ("server/protocol/results", "toolbay/protocol/results")),
    ("toolbay protocol", ("server/protocol/", "toolbay/protocol/")),
    ("SDK session and transport", ("mcp/",)),
    ("HTTP parsing and ASGI", ("uvicorn/", "h11/", "httptools/", "starlette/", "sse_starlette/")),
    ("event loop", ("asyncio/",)),
]

# Innermost frames of a thread that waits rather than works. py-spy counts a thread blocked in
# native code as active: a worker thread blocked on its queue or in the file watcher's native
# wait, the event loop in epoll between requests, the epoch ticker between ticks.
WAITS = ("Condition.wait (threading.py", "Event.wait (threading.py", "Queue.get (queue.py",
         "select (selectors.py", "Optimiser._loop (", "WorkerThread.run (anyio/", "Runner.run (asyncio/")


def frame_path(frame: str) -> str:
    """``function (path:line)`` → ``path``."""
    return frame.rpartition(" (")[2].rpartition(":")[0]


def layer_of(stack: list[str]) -> str | None:
    """``stack``: frames innermost first, each ``function (path:line)``; ``None`` for a wait."""
    if stack and stack[0].startswith(WAITS):
        return None
    for frame in stack:
        path = frame_path(frame)
        for layer, starts in LAYERS:
            if path.startswith(starts):
                return layer
    return "other"


def read_samples(raw: Path) -> collections.Counter[str]:
    """py-spy's raw format: one line per distinct stack, outermost first, ``;``-separated, then a count."""
    shares: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        layer = layer_of(stack.split(";")[::-1])
        if layer is not None:
            shares[layer] += int(count)
    return shares


def http_profile(servers: Servers, spy_command: list[str], seconds: float, connections: int) -> Load:
    port = free_port()
    with http_server(servers.http_command("toolbay", port), port, servers.env) as pid:
        spy = subprocess.Popen([*spy_command, "--pid", str(pid), "--duration", str(int(seconds) + 2)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        load = asyncio.run(http_load("127.0.0.1", port, pid, tool="echo", text=MESSAGE, seconds=seconds,
                                     connections=connections))
        _, spy_errors = spy.communicate()
        if spy.returncode != 0:
            raise RuntimeError(f"py-spy failed: {spy_errors.decode(errors='replace').strip()}")
    return load


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--transport", choices=("http", "stdio"), default="http")
    parser.add_argument("--connections", type=int, default=8, help="HTTP connections, or calls in flight on stdio")
    parser.add_argument("--rate", type=int, default=100,
                        help="samples per second (each pauses the server a moment: keep it low)")
    parser.add_argument("--py-spy", default=shutil.which("py-spy"), help="the py-spy program")
    parser.add_argument("--native", action="store_true",
                        help="sample native frames too (time in C code, e.g. a socket write, shows where it is)")
    parser.add_argument("--keep", type=Path, help="keep py-spy's raw samples in this file")
    options = parser.parse_args()
    if not options.py_spy:
        print("py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="toolbay-profile-") as folder:
        base = Path(folder)
        servers = Servers(base, sys.executable)
        raw = base / "samples.txt"
        # --subprocesses: a stdio server serves from a child process of its own (server/detach.py).
        spy_command = [options.py_spy, "record", "--subprocesses", "--format", "raw", "--output", str(raw), "--rate",
                       str(options.rate), *(["--native"] if options.native else [])]
        if options.transport == "stdio":
            # py-spy starts the server itself, which inherits the load's pipes.
            load = stdio_load([*spy_command, "--", *servers.stdio_command("toolbay")], cwd=ROOT, env=servers.env,
                              tool="echo", text=MESSAGE, seconds=options.seconds, in_flight=options.connections)
        else:
            load = http_profile(servers, spy_command, options.seconds, options.connections)
        if not raw.exists():
            print("py-spy wrote no samples", file=sys.stderr)
            return 1
        shares = read_samples(raw)
        if options.keep:
            shutil.copy(raw, options.keep)
    total = sum(shares.values())
    line = (f"stdio, {options.connections} in flight" if options.transport == "stdio"
            else f"HTTP, {options.connections} connections")
    print(f"{line}: {load.per_second:.0f} calls/s, "
          f"{load.cpu_ms_per_call:.3f} ms server CPU per call, {total} samples")
    for layer, count in shares.most_common():
        print(f"  {layer:28} {count:6}  {100 * count / total:5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
