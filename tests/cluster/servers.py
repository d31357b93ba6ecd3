"""Real servers for the cluster tests: ``redis-server`` and ``haproxy`` from the system, each
on a free loopback port in a temporary folder, ready when it says so (its own log line), never
after a sleep."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def need(program: str) -> str:
    """The program's path; a missing one skips the test, or fails it under CI (``.ci/run`` installs it)."""
    path = shutil.which(program) or next(
        (str(p) for p in (Path("/usr/sbin") / program, Path("/usr/bin") / program) if p.exists()), None)
    if path is None:
        message = f"{program} is not installed (apt-get install {'redis-server' if 'redis' in program else program})"
        if in_ci():
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_line(process: subprocess.Popen[str], marker: str, what: str) -> list[str]:
    """Reads the process's output until ``marker`` appears (the server's own readiness line)."""
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if marker in line:
            return seen
    raise RuntimeError(f"{what} exited before it was ready:\n" + "".join(seen[-20:]))


class RedisServer:
    """``redis-server`` on a free loopback port; ``stop``/``start`` for outages. ``persistent``:
    with an append-only file, as deploy/ runs it, so a restart keeps what was written."""

    def __init__(self, folder: Path, *, persistent: bool = False, tls_only: bool = False) -> None:
        self.binary = need("redis-server")
        self.folder = folder
        self.persistent = persistent
        self.tls_only = tls_only  # TLS on its port, with a certificate of its own, and no plain port
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None
        self.drain: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        ports = ["--port", str(self.port)]
        if self.tls_only:
            cert, key = self.folder / "cert.pem", self.folder / "key.pem"
            subprocess.run([need("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                            "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
                           check=True, capture_output=True)
            ports = ["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", str(cert),
                     "--tls-key-file", str(key), "--tls-auth-clients", "no"]
        self.process = subprocess.Popen(
            [self.binary, *ports, "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--save", "", "--appendonly", "yes" if self.persistent else "no", "--appendfsync", "everysec",
             "--daemonize", "no", "--loglevel", "notice"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wait_for_line(self.process, "Ready to accept connections", "redis-server")
        self.drain = subprocess_drain(self.process)

    def stop(self, *, graceful: bool = False) -> None:
        """Killed (an outage), or ``graceful``: SIGTERM, on which Redis writes its file and exits."""
        if graceful and self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)  # its own shutdown: the file is written before it exits
        end(self.process, self.drain)
        self.process, self.drain = None, None


def subprocess_drain(process: subprocess.Popen[str]) -> threading.Thread:
    """Reads the process's output to its end (so it never blocks on a full pipe), then closes it."""

    def drain() -> None:
        assert process.stdout is not None
        with process.stdout:
            for _ in process.stdout:
                pass

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread


def end(process: subprocess.Popen[str] | None, drain: threading.Thread | None) -> None:
    if process is None:
        return
    if process.poll() is None:
        process.kill()
    process.wait()
    if drain is not None:
        drain.join()


class Haproxy:
    """haproxy round-robin over ``backends`` (ports), HTTP mode, on a free loopback port."""

    def __init__(self, folder: Path, backends: list[int]) -> None:
        self.binary = need("haproxy")
        self.folder = folder
        self.port = free_port()
        self.backends = backends
        self.process: subprocess.Popen[str] | None = None
        self.drain: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        # The listening socket is made here and handed to haproxy (``bind fd@N``): connections
        # queue on it from this moment, so haproxy is ready by construction, no waiting.
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1024)
        self.port = int(listener.getsockname()[1])
        config = self.folder / "haproxy.cfg"
        config.write_text(haproxy_config(f"fd@{listener.fileno()}", [f"127.0.0.1:{p}" for p in self.backends]))
        check = subprocess.run([self.binary, "-c", "-f", str(config)], capture_output=True, text=True,
                               pass_fds=(listener.fileno(),))
        assert check.returncode == 0, check.stdout + check.stderr
        self.process = subprocess.Popen([self.binary, "-db", "-f", str(config)], pass_fds=(listener.fileno(),),
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        listener.close()
        self.drain = subprocess_drain(self.process)

    def stop(self) -> None:
        end(self.process, self.drain)
        self.process, self.drain = None, None


def haproxy_config(bind: str, servers: list[str]) -> str:
    """Plain round-robin over the replicas, as deploy/haproxy.cfg (no stickiness: any request may
    land on any replica)."""
    lines = [f"    server r{i} {address} check inter 1s fall 2 rise 1" for i, address in enumerate(servers, 1)]
    return "\n".join([
        "global", "    maxconn 4096",
        "defaults", "    mode http", "    timeout connect 5s", "    timeout client 600s",
        "    timeout server 600s",
        "frontend mcp", f"    bind {bind}", "    default_backend toolbay",
        # A replica that has died: a refused connection goes to another (it never reached a
        # replica, so it is safe to retry), and the health check takes it out of the rotation.
        # A request closed unanswered is not retried (a replica that died while running a call
        # had run it in part); each request has a connection of its own, so none is sent down a
        # kept connection to a replica that has died since. haproxy retries only a request it
        # holds whole (http-buffer-request); else it closes the client's connection unanswered.
        "backend toolbay", "    balance roundrobin", "    option httpchk GET /healthz",
        "    retries 3", "    option redispatch 1", "    retry-on conn-failure", "    option http-server-close",
        "    option http-buffer-request", *lines, "",
    ])
