"""Echo-style tool calls per second: toolbay vs a FastMCP 4 server, in the same run.

    python bench/bench_calls.py [--seconds S] [--rounds R] [--fastmcp-python PATH] [--sdk-client]

Both servers expose an ``echo`` tool that returns its ``stdin`` argument: toolbay runs the
fixture ``tests/fixtures/wasm/echo.wasm`` (a WASI C program that copies standard input) in
its sandbox, through the whole call chain; FastMCP runs a Python function.

The goal (toolbay >= 1.5x FastMCP's calls per second) is judged on what the *server* can
serve, so the load comes from ``bench/load.py``: raw JSON-RPC pipelined over the server's
stdio pipes (1 and 8 calls in flight), and raw HTTP/1.1 keep-alive connections on one
session (1 and 8 connections, one call at a time each). Every answer is checked. Each figure
is the median of ``--rounds`` rounds that alternate the two servers, so both see the same
machine; the servers' own processor time per call is shown too.

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
GOAL = 1.5

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
def http_server(command: list[str], port: int, env: dict[str, str]) -> Iterator[int]:
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


class Servers:
    """How to start each server, on stdio or on HTTP."""

    def __init__(self, base: Path, python: str, tool_file: Path = ECHO_WASM) -> None:
        """``tool_file``: the file toolbay serves ``echo`` from (a ``.wasm`` or a ``.py``)."""
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
            "fastmcp": [python, str(script)],
        }
        # Describe the tool once, so that no run pays the cold start.
        subprocess.run([sys.executable, "-m", "toolbay", "list", "--extensions", str(extensions), "--data-dir",
                        str(data)], cwd=ROOT, env=self.env, check=True, capture_output=True)

    def stdio_command(self, name: str) -> list[str]:
        return self.commands[name] + (["stdio"] if name == "fastmcp" else ["--transport", "stdio"])

    def http_command(self, name: str, port: int) -> list[str]:
        if name == "fastmcp":
            return self.commands[name] + ["http", str(port)]
        return self.commands[name] + ["--transport", "http", "--port", str(port)]


Measure = Callable[[str], Load]


def stdio_measure(servers: Servers, seconds: float, in_flight: int) -> Measure:
    return lambda name: stdio_load(servers.stdio_command(name), cwd=ROOT, env=servers.env, tool="echo",
                                   text=MESSAGE, seconds=seconds, in_flight=in_flight)


def http_measure(servers: Servers, seconds: float, connections: int) -> Measure:
    def measure(name: str) -> Load:
        port = free_port()
        with http_server(servers.http_command(name, port), port, servers.env) as pid:
            return asyncio.run(http_load("127.0.0.1", port, pid, tool="echo", text=MESSAGE, seconds=seconds,
                                         connections=connections))

    return measure


def compare(label: str, measure: Measure, rounds: int, goal: float = GOAL) -> float:
    """Alternates the servers ``rounds`` times; prints medians; returns the ratio of medians."""
    loads: dict[str, list[Load]] = {"toolbay": [], "fastmcp": []}
    for _ in range(rounds):
        for name in loads:
            load = measure(name)
            if load.wrong:
                raise RuntimeError(f"{name}, {label}: {load.wrong} of {load.calls} answers were wrong")
            loads[name].append(load)
    ours = statistics.median(load.per_second for load in loads["toolbay"])
    theirs = statistics.median(load.per_second for load in loads["fastmcp"])
    cpu_ours = statistics.median(load.cpu_ms_per_call for load in loads["toolbay"])
    cpu_theirs = statistics.median(load.cpu_ms_per_call for load in loads["fastmcp"])
    ratio = ours / theirs
    pairs = zip(loads["toolbay"], loads["fastmcp"], strict=True)
    spread = " ".join(f"{a.per_second / b.per_second:.2f}" for a, b in pairs)
    print(f"  {label:24} toolbay {ours:6.0f}/s ({cpu_ours:.2f} ms CPU/call)   FastMCP {theirs:6.0f}/s "
          f"({cpu_theirs:.2f} ms CPU/call)   ratio {ratio:.2f}x  [rounds: {spread}]"
          f"  {'met' if ratio >= goal else 'MISSED'}")
    return ratio


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
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per server and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds alternating the servers; medians are shown")
    parser.add_argument("--fastmcp-python", help="a Python with fastmcp 4 (default: this one, or "
                                                  "$BENCH_FASTMCP_PYTHON)")
    parser.add_argument("--sdk-client", action="store_true", help="also run the SDK client's loop")
    args = parser.parse_args()

    python = fastmcp_python(args.fastmcp_python)
    if python is None:
        print("FastMCP 4 not found: pass --fastmcp-python or set BENCH_FASTMCP_PYTHON (see the docstring)")
        return 2
    version = subprocess.run([python, "-c", "import fastmcp; print(fastmcp.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    print(f"echo calls per second, toolbay vs FastMCP {version}: medians of {args.rounds} alternating rounds "
          f"of {args.seconds:g} s (goal >= {GOAL}x)")
    ratios = []
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-calls-") as temp:
        servers = Servers(Path(temp), python)
        for in_flight in (1, 8):
            ratios.append(compare(f"stdio, {in_flight} in flight", stdio_measure(servers, args.seconds, in_flight),
                                  args.rounds))
        for connections in (1, 8):
            ratios.append(compare(f"HTTP, {connections} connection{'s' if connections > 1 else ''}",
                                  http_measure(servers, args.seconds, connections), args.rounds))
        if args.sdk_client:
            sdk_client_loop(servers, args.seconds)
    return 0 if min(ratios) >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
