"""Which extension folder a tool's file is in: the innermost of the folders that holds it (a
folder may be named inside another, an extension folder inside a catalog folder).

The catalog gives a name to a connected folder's tool before a catalog folder's
(``toolbay.catalog``), and disclosure lists, hides and searches tools by their folder
(``toolbay.protocol.disclosure``): both ask here.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from toolbay.words import ToolDefinition

# Origins that name a file ("wasm:PATH", "python:PATH"); built-ins and roles name none.
_FILE_ORIGINS = frozenset({"wasm", "python"})

# A folder as tools' files are matched against it: (absolute path, name).
Folder = tuple[str, str]


def folders(paths: Sequence[Path]) -> list[Folder]:
    """(absolute path, name) of each folder, as tools' files are matched against them."""
    return [(os.path.abspath(folder), Path(folder).name) for folder in paths]


def file_of(definition: ToolDefinition) -> str | None:
    """The file a tool comes from (``wasm:PATH``, ``python:PATH``), or None for built-ins."""
    kind, _, path = definition.origin.partition(":")
    return os.path.abspath(path) if kind in _FILE_ORIGINS and path else None


def file_gone(definition: ToolDefinition) -> bool:
    """Whether the file the tool comes from has been removed. The watcher takes a removed file
    out of the catalog a moment later (its changes settle first); until then a call or a search
    would still find the tool, and a call would run it (an outside check deleted a tool and
    called it at once). One ``stat``: cheap enough for every call."""
    path = file_of(definition)
    return path is not None and not os.path.exists(path)


class RemovedFiles:
    """Which tools' files have been removed, for a listing: the watcher takes a removed file's
    tools out a moment later (its changes settle first), and a client that listed meanwhile was
    shown them (an outside check: for about 0.3 s), then failed to call them. A ``stat`` per
    file at every listing is a millisecond a thousand files; this one is a ``stat`` per folder,
    whose names are read again only when the folder has changed since (its mtime). A removal in
    the same tick of the file system's clock as the last read goes unseen here: the watcher's
    rescan takes it out, as it did every removal before."""

    def __init__(self) -> None:
        self._names: dict[str, tuple[int, frozenset[str]]] = {}  # folder: (its mtime, the names in it)

    def without_removed(self, definitions: list[ToolDefinition]) -> list[ToolDefinition]:
        """``definitions`` less those whose file is gone."""
        present: dict[str, frozenset[str]] = {}
        there: dict[str, bool] = {}  # by origin: a file serves many tools
        kept = []
        for definition in definitions:
            origin = definition.origin
            if origin not in there:
                place = _folder_and_name(origin)
                if place is None:
                    there[origin] = True
                else:
                    folder, name = place
                    if folder not in present:
                        present[folder] = self._names_in(folder)
                    there[origin] = name in present[folder]
            if there[origin]:
                kept.append(definition)
        return kept

    def _names_in(self, folder: str) -> frozenset[str]:
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:  # the folder itself is gone
            return frozenset()
        known = self._names.get(folder)
        if known is not None and known[0] == mtime:
            return known[1]
        try:
            names = frozenset(os.listdir(folder))
        except OSError:
            return frozenset()
        self._names[folder] = (mtime, names)
        return names


@functools.lru_cache(maxsize=1 << 16)
def _folder_and_name(origin: str) -> tuple[str, str] | None:
    """The folder and name of the file an origin names (``file_of``), kept: a listing asks it
    of every tool."""
    kind, _, path = origin.partition(":")
    return os.path.split(os.path.abspath(path)) if kind in _FILE_ORIGINS and path else None


def folder_of(definition: ToolDefinition, among: list[Folder]) -> Folder | None:
    """The innermost of ``among`` the tool's file is in."""
    path = file_of(definition) if among else None
    if path is None:
        return None
    holding = [folder for folder in among if path.startswith(folder[0] + os.sep)]
    return max(holding, key=lambda folder: len(folder[0]), default=None)


def in_catalog_folders(catalog: Sequence[Path], extensions: Sequence[Path]) -> Callable[[ToolDefinition], bool]:
    """Whether a tool's file is in one of the ``catalog`` folders (found only by search) rather
    than in a connected one of ``extensions`` inside it."""
    searched = folders(catalog)
    if not searched:
        return lambda definition: False
    searched_paths = {path for path, _ in searched}
    every = [*(folder for folder in folders(extensions) if folder[0] not in searched_paths), *searched]
    searched_set = frozenset(searched)
    return lambda definition: folder_of(definition, every) in searched_set
