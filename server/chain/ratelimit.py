"""Stage 2, rate-limit: per caller, per caller × tool, and for everyone together.

Policy: ``RateLimiter``, on the ``limits`` library. Limits are written as ``limits``
strings (``"10/second"``, ``"1000/hour"``, several joined by ``;``). Counters live in a
``limits`` async storage chosen by URI: ``memory://`` (the default, one process) or
``redis://host:6379`` (shared by replicas; needs the ``redis`` or ``coredis`` package).
The strategy defaults to the moving window, which never lets more than the limit through
in any window (a fixed window can let twice the limit through across its edge).

Every limit is tested before any is counted, so a call refused by one limit uses up
none of the others; only calls that go on are counted. Over a limit the call is refused
with ``RateLimited``, whose ``retry_after`` (seconds, also in the result's ``_meta``) is
when the oldest counted call leaves the window.

A shared store can fail (Redis down). ``on_outage`` says what happens then: ``closed``
refuses the call with ``LimitsUnavailable`` (a tool error the model can read, with a
retry hint), ``open`` lets it through uncounted. Either way the server carries on, and a
warning is logged at most once per ``OUTAGE_LOG_S``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolbay.chain.base import CheckStage, principal_of
from toolbay.chain.call import ToolCall
from toolbay.errors import ConfigError, LimitsUnavailable, RateLimited
from toolbay.words import Principal, ToolDefinition

if TYPE_CHECKING:
    # ``limits`` is loaded once a rate limit is configured: about 0.13 s of processor time
    # that a server or command without one (the default) does not spend.
    import limits
    from limits.aio.storage import Storage
    from limits.aio.strategies import RateLimiter as LimitsStrategy

logger = logging.getLogger(__name__)

OUTAGE_LOG_S = 30.0
# What a refused caller is told to wait while the store is down (Redis reconnects in about this long).
OUTAGE_RETRY_S = 5.0
# The per-caller-per-tool key of calls naming no tool (no tool name holds parentheses).
UNKNOWN_TOOLS = "(unknown)"


def parse_limits(text: str | Sequence[str] | None, setting: str) -> tuple[limits.RateLimitItem, ...]:
    """``"10/second;1000/hour"`` (or a list of such strings) as ``limits`` items."""
    if not text:
        return ()
    import limits

    joined = text if isinstance(text, str) else ";".join(text)
    try:
        return tuple(limits.parse_many(joined))
    except ValueError as exc:
        raise ConfigError(
            f"{setting}: {joined!r} is not a rate limit; write e.g. '10/second' or '100/minute;1000/hour'"
        ) from exc


@dataclass(frozen=True, slots=True)
class RateLimits:
    per_caller: tuple[limits.RateLimitItem, ...] = ()
    per_caller_tool: tuple[limits.RateLimitItem, ...] = ()
    everyone: tuple[limits.RateLimitItem, ...] = ()

    @classmethod
    def parse(
        cls,
        per_caller: str | Sequence[str] | None = None,
        per_caller_tool: str | Sequence[str] | None = None,
        everyone: str | Sequence[str] | None = None,
    ) -> RateLimits:
        return cls(
            per_caller=parse_limits(per_caller, "chain.rate_limits.per_caller"),
            per_caller_tool=parse_limits(per_caller_tool, "chain.rate_limits.per_caller_tool"),
            everyone=parse_limits(everyone, "chain.rate_limits.global"),
        )

    def __bool__(self) -> bool:
        return bool(self.per_caller or self.per_caller_tool or self.everyone)


def _wrong_kind(error: BaseException) -> bool:
    """Whether Redis refused a command on a key holding another kind of value (its WRONGTYPE
    error; the store's errors are told apart by name, as no Redis package need be installed)."""
    return type(error).__name__ == "ResponseError" and str(error).startswith("WRONGTYPE")


def open_storage(uri: str) -> Storage:
    """An async ``limits`` storage from a URI (``memory://``, ``redis://...``)."""
    return _open_storage(uri)[0]


def _open_storage(uri: str) -> tuple[Storage, Any]:
    """The storage, and the Redis connection pool it was given (to close), if any. Redis is
    spoken through redis-py (the ``redis`` package), with short timeouts so an outage is
    noticed at once rather than holding calls."""
    from limits.aio.storage import Storage
    from limits.errors import ConfigurationError
    from limits.storage import storage_from_string

    full = uri if uri.startswith("async+") else "async+" + uri
    options: dict[str, Any] = {}
    pool = None
    if full.startswith(("async+redis://", "async+rediss://", "async+unix://")):
        from toolbay.cluster.connection import pool_for  # only when a Redis store is named

        try:
            # Blocking: a burst of calls waits for a free connection rather than failing; a
            # connection Redis closed (a restart) is replaced, not failed on.
            pool = pool_for(full.removeprefix("async+"))
        except ValueError as exc:
            raise ConfigError(f"chain.rate_limits.storage: {uri!r} cannot be used: {exc}") from exc
        options = {"implementation": "redispy", "connection_pool": pool}
        if full.startswith("async+unix://"):
            # limits names a Redis on a UNIX socket so (redis-py and [cluster] redis: unix://);
            # the connections are the pool's either way.
            full = "async+redis+" + full.removeprefix("async+")
    try:
        storage = storage_from_string(full, **options)
    except ConfigurationError as exc:
        raise ConfigError(f"chain.rate_limits.storage: {uri!r} cannot be used: {exc}") from exc
    if not isinstance(storage, Storage):
        raise ConfigError(f"chain.rate_limits.storage: {uri!r} is not an async storage")
    return storage, pool


class RateLimiter:
    def __init__(
        self,
        rates: RateLimits,
        *,
        storage: Storage | str = "memory://",
        strategy: str = "moving-window",
        on_outage: str = "closed",
    ) -> None:
        """
        Args:
            rates: the limits to apply.
            storage: a ``limits.aio.storage.Storage`` or its URI.
            strategy: ``moving-window`` (the default; strict: never more than the limit in any
                window, about 5% under it when calls arrive in bursts over HTTP),
                ``sliding-window-counter`` (keeps the average rate at the limit: 1.00x of it in
                ``bench/bench_chain_http.py``; may briefly exceed it) or ``fixed-window``.
            on_outage: ``closed`` (refuse calls while the store fails) or ``open`` (let them through).
        """
        from limits.aio.strategies import STRATEGIES

        if on_outage not in ("open", "closed"):
            raise ConfigError(f"cluster.on_outage: {on_outage!r} is not open or closed")
        self.on_outage = on_outage
        self._last_outage_log = 0.0
        if strategy not in STRATEGIES:
            raise ConfigError(f"chain.rate_limits.strategy: {strategy!r} is not one of "
                              f"{', '.join(sorted(STRATEGIES))}")
        self.limits = rates
        self._pool: Any = None
        self._uri = storage if isinstance(storage, str) else None
        if isinstance(storage, str):
            self.storage, self._pool = _open_storage(storage)
        else:
            self.storage = storage
        self.strategy: LimitsStrategy = STRATEGIES[strategy](self.storage)  # type: ignore[abstract]

    async def check_reachable(self) -> None:
        """At start: a store the limiter cannot reach, where calls are refused while it is
        down (``on_outage`` closed), is said as a ``ConfigError`` (one line, exit 2), rather
        than by every call being refused."""
        if self.on_outage == "open":
            return
        try:
            reached = await self.storage.check()
        except Exception:  # the store's own errors (redis-py's, OSError)
            reached = False
        if not reached:
            from toolbay.cluster.connection import shown

            where = shown(self._uri) if self._uri is not None else type(self.storage).__name__
            raise ConfigError(f"chain.rate_limits.storage: {where} cannot be reached; calls would all be refused "
                              "while it is down (on_outage = \"closed\")")

    async def check(self, caller: str, tool: str, *, per_caller: bool = True) -> None:
        """Counts one call by ``caller`` to ``tool``, or raises ``RateLimited`` without counting it
        (``LimitsUnavailable`` when the store fails and ``on_outage`` is closed).
        ``per_caller``: False counts it against the server-wide limit only."""
        try:
            try:
                await self._count(caller, tool, per_caller)
            except Exception as exc:
                if not _wrong_kind(exc):
                    raise
                await self._clear_wrong_kinds(caller, tool, per_caller)
                await self._count(caller, tool, per_caller)
        except RateLimited:
            raise
        except Exception as exc:  # the store's own errors (redis-py's, OSError): an outage
            self._log_outage(exc)
            if self.on_outage == "closed":
                raise LimitsUnavailable(OUTAGE_RETRY_S) from exc

    async def _clear_wrong_kinds(self, caller: str, tool: str, per_caller: bool) -> None:
        """Clears the counters of this call that hold another kind of value than the strategy
        keeps there (set by hand, or by another program using this Redis database). Said as an
        outage, such a counter refused every call of its caller for good (on_outage closed), or
        let them all through uncounted (open); a counter is toolbay's own, and counts afresh."""
        for item, identifiers, scope in self._applicable(caller, tool, per_caller):
            try:
                await self.strategy.get_window_stats(item, *identifiers)
            except Exception as exc:
                if not _wrong_kind(exc):
                    raise
                logger.warning("the rate-limit counter of %s (%s) held another kind of value in its store (%s); "
                               "it was cleared and counts afresh", scope, item, exc)
                await self.strategy.clear(item, *identifiers)

    def _log_outage(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._last_outage_log >= OUTAGE_LOG_S:
            self._last_outage_log = now
            logger.warning("the rate-limit store cannot be reached (%s: %s); calls are %s while it is down",
                           type(exc).__name__, exc, "refused" if self.on_outage == "closed" else "let through")

    async def _count(self, caller: str, tool: str, per_caller: bool) -> None:
        applicable = self._applicable(caller, tool, per_caller)
        if not applicable:
            return
        for item, identifiers, scope in applicable:
            if not await self.strategy.test(item, *identifiers):
                raise await self._refusal(item, identifiers, scope)
        for item, identifiers, scope in applicable:
            # Only another task slipping in between test and hit (a shared store) can refuse here.
            if not await self.strategy.hit(item, *identifiers):
                raise await self._refusal(item, identifiers, scope)

    def _applicable(self, caller: str, tool: str,
                    per_caller: bool = True) -> list[tuple[limits.RateLimitItem, tuple[str, ...], str]]:
        rows: list[tuple[limits.RateLimitItem, tuple[str, ...], str]] = []
        if per_caller:
            on = "names no tool has" if tool == UNKNOWN_TOOLS else f"tool {tool!r}"
            rows += [(item, ("toolbay", "tool", caller, tool), f"caller {caller!r} on {on}")
                     for item in self.limits.per_caller_tool]
            rows += [(item, ("toolbay", "caller", caller), f"caller {caller!r}") for item in self.limits.per_caller]
        rows += [(item, ("toolbay", "global"), "all callers together") for item in self.limits.everyone]
        return rows

    async def _refusal(self, item: limits.RateLimitItem, identifiers: tuple[str, ...], scope: str) -> RateLimited:
        stats = await self.strategy.get_window_stats(item, *identifiers)
        retry_after = max(stats.reset_time - time.time(), 0.001)
        return RateLimited(scope=scope, limit=str(item), retry_after=retry_after)

    async def aclose(self) -> None:
        """Closes the connections of a Redis store this limiter opened."""
        if self._pool is not None:
            await self._pool.aclose()

    async def reset(self) -> None:
        """Forgets every counter (tests, and an operator's reload)."""
        await self.storage.reset()


# Whether a caller may find a tool (``Disclosure.may_find``).
MayFind = Callable[[Principal, ToolDefinition], bool]


class RateLimit(CheckStage):
    name = "ratelimit"

    def __init__(self, limiter: RateLimiter, may_find: MayFind | None = None) -> None:
        self.limiter = limiter
        self.may_find = may_find

    async def check(self, call: ToolCall) -> None:
        handler = call.handler
        per_caller = handler is None or handler.counted_per_caller
        # Names no tool has share one count per caller: each would otherwise be a key of its
        # own in the store, as long as the caller made it (megabytes), one per name tried. So
        # do tools the caller may not find: counted apart, and named in the refusal, they were
        # told to exist (a hidden catalog's tools listed by trying names).
        known = handler is not None and (self.may_find is None
                                         or self.may_find(principal_of(call), handler.definition))
        tool = call.name if known else UNKNOWN_TOOLS
        await self.limiter.check(principal_of(call).id, tool, per_caller=per_caller)
