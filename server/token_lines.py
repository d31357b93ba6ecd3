"""What ``toolbay token new`` reads of the configuration: the named scopes it defines (a scope
that is neither these nor built in grants nothing, and is noted)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbay.config import read_toml
from toolbay.defaults import DEFAULT_CONFIG_NAME
from toolbay.small_files import read_small_file


@dataclass(frozen=True)
class Configuration:
    """The configuration file a server started here would read (None: none), as TOML text and as data."""

    path: Path | None
    text: str
    data: dict[str, Any]

    def defined_scopes(self) -> list[str]:
        """The scopes ``[chain.access.scopes]`` defines."""
        scopes = _table(self.data, "chain", "access", "scopes")
        return list(scopes) if scopes is not None else []


def configuration(config: Path | None) -> Configuration:
    """``--config``'s file, or ./toolbay.toml where there is one, as every command reads it; raises
    ``ConfigError`` (one line) when it cannot be read or is not TOML."""
    path = config if config is not None or not os.path.lexists(DEFAULT_CONFIG_NAME) else Path(DEFAULT_CONFIG_NAME)
    if path is None:
        return Configuration(None, "", {})
    data = read_toml(path)  # its paths made absolute, as the server reads them; its errors said in one line
    return Configuration(path, read_small_file(path).decode("utf-8-sig"), data)


def _table(data: dict[str, Any], *keys: str) -> dict[str, Any] | None:
    for key in keys:
        value = data.get(key)
        if not isinstance(value, dict):
            return None
        data = value
    return data
