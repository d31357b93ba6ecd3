"""Search-first disclosure: how much of the catalog each session's ``tools/list`` shows.

Three levels, by where a tool comes from:

- *essential*: built-ins and tools named in ``[disclosure] essential``: listed in full;
- *connected*: the extension folders: listed by name and one line, schema deferred;
- *catalog*: folders named in ``[disclosure] catalog``: never listed, found only by
  ``search_tools``, and only from the folders the caller's allowlist names
  (``catalog_allow`` plus its ``catalog:PATTERN`` scopes).

The catalog allowlist only ever narrows catalog tools: connected tools are filtered by
authorisation alone, never by it, so an empty allowlist hides no connected tool.

A tool that ``search_tools`` returns is *promoted*: it joins that session's listing in
full, and that session alone hears ``list_changed``. Promotion grants nothing; a call
still passes the whole chain. The search index follows every catalog swap one tool at a
time, and a result is checked against the live catalog and the caller's rights when it
is returned, so a tool gone or hidden is never found.
"""

from __future__ import annotations

import enum
import fnmatch
import json
import logging
import os
import weakref
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolbay.catalog import Catalog, CatalogChange, CatalogHolder
from toolbay.chain.redact import redact_text
from toolbay.config import DisclosureSettings
from toolbay.protocol.listing import definition_to_tool
from toolbay.search import SearchIndex
from toolbay.words import CallContext, Principal, ToolDefinition

logger = logging.getLogger(__name__)

# A model reads about four characters of JSON or English per token; the budget is rough.
CHARACTERS_PER_TOKEN = 4
ONE_LINE = 100
DEFERRED_SCHEMA: Mapping[str, Any] = {"type": "object"}

CanUse = Callable[[Principal, ToolDefinition], bool]


class Level(enum.Enum):
    ESSENTIAL = "essential"
    CONNECTED = "connected"
    CATALOG = "catalog"


def one_line(description: str) -> str:
    """The first line of a description, cut at a word near ``ONE_LINE`` characters."""
    line = description.strip().split("\n", 1)[0].strip()
    if len(line) <= ONE_LINE:
        return line
    return line[:ONE_LINE].rsplit(" ", 1)[0] + "…"


def deferred(definition: ToolDefinition) -> ToolDefinition:
    """What a connected tool is listed as: its name and one line; its schema comes by search."""
    return replace(definition, description=one_line(definition.description), input_schema=DEFERRED_SCHEMA,
                   output_schema=None)


def _session_key(session: Any) -> Any:
    """The connection behind the SDK's per-message session proxy: what lasts as long as the
    session (see sessions.py). None on the 2026-07-28 protocol, which has no standing session:
    its clients call what they found by name, with the schema the search returned."""
    return getattr(session, "_connection", None)


