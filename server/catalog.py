"""The catalog: which tools exist right now.

A ``Catalog`` is an immutable snapshot. Discovery builds a new one and the
``CatalogHolder`` swaps it in with one assignment, so a call that already looked up
its handler keeps using it while new calls see the new snapshot. The holder is the
only state shared between discovery and serving.

An entry is a handler, or a ``Deferred`` tool that makes its handler on first use: a warm
start of thousands of wasm tools lists them all but makes handlers only for those called.
``get`` and iteration hand out handlers; ``definitions`` lists without making any.

Names are unique. When two sources offer the same name, the one with the higher
precedence keeps it: first by realm (core: built-in and bundled tools, then shared: the
operator's folders, then personal: a caller's own folder), then a connected folder's before a
catalog folder's (which callers may not all search: the connected tool must not be hidden
with it), then by kind (built-in, wasm, python, agents); among equals, the first in
discovery order does. Either way a diagnostic
names both origins. Personal tools live apart, by owner: each caller sees and calls its own,
and one with the name of a core or shared tool gives way to it (is shadowed, with a diagnostic)
where its owner may know that tool: ``gives_way`` says so per call. Where the owner may not (a
catalog folder's tool outside its allowlist), its own tool is served: hiding it would tell the
owner that a tool it may not know of holds the name.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from toolbay.errors import DuplicateToolName
from toolbay.handlers.base import Handler
from toolbay.words import ToolDefinition

logger = logging.getLogger(__name__)

# A role's agent_NAME tool before a tool file's of that name: the prompt NAME names that tool as
# its own (its meta), and a module declaring agent_NAME took it over, the prompt and the tool
# then coming from two files.
SOURCE_PRECEDENCE = {"builtin": 0, "agent": 1, "wasm": 2, "python": 3}
REALM_PRECEDENCE = {"core": 0, "shared": 1, "personal": 2}
_PERSONAL_KEY = " (personal: "


def personal_key(name: str, owner: str) -> str:
    """The key of ``owner``'s personal tool ``name`` (tool names hold no spaces)."""
    return f"{name}{_PERSONAL_KEY}{owner})"


def split_key(key: str) -> tuple[str, str | None]:
    """(name, owner) of a ``Catalog.keyed`` key; the owner is None for a core or shared tool."""
    name, marked, rest = key.partition(_PERSONAL_KEY)
    return (name, rest[:-1]) if marked and rest.endswith(")") else (key, None)


def _precedence(entry: Entry, searched_only: Callable[[ToolDefinition], bool] | None = None) -> tuple[int, int, int]:
    definition = entry.definition
    # A connected folder's tool before a catalog folder's: an allowlist that hides the catalog
    # tool from a caller must not hide the connected tool of its name with it.
    searched = searched_only is not None and searched_only(definition)
    # A role's tool ranks as a core one: the prompt of its role names it as its own, and a tool
    # file of a higher realm (the bundled folder's, beside an operator's role) took it over.
    realm = "core" if definition.source == "agent" else definition.realm
    return REALM_PRECEDENCE.get(realm, 9), int(searched), SOURCE_PRECEDENCE.get(definition.source, 9)


# Whether a caller's own tool gives way to the core or shared tool of its name (the argument);
# None: always (a caller that may know every tool).
GivesWay = Callable[[ToolDefinition], bool] | None


def _shadowed(name: str, kept: ToolDefinition, hidden: ToolDefinition) -> str:
    # Conditional, not a finding: an owner who may not find that one (a catalog folder it may
    # not search) still gets its own tool.
    where = (", for its owner only while the owner may find that one (otherwise it is served)"
             if hidden.realm == "personal" else "")
    why = ("a role file's tool wins over a tool file's: its prompt names it" if kept.source == "agent"
           and hidden.source != "agent" else "core names win over shared ones, shared over personal")
    return (f"shadowing: the {hidden.realm} tool {name!r} from {hidden.origin} is hidden by the {kept.realm} tool "
            f"of that name from {kept.origin}{where} ({why})")


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file that offers no tools, and why. ``offers_nothing``: it was read whole and declares
    no tool (a helper module, a module whose ``get_tool_schemas()`` returns none): what its
    author meant, not a broken save, so a previous version's tools are not kept for it."""

    path: str
    reason: str
    offers_nothing: bool = False


@dataclass(frozen=True, slots=True)
class CatalogChange:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def summary(self) -> str:
        if self.empty:
            return "no change"
        parts = []
        for label, names in (("added", self.added), ("removed", self.removed), ("changed", self.changed)):
            if names:
                parts.append(f"{label}: {', '.join(names)}")
        return "; ".join(parts)


class Deferred(Protocol):
    """A tool whose handler is made when it is first looked up."""

    @property
    def definition(self) -> ToolDefinition: ...

    def handler(self) -> Handler:
        """The tool's handler, made on the first call and the same one after."""

    async def close(self) -> None:
        """Closes the handler, if it was made (see ``Handler.close``)."""


