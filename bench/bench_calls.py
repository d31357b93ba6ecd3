"""Echo-style tool calls per second: toolbay vs a FastMCP 4 server, in the same run.

    python bench/bench_calls.py [--seconds S] [--rounds R] [--fastmcp-python PATH] [--sdk-client]
    python bench/bench_calls.py --against-tree DIR   # this toolbay vs an older checkout of it

Both servers expose an ``echo`` tool that returns its ``stdin`` argument: toolbay runs the
fixture ``tests/fixtures/wasm/echo.wasm`` (a WASI C program that copies standard input) in
its sandbox, through the whole call chain; FastMCP runs a Python function.

The goal (toolbay >= 2x FastMCP's calls per second at the median of the rounds, and >= 1.5x
in the lowest round, on every line; at 8 HTTP connections a p99 latency no more than twice
the median) is judged on what the *server* can serve, so the load comes from
``bench/load.py``: raw JSON-RPC pipelined over the server's
stdio pipes (1 and 8 calls in flight), and raw HTTP/1.1 keep-alive connections on one
session (1 and 8 connections, one call at a time each). Every answer is checked. Each figure
is the median of ``--rounds`` rounds that alternate the two servers, so both see the same
machine; every round's ratio is printed, with the lowest; the servers' own processor time
per call is shown too, and over HTTP toolbay's latency at the median and the 99th percentile.

``--against-tree DIR`` compares with an older toolbay instead of FastMCP: DIR is any older
checkout, e.g. ``git worktree add --detach /tmp/old HEAD~1``, run from its own sources (see
``_importable``). The goal lines do not apply then.

``--sdk-client`` adds the loop of the SDK's own client (``mcp.Client``, as Claude Code speaks
it, one call at a time). That client spends about a millisecond per call itself, more than
either server, so its ratio says more about the client than about the servers.

FastMCP is looked for in this interpreter, then in ``--fastmcp-python`` (or the environment
variable BENCH_FASTMCP_PYTHON): a Python with ``fastmcp`` 4 installed, e.g. a venv made by
``python -m venv /tmp/fastmcp-venv && /tmp/fastmcp-venv/bin/pip install fastmcp``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import Load, http_load, stdio_load  # noqa: E402

ECHO_WASM = ROOT / "tests" / "fixtures" / "wasm" / "echo.wasm"
MESSAGE = "hello from the benchmark"
GOAL = 2.0
LOWEST_ROUND_GOAL = 1.5
TAIL_GOAL = 2.0  # p99 / median latency at 8 HTTP connections

FASTMCP_SERVER = '''
import sys
from fastmcp import FastMCP

server = FastMCP("echo")


@server.tool
def echo(stdin: str) -> str:
    """Returns its input."""
    return stdin


if sys.argv[1] == "stdio":
    server.run(transport="stdio", show_banner=False)
else:
    server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False, log_level="warning")
'''


def fastmcp_python(given: str | None) -> str | None:
    for python in (sys.executable, given or os.environ.get("BENCH_FASTMCP_PYTHON")):
        if not python:
            continue
        probe = subprocess.run([python, "-c", "import fastmcp; print(fastmcp.__version__)"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip().startswith("4."):
            return python
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(command: list[str], port: int, env: dict[str, str], cwd: Path = ROOT) -> Iterator[int]:
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command[:3]} exited with {process.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _importable(tree: Path, shim: Path) -> tuple[str, Path]:
    """How to run the toolbay of an older checkout: (package to run, PYTHONPATH).

    Checkouts from before the package was named ``toolbay`` import ``server.*`` and run as
    ``python -m server``. Later ones import ``toolbay.*``, which the installed (editable)
    toolbay would answer from this checkout; so ``shim`` gets a ``toolbay`` folder of links to
    the old ``server/`` entries, with ``handlers`` linked in as ``toolbay.handlers``, and comes
    first on the path."""
    if "from toolbay" not in (tree / "server" / "__main__.py").read_text(encoding="utf-8"):
        return "server", tree
    package = shim / "toolbay"
    package.mkdir(parents=True)
    for entry in (tree / "server").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "handlers").symlink_to(tree / "handlers")
    return "toolbay", shim


class Servers:
    """How to start each server, on stdio or on HTTP."""

    def __init__(self, base: Path, python: str, tool_file: Path = ECHO_WASM, old_tree: Path | None = None) -> None:
        """``tool_file``: the file toolbay serves ``echo`` from (a ``.wasm`` or a ``.py``).
        ``old_tree``: the other server is that older toolbay checkout instead of FastMCP."""
        extensions = base / "extensions"
        extensions.mkdir()
        shutil.copy(tool_file, extensions / tool_file.name)
        script = base / "fastmcp_echo.py"
        script.write_text(FASTMCP_SERVER)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "FASTMCP_LOG_LEVEL": "WARNING"}
        data = base / "data"
        self.commands = {
            "toolbay": [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions),
                        "--data-dir", str(data)],
        }
        self.cwds = {"toolbay": ROOT}
        self.envs = {"toolbay": self.env}
        if old_tree is None:
            self.other = "fastmcp"
            self.commands["fastmcp"] = [python, str(script)]
        else:
            self.other = "old toolbay"
            package, path = _importable(old_tree, base / "old-tree-imports")
            self.commands[self.other] = [sys.executable, "-m", package, "serve", "--extensions", str(extensions),
                                         "--data-dir", str(base / "old-data")]
            self.cwds[self.other] = old_tree
            self.envs[self.other] = {**os.environ, "PYTHONPATH": str(path)}
            subprocess.run([sys.executable, "-m", package, "list", "--extensions", str(extensions), "--data-dir",
                            str(base / "old-data")], cwd=old_tree, env=self.envs[self.other], check=True,
                           capture_output=True)
        self.names = ("toolbay", self.other)
        # Describe the tool once, compiled by the optimising compiler, so that no run pays the
        # cold start nor the background recompiling a new server does (a server that has
        # run a while has its tools' optimised code in the compiled cache).
        subprocess.run([sys.executable, "-m", "toolbay", "list", "--extensions", str(extensions), "--data-dir",
                        str(data)], cwd=ROOT, env={**self.env, "TOOLBAY_DISCOVERY__QUICK_COMPILE": "false"},
                       check=True, capture_output=True)

    def cwd(self, name: str) -> Path:
        return self.cwds.get(name, ROOT)

    def env_of(self, name: str) -> dict[str, str]:
        return self.envs.get(name, self.env)

    def stdio_command(self, name: str) -> list[str]:
        return self.commands[name] + (["stdio"] if name == "fastmcp" else ["--transport", "stdio"])

    def http_command(self, name: str, port: int) -> list[str]:
        if name == "fastmcp":
            return self.commands[name] + ["http", str(port)]
        return self.commands[name] + ["--transport", "http", "--port", str(port)]


Measure = Callable[[str], Load]


def stdio_measure(servers: Servers, seconds: float, in_flight: int) -> Measure:
    return lambda name: stdio_load(servers.stdio_command(name), cwd=servers.cwd(name), env=servers.env_of(name),
                                   tool="echo", text=MESSAGE, seconds=seconds, in_flight=in_flight)


def http_measure(servers: Servers, seconds: float, connections: int) -> Measure:
    def measure(name: str) -> Load:
        port = free_port()
        with http_server(servers.http_command(name, port), port, servers.env_of(name), servers.cwd(name)) as pid:
            return asyncio.run(http_load("127.0.0.1", port, pid, tool="echo", text=MESSAGE, seconds=seconds,
                                         connections=connections))

    return measure


def compare(label: str, measure: Measure, rounds: int, names: tuple[str, str] = ("toolbay", "fastmcp"),
            goal: float | None = GOAL, lowest_goal: float | None = LOWEST_ROUND_GOAL) -> tuple[float, float]:
    """Alternates the two servers ``rounds`` times; prints every round's ratio, the lowest and the
    ratio of medians, judged against the goals unless ``goal`` is None; returns (ratio of
    medians, lowest round's ratio)."""
    goals = goal is not None
    ours_name, other_name = names
    loads: dict[str, list[Load]] = {ours_name: [], other_name: []}
    for _ in range(rounds):
        for name in loads:
            load = measure(name)
            if load.wrong:
                raise RuntimeError(f"{name}, {label}: {load.wrong} of {load.calls} answers were wrong")
            loads[name].append(load)
    ours = statistics.median(load.per_second for load in loads[ours_name])
    theirs = statistics.median(load.per_second for load in loads[other_name])
    cpu_ours = statistics.median(load.cpu_ms_per_call for load in loads[ours_name])
    cpu_theirs = statistics.median(load.cpu_ms_per_call for load in loads[other_name])
    ratio = ours / theirs
    per_round = [a.per_second / b.per_second for a, b in zip(loads[ours_name], loads[other_name], strict=True)]
    lowest = min(per_round)
    verdict = ""
    if goals:
        verdict = "  met" if ratio >= goal and lowest >= (lowest_goal or 0) else "  MISSED"
    print(f"  {label:22} {ours_name} {ours:6.0f}/s ({cpu_ours:.2f} ms CPU/call)   {other_name} {theirs:6.0f}/s "
          f"({cpu_theirs:.2f} ms CPU/call)   ratio {ratio:.2f}x, lowest round {lowest:.2f}x  "
          f"[rounds: {' '.join(f'{r:.2f}' for r in per_round)}]{verdict}")
    ours_loads = [load for load in loads[ours_name] if load.latencies]
    if ours_loads:
        p50 = statistics.median(load.latency_ms(0.5) for load in ours_loads)
        p99 = statistics.median(load.latency_ms(0.99) for load in ours_loads)
        tail = "" if not goals else ("  met" if p99 <= TAIL_GOAL * p50 else "  MISSED")
        print(f"  {'':22} {ours_name} latency: median {p50:.2f} ms, p99 {p99:.2f} ms ({p99 / p50:.2f}x the median)"
              f"{tail if label.startswith('HTTP, 8') else ''}")
    return ratio, lowest


def sdk_client_loop(servers: Servers, seconds: float) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    async def rate(target: object) -> float:
        async with Client(target, mode="legacy") as client:  # type: ignore[arg-type]
            for _ in range(20):
                await client.call_tool("echo", {"stdin": MESSAGE})
            calls, started = 0, time.perf_counter()
            while time.perf_counter() - started < seconds:
                await client.call_tool("echo", {"stdin": MESSAGE})
                calls += 1
            return calls / (time.perf_counter() - started)

    print("\nthe SDK's own client, one call at a time (client-bound; for reference)")
    for transport in ("stdio", "http"):
        rates = {}
        for name in ("toolbay", "fastmcp"):
            if transport == "stdio":
                command = servers.stdio_command(name)
                params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=servers.env)
                rates[name] = anyio.run(rate, params)
            else:
                port = free_port()
                with http_server(servers.http_command(name, port), port, servers.env):
                    rates[name] = anyio.run(rate, f"http://127.0.0.1:{port}/mcp")
        print(f"  {transport:5}  toolbay {rates['toolbay']:6.0f}/s   FastMCP {rates['fastmcp']:6.0f}/s   "
              f"ratio {rates['toolbay'] / rates['fastmcp']:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per server and round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds alternating the servers; medians are shown")
    parser.add_argument("--fastmcp-python", help="a Python with fastmcp 4 (default: this one, or "
                                                  "$BENCH_FASTMCP_PYTHON)")
    parser.add_argument("--sdk-client", action="store_true", help="also run the SDK client's loop")
    parser.add_argument("--against-tree", type=Path, help="compare with this older toolbay checkout, not FastMCP")
    parser.add_argument("--only", choices=("stdio", "http"), help="measure the lines of one transport only")
    args = parser.parse_args()

    if args.against_tree is not None:
        python = sys.executable
        print(f"echo calls per second, this toolbay vs the one in {args.against_tree}: medians of {args.rounds} "
              f"alternating rounds of {args.seconds:g} s")
    else:
        found = fastmcp_python(args.fastmcp_python)
        if found is None:
            print("FastMCP 4 not found: pass --fastmcp-python or set BENCH_FASTMCP_PYTHON (see the docstring)")
            return 2
        python = found
        version = subprocess.run([python, "-c", "import fastmcp; print(fastmcp.__version__)"],
                                 capture_output=True, text=True).stdout.strip()
        print(f"echo calls per second, toolbay vs FastMCP {version}: medians of {args.rounds} alternating rounds "
              f"of {args.seconds:g} s (goals: >= {GOAL}x at the median, >= {LOWEST_ROUND_GOAL}x in the lowest "
              f"round; p99 <= {TAIL_GOAL}x the median latency at 8 HTTP connections)")
    met = True
    goals = args.against_tree is None
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-calls-") as temp:
        servers = Servers(Path(temp), python, old_tree=args.against_tree)
        for in_flight in (1, 8) if args.only != "http" else ():
            ratio, lowest = compare(f"stdio, {in_flight} in flight", stdio_measure(servers, args.seconds, in_flight),
                                    args.rounds, servers.names, GOAL if goals else None)
            met = met and ratio >= GOAL and lowest >= LOWEST_ROUND_GOAL
        for connections in (1, 8) if args.only != "stdio" else ():
            ratio, lowest = compare(f"HTTP, {connections} connection{'s' if connections > 1 else ''}",
                                    http_measure(servers, args.seconds, connections), args.rounds, servers.names,
                                    GOAL if goals else None)
            met = met and ratio >= GOAL and lowest >= LOWEST_ROUND_GOAL
        if args.sdk_client and goals:
            sdk_client_loop(servers, args.seconds)
    return 0 if met or not goals else 1


if __name__ == "__main__":
    sys.exit(main())