class Disclosure:
    def __init__(self, settings: DisclosureSettings, catalog: CatalogHolder, can_use: CanUse) -> None:
        self.settings = settings
        self._catalog = catalog
        self._can_use = can_use
        self._catalog_folders = [(os.path.abspath(folder), Path(folder).name) for folder in settings.catalog]
        self.index = SearchIndex()
        self._promoted: dict[Any, set[str]] = {}
        # The catalog the full listing was last counted for, weakly: an old catalog holds its
        # tools' modules, which must be freed once it is swapped out.
        self._full_tokens: tuple[weakref.ref[Catalog], int] | None = None
        self.index.put_many(self._indexed(entry.definition) for entry in catalog.current.entries())
        self._unsubscribe = catalog.subscribe(self._follow)

    # -- levels ---------------------------------------------------------------------------

    def level_of(self, definition: ToolDefinition) -> Level:
        if definition.source == "builtin" or any(fnmatch.fnmatchcase(definition.name, pattern)
                                                 for pattern in self.settings.essential):
            return Level.ESSENTIAL
        if self._catalog_folder_of(definition) is not None:
            return Level.CATALOG
        return Level.CONNECTED

    def _catalog_folder_of(self, definition: ToolDefinition) -> str | None:
        """The name of the catalog folder the tool's file is in, if it is in one."""
        if not definition.origin.startswith("wasm:") or not self._catalog_folders:
            return None
        path = os.path.abspath(definition.origin.removeprefix("wasm:"))
        for folder, name in self._catalog_folders:
            if path.startswith(folder + os.sep):
                return name
        return None

    def may_search_catalog(self, principal: Principal, folder_name: str) -> bool:
        patterns = list(self.settings.catalog_allow)
        patterns += [scope.removeprefix("catalog:") for scope in principal.scopes if scope.startswith("catalog:")]
        return any(fnmatch.fnmatchcase(folder_name, pattern) for pattern in patterns)

    # -- listing --------------------------------------------------------------------------

    def search_first(self) -> bool:
        mode = self.settings.mode
        if mode != "auto":
            return mode == "search-first"
        return self.full_listing_tokens() > self.settings.token_budget

    def full_listing_tokens(self) -> int:
        """The whole catalog's full listing, in tokens (characters of its JSON / 4), once per catalog."""
        current = self._catalog.current
        if self._full_tokens is None or self._full_tokens[0]() is not current:
            characters = sum(len(json.dumps(definition_to_tool(definition).model_dump(
                mode="json", by_alias=True, exclude_none=True))) for definition in current.definitions())
            self._full_tokens = (weakref.ref(current), characters // CHARACTERS_PER_TOKEN)
        return self._full_tokens[1]

    def listed(self, visible: list[ToolDefinition], session: Any) -> list[ToolDefinition]:
        """What this session's ``tools/list`` shows of the tools the caller may use."""
        if not self.search_first():
            return visible
        promoted = self._promoted.get(_session_key(session), set()) if session is not None else set()
        listed: list[ToolDefinition] = []
        for definition in visible:
            level = self.level_of(definition)
            if level is Level.ESSENTIAL or definition.name in promoted:
                listed.append(definition)
            elif level is Level.CONNECTED:
                listed.append(deferred(definition))
        return listed

    # -- search ---------------------------------------------------------------------------

    async def search(self, query: str, limit: int, context: CallContext) -> dict[str, Any]:
        """``search_tools``: the caller's best tools with full schemas, promoted into its session."""
        principal = context.extras.get("principal")
        if not isinstance(principal, Principal):
            principal = Principal.anonymous()
        current = self._catalog.current

        def allowed(name: str) -> bool:
            entry = current.tools.get(name)
            if entry is None:  # gone since it was indexed
                return False
            definition = entry.definition
            folder = self._catalog_folder_of(definition)
            if folder is not None and not self.may_search_catalog(principal, folder):
                return False
            return self._can_use(principal, definition)

        outcome = self.index.search(query, limit, allowed)
        results = []
        for hit in outcome.hits:
            live = current.tools[hit.name].definition
            results.append({"name": hit.name, "description": hit.definition.description,
                            "inputSchema": dict(live.input_schema), "score": round(hit.score, 4)})
        await self._promote(context.extras.get("session"), [hit.name for hit in outcome.hits])
        return {"results": results, "no_match": outcome.no_match}

    async def _promote(self, session: Any, names: list[str]) -> None:
        key = _session_key(session)
        if key is None or not names:
            return
        promoted = self._promoted.get(key)
        if promoted is None:
            promoted = self._promoted[key] = set()
            exit_stack = getattr(key, "exit_stack", None)
            if exit_stack is not None:  # forget the session's promotions when it closes
                exit_stack.callback(self._promoted.pop, key, None)
        added = set(names) - promoted
        promoted.update(added)
        if added and self.search_first():
            try:
                await session.send_tool_list_changed()
            except Exception:  # the caller still has the schemas in the search result
                logger.debug("list_changed after promotion failed", exc_info=True)

    # -- following the catalog ----------------------------------------------------------------

    def _follow(self, catalog: Catalog, change: CatalogChange) -> None:
        for name in change.removed:
            self.index.remove(name)
        for name in (*change.added, *change.changed):
            self.index.put(self._indexed(catalog.tools[name].definition))

    @staticmethod
    def _indexed(definition: ToolDefinition) -> ToolDefinition:
        """The definition as the index keeps it: no secret-looking text (the audit log's rules)."""
        description = redact_text(definition.description)
        return definition if description == definition.description else replace(definition, description=description)

    def close(self) -> None:
        self._unsubscribe()