Entry = Handler | Deferred


@dataclass(frozen=True)
class Catalog:
    tools: Mapping[str, Entry] = field(default_factory=dict)
    skipped: tuple[SkippedFile, ...] = ()
    diagnostics: tuple[str, ...] = ()
    # Personal tools, by owner then name (see the module's docstring).
    personal: Mapping[str, Mapping[str, Entry]] = field(default_factory=dict)
    # The core and shared tools' names that some caller's personal tool has too.
    shared_names_owned: frozenset[str] = frozenset()
    # The handlers ``get`` has handed out, by name: one dict lookup a call once made.
    _handlers: dict[str, Handler] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(
        cls,
        handlers: Iterable[Entry],
        skipped: Iterable[SkippedFile] = (),
        searched_only: Callable[[ToolDefinition], bool] | None = None,
    ) -> Catalog:
        """``searched_only``: whether a tool is in a catalog folder (found only by search)."""
        # Python's sort is stable: among equal precedence, discovery order stays.
        ordered = sorted(handlers, key=lambda entry: _precedence(entry, searched_only))
        tools: dict[str, Entry] = {}
        personal: dict[str, dict[str, Entry]] = {}
        diagnostics: list[str] = []
        for handler in ordered:
            definition = handler.definition
            name = definition.name
            owner = definition.owner if definition.realm == "personal" else None
            kept = tools.get(name) if owner is None else personal.get(owner, {}).get(name)
            if kept is not None:
                if kept.definition.realm != definition.realm:
                    message = _shadowed(name, kept.definition, definition)
                else:
                    message = str(DuplicateToolName(name, kept.definition.origin, definition.origin))
                diagnostics.append(message)
                _warn_once(message)
                continue
            if owner is None:
                tools[name] = handler
                continue
            # Kept even under a core or shared tool's name: whether it gives way is per caller.
            personal.setdefault(owner, {})[name] = handler
            if (shared := tools.get(name)) is not None:
                message = _shadowed(name, shared.definition, definition)
                diagnostics.append(message)
                _warn_once(message)
        sorted_tools = dict(sorted(tools.items()))
        own = {owner: MappingProxyType(dict(sorted(mine.items()))) for owner, mine in personal.items()}
        return cls(tools=MappingProxyType(sorted_tools), skipped=tuple(skipped), diagnostics=tuple(diagnostics),
                   personal=MappingProxyType(own),
                   shared_names_owned=frozenset(n for mine in own.values() for n in mine if n in sorted_tools))

    def get(self, name: str) -> Handler | None:
        handler = self._handlers.get(name)
        if handler is None:
            entry = self.tools.get(name)
            if entry is None:
                return None
            handler = self._handlers[name] = entry if isinstance(entry, Handler) else entry.handler()
        return handler

    def get_for(self, name: str, caller: str | None, gives_way: GivesWay = None) -> Handler | None:
        """The tool ``name`` as ``caller`` sees it: a core or shared one, else its own (also
        in place of a core or shared one it does not give way to)."""
        own = self.personal.get(caller, {}).get(name) if caller is not None and self.personal else None
        if own is None or ((shared := self.tools.get(name)) is not None
                           and (gives_way is None or gives_way(shared.definition))):
            return self.get(name)
        return own if isinstance(own, Handler) else own.handler()

    def served_to_owner(self, entry: Entry, gives_way: GivesWay = None) -> bool:
        """Whether ``entry`` is the tool its owner (every caller, for a core or shared one) is
        served under its name."""
        definition = entry.definition
        if definition.realm != "personal" or definition.owner is None:
            return self.tools.get(definition.name) is entry
        if self.personal.get(definition.owner, {}).get(definition.name) is not entry:
            return False
        shared = self.tools.get(definition.name)
        return shared is None or (gives_way is not None and not gives_way(shared.definition))

    def definitions_for(self, caller: str | None, gives_way: GivesWay = None) -> list[ToolDefinition]:
        """What ``caller`` may see: the core and shared tools and its own, name-sorted."""
        own = self.personal.get(caller, {}) if caller is not None else {}
        if not own:
            return self.definitions()
        merged = {name: entry.definition for name, entry in self.tools.items()}
        for name, entry in own.items():
            shared = merged.get(name)
            if shared is None or (gives_way is not None and not gives_way(shared)):
                merged[name] = entry.definition
        return [merged[name] for name in sorted(merged)]

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> Iterator[Handler]:
        """The handlers, name-sorted (deferred ones are made: see ``definitions``)."""
        for name in self.tools:
            handler = self.get(name)
            assert handler is not None
            yield handler

    def definitions(self) -> list[ToolDefinition]:
        """What each tool is, name-sorted, without making any handler."""
        return [entry.definition for entry in self.tools.values()]

    def entries(self) -> Iterable[Entry]:
        """The handlers and deferred tools as they are (to close them)."""
        return [*self.tools.values(), *(e for mine in self.personal.values() for e in mine.values())]

    def names(self) -> list[str]:
        return list(self.tools)

    def keyed(self) -> Mapping[str, Entry]:
        """Every tool under a key of its own: a core or shared tool's name, or a personal
        tool's ``personal_key`` (two callers' personal tools may share a name)."""
        if not self.personal:
            return self.tools
        keyed = dict(self.tools)
        for owner, mine in self.personal.items():
            keyed.update({personal_key(name, owner): entry for name, entry in mine.items()})
        return keyed

    def by_key(self, key: str) -> Entry | None:
        """The tool ``keyed`` holds under ``key``, without building the mapping."""
        entry = self.tools.get(key)
        if entry is None and self.personal:
            name, owner = split_key(key)
            if owner is not None:
                entry = self.personal.get(owner, {}).get(name)
        return entry

    def outline(self, earlier: Catalog | None = None) -> Catalog:
        """This catalog with each tool's definition alone, no handler: what a session saw, kept
        to be compared with a later catalog (``diff``) without keeping the tools' modules. The
        tools of ``earlier`` (an outline too) whose definitions are these keep their outlines:
        sessions that saw successive catalogs share all but what changed."""
        def outlined(mine: Mapping[str, Entry], before: Mapping[str, Entry]) -> Mapping[str, Entry]:
            return MappingProxyType({name: kept if (kept := before.get(name)) is not None
                                     and kept.definition is entry.definition else _Outline(entry.definition)
                                     for name, entry in mine.items()})

        tools = outlined(self.tools, earlier.tools if earlier is not None else {})
        personal = {owner: outlined(mine, earlier.personal.get(owner, {}) if earlier is not None else {})
                    for owner, mine in self.personal.items()}
        return Catalog(tools=tools, personal=MappingProxyType(personal), shared_names_owned=self.shared_names_owned)

    def diff(self, newer: Catalog) -> CatalogChange:
        """What a client would see change. A tool whose file changed but whose definition did
        not (a function's body edited, a file's bytes restored, a custom section added) is no
        change: its new version serves the next call all the same, and clients were told the
        list had changed when it had not."""
        old, new = self.keyed(), newer.keyed()
        return CatalogChange(
            added=tuple(sorted(set(new) - set(old))),
            removed=tuple(sorted(set(old) - set(new))),
            changed=tuple(sorted(n for n in set(old) & set(new)
                                 if old[n] is not new[n] and old[n].definition is not new[n].definition
                                 and not _listed_alike(old[n].definition, new[n].definition))),
        )


