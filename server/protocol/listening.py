"""The HTTP transports' listening socket, bound before anything else is done.

``serve`` binds it before the tools are described (seconds on a first start), so that a port
already taken or a name that does not resolve stops the server at once, with nothing done
for nothing; the socket bound is the one served, so no other process can take the port
between the check and the serving. Light on purpose: no MCP SDK, no web framework.
"""

from __future__ import annotations

import socket

from toolbay.errors import ConfigError


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (not yet listening); ``ConfigError`` naming
    both when that cannot be done."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say TCP,
    # and without it every streamed response on a kept-alive connection stalls ~40 ms on the
    # client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:  # gaierror included: a name that does not resolve
        sock.close()
        raise ConfigError(f"cannot listen on host {host!r}, port {port}: {exc.strerror or exc}") from None
    return sock
