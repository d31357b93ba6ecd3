"""What each session last saw of the catalog: ``refresh_tools`` tells a session what changed
since then, not what its own rescan changed.

``refresh_tools`` is there for clients that ignore ``notifications/tools/list_changed``. Told
what its rescan changed, such a session heard "No change" of a tool added to its folder once
another caller's refresh, or the watcher, had taken the change in first (almost always, with
hot reload on), and of the catalog tool it had found and that changed. A session has seen the
catalog at its last ``tools/list`` and at its last ``refresh_tools``.

Kept as outlines (``Catalog.outline``: definitions, no handlers), one per catalog shared by
every session that saw it (and with the outline before it, the tools that did not change), and
forgotten when the session closes.
"""

from __future__ import annotations

import weakref
from typing import Any

from toolbay.catalog import Catalog
from toolbay.internals.mcp_sdk import connection_of, when_connection_closes


class SeenCatalogs:
    def __init__(self) -> None:
        self._by_connection: dict[Any, Catalog] = {}
        # The outline of the catalog last seen: every session's listing of one catalog shares it.
        self._latest: tuple[weakref.ref[Catalog], Catalog] | None = None

    def saw(self, session: Any, catalog: Catalog) -> None:
        """``session`` has been shown ``catalog`` (nothing is kept of a session without a
        connection: the 2026-07-28 protocol's, stateless HTTP's)."""
        connection = connection_of(session) if session is not None else None
        if connection is None:
            return
        if connection not in self._by_connection and not when_connection_closes(
                session, self._by_connection.pop, connection, None):
            return  # no way to hear of its end: it would be kept for ever
        self._by_connection[connection] = self._outline_of(catalog)

    def last_seen(self, session: Any) -> Catalog | None:
        """The catalog (outlined) ``session`` was last shown, None if it was never shown one."""
        connection = connection_of(session) if session is not None else None
        return self._by_connection.get(connection) if connection is not None else None

    def _outline_of(self, catalog: Catalog) -> Catalog:
        if self._latest is not None and self._latest[0]() is catalog:
            return self._latest[1]
        outline = catalog.outline(self._latest[1] if self._latest is not None else None)
        self._latest = (weakref.ref(catalog), outline)
        return outline
