"""Defaults a server needs before its settings are read: where the bundled tool and role
folders and the data folder are, the configuration file's name, the environment's prefix, and
how many calls run at once.

Apart from ``toolbay.config`` (which imports pydantic, a tenth of a second) so that ``serve``
can begin a first start's compiles before it reads the settings (``toolbay.first_start``).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Collection
from pathlib import Path

from toolbay.errors import ConfigError


def _bundled_folder(package: str) -> Path:
    """Where a folder installed as ``toolbay.<name>`` is: inside the package in a wheel, the
    repository's top-level folder in a checkout (pyproject maps one onto the other)."""
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parent.parent / package.rpartition(".")[2]


BUNDLED_EXTENSIONS = _bundled_folder("toolbay.extensions")
BUNDLED_AGENTS = _bundled_folder("toolbay.agents")
DEFAULT_CONFIG_NAME = "toolbay.toml"
# The description cache's index (``toolbay.description_cache``), whose absence is a first start:
# named here so that telling one begins no import of that module and what it loads (tempfile,
# shutil and the compression modules: 5 to 24 ms before a first start's compiles could begin).
DESCRIPTION_INDEX_NAME = "index"
ENV_PREFIX = "TOOLBAY_"
# [jobs] max_concurrent: calls that run at once (the runtime's worker threads follow it).
MAX_CONCURRENT_CALLS = 8


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/toolbay``, else ``~/.local/share/toolbay``. A relative XDG_DATA_HOME is
    ignored, as the XDG specification asks ("~/xdg" made a folder named "~" where the server
    started)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if os.path.isabs(base):
        return Path(base) / "toolbay"
    try:
        return Path.home() / ".local" / "share" / "toolbay"
    except RuntimeError:  # no HOME, and no entry for this user in the password database
        raise ConfigError("there is no home folder to keep the data folder in (HOME is not set): name one with "
                          "--data-dir (or data_dir in the configuration)") from None


def distinct_folders(folders: list[Path], prefer: Collection[str] = ()) -> list[Path]:
    """``folders`` with each folder once, where first named: "extensions" and "./extensions/" (or
    a link to it) are one folder, whose files were compiled, described and warned of twice. It
    keeps its first name, or its first name among ``prefer`` (absolute paths), if it has one."""
    kept: dict[str, Path] = {}
    for folder in folders:
        key = os.path.realpath(folder)
        if key not in kept or (os.path.abspath(folder) in prefer and os.path.abspath(kept[key]) not in prefer):
            kept[key] = folder  # in the place of the folder's first name
    return list(kept.values())


def install_extra(extra: str) -> str:
    """How to install toolbay's optional ``extra``: in a checkout (uv, which has no pip in its
    environment), and where toolbay was installed from its wheel."""
    return (f"uv sync --extra {extra} in a checkout (or uv run --extra {extra} toolbay ...); from a wheel, "
            f"uvx --from 'toolbay-<version>-py3-none-any.whl[{extra}]' toolbay ..., or pip install of the same "
            f"where it was installed with pip")
