"""Where HTTP may listen, and what that decides: one rule, ``is_loopback``, says whether an
address is this machine only. It decides both that no authentication is needed there and that
Host/Origin must then be checked (DNS rebinding: a web page whose name resolves to 127.0.0.1
could otherwise call tools through the visitor's browser)."""

from __future__ import annotations

import ipaddress
import socket

from toolbay.errors import ConfigError

# Names that mean this machine even where the hosts file does not list them.
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def _is_loopback_ip(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # Python 3.11 does not count IPv4-mapped 127.x (::ffff:127.0.0.1) as loopback; it is.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def bare_host(host: str) -> str:
    """The host as the socket layer takes it: no brackets, no trailing dot, lower case."""
    return host.strip().strip("[]").rstrip(".").lower()


def is_loopback(host: str) -> bool:
    """True when ``host`` is only reachable from this machine: all of 127.0.0.0/8, ::1,
    IPv4-mapped loopback, the usual loopback names, and any name that resolves only to those
    (as binding it would)."""
    name = bare_host(host)
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return _is_loopback_ip(ipaddress.ip_address(name))
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    addresses = {ipaddress.ip_address(str(entry[4][0]).split("%")[0]) for entry in found}
    return bool(addresses) and all(_is_loopback_ip(address) for address in addresses)


def host_header_spelling(host: str) -> str:
    """``host`` as a client writes it in a Host header or an Origin (IPv6 in brackets)."""
    name = bare_host(host)
    return f"[{name}]" if ":" in name else name


def check_bind_safety(host: str, auth_configured: bool, allow_insecure: bool) -> None:
    """Raises ``ConfigError`` when HTTP would listen beyond loopback with nobody checked.

    ``0.0.0.0``, ``::``, a LAN address or a host name all count as reachable by others.
    Called with the setting before binding and with the address actually bound after.
    """
    if auth_configured or allow_insecure or is_loopback(host):
        return
    raise ConfigError(
        f"refusing to serve HTTP on {host}, which other machines can reach, without authentication: "
        "configure a tokens file or JWT verification under [chain.auth], bind to 127.0.0.1, "
        "or pass --insecure-no-auth ([http] allow_insecure = true) if anyone on the network "
        "may really call every tool"
    )
