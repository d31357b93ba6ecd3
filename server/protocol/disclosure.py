"""Search-first disclosure: how much of the catalog each session's ``tools/list`` shows.

Three levels, by where a tool comes from:

- *essential*: built-ins and tools named in ``[disclosure] essential``: listed in full;
- *connected*: the extension folders: listed by name and one line, schema deferred, folder
  by folder (in the order of ``extensions``) while that listing stays within
  ``[disclosure] connected_budget`` tokens. A folder that does not fit is not listed tool by
  tool: ``search_tools``' description names it and how many tools it holds, and the search
  finds them (a thousand names and lines would cost a model half of what the full listing
  does);
- *catalog*: folders named in ``[disclosure] catalog``: never listed (in any mode) until
  found, found only by ``search_tools``, and only from the folders the caller's allowlist
  names (``catalog_allow`` plus its ``catalog:PATTERN`` scopes). The allowlist governs
  finding, not calling: what a caller may call is authorisation's (scopes, ``deny``).

Which folder a tool is in is read off its file, whatever runs it (WebAssembly or Python).

The catalog allowlist only ever narrows catalog tools: connected tools are filtered by
authorisation alone, never by it, so an empty allowlist hides no connected tool.

A tool that ``search_tools`` returns is *promoted*: it joins that session's listing in
full, and that session alone hears ``list_changed``. Promotion grants nothing; a call
still passes the whole chain. The search index follows every catalog swap one tool at a
time, and a result is checked against the live catalog and the caller's rights when it
is returned, so a tool gone or hidden is never found.

What disclosure shows of a tool (descriptions, and every text of its schema) passes the
audit log's redaction rules, in the index, in search results and in listings alike: a
secret pasted into a description is not handed to the model by one path when another hides
it.
"""

from __future__ import annotations

import enum
import fnmatch
import json
import logging
import unicodedata
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolbay.catalog import Catalog, CatalogChange, CatalogHolder, Entry, split_key
from toolbay.config import DisclosureSettings
from toolbay.handlers.search import DEFINITION as SEARCH_DEFINITION
from toolbay.internals.mcp_sdk import connection_of, when_connection_closes
from toolbay.redaction import may_hold, redacted
from toolbay.search import SearchIndex
from toolbay.sessions import Audience
from toolbay.tool_folders import file_gone, folder_of, folders
from toolbay.words import CallContext, Principal, ToolDefinition

logger = logging.getLogger(__name__)

# A model reads about four characters of JSON or English per token; the budget is rough.
CHARACTERS_PER_TOKEN = 4
ONE_LINE = 100
SEARCH_TOOL = SEARCH_DEFINITION.name
DEFERRED_SCHEMA: Mapping[str, Any] = {"type": "object"}
# Rounds of embedding on a worker before a search (``Disclosure._embed_off_loop``): a catalog
# changing without pause must not keep a search waiting for ever.
_EMBEDDING_ROUNDS = 3

CanUse = Callable[[Principal, ToolDefinition], bool]


class Level(enum.Enum):
    ESSENTIAL = "essential"
    CONNECTED = "connected"
    CATALOG = "catalog"


# Where a line written without spaces (Chinese, Japanese) may be cut: after its own commas and stops.
_CLOSING_MARKS = "、。，．；：！？）」』】"


def one_line(description: str) -> str:
    """The first line of a description, cut at a word near ``ONE_LINE`` characters: at a space,
    or after a comma or stop of a script written without spaces, in the last half of the
    length; else at that length (not between a letter and its marks). Cut at its last space
    however early, a Japanese line of 120 characters that began with "GitHub " was "GitHub…"."""
    line = description.strip().split("\n", 1)[0].strip()
    if len(line) <= ONE_LINE:
        return line
    kept = line[:ONE_LINE]
    space = kept.rfind(" ")
    mark = max(kept.rfind(closing) for closing in _CLOSING_MARKS)
    if max(space, mark + 1) >= ONE_LINE // 2:
        kept = kept[:space].rstrip() if space > mark else kept[:mark + 1]
    else:
        end = ONE_LINE
        joined = "\u200d\ufe0f"  # an emoji's joiner and its presentation selector
        while end > 1 and (unicodedata.combining(line[end]) or line[end] in joined or line[end - 1] == joined[0]):
            end -= 1
        kept = line[:end]
    return kept + "…"


def _with_folders(description: str, left_out: tuple[tuple[str, int], ...]) -> str:
    """The search tool's description naming the connected folders that are not listed."""
    folders = ", ".join(f"{name} ({count} {'tool' if count == 1 else 'tools'})" for name, count in left_out)
    return f"{description} Not listed, found only by this search: the tools of {folders}."


def deferred(definition: ToolDefinition) -> ToolDefinition:
    """What a connected tool is listed as: its name and one line; its schema (and its keywords,
    which only help a search) come by search."""
    return replace(definition, description=one_line(definition.description), input_schema=DEFERRED_SCHEMA,
                   output_schema=None, keywords=())


def _is_search_tool(definition: ToolDefinition) -> bool:
    return definition.name == SEARCH_DEFINITION.name and definition.source == "builtin"


