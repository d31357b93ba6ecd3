"""Opening the cluster's Redis: one client per replica, checked once at start.

A URL that is not Redis's, or a Redis that does not answer, stops the server at start
with one line (``ConfigError``: the CLI prints it and exits 2). After start, Redis
errors never stop the server: each user of the client decides what an outage means
(the rate limiter fails open or closed, job reads answer "unavailable", notices wait).
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from toolbay.errors import ConfigError

# Short: a request waits on Redis at most this long before the outage policy applies.
CONNECT_TIMEOUT_S = 2.0
COMMAND_TIMEOUT_S = 5.0
# Connections one replica opens at most; more commands at once wait for one (a burst of jobs
# ending together must queue, not fail with "too many connections").
MAX_CONNECTIONS = 64


def shown(url: str) -> str:
    """The URL with its password replaced, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username or ''}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def client_for(url: str) -> aioredis.Redis:
    """A client for ``url`` (not yet connected). Raises ``ConfigError`` for a malformed URL."""
    try:
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=MAX_CONNECTIONS, timeout=COMMAND_TIMEOUT_S,
            socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=COMMAND_TIMEOUT_S, health_check_interval=10)
        return aioredis.Redis.from_pool(pool)  # closing the client closes its pool
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"[cluster] redis: {shown(url)!r} is not a Redis URL ({exc})") from None


async def open_checked(url: str) -> aioredis.Redis:
    """A connected client, or ``ConfigError`` saying why Redis cannot be used."""
    client = client_for(url)
    try:
        await client.ping()
    except (RedisError, OSError, ValueError) as exc:
        await client.aclose()
        raise ConfigError(f"[cluster] redis: cannot reach {shown(url)}: {exc}") from None
    return client
