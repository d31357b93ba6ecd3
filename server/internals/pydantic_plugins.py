"""pydantic's plugin look-up skipped where no installed package can declare a plugin.

The first validator pydantic builds (the settings', typer's reading of an option) imports
``pydantic.plugin._loader``, which imports ``importlib.metadata`` (the ``email`` package,
``zipfile``) and reads the entry points of every installed package for the ``pydantic`` group:
30-40 ms of processor time in every ``toolbay`` command, which finds no plugin where no package
declares one. ``find_no_plugins_where_none_is_declared`` puts a finder first on ``sys.meta_path``
that, when that module is first imported, looks (a listing of each folder on ``sys.path`` and the
``entry_points.txt`` files in it, about a millisecond) whether any package could declare one;
where none can, the module it gives finds none, as pydantic's own would; else pydantic's own is
imported. Nothing of pydantic is imported here: a command that builds no validator pays nothing.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import ModuleSpec, PathFinder

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see toolbay.helptext.records)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from types import ModuleType
    from typing import Any

# pydantic's module that looks its plugins up; the entry point group it reads.
PLUGIN_LOADER = "pydantic.plugin._loader"
_PLUGIN_GROUP = "pydantic"


def find_no_plugins_where_none_is_declared() -> None:
    """From now on in this process (a ``toolbay`` command's own), pydantic's plugin module is
    one that finds none if, when it is first imported, no installed package can declare one."""
    if PLUGIN_LOADER not in sys.modules and not any(isinstance(f, _NoPlugins) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPlugins())


def _no_plugins() -> Iterable[Any]:
    # What pydantic's ``get_plugins`` returns when no entry point is in its group.
    return ()


class _NoPlugins:
    """Finds pydantic's plugin module, once: one that finds no plugin, where none can be declared."""

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None,
                  ) -> ModuleSpec | None:
        if name != PLUGIN_LOADER:
            return None
        sys.meta_path.remove(self)
        # A loader by its two methods (importlib.abc.Loader, not imported for it, would be a base class).
        return None if plugins_may_be_declared() else ModuleSpec(name, self)  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # Python's default module

    def exec_module(self, module: ModuleType) -> None:
        # The names of pydantic's module that pydantic and its plugins' authors use.
        module.__dict__.update(PYDANTIC_ENTRY_POINT_GROUP=_PLUGIN_GROUP, _plugins={}, _loading_plugins=False,
                               get_plugins=_no_plugins)


def plugins_may_be_declared() -> bool:
    """Whether ``importlib.metadata`` could find an entry point of pydantic's group: an
    ``entry_points.txt`` that mentions pydantic in a package's metadata in a folder on
    ``sys.path``, or packages found otherwise (a zip, an egg, a finder of distributions of its
    own), which are not looked into: pydantic's own module looks then."""
    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and finder is not PathFinder:
            return True
    for entry in sys.path:
        folder = entry or "."
        if folder.lower().endswith(".egg") or os.path.isfile(folder):
            return True
        try:
            names = os.listdir(folder)
        except OSError:
            continue  # a path that is not there, which importlib.metadata skips too
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(folder, name, "entry_points.txt"), "rb") as declared:
                        if _PLUGIN_GROUP.encode() in declared.read():
                            return True
                except OSError:
                    continue  # no entry points (or an egg-info file, which has none)
    return False
