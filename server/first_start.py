"""A first start's compiles, begun before the server is put together (``toolbay.wasm.early``).

On a first start (nothing described, nothing compiled in the data folder) every WebAssembly
tool in the extension folders is compiled before its help can be read. ``serve`` hands them
to ``EarlyCompiles`` as soon as it has forked, so they (the largest, up to its budget)
compile while the server's modules load; its runtime then takes them. Any other start
compiles little or nothing, and what it does compile is left to the runtime, so no work is
done that might be thrown away.

Reading the settings takes a tenth of a second of its own (pydantic-settings and the
configuration's models load first), an eighth of a first start on the bundled tools. Where
nothing but the command line can change what the compiles depend on (no configuration file,
no ``TOOLBAY_`` variable of those settings), the entry point forks and begins them at
once, from the command line and the defaults (``guess_before_settings``, ``EarlyStart.begin``);
``compile_early`` then checks that guess against the settings read and keeps the compiles
only if it held.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolbay.defaults import (
    BUNDLED_EXTENSIONS,
    DEFAULT_CONFIG_NAME,
    DESCRIPTION_INDEX_NAME,
    ENV_PREFIX,
    MAX_CONCURRENT_CALLS,
    default_data_dir,
    distinct_folders,
)
from toolbay.errors import ConfigError
from toolbay.wasm.compilers import baseline_compiler, baseline_options
from toolbay.wasm.early import EarlyCompiles

if TYPE_CHECKING:
    from toolbay.config import Settings

log = logging.getLogger(__name__)

# Settings (and sections) an early start depends on: a variable naming one, in any case as
# pydantic-settings reads them, leaves the start to wait for the settings.
_SETTINGS_IT_ASSUMES = ("TRANSPORT", "DATA_DIR", "EXTENSIONS", "DISCOVERY", "SANDBOX", "JOBS")


def runtime_sizing(settings: Settings) -> tuple[bool, int]:
    """(consume_fuel, max_workers) of the server's WebAssembly runtime. The job manager decides
    how many calls run at once; a guest that sleeps still holds a worker thread, so the runtime
    must have one per call the manager lets run, or long jobs starve every other call."""
    return settings.sandbox.fuel is not None, _workers_for(settings.jobs.max_concurrent)


def _workers_for(max_concurrent: int) -> int:
    return max(max_concurrent, os.cpu_count() or 1)


def _default_sizing() -> tuple[bool, int]:
    """``runtime_sizing`` of the default settings: no fuel, the default calls at once."""
    return False, _workers_for(MAX_CONCURRENT_CALLS)


def is_first_start(data_dir: Path) -> bool:
    """Nothing described (``descriptions/``) and nothing compiled (``modules/``) in ``data_dir``."""
    if (data_dir / "descriptions" / DESCRIPTION_INDEX_NAME).exists():
        return False
    modules = data_dir / "modules"
    return not (modules.is_dir() and any(modules.glob("*.cwasm")))


@dataclass(frozen=True, slots=True)
class EarlyStart:
    """What a ``serve`` took its settings to be before it read them, and the compiles it began
    on that guess (None before ``begin``, or where it was no first start): ``compile_early``
    keeps them if the guess held."""

    data_dir: Path
    extensions: tuple[Path, ...]
    compiler_options: tuple[object, ...]
    compiles: EarlyCompiles | None

    def holds_for(self, settings: Settings) -> bool:
        """The settings read are those the start assumed: the same folders, the baseline
        compiler on with the same options, and a stdio server that forks (it forked already)."""
        from toolbay.config import extension_folders_now  # loaded with the settings, after the guess

        return (
            settings.discovery.quick_compile
            and settings.transport == "stdio" and settings.jobs.drain_s > 0
            and settings.data_dir.resolve() == self.data_dir.resolve()
            # As written: the runtime takes a module by the path its folder's scan gives it.
            and tuple(extension_folders_now(settings)) == self.extensions
            and baseline_options(*runtime_sizing(settings)) == self.compiler_options
        )

    def begin(self) -> EarlyStart:
        """This guess with its compiles begun, on a first start (see ``compile_early``). The
        caller forks first, if it does: the compiles run on a thread."""
        try:
            if not is_first_start(self.data_dir):
                return self
            compiles = _compiles(list(self.extensions), *_default_sizing())
        except OSError:
            # A folder that cannot be read (permissions): the settings, read next, say so.
            return self
        return EarlyStart(self.data_dir, self.extensions, self.compiler_options, compiles)


def guess_before_settings(options: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> EarlyStart | None:
    """What the settings of a ``serve`` run with ``options`` (``serve``'s keyword arguments,
    as read from its command line) will be, as far as the early compiles depend on them;
    None where a configuration file or the environment may change them. No compiles yet."""
    if options.get("config") is not None or os.path.lexists(DEFAULT_CONFIG_NAME):
        return None
    if options.get("transport", "stdio") != "stdio":
        return None
    assumed = tuple(ENV_PREFIX + name for name in _SETTINGS_IT_ASSUMES)
    if any(variable.upper().startswith(assumed) for variable in environ):
        return None
    try:
        data_dir = Path(os.path.expanduser(options["data_dir"])) if options.get("data_dir") else default_data_dir()
    except ConfigError:
        return None  # no home folder: the settings say so
    folders = distinct_folders([Path(os.path.expanduser(folder))
                                for folder in options.get("extensions") or [BUNDLED_EXTENSIONS]])
    return EarlyStart(data_dir=data_dir, extensions=tuple(folders),
                      compiler_options=baseline_options(*_default_sizing()), compiles=None)


def compile_early(settings: Settings, started: EarlyStart | None = None) -> EarlyCompiles | None:
    """The extension folders' modules compiling on a thread, on a first start with the baseline
    compiler on (``[discovery] quick_compile``); None otherwise. ``started``: the compiles
    begun before the settings were read, kept if their guess holds for ``settings``, else let go."""
    if started is not None:
        if started.holds_for(settings):
            log.debug("the settings are as guessed before they were read: %s", "the compiles begun then go on"
                      if started.compiles is not None else "no first start")
            return started.compiles
        log.debug("the settings are not as guessed before they were read; compiling again")
        if started.compiles is not None:
            started.compiles.drop()
    if not settings.discovery.quick_compile or not is_first_start(settings.data_dir):
        return None
    from toolbay.config import extension_folders_now

    consume_fuel, max_workers = runtime_sizing(settings)
    return _compiles(extension_folders_now(settings), consume_fuel, max_workers)


def _compiles(folders: list[Path], consume_fuel: bool, max_workers: int) -> EarlyCompiles | None:
    # EarlyCompiles chooses among them and orders them (largest first).
    paths = [path for folder in folders if folder.is_dir() for path in folder.glob("*.wasm") if path.is_file()]
    if not paths:
        return None
    bundled = BUNDLED_EXTENSIONS.resolve()
    return EarlyCompiles(baseline_compiler(consume_fuel, max_workers), paths,
                         first=[path for path in paths if path.parent.resolve() == bundled])
