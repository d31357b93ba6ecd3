"""Echo-style tool calls per second: toolbay vs a FastMCP 4 server, in the same run.

    python bench/bench_calls.py [--seconds S] [--fastmcp-python PATH]

Both servers expose an ``echo`` tool that returns its ``stdin`` argument: toolbay runs the
fixture ``tests/fixtures/wasm/echo.wasm`` (a WASI C program that copies standard input)
in its sandbox, through the whole call chain; FastMCP runs a Python function. The same SDK
client loop (``mcp.Client``, handshake era as Claude Code speaks it) calls each one, one
call at a time, over stdio and over streamable HTTP. Goal: toolbay >= 1.5x FastMCP's calls/s.

FastMCP is looked for in this interpreter, then in ``--fastmcp-python`` (or the environment
variable TOOLBAY_FASTMCP_PYTHON): a Python with ``fastmcp`` 4 installed, e.g. a venv made by
``python -m venv /tmp/fastmcp-venv && /tmp/fastmcp-venv/bin/pip install fastmcp``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
ECHO_WASM = ROOT / "tests" / "fixtures" / "wasm" / "echo.wasm"
MESSAGE = "hello from the benchmark"

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
    candidates = [sys.executable, given or os.environ.get("TOOLBAY_FASTMCP_PYTHON")]
    for python in candidates:
        if not python:
            continue
        probe = subprocess.run(
            [python, "-c", "import fastmcp; print(fastmcp.__version__)"], capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip().startswith("4."):
            return python
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    with anyio.fail_after(timeout):
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}")
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
                continue
            await stream.aclose()
            return


@asynccontextmanager
async def http_server(command: list[str], port: int, env: dict[str, str]) -> AsyncIterator[str]:
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def calls_per_second(target: Any, seconds: float, concurrency: int = 1) -> tuple[float, int]:
    """The same loop for every server: connect, warm up, then ``concurrency`` loops of
    sequential calls on one session for ``seconds`` (concurrent requests on one session are
    what a client making parallel tool calls sends)."""
    async with Client(target, mode="legacy") as client:
        for _ in range(20):
            result = await client.call_tool("echo", {"stdin": MESSAGE})
        text = result.content[0].text  # type: ignore[union-attr]
        if result.is_error or MESSAGE not in text:
            raise RuntimeError(f"echo answered {text!r}")
        calls = 0
        started = time.perf_counter()
        deadline = started + seconds

        async def loop() -> None:
            nonlocal calls
            while time.perf_counter() < deadline:
                await client.call_tool("echo", {"stdin": MESSAGE})
                calls += 1

        async with anyio.create_task_group() as group:
            for _ in range(concurrency):
                group.start_soon(loop)
        return calls / (time.perf_counter() - started), calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring time per server and transport")
    parser.add_argument("--concurrency", type=int, default=1, help="calls in flight at once on the session")
    parser.add_argument("--fastmcp-python",
                        help="a Python with fastmcp 4 (default: this one, or $TOOLBAY_FASTMCP_PYTHON)")
    args = parser.parse_args()

    python = fastmcp_python(args.fastmcp_python)
    if python is None:
        print("FastMCP 4 not found: pass --fastmcp-python or set TOOLBAY_FASTMCP_PYTHON (see the docstring)")
        return 2

    with tempfile.TemporaryDirectory(prefix="toolbay-bench-calls-") as temp:
        base = Path(temp)
        extensions = base / "extensions"
        extensions.mkdir()
        shutil.copy(ECHO_WASM, extensions / "echo.wasm")
        fastmcp_script = base / "fastmcp_echo.py"
        fastmcp_script.write_text(FASTMCP_SERVER)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "FASTMCP_LOG_LEVEL": "WARNING"}
        toolbay = [sys.executable, "-m", "server", "serve", "--extensions", str(extensions),
                   "--data-dir", str(base / "data")]
        subprocess.run([sys.executable, "-m", "server", "list", "--extensions", str(extensions),
                        "--data-dir", str(base / "data")], cwd=ROOT, env=env, check=True, capture_output=True)

        def stdio(command: list[str]) -> StdioServerParameters:
            return StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)

        async def run_all() -> dict[str, float]:
            rates: dict[str, float] = {}
            rates["toolbay stdio"], _ = await calls_per_second(stdio(toolbay), args.seconds, args.concurrency)
            rates["fastmcp stdio"], _ = await calls_per_second(
                stdio([python, str(fastmcp_script), "stdio"]), args.seconds, args.concurrency)
            port = free_port()
            async with http_server([*toolbay, "--transport", "http", "--port", str(port)], port, env) as url:
                rates["toolbay http"], _ = await calls_per_second(url, args.seconds, args.concurrency)
            port = free_port()
            async with http_server([python, str(fastmcp_script), "http", str(port)], port, env) as url:
                rates["fastmcp http"], _ = await calls_per_second(url, args.seconds, args.concurrency)
            return rates

        rates = anyio.run(run_all)

    version = subprocess.run([python, "-c", "import fastmcp; print(fastmcp.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    print(f"echo calls per second, {args.concurrency} in flight, {args.seconds:g} s each (FastMCP {version})")
    failed = False
    for transport in ("stdio", "http"):
        ours, theirs = rates[f"toolbay {transport}"], rates[f"fastmcp {transport}"]
        ratio = ours / theirs
        met = ratio >= 1.5
        failed = failed or not met
        print(f"  {transport:5}  toolbay {ours:7.0f}/s   FastMCP {theirs:7.0f}/s   "
              f"ratio {ratio:.2f}x (goal >= 1.5x): {'met' if met else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
