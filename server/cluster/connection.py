"""Opening the cluster's Redis: one client per replica, checked once at start.

A URL that is not Redis's, or a Redis that does not answer, stops the server at start
with one line (``ConfigError``: the CLI prints it and exits 2). After start, Redis
errors never stop the server: each user of the client decides what an outage means
(the rate limiter fails open or closed, job reads answer "unavailable", notices wait).
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import AuthenticationError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from toolbay.errors import ConfigError

# Short: a request waits on Redis at most this long before the outage policy applies.
CONNECT_TIMEOUT_S = 2.0
COMMAND_TIMEOUT_S = 5.0
# Connections one replica opens at most; more commands at once wait for one (a burst of jobs
# ending together must queue, not fail with "too many connections").
MAX_CONNECTIONS = 64
# A command that finds its pooled connection closed (Redis restarted, or a proxy dropped it)
# is sent again on a new one, a few times with a short pause: without this, every connection
# the pool held before a restart fails one caller's command with "Connection closed by
# server", long after Redis is back. Only closed connections, never timeouts: a command that
# timed out may have run, and a slow Redis must not be asked twice. Nor a refused login (redis-py
# counts it a connection error too): the same password is refused again, and `serve` said a
# missing one only after 3.5 s of asking again (each attempt's connection retried in turn).
RECONNECT_ATTEMPTS = 3


def _worth_another_connection(error: Exception) -> bool:
    return not isinstance(error, AuthenticationError)


def pool_for(url: str, **options: object) -> aioredis.BlockingConnectionPool:
    """A connection pool for ``url`` with the cluster's timeouts and reconnection; ``options``
    override them. Raises ``ValueError`` for a malformed URL."""
    settings: dict[str, object] = {
        "max_connections": MAX_CONNECTIONS, "timeout": COMMAND_TIMEOUT_S,
        "socket_connect_timeout": CONNECT_TIMEOUT_S, "socket_timeout": COMMAND_TIMEOUT_S,
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), RECONNECT_ATTEMPTS,
                       supported_errors=(RedisConnectionError,), is_retryable=_worth_another_connection),
        **options,
    }
    return aioredis.BlockingConnectionPool.from_url(url, **settings)


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
        pool = pool_for(url, health_check_interval=10)
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
        hint = ""
        if _asks_for_a_password(str(exc)) and "@" not in url:
            hint = " (it asks for a password: give it in the URL, redis://:PASSWORD@HOST:PORT/DB)"
        elif url.startswith("rediss://") and isinstance(exc, TimeoutError | RedisTimeoutError | ssl.SSLError):
            # A plain Redis takes the TLS greeting for a command and waits for the rest: the
            # client saw only a timeout, and nothing said TLS was the question.
            hint = " (rediss:// speaks TLS: if this Redis does not, write redis://)"
        elif url.startswith("redis://") and isinstance(exc, RedisConnectionError) and any(
                words in str(exc) for words in ("reset by peer", "closed by server")):
            # A Redis that speaks only TLS drops a plain greeting unanswered.
            hint = " (if this Redis speaks only TLS, write rediss://)"
        raise ConfigError(f"[cluster] redis: cannot reach {shown(url)}: {exc}{hint}") from None
    return client


def _asks_for_a_password(said: str) -> bool:
    """Redis's words for a client that did not authenticate (they differ by version and by how
    the client greets it: HELLO, or a plain command)."""
    return any(words in said for words in ("NOAUTH", "Authentication required", "must be called with the client "
                                           "already authenticated"))


class Subscription(PubSub):
    """A pub/sub connection that says when it was made again. The pool's retry reconnects a
    listener whose connection Redis closed and subscribes it again, without a word to the
    caller; what was published in between is lost, so the listener must look again at what it
    waits for: ``on_reconnect`` is called after each reconnection."""

    def __init__(self, client: aioredis.Redis, on_reconnect: Callable[[], Awaitable[object]]) -> None:
        super().__init__(client.connection_pool)
        self._on_reconnect = on_reconnect

    async def on_connect(self, connection: Connection) -> None:
        await super().on_connect(connection)
        await self._on_reconnect()
