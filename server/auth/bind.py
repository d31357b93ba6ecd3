"""Refuse to serve HTTP to the network with no authentication, unless told it is on purpose."""

from __future__ import annotations

import ipaddress

from toolbay.errors import ConfigError

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind_safety(host: str, auth_configured: bool, allow_insecure: bool) -> None:
    """Raises ``ConfigError`` when HTTP would listen beyond loopback with nobody checked.

    ``0.0.0.0``, ``::``, a LAN address or a host name all count as reachable by others.
    """
    if auth_configured or allow_insecure or is_loopback(host):
        return
    raise ConfigError(
        f"refusing to serve HTTP on {host}, which other machines can reach, without authentication: "
        "configure a tokens file or JWT verification under [chain.auth], bind to 127.0.0.1, "
        "or pass --insecure-no-auth ([http] allow_insecure = true) if anyone on the network "
        "may really call every tool"
    )
