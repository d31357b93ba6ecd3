"""Lightweight MCP load generators for the benchmarks: raw JSON-RPC over a server's stdio
pipes, and raw HTTP/1.1 keep-alive connections to a streamable HTTP endpoint.

They cost the client a few microseconds per call, so what they measure is the server (the
SDK's Python client spends about a millisecond per call, more than either server here). Every
answer is checked: it must carry the echoed text and no error. The server's processor time
(user + system, all its threads) is read from /proc before and after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

PROTOCOL = "2025-06-18"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                         "clientInfo": {"name": "toolbay-bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@dataclass(frozen=True)
class Load:
    calls: int
    seconds: float
    server_cpu_s: float
    wrong: int  # answers without the echoed text, or with an error
    # Seconds from sending each call to reading its answer (HTTP only).
    latencies: tuple[float, ...] = ()

    def latency_ms(self, quantile: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))] * 1000 if ordered else float("nan")

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds

    @property
    def cpu_ms_per_call(self) -> float:
        return self.server_cpu_s / max(self.calls, 1) * 1000


def process_cpu_s(pid: int) -> float:
    """User + system time of a process, all its threads and its live child processes (a
    server's tool workers), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    for child in _children(pid):
        with contextlib.suppress(OSError):  # ended meanwhile
            total += process_cpu_s(child)
    return total


def _children(pid: int) -> list[int]:
    children: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                children += [int(word) for word in listing.read().split()]
    return children


def _call(number: int, tool: str, text: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                       "params": {"name": tool, "arguments": {"stdin": text}}}).encode()


def stdio_load(command: Sequence[str], *, cwd: Path, env: dict[str, str], tool: str, text: str,
               seconds: float, in_flight: int, warmup: int = 50) -> Load:
    """Starts ``command`` as an MCP server on pipes and keeps ``in_flight`` calls pipelined."""
    server = subprocess.Popen(list(command), cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, bufsize=0)
    assert server.stdin is not None and server.stdout is not None
    wire_in, wire_out = server.stdin, server.stdout
    try:
        wire_in.write(json.dumps(INITIALIZE).encode() + b"\n")
        answer = wire_out.readline()
        while answer and not answer.startswith(b"{"):  # a wrapper's banner (a profiler's) before the server
            answer = wire_out.readline()
        if b'"result"' not in answer:
            raise RuntimeError("the server did not answer initialize")
        wire_in.write(json.dumps(INITIALIZED).encode() + b"\n")
        expected = text.encode()
        for number in range(1, warmup + 1):
            wire_in.write(_call(number, tool, text) + b"\n")
            if expected not in wire_out.readline():
                raise RuntimeError(f"{tool} did not echo during warm-up")
        number = warmup
        calls = wrong = 0
        cpu_before = process_cpu_s(server.pid)
        started = time.perf_counter()
        deadline = started + seconds
        pending = 0
        for _ in range(in_flight):
            number += 1
            wire_in.write(_call(number, tool, text) + b"\n")
            pending += 1
        while pending:
            line = wire_out.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if b'"id"' not in line:
                continue  # a notification
            pending -= 1
            calls += 1
            if expected not in line or b'"isError":true' in line or b'"error"' in line:
                wrong += 1
            if time.perf_counter() < deadline:
                number += 1
                wire_in.write(_call(number, tool, text) + b"\n")
                pending += 1
        elapsed = time.perf_counter() - started
        cpu = process_cpu_s(server.pid) - cpu_before
        return Load(calls=calls, seconds=elapsed, server_cpu_s=cpu, wrong=wrong)
    finally:
        wire_in.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# -- HTTP -------------------------------------------------------------------------------


def _post(host: str, port: int, body: bytes, session: str | None) -> bytes:
    head = ["POST /mcp HTTP/1.1", f"Host: {host}:{port}", "Content-Type: application/json",
            "Accept: application/json, text/event-stream", f"MCP-Protocol-Version: {PROTOCOL}",
            f"Content-Length: {len(body)}"]
    if session:
        head.append(f"Mcp-Session-Id: {session}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def _response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response: a JSON body (Content-Length) or an SSE stream (chunked)."""
    lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        return status, headers, await reader.readexactly(int(headers["content-length"]))
    chunks = []
    if headers.get("transfer-encoding") == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    return status, headers, b"".join(chunks)


def http_caller(host: str, port: int, session: str | None, *, tool: str, text: str,
                counts: dict[str, int], wrong: list[str] | None = None,
                latencies: list[float] | None = None) -> Callable[[float], Awaitable[None]]:
    """One keep-alive connection calling ``tool`` one call at a time until a time, counting
    ``calls`` and ``wrong`` answers in ``counts`` (the first few kept in ``wrong``, if given)
    and each call's seconds in ``latencies`` (if given). ``session`` None: stateless requests."""
    expected = text.encode()
    numbers = iter(range(1, 1 << 62))

    async def connection(until: float) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while (sent := time.perf_counter()) < until:
                writer.write(_post(host, port, _call(next(numbers), tool, text), session))
                status, _, body = await _response(reader)
                if latencies is not None:
                    latencies.append(time.perf_counter() - sent)
                counts["calls"] += 1
                if status != 200 or expected not in body or b'"isError":true' in body:
                    counts["wrong"] += 1
                    if wrong is not None and len(wrong) < 5:
                        wrong.append(f"{status} {body[:300]!r}")
        finally:
            writer.close()

    return connection


async def http_load(host: str, port: int, server_pid: int, *, tool: str, text: str, seconds: float,
                    connections: int, warmup_s: float = 1.0) -> Load:
    """``connections`` keep-alive connections on one MCP session, each one call at a time (a
    stateless server, e.g. under ``[cluster]``, gives no session id: then none is sent)."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(_post(host, port, json.dumps(INITIALIZE).encode(), None))
    status, headers, _ = await _response(reader)
    session = headers.get("mcp-session-id")
    if status != 200:
        raise RuntimeError(f"initialize answered {status}")
    writer.write(_post(host, port, json.dumps(INITIALIZED).encode(), session))
    await _response(reader)
    writer.close()
    counts = {"calls": 0, "wrong": 0}
    latencies: list[float] = []
    connection = http_caller(host, port, session, tool=tool, text=text, counts=counts, latencies=latencies)
    await asyncio.gather(*(connection(time.perf_counter() + warmup_s) for _ in range(connections)))
    counts.update(calls=0, wrong=0)
    latencies.clear()
    cpu_before = process_cpu_s(server_pid)
    started = time.perf_counter()
    await asyncio.gather(*(connection(started + seconds) for _ in range(connections)))
    elapsed = time.perf_counter() - started
    return Load(calls=counts["calls"], seconds=elapsed, server_cpu_s=process_cpu_s(server_pid) - cpu_before,
                wrong=counts["wrong"], latencies=tuple(latencies))
