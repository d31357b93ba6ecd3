"""The load balancer as deploy/ configures it, when a replica dies while haproxy holds a
connection to it open: what it does with the request it sent there.

A replica killed between two requests leaves haproxy a kept connection that is already dead;
which request meets it is a race on a real replica, so the replica here is a small HTTP server
that makes it happen every time: it answers the first request of each connection and closes the
connection on the second without a word, which is what haproxy sees from a replica killed in
between (the request sent, the connection closed, nothing received)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.cluster.servers import Haproxy, subprocess_drain, wait_for_line

pytestmark = pytest.mark.slow

REPLICA = r'''
import socket, sys, threading

dies_on_kept_connections = sys.argv[1] == "dies"
notes = sys.argv[2]

def serve(connection):
    requests, pending = 0, b""
    with connection:
        while True:
            while b"\r\n\r\n" not in pending:
                data = connection.recv(65536)
                if not data:
                    return
                pending += data
            head, pending = pending.split(b"\r\n\r\n", 1)
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(pending) < length:
                pending += connection.recv(65536)
            pending = pending[length:]
            if head.startswith(b"GET /healthz"):
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                continue
            requests += 1
            if dies_on_kept_connections and requests > 1:
                with open(notes, "a") as written:  # before the close: there when haproxy answers
                    written.write("closed a kept connection unanswered\n")
                return
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nanswered")

listener = socket.create_server(("127.0.0.1", 0))
print("listening on", listener.getsockname()[1], flush=True)
while True:
    threading.Thread(target=serve, args=(listener.accept()[0],), daemon=True).start()
'''


def start_replica(script: Path, behaviour: str, notes: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([sys.executable, str(script), behaviour, str(notes)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    port = int(wait_for_line(process, "listening on", "the replica")[-1].split()[-1])
    subprocess_drain(process)
    return process, port


@pytest.fixture
def balancer_with_a_dying_replica(tmp_path: Path) -> Iterator[tuple[Haproxy, Path]]:
    """haproxy over the replica that closes kept connections and one that answers; and the file
    where the first notes each connection it closed unanswered."""
    script, notes = tmp_path / "replica.py", tmp_path / "closed.txt"
    script.write_text(REPLICA)
    notes.touch()
    replicas = [start_replica(script, behaviour, notes) for behaviour in ("dies", "answers")]
    balancer = Haproxy(tmp_path / "haproxy", [port for _, port in replicas])
    try:
        balancer.start()
        yield balancer, notes
    finally:
        balancer.stop()
        for process, _ in replicas:
            process.kill()
            process.wait()


def test_a_request_that_meets_a_dead_kept_connection_is_answered_by_another_replica(
        balancer_with_a_dying_replica: tuple[Haproxy, Path]) -> None:
    balancer, closed = balancer_with_a_dying_replica
    # Two clients that keep their connections, as the SDK's client does, each sending MCP-sized
    # POSTs: round robin sends some of the second requests down a kept connection to the replica.
    with httpx2.Client(timeout=60) as first, httpx2.Client(timeout=60) as second:
        answers = [client.post(f"{balancer.url}/mcp", json={"jsonrpc": "2.0", "id": n, "method": "tools/list"})
                   for n in range(10) for client in (first, second)]
    assert [answer.text for answer in answers] == ["answered"] * 20
    # Not by luck: haproxy did send requests to the replica on connections it had kept.
    assert "closed a kept connection unanswered" in closed.read_text()