@dataclass(frozen=True, slots=True)
class _Outline:
    """A tool of ``Catalog.outline``: its definition, nothing to run."""

    definition: ToolDefinition

    def handler(self) -> Handler:
        raise LookupError(f"{self.definition.name} is an outline: it has no handler")

    async def close(self) -> None:
        return None


def _listed_alike(one: ToolDefinition, other: ToolDefinition) -> bool:
    """Whether clients are shown the two alike: equal, and their schemas written the same (for
    Python ``1 == True == 1.0``, and an enum of ``[1]`` became ``[true]`` unannounced)."""
    if one != other:
        return False
    written = (json.dumps(one.input_schema, default=str), json.dumps(one.output_schema, default=str))
    return written == (json.dumps(other.input_schema, default=str), json.dumps(other.output_schema, default=str))


Listener = Callable[[Catalog, CatalogChange], None]


class CatalogHolder:
    """Holds the current snapshot and tells listeners when it is replaced."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        self._current = catalog or Catalog()
        self._listeners: list[Listener] = []

    @property
    def current(self) -> Catalog:
        return self._current

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def swap(self, catalog: Catalog, change: CatalogChange | None = None) -> CatalogChange:
        """``change``: the current catalog's ``diff`` to ``catalog``, if worked out already (off
        the event loop: it compares every tool of a changed file, their schemas written out)."""
        change = self._current.diff(catalog) if change is None else change
        self._current = catalog
        if not change.empty:
            for listener in list(self._listeners):
                try:
                    listener(catalog, change)
                except Exception:  # a listener's fault must not stop the swap or the others
                    logger.exception("catalog listener failed")
        return change


# Clashes already said at warning: a catalog is built again at every reload, and a clash that
# stays said itself again each time (at debug from the second time). Bounded: past it, all
# are said again, as a new server would.
_SAID: set[str] = set()
_SAID_AT_MOST = 1000


def _warn_once(message: str) -> None:
    if message in _SAID:
        logger.debug("%s", message)
        return
    if len(_SAID) >= _SAID_AT_MOST:
        _SAID.clear()
    _SAID.add(message)
    logger.warning("%s", message)
