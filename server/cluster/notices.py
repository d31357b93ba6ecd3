"""Catalog changes told to every replica over Redis pub/sub.

Each replica keeps its own catalog from the tool folders (shared by all of them: a network
folder, a volume). Its own watcher may not see a change made on another machine (inotify does
not cross a network file system), so a replica whose catalog changed says so on the
``toolbay:catalog`` channel, and every other replica looks at the folders again at once. A
replica tells its own sessions of its own changes (``tools/list_changed`` to standing
sessions, ``subscriptions/listen`` streams), so a client on any replica hears of a change
made anywhere, and what it then lists is that replica's catalog, already brought up to date.

Nothing loops: a replica speaks only when its rescan found a change, and a rescan that
follows another replica's change finds none left once the folders agree.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

import anyio
import redis.asyncio as aioredis
from anyio.abc import TaskStatus
from redis.exceptions import RedisError

from toolbay.cluster.connection import Subscription
from toolbay.deep_json import read_outside_json

logger = logging.getLogger(__name__)

CATALOG_CHANNEL = "toolbay:catalog"
RECONNECT_S = 1.0


class CatalogNotices:
    def __init__(self, client: aioredis.Redis, replica_id: str, rescan: Callable[[], Awaitable[object]]) -> None:
        """
        Args:
            client: the cluster's Redis.
            replica_id: this replica, so it does not answer its own notices.
            rescan: looks at the tool folders and role files again (``CatalogKeeper.rescan``).
        """
        self.client = client
        self.replica_id = replica_id
        self.rescan = rescan

    async def changed(self) -> None:
        """A catalog listener: tells the other replicas. An outage loses the notice (logged);
        each replica's own watcher still sees its folders."""
        try:
            await self.client.publish(CATALOG_CHANNEL, json.dumps({"from": self.replica_id}))
        except (RedisError, OSError) as exc:
            logger.warning("could not tell the other replicas of a catalog change (%s)", exc)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listens for the other replicas' changes for as long as it runs, through outages;
        started (``task_status``) once subscribed the first time."""
        started = False
        while True:
            try:
                # A notice published while the channel was down is lost: after any
                # reconnection (the pool's own, or this loop's) the folders are looked at again.
                async with Subscription(self.client, on_reconnect=self._look_again) as pubsub:
                    await pubsub.subscribe(CATALOG_CHANNEL)
                    if not started:
                        started = True
                        task_status.started()
                    else:
                        await self._look_again()
                    async for message in pubsub.listen():
                        if message.get("type") == "message" and self._from_another(message["data"]):
                            await self._look_again()
            except (RedisError, OSError) as exc:
                logger.warning("lost the catalog channel to Redis (%s); trying again", exc)
                if not started:
                    started = True
                    task_status.started()
            await anyio.sleep(RECONNECT_S)

    def _from_another(self, data: bytes) -> bool:
        try:
            return read_outside_json(data).get("from") != self.replica_id
        except (ValueError, AttributeError, RecursionError):  # RecursionError: nested too deeply to read
            return False

    async def _look_again(self) -> None:
        try:
            await self.rescan()
        except Exception:
            logger.exception("looking at the tool folders again after another replica's change failed")