def _session_key(session: Any) -> Any:
    """The connection behind the SDK's per-message session proxy: what lasts as long as the
    session (see sessions.py). None on the 2026-07-28 protocol, which has no standing session:
    its clients call what they found by name, with the schema the search returned."""
    return connection_of(session)


# A search result joins the session's listing when it scores at least this share of the best.
PROMOTED_SHARE = 0.5


def caller_of(context: CallContext) -> Principal:
    """Who called a built-in, as the app hands it over (anonymous when it does not)."""
    principal = context.extras.get("principal")
    return principal if isinstance(principal, Principal) else Principal.anonymous()


class _PerDefinition:
    """A value worked out once per tool definition (keyed by its identity, holding it so that
    the identity stays its own), kept across catalogs for the definitions the new catalog still
    holds: the redacted copy shown and the listed length of each. Kept for one catalog only, they
    were all worked out again after a change to any file: 8,000 tools redacted anew on the event
    loop held every client for 2 to 3 s in ``auto`` mode (an outside check)."""

    def __init__(self) -> None:
        self._catalog: weakref.ref[Catalog] | None = None
        self._values: dict[int, tuple[ToolDefinition, Any]] = {}

    def of(self, catalog: Catalog) -> dict[int, tuple[ToolDefinition, Any]]:
        if self._catalog is None or self._catalog() is not catalog:
            before, kept = self._values, {}
            if before:  # the tools of files that did not change are the same objects
                for entry in catalog.entries():
                    definition = entry.definition
                    known = before.get(id(definition))
                    if known is not None and known[0] is definition:
                        kept[id(definition)] = known
            self._catalog, self._values = weakref.ref(catalog), kept
        return self._values

    def known(self, definition: ToolDefinition) -> Any | None:
        """What was worked out for ``definition``, whatever catalog it was for; None if nothing."""
        known = self._values.get(id(definition))
        return known[1] if known is not None and known[0] is definition else None


def _worked_out(values: dict[int, tuple[ToolDefinition, Any]], definition: ToolDefinition,
                make: Callable[[ToolDefinition], Any]) -> Any:
    """``make(definition)``, kept in ``values`` (a ``_PerDefinition``'s) once worked out."""
    known = values.get(id(definition))
    if known is None:
        known = values[id(definition)] = (definition, make(definition))
    return known[1]


class _PerCatalog:
    """Values worked out once per catalog, kept while that catalog is the one asked about. The
    catalog is held weakly: an old one holds its tools' modules, which must be freed once it
    is swapped out."""

    def __init__(self) -> None:
        self._catalog: weakref.ref[Catalog] | None = None
        self._values: dict[str, Any] = {}

    def of(self, catalog: Catalog) -> dict[str, Any]:
        if self._catalog is None or self._catalog() is not catalog:
            self._catalog, self._values = weakref.ref(catalog), {}
        return self._values


def catalog_allow_misses(settings: DisclosureSettings) -> list[str]:
    """A warning for each pattern of ``catalog_allow`` that names none of the catalog folders
    (none when there are no catalog folders)."""
    folder_names = sorted({name for _, name in folders(settings.catalog)})
    return [f"[disclosure] catalog_allow {pattern!r} names none of the catalog folders ({', '.join(folder_names)})"
            for pattern in settings.catalog_allow
            if folder_names and not any(fnmatch.fnmatchcase(name, pattern) for name in folder_names)]


def catalog_scope_misses(settings: DisclosureSettings, granted: Iterable[tuple[str, str]]) -> list[str]:
    """A warning for each ``catalog:PATTERN`` scope of ``granted`` (who holds it, the scope)
    that names none of the catalog folders: "catalog:CAT2" for the folder "cat2" lets its holder
    search nothing, and nothing said so (an outside check)."""
    folder_names = sorted({name for _, name in folders(settings.catalog)})
    where = f"the catalog folders ({', '.join(folder_names)})" if folder_names else \
        "the catalog folders: none is configured ([disclosure] catalog)"
    warnings = [f"[disclosure] {holder} has the scope {scope!r}, which names none of {where}"
                for holder, scope in granted if scope.startswith("catalog:")
                and not any(fnmatch.fnmatchcase(name, scope.removeprefix("catalog:")) for name in folder_names)]
    return list(dict.fromkeys(warnings))  # once each: a client's second token holds its scopes again


