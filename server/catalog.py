"""The catalog: which tools exist right now.

A ``Catalog`` is an immutable snapshot. Discovery builds a new one and the
``CatalogHolder`` swaps it in with one assignment, so a call that already looked up
its handler keeps using it while new calls see the new snapshot. The holder is the
only state shared between discovery and serving.

An entry is a handler, or a ``Deferred`` tool that makes its handler on first use: a warm
start of thousands of wasm tools lists them all but makes handlers only for those called.
``get`` and iteration hand out handlers; ``definitions`` lists without making any.

Names are unique. When two sources offer the same name, the one with the higher
precedence (built-in first, then wasm, python, agents) keeps it; among equals, the
first in discovery order does. Either way a diagnostic names both origins.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from toolbay.errors import DuplicateToolName
from toolbay.handlers.base import Handler
from toolbay.words import ToolDefinition

logger = logging.getLogger(__name__)

SOURCE_PRECEDENCE = {"builtin": 0, "wasm": 1, "python": 2, "agent": 3}


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file that offers no tools, and why."""

    path: str
    reason: str


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
    # The handlers ``get`` has handed out, by name: one dict lookup a call once made.
    _handlers: dict[str, Handler] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(
        cls,
        handlers: Iterable[Entry],
        skipped: Iterable[SkippedFile] = (),
    ) -> Catalog:
        # Python's sort is stable: among equal precedence, discovery order stays.
        ordered = sorted(handlers, key=lambda handler: SOURCE_PRECEDENCE.get(handler.definition.source, 9))
        tools: dict[str, Entry] = {}
        diagnostics: list[str] = []
        for handler in ordered:
            name = handler.definition.name
            kept = tools.get(name)
            if kept is not None:
                message = str(DuplicateToolName(name, kept.definition.origin, handler.definition.origin))
                diagnostics.append(message)
                logger.warning("%s", message)
                continue
            tools[name] = handler
        sorted_tools = dict(sorted(tools.items()))
        return cls(tools=MappingProxyType(sorted_tools), skipped=tuple(skipped), diagnostics=tuple(diagnostics))

    def get(self, name: str) -> Handler | None:
        handler = self._handlers.get(name)
        if handler is None:
            entry = self.tools.get(name)
            if entry is None:
                return None
            handler = self._handlers[name] = entry if isinstance(entry, Handler) else entry.handler()
        return handler

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
        return self.tools.values()

    def names(self) -> list[str]:
        return list(self.tools)

    def diff(self, newer: Catalog) -> CatalogChange:
        old, new = self.tools, newer.tools
        return CatalogChange(
            added=tuple(sorted(set(new) - set(old))),
            removed=tuple(sorted(set(old) - set(new))),
            changed=tuple(sorted(n for n in set(old) & set(new) if old[n] is not new[n])),
        )


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

    def swap(self, catalog: Catalog) -> CatalogChange:
        change = self._current.diff(catalog)
        self._current = catalog
        if not change.empty:
            for listener in list(self._listeners):
                try:
                    listener(catalog, change)
                except Exception:  # a listener's fault must not stop the swap or the others
                    logger.exception("catalog listener failed")
        return change
