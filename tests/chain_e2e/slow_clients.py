"""A slowloris attacker, run as its own process by test_slow_clients.py (so that its work does
not share the server's event loop): ``python slow_clients.py HOST PORT COUNT SOURCES SECONDS``.

Opens COUNT connections spread over SOURCES loopback source addresses (127.0.0.10, .11, ...),
each sending a request line and then one header line every half second, never finishing;
a connection the server closes is opened again two seconds later, until SECONDS have passed.
Prints one JSON line: connections opened, closed by the server, the longest time the server
held one, and how many were still open at the end.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

DRIP_S = 0.5
REOPEN_AFTER_S = 2.0


async def slow_clients(host: str, port: int, source: str, until: float, stats: dict[str, float]) -> None:
    """One attacker's slot: a slow connection, opened again a while after the server closes it."""
    while time.monotonic() < until:
        await slow_client(host, port, source, until, stats)
        await asyncio.sleep(REOPEN_AFTER_S)


async def slow_client(host: str, port: int, source: str, until: float, stats: dict[str, float]) -> None:
    try:
        reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    except OSError:
        stats["refused"] += 1
        return
    opened = time.monotonic()
    stats["opened"] += 1
    outcome = "held_to_end"
    try:
        writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        while time.monotonic() < until:
            await writer.drain()
            try:
                data = await asyncio.wait_for(reader.read(1024), DRIP_S)
            except TimeoutError:
                writer.write(b"X-Slow: yes\r\n")
                continue
            if not data:
                outcome = "closed_by_server"
                break
    except OSError:
        outcome = "closed_by_server"
    finally:
        writer.close()
    stats[outcome] += 1
    stats["longest_held_s"] = max(stats["longest_held_s"], time.monotonic() - opened)


async def main(host: str, port: int, count: int, sources: int, seconds: float) -> None:
    stats = {"opened": 0.0, "refused": 0.0, "closed_by_server": 0.0, "longest_held_s": 0.0, "held_to_end": 0.0}
    until = time.monotonic() + seconds
    await asyncio.gather(*(slow_clients(host, port, f"127.0.0.{10 + i % sources}", until, stats) for i in range(count)))
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])))