class Disclosure:
    def __init__(self, settings: DisclosureSettings, catalog: CatalogHolder, can_use: CanUse,
                 connected: Sequence[Path] = (), semantic: bool = False,
                 hidden: Callable[[], Collection[str]] | None = None) -> None:
        """``connected``: the extension folders, in the order their tools are listed;
        ``semantic``: the search ranks by meaning too (``[search] semantic``); ``hidden``: the
        credentials' values, blotted out of every definition shown, as the audit log does."""
        self.settings = settings
        self._hidden = hidden
        self._catalog = catalog
        self._can_use = can_use
        self._catalog_folders = folders(settings.catalog)
        catalog_paths = {path for path, _ in self._catalog_folders}
        self._connected_folders = [folder for folder in folders(connected) if folder[0] not in catalog_paths]
        # Every folder a tool may come from: a tool is in the innermost one holding its file, so
        # an extension folder named inside a catalog folder stays connected.
        self._all_folders = [*self._connected_folders, *self._catalog_folders]
        self._catalog_folder_set = frozenset(self._catalog_folders)
        # The folder of each file seen (by origin): every listing asks it of every tool.
        self._folder_by_origin: dict[str, tuple[str, str] | None] = {}
        self.index = SearchIndex(group_of=self._group_of, semantic=semantic)
        # Held by the search embedding the tools put since the last one, off the event loop.
        self._embedding: Any = None
        # Per session: the tools it found, by name, with the file each came from (a tool of that
        # name from another file, a catalog one say, was not found and is not listed).
        self._promoted: dict[Any, dict[str, str]] = {}
        # What is worked out once per catalog: the full listing's size, the connected folders
        # listed tool by tool, each caller's ``auto`` decision.
        self._per_catalog = _PerCatalog()
        # Each tool's level, and each connected tool's length listed as its name and one line (``deferred``).
        self._levels = _PerDefinition()
        self._deferred_lengths = _PerDefinition()
        # The definitions ``ready_to_list`` worked out for listing, and its lock (made on the loop).
        self._ready = _PerDefinition()
        self._readying: Any = None
        # Each definition as shown and its listed length, for the credential values hidden then.
        self._shown: tuple[frozenset[str], _PerDefinition, _PerDefinition] = (frozenset(), _PerDefinition(),
                                                                               _PerDefinition())
        # The copies and lengths made before the credential values hidden last changed, and the
        # values that changed: a definition that holds none of them keeps its copy and length.
        self._shown_before: tuple[frozenset[str], _PerDefinition, _PerDefinition] | None = None
        # Whether each definition may hold the values that changed last (``_may_hold``).
        self._holding: tuple[frozenset[str], dict[int, tuple[ToolDefinition, bool]]] = (frozenset(), {})
        # The index is filled at the first search, from the catalog then (see ``_indexed``): a
        # server of 10,000 tools spent a second and more on it before its first listing, and a
        # server whose callers never search never needs it.
        self._index_filled = False
        self._index_hidden: frozenset[str] = frozenset()  # the credentials' values it was filled without
        self._filling: Any = None  # an anyio.Lock, made on the event loop by the first search
        # The catalog folders' tools by key, and whether a change since ``take_listing_change``
        # may show in a listing: one only in catalog folders, of tools no session found, does not.
        self._catalog_keys = {key: entry.definition for key, entry in catalog.current.keyed().items()
                              if self.level_of(entry.definition) is Level.CATALOG}
        self._change_for_everyone = False
        self._change_for_owners: set[str] = set()
        # Sessions (by connection) that found a catalog tool that changed, and changed catalog
        # tools that ``essential`` lists in full to the callers who may search their folder.
        self._change_for_finders: set[Any] = set()
        self._changed_essentials: list[ToolDefinition] = []
        self._unsubscribe = catalog.subscribe(self._follow)
        self._warn_of_patterns_matching_nothing()

    def _warn_of_patterns_matching_nothing(self) -> None:
        """A pattern of ``catalog_allow`` that names none of the catalog folders is most likely
        misspelt ("cta" for "cat"): the start says so, or every catalog tool stays unfindable
        without a word. (Not ``essential``: the tools it names may come later, described after
        the start or dropped in.)"""
        for warning in catalog_allow_misses(self.settings):
            logger.warning("%s", warning)

    # -- levels ---------------------------------------------------------------------------

    def level_of(self, definition: ToolDefinition) -> Level:
        """A catalog folder's tool is CATALOG even when ``essential`` names it: it is listed in
        full only to a caller that may search its folder (see ``listed``). Worked out once for
        as long as the tool is served: each listing asks it of every tool, twice."""
        level: Level = _worked_out(self._levels.of(self._catalog.current), definition, self._level_of)
        return level

    def _level_of(self, definition: ToolDefinition) -> Level:
        if definition.source == "builtin":
            return Level.ESSENTIAL
        if self._catalog_folder_of(definition) is not None:
            return Level.CATALOG
        if self._essential(definition):
            return Level.ESSENTIAL
        return Level.CONNECTED

    def _essential(self, definition: ToolDefinition) -> bool:
        if not self.settings.essential:
            return False
        return any(fnmatch.fnmatchcase(definition.name, pattern) for pattern in self.settings.essential)

    def _folder_for(self, definition: ToolDefinition) -> tuple[str, str] | None:
        """(path, name) of the folder the tool's file is in, the innermost of the folders."""
        try:
            return self._folder_by_origin[definition.origin]
        except KeyError:
            folder = self._folder_by_origin[definition.origin] = folder_of(definition, self._all_folders)
            return folder

    def _catalog_folder_of(self, definition: ToolDefinition) -> str | None:
        """The name of the catalog folder the tool's file is in, if it is in one."""
        folder = self._folder_for(definition)
        return folder[1] if folder is not None and folder in self._catalog_folder_set else None

    def may_search_catalog(self, principal: Principal, folder_name: str) -> bool:
        patterns = list(self.settings.catalog_allow)
        patterns += [scope.removeprefix("catalog:") for scope in principal.scopes if scope.startswith("catalog:")]
        return any(fnmatch.fnmatchcase(folder_name, pattern) for pattern in patterns)

    def may_find(self, principal: Principal, definition: ToolDefinition) -> bool:
        """Whether the caller may find the tool by search, its rights to use it aside: any tool
        but a catalog folder's whose folder its allowlist does not name."""
        folder = self._catalog_folder_of(definition)
        return folder is None or self.may_search_catalog(principal, folder)

    def gives_way(self, principal: Principal) -> Callable[[ToolDefinition], bool]:
        """Whether the caller's own tool gives way to a tool of its name (see ``Catalog``): one
        it may find and use. Giving way to one it may not use left it neither tool: its own
        hidden, the other refused."""
        return lambda definition: self.may_find(principal, definition) and self._can_use(principal, definition)

    def _group_of(self, key: str, definition: ToolDefinition) -> str:
        """The search index's group of a tool: its owner's personal tools, its catalog folder,
        or the tools every caller may find ("")."""
        owner = split_key(key)[1]
        if owner is not None:
            return f"personal:{owner}"
        folder = self._catalog_folder_of(definition)
        return f"catalog:{folder}" if folder is not None else ""

    def _groups_for(self, principal: Principal) -> list[str]:
        """The index groups a caller's searches are scored among."""
        return ["", f"personal:{principal.id}", *(f"catalog:{name}" for _, name in self._catalog_folders
                                                  if self.may_search_catalog(principal, name))]

    def may_know(self, principal: Principal, key: str, definition: ToolDefinition) -> bool:
        """Whether the caller may learn that the tool kept under ``key`` exists: one it may use
        and find, and of the personal tools only its own."""
        owner = split_key(key)[1]
        if owner is not None and owner != principal.id:
            return False
        return self.may_find(principal, definition) and self._can_use(principal, definition)

    def leans_on_search(self) -> bool:
        return bool(self._catalog_folders) or self.search_first()

    # -- listing --------------------------------------------------------------------------

    def search_first(self, visible: list[ToolDefinition] | None = None) -> bool:
        """Whether listings show only some tools: in ``auto`` mode, when the full listing of
        ``visible`` (a caller's tools), or else of the whole server, passes the budget."""
        mode = self.settings.mode
        if mode != "auto":
            return mode == "search-first"
        tokens = self.full_listing_tokens() if visible is None else self._listing_tokens(visible)
        return tokens > self.settings.token_budget

    def _search_first_for(self, principal: Principal) -> bool:
        """``search_first`` for the tools this caller may use, once per catalog and caller."""
        if self.settings.mode != "auto":
            return self.search_first()
        current = self._catalog.current
        known: dict[tuple[str, frozenset[str]], bool] = self._per_catalog.of(current).setdefault("caller_modes", {})
        key = (principal.id, principal.scopes)
        if key not in known:
            usable = [definition for definition in current.definitions_for(principal.id, self.gives_way(principal))
                      if self._can_use(principal, definition)]
            known[key] = self.search_first(usable)
        return known[key]

    def _listing_tokens(self, definitions: list[ToolDefinition]) -> int:
        """The full listing of ``definitions`` but a catalog folder's, in tokens; each
        definition's length counted once for as long as it is served."""
        current = self._catalog.current
        shown = self._shown_for(current)
        lengths = self._shown[2].of(current)  # after _shown_for: of the credential values hidden now

        def listed_length(definition: ToolDefinition) -> int:
            # As listed: redacted (a long secret shown as [REDACTED] takes few tokens), the copy
            # the listings and the index show; kept with that copy, where it was kept.
            copy = shown(definition)
            if self._shown_before is not None and copy is self._shown_before[1].known(definition):
                kept: int | None = self._shown_before[2].known(definition)
                if kept is not None:
                    return kept
            return _listed_characters(copy)

        characters = 0
        for definition in definitions:
            if self.level_of(definition) is not Level.CATALOG:  # a catalog folder's is never listed
                characters += _worked_out(lengths, definition, listed_length)
        return characters // CHARACTERS_PER_TOKEN

    def where_tools_are(self, principal: Principal | None = None) -> str | None:
        """What a call of an unknown name is told when the listing shows only some tools: to
        ``principal``, whose listing may be full where another's is not (``auto`` mode decides
        for each caller's tools)."""
        partial = self.search_first() if principal is None else self._search_first_for(principal)
        if not (partial or self._catalog_folders):
            return None
        return f"tools/list shows only some tools: call {SEARCH_TOOL} to find the one you need."

    def full_listing_tokens(self) -> int:
        """The full listing (every tool but the catalog folders'), in tokens (characters of its
        JSON / 4), once per catalog."""
        current = self._catalog.current
        known = self._per_catalog.of(current)
        if "full_tokens" not in known:
            known["full_tokens"] = self._listing_tokens(current.definitions())
        tokens: int = known["full_tokens"]
        return tokens

    async def ready_to_list(self, visible: list[ToolDefinition]) -> None:
        """Works out on a worker thread what listing ``visible`` needs first (each tool's level,
        redacted copy and listed length, kept for as long as it is served) for the tools that
        have none yet: a server's first listing, or one after a module changed.
        At 10,000 tools that held the event loop, and every other request (/healthz too), for
        about 6 s (an outside check); ``listed`` then finds them worked out."""
        import anyio
        import anyio.to_thread

        current = self._catalog.current
        self._shown_for(current)  # a credential value hidden since is taken in here, on the loop
        ready = self._ready.of(current)
        cold = [definition for definition in visible if id(definition) not in ready]
        if not cold:
            return  # even one may take long: a module's generated schema of 60 MB took 6 s
        if self._readying is None:
            self._readying = anyio.Lock()
        async with self._readying:  # a burst of first listings works them out once
            await anyio.to_thread.run_sync(self._work_out_for_listing, current, cold)

    def _work_out_for_listing(self, current: Catalog, definitions: list[ToolDefinition]) -> None:
        """What ``listed`` works out of ``definitions`` of ``current``, ahead of it (blocking)."""
        if self._catalog.current is not current:
            return  # changed meanwhile: the listing works out what it needs
        ready, deferred_lengths = self._ready.of(current), self._deferred_lengths.of(current)
        for definition in definitions:
            if id(definition) not in ready:
                level = self.level_of(definition)
                if level is not Level.CATALOG:  # a catalog folder's is never listed unfound
                    self._listing_tokens([definition])
                if level is Level.CONNECTED:  # listed by name and one line in search-first
                    _worked_out(deferred_lengths, definition, _deferred_length)
                ready[id(definition)] = (definition, True)

    def listed(self, principal: Principal, visible: list[ToolDefinition], session: Any) -> list[ToolDefinition]:
        """What this session's ``tools/list`` shows of the tools the caller may use."""
        found = self._promoted.get(_session_key(session), {}) if session is not None else {}

        def in_full(definition: ToolDefinition, level: Level) -> bool:
            """A tool listed with its schema whatever the mode: an essential one, and one this
            session found (a catalog folder's only while the caller may still search it)."""
            if level is Level.CATALOG:
                was_found = found.get(definition.name) == definition.origin
                if not was_found and not self._essential(definition):
                    # Never listed unfound, whoever asks: asked of a catalog's every tool whether
                    # the caller may search its folder, a listing over 10,000 of them took 60 ms
                    # of the event loop, for each session listing (an outside check).
                    return False
                if not self.may_find(principal, definition):
                    # The right to find it is gone, and so is the find: given back, the right
                    # does not bring the tool back unfound.
                    if was_found:
                        del found[definition.name]
                    return False
                return True
            return level is Level.ESSENTIAL or found.get(definition.name) == definition.origin

        shown = self._shown_now()
        if not self.search_first(visible):
            # Everything in full, but a catalog folder's tools only once this session found them.
            return [shown(definition) for definition in visible
                    if (level := self.level_of(definition)) is not Level.CATALOG or in_full(definition, level)]
        listed_folders, left_out = self.connected_listing(principal, visible)
        listed: list[ToolDefinition] = []
        search_tool: ToolDefinition | None = None
        left_out_counts = dict.fromkeys(left_out, 0)
        for definition in visible:
            level = self.level_of(definition)
            if definition.name == SEARCH_TOOL and left_out:
                search_tool = definition
                listed.append(definition)  # its description is finished below
            elif in_full(definition, level):
                listed.append(shown(definition))
            elif level is Level.CONNECTED:
                folder = self._folder_for(definition)
                if folder is None or folder[0] in listed_folders:
                    listed.append(deferred(shown(definition)))
                elif folder in left_out_counts:
                    left_out_counts[folder] += 1
        if search_tool is not None:
            # Only the folders left out that hold tools this caller may use, with how many.
            counts = tuple((name, count) for (_, name), count in left_out_counts.items() if count)
            if counts:
                listed[listed.index(search_tool)] = replace(
                    search_tool, description=_with_folders(search_tool.description, counts))
        return listed

    def offered(self, principal: Principal, usable: list[ToolDefinition], session: Any) -> list[ToolDefinition]:
        """What a delegated session is offered of the tools the caller may use: what it could
        find itself (not a catalog folder's its allowlist does not name), as disclosure shows
        them (redacted)."""
        shown = self._shown_now()
        return [shown(definition) for definition in usable if self.may_find(principal, definition)]

    def _shown_now(self) -> Callable[[ToolDefinition], ToolDefinition]:
        return self._shown_for(self._catalog.current)

    def _shown_for(self, current: Catalog) -> Callable[[ToolDefinition], ToolDefinition]:
        """Redacts a definition of ``current``, once for as long as it is served (``_PerDefinition``):
        the index, the listings and the search results all show the same redacted copy."""
        hidden = self._hidden_values()
        if hidden != self._shown[0]:
            # A credential value handed to a tool for the first time (read from its variable at
            # the call) is hidden from then on: the copies of the definitions that may hold it are
            # made again, and only those (all 10,000 were, and their listed lengths, on the event
            # loop at the next listing).
            before_hidden, before_made, before_lengths = self._shown
            self._shown = (hidden, _PerDefinition(), _PerDefinition())
            self._shown_before = (before_hidden ^ hidden, before_made, before_lengths)
        made = self._shown[1].of(current)

        def make(original: ToolDefinition) -> ToolDefinition:
            kept = self._kept_from_before(original)
            return kept if kept is not None else redacted(original, hidden)

        def shown(definition: ToolDefinition) -> ToolDefinition:
            copy: ToolDefinition = _worked_out(made, definition, make)
            return copy

        return shown

    def _kept_from_before(self, definition: ToolDefinition) -> ToolDefinition | None:
        """The copy made of ``definition`` before the credential values hidden last changed, if
        it holds none of the values that changed; else None."""
        if self._shown_before is None:
            return None
        changed, made, _ = self._shown_before
        kept: ToolDefinition | None = made.known(definition)
        return kept if kept is not None and not self._may_hold(definition, changed) else None

    def _may_hold(self, definition: ToolDefinition, changed: frozenset[str]) -> bool:
        """``redaction.may_hold``, asked once a definition for the values that changed: the index
        (on its worker thread) and the next listing (on the event loop) each asked it of every
        tool, writing each one's schemas out as JSON twice."""
        values, answers = self._holding
        if values != changed:
            values, answers = self._holding = (changed, {})
        known = answers.get(id(definition))
        if known is not None and known[0] is definition:
            return known[1]
        answer = may_hold(definition, changed)
        answers[id(definition)] = (definition, answer)
        return answer

    def _hidden_values(self) -> frozenset[str]:
        """The credentials' values, blotted out of what is shown of every tool."""
        return frozenset(self._hidden()) if self._hidden is not None else frozenset()

    def connected_listing(self, principal: Principal | None = None, visible: list[ToolDefinition] | None = None,
                          ) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
        """(paths of the connected folders listed tool by tool, (path, name) of those left to
        search), once per catalog and caller. Folders are taken in order, each if the names and
        lines of its tools the caller may use (``visible``; all when not given) fit in what is
        left of ``connected_budget``: a caller who may use 20 of a folder's 300 tools had
        none listed, though their 20 lines fit, since the budget was measured on all 300."""
        current = self._catalog.current
        made: dict[tuple[str, frozenset[str]] | None, tuple[frozenset[str], tuple[tuple[str, str], ...]]] = \
            self._per_catalog.of(current).setdefault("connected_listings", {})
        key = None if principal is None or visible is None else (principal.id, principal.scopes)
        if key not in made:
            characters: dict[str, int] = {}
            counts: dict[str, int] = {}
            lengths = self._deferred_lengths.of(current)
            for definition in current.definitions() if visible is None else visible:
                folder = self._folder_for(definition)
                if folder is None or self.level_of(definition) is not Level.CONNECTED:
                    continue
                length = _worked_out(lengths, definition, _deferred_length)
                characters[folder[0]] = characters.get(folder[0], 0) + length
                counts[folder[0]] = counts.get(folder[0], 0) + 1
            left = self.settings.connected_budget * CHARACTERS_PER_TOKEN
            listed: set[str] = set()
            left_out: list[tuple[str, str]] = []
            for path, name in self._connected_folders:
                if path not in counts:
                    continue
                if characters[path] <= left:
                    left -= characters[path]
                    listed.add(path)
                else:
                    left_out.append((path, name))
            made[key] = (frozenset(listed), tuple(left_out))
        return made[key]

    # -- search ---------------------------------------------------------------------------

    async def search(self, query: str, limit: int, context: CallContext) -> dict[str, Any]:
        """``search_tools``: the caller's best tools with full schemas, promoted into its session."""
        await self._indexed()
        principal = caller_of(context)
        current = self._catalog.current

        def live(key: str) -> ToolDefinition | None:
            """The tool the key stands for now, if the caller may see it: a core or shared
            tool, or one of its own personal tools (another caller's never)."""
            name, owner = split_key(key)
            if owner is None:
                entry = current.tools.get(key)
            elif owner == principal.id:
                entry = current.personal.get(owner, {}).get(name)
                if entry is not None and not current.served_to_owner(entry, self.gives_way(principal)):
                    return None  # shadowed by a tool of its name the caller may find
            else:
                return None
            return entry.definition if entry is not None else None  # None: gone since it was indexed

        named = query.strip().lower()

        def allowed(key: str) -> bool:
            definition = live(key)
            # The search tool is never its own answer (a caller using only a few tools was
            # offered search_tools for "translate text", by the words of its description), but
            # where the request is its name: an exact name finds its tool first.
            return (definition is not None and (not _is_search_tool(definition) or definition.name.lower() == named)
                    and self.may_know(principal, key, definition))

        if self.index.semantic:
            await self._embed_off_loop()
            # Filled again meanwhile (a credential's value first handed to a tool): after that fill,
            # not on the index its worker thread is changing.
            await self._indexed()
            current = self._catalog.current  # the catalog may have changed while the tools were embedded
        # Scored as if the tools the caller may not find were not there: their words would
        # otherwise move the scores and the no-match answer it sees.
        outcome = self.index.search(query, limit, allowed, groups=self._groups_for(principal))
        shown = self._shown_for(current)
        results = []
        found: list[ToolDefinition] = []
        best = outcome.hits[0].score if outcome.hits else 0.0
        for hit in outcome.hits:
            live_definition = live(hit.key)
            assert live_definition is not None  # allowed() said so a moment ago, on the same catalog
            if file_gone(live_definition):
                continue  # removed, and not yet taken out by the watcher: a call would not find it
            # Only the strong hits join the session's listing: every weak one added for good
            # would grow it back towards the full listing, search after search. The others
            # are called by name with the schema given here.
            if hit.score >= PROMOTED_SHARE * best:
                found.append(live_definition)
            results.append({"name": hit.name, "description": hit.definition.description,
                            "inputSchema": dict(shown(live_definition).input_schema),
                            "score": round(hit.score, 4)})
        await self._promote(context.extras.get("session"), principal, found)
        return {"results": results, "no_match": outcome.no_match or not results}

    async def _indexed(self) -> None:
        """Fills the index with the catalog's tools the first time a search needs it (and again
        with those that may hold a credential's value hidden since), on a worker thread: 10,000
        tools take over a second, which would hold every other request on the event loop.
        Nothing else touches the index meanwhile (``_follow`` leaves it to this), and what
        changed while it filled is taken in after, on the loop, by comparing the catalog it was
        filled from with the catalog then. From then on ``_follow`` keeps it up to date one tool
        at a time."""
        if self._index_filled and self._index_hidden == self._hidden_values():
            return
        import anyio
        import anyio.to_thread

        if self._filling is None:
            self._filling = anyio.Lock()
        async with self._filling:  # a burst of first searches fills it once
            # Filled again once a credential's value is first handed to a tool (read from its
            # variable at the call), for the tools that may hold it: the index must not find one by it.
            if self._index_filled and self._index_hidden == self._hidden_values():
                return
            # Not filled while it is filled again: a search meanwhile waits for it (above), and
            # ``_follow`` leaves it to the diff below. A search let through went on with the
            # index the worker thread was changing, and found a tool by the new credential's
            # value, its description showing it.
            was_filled, before = self._index_filled, self._index_hidden
            self._index_filled = False
            filled_from = self._catalog.current
            hidden = self._index_hidden = self._hidden_values()

            def fill() -> None:
                keyed: Iterable[tuple[str, Entry]] = filled_from.keyed().items()
                if was_filled:
                    # Only the tools that may hold a value hidden now and not before (or the
                    # reverse): the whole index was filled again (1.3 s of CPU at 10,000 tools).
                    changed = before ^ hidden
                    keyed = [(key, entry) for key, entry in keyed if self._may_hold(entry.definition, changed)]
                    if not keyed:
                        return
                # A few tools put again are weighed as the index weighs a changed one.
                self.index.put_many(((key, redacted(entry.definition, hidden)) for key, entry in keyed),
                                    weigh_all=not was_filled)

            await anyio.to_thread.run_sync(fill)
            current = self._catalog.current
            self._follow_in_index(current, filled_from.diff(current))
            self._index_filled = True

    async def _embed_off_loop(self) -> None:
        """Embeds the tools put since the last search on a worker thread: the first search reads
        the model and embeds every tool (about 1.5 s at 10,000), which would hold every other
        call on the event loop. The index follows the catalog on the loop meanwhile; tools put
        while a round runs wait for the next (the search itself embeds the few left)."""
        import anyio
        import anyio.to_thread

        if self._embedding is None:
            self._embedding = anyio.Lock()
        async with self._embedding:  # one round at a time: a burst of first searches embeds once
            for _ in range(_EMBEDDING_ROUNDS):
                backlog = self.index.meaning_backlog()
                if backlog is None:
                    return
                await anyio.to_thread.run_sync(backlog.embed)
                self.index.take_meaning(backlog)

    async def _promote(self, session: Any, principal: Principal, definitions: list[ToolDefinition]) -> None:
        key = _session_key(session)
        if key is None or not definitions:
            return
        promoted = self._promoted.get(key)
        if promoted is None:
            promoted = self._promoted[key] = {}
            # The session's promotions are forgotten when it closes.
            when_connection_closes(session, self._promoted.pop, key, None)

        # Every listing shows the essential tools in full already (the built-ins, and a catalog one
        # named essential to a caller that may search it), and a full listing every tool found but
        # a catalog folder's: only a tool that being found may list in full takes a place among
        # those found (the job tools found for "list the jobs" pushed two found tools out). In
        # ``auto`` mode a connected tool found while the caller's listing is full is remembered as
        # in search-first mode, though it changes no listing yet: once the catalog grows past the
        # budget it stays in full, where it was listed by one line as if never found.
        remembered = (Level.CATALOG,) if self.settings.mode == "full" else (Level.CATALOG, Level.CONNECTED)
        changes_listing = (Level.CATALOG, Level.CONNECTED) if self._search_first_for(principal) else (Level.CATALOG,)

        def found_lists_in_full(definition: ToolDefinition, levels: tuple[Level, ...] = changes_listing) -> bool:
            # An ESSENTIAL tool is never among ``levels``; a catalog one named essential is CATALOG,
            # listed in full already to a caller that may search its folder.
            return self.level_of(definition) in levels and not (
                self._essential(definition) and self.may_find(principal, definition))

        definitions = [definition for definition in definitions if found_lists_in_full(definition, remembered)]
        added = [definition for definition in definitions if promoted.get(definition.name) != definition.origin
                 and found_lists_in_full(definition)]
        # Most recently found last, the best of this search the most recent of all: each search
        # added every strong hit for good, and 200 searches listed 500 tools in full (92,000
        # tokens), the full listing search-first is there to spare. Past ``promoted_max`` the
        # tool found longest ago leaves the listing.
        for definition in reversed(definitions):
            promoted.pop(definition.name, None)
            promoted[definition.name] = definition.origin
        dropped: list[str] = []
        while len(promoted) > self.settings.promoted_max:
            oldest = next(iter(promoted))
            dropped.append(oldest)
            del promoted[oldest]
        # The session is told only of a listing that changed: a tool added is one being found
        # lists in full (the filter above), a tool that left is checked as it stands now.
        current = self._catalog.current
        left = [entry.definition for name in dropped
                if (entry := current.tools.get(name) or current.personal.get(principal.id, {}).get(name)) is not None]
        if added or any(found_lists_in_full(definition) for definition in left):
            try:
                await session.send_tool_list_changed()
            except Exception:  # the caller still has the schemas in the search result
                logger.debug("list_changed after promotion failed", exc_info=True)

    # -- following the catalog ----------------------------------------------------------------

    def take_listing_change(self) -> Audience:
        """Whose listings the changes since the last call may show in: everyone's (a connected
        tool's), the callers' whose personal tools changed, the sessions that found a changed
        catalog tool, the callers that may search the folder of a changed catalog tool named
        ``essential``. None of them for a change only to catalog tools nobody found: telling
        every session would tell it when folders, or callers' tools, it cannot see change."""
        essentials = tuple(self._changed_essentials)

        def may_search_one(principal: Principal) -> bool:
            return any(self.may_find(principal, definition) for definition in essentials)

        audience = Audience(everyone=self._change_for_everyone, callers=frozenset(self._change_for_owners),
                            connections=frozenset(self._change_for_finders),
                            admits=may_search_one if essentials else None)
        self._change_for_everyone, self._change_for_owners = False, set()
        self._change_for_finders, self._changed_essentials = set(), []
        return audience

    def _note_whose_listings(self, catalog: Catalog, change: CatalogChange) -> None:
        for key in (*change.removed, *change.added, *change.changed):
            name, owner = split_key(key)
            if owner is not None:
                self._change_for_owners.add(owner)
                continue
            entry = catalog.by_key(key) if key not in change.removed else None
            was = self._catalog_keys.get(key)
            now = entry.definition if entry is not None and self.level_of(entry.definition) is Level.CATALOG else None
            if (was is None and key not in change.added) or (entry is not None and now is None):
                # A listed tool: it came, went or changed in a connected folder (or moved in or
                # out of one).
                self._change_for_everyone = True
                continue
            self._change_for_finders.update(session for session, found in self._promoted.items() if name in found)
            self._changed_essentials.extend(definition for definition in (was, now)
                                            if definition is not None and self._essential(definition))

    def _follow(self, catalog: Catalog, change: CatalogChange) -> None:
        self._note_whose_listings(catalog, change)
        for key in change.removed:
            self._catalog_keys.pop(key, None)
        for key in (*change.added, *change.changed):
            entry = catalog.by_key(key)
            if entry is not None and self.level_of(entry.definition) is Level.CATALOG:
                self._catalog_keys[key] = entry.definition
            else:
                self._catalog_keys.pop(key, None)
        if self._index_filled:  # not filled yet, the first search fills it from the catalog of its time
            self._follow_in_index(catalog, change)
        # A file moved to another folder is a change of the tool's key, not a removal.
        if (change.removed or change.changed) and self._promoted:
            self._forget_gone(catalog, {split_key(key)[0] for key in (*change.removed, *change.changed)})

    def _follow_in_index(self, catalog: Catalog, change: CatalogChange) -> None:
        """The index, one tool at a time: the change names tools by their ``Catalog.keyed`` keys,
        as the index keeps them."""
        for key in change.removed:
            self.index.remove(key)
        shown = self._shown_for(catalog)
        for key in (*change.added, *change.changed):
            entry = catalog.by_key(key)
            if entry is not None:
                self.index.put(shown(entry.definition), key)

    def _forget_gone(self, catalog: Catalog, names: set[str]) -> None:
        """Drops the promotions of tools no longer served from the file they were found in: a
        file put back (or another one in its place) is found again before it is listed."""
        def served(name: str, origin: str) -> bool:
            entries = [catalog.tools.get(name), *(mine.get(name) for mine in catalog.personal.values())]
            return any(entry is not None and entry.definition.origin == origin for entry in entries)

        for promoted in self._promoted.values():
            for name in names & promoted.keys():
                if not served(name, promoted[name]):
                    del promoted[name]

    def close(self) -> None:
        self._unsubscribe()


def _deferred_length(definition: ToolDefinition) -> int:
    """The length of a definition's JSON listed by its name and one line (``deferred``)."""
    return _listed_characters(deferred(definition))


def _listed_characters(definition: ToolDefinition) -> int:
    """The length of a definition's JSON in a ``tools/list`` answer."""
    # The MCP SDK loads with the first listing counted (a server's), not with the module:
    # `toolbay call` and `toolbay search` build a Disclosure but never list.
    from toolbay.protocol.listing import definition_to_tool

    return len(json.dumps(definition_to_tool(definition).model_dump(mode="json", by_alias=True, exclude_none=True)))
