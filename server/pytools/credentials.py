"""Credentials for tools: secrets kept out of tool code, listings, results, logs and the audit.

A credential is a name with keys (``api_key`` by default) and the tool-name patterns it is
granted to. Its values come from, first found: the configuration (``[credentials.NAME]``),
then the credentials file (TOML, ``[NAME]`` tables; refused when group- or world-readable,
and never inside a tool folder), then the server's environment (``env_var``, else
``NAME_KEY`` in capitals). A tool not granted a credential gets nothing, whatever is set.
The same store gives wasm tools their environment variables (``env = {VAR = "key"}``).
"""

from __future__ import annotations

import difflib
import logging
import os
import stat
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from toolbay.errors import ConfigError

logger = logging.getLogger(__name__)
_RESERVED = frozenset({"tools", "env"})


@dataclass(frozen=True, slots=True)
class Credential:
    name: str
    tools: tuple[str, ...]
    values: Mapping[str, str] = field(default_factory=dict)
    # Environment variable -> key, given to the granted wasm and Python tools.
    env: Mapping[str, str] = field(default_factory=dict)

    def granted_to(self, tool: str) -> bool:
        return any(fnmatchcase(tool, pattern) for pattern in self.tools)


class CredentialStore:
    def __init__(self, credentials: Sequence[Credential] = (),
                 file_values: Mapping[str, Mapping[str, str]] | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self.credentials = {c.name: c for c in credentials}
        self._file = {k: dict(v) for k, v in (file_values or {}).items()}
        self._environ = os.environ if environ is None else environ
        self._handed: set[str] = set()  # every value given to a tool, wherever it was read
        # What ``from_settings`` found useless in the configuration (``problems``): logged at
        # start, and among ``toolbay list``'s diagnostics, which show no log.
        self.warnings: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, table: Mapping[str, Any], credentials_file: Path | None,
                      tool_folders: Sequence[Path] = ()) -> CredentialStore:
        credentials = []
        for name, entry in table.items():
            if not isinstance(entry, Mapping):
                raise ConfigError(f"credentials.{name}: expected a table with 'tools' and the secret's keys")
            tools = entry.get("tools", [])
            if isinstance(tools, str):
                tools = [tools]
            env = entry.get("env", {})
            if not isinstance(tools, list) or not isinstance(env, Mapping):
                raise ConfigError(f"credentials.{name}: 'tools' must be a list of name patterns, 'env' a table")
            values = {k: str(v) for k, v in entry.items() if k not in _RESERVED}
            variables = {str(k): str(v) for k, v in env.items()}
            credentials.append(Credential(name, tuple(map(str, tools)), values, variables))
        file_values = read_credentials_file(credentials_file, tool_folders) if credentials_file else {}
        store = cls(credentials, file_values)
        store.warnings = tuple(store.problems(table))
        for problem in store.warnings:
            logger.warning("%s", problem)
        return store

    def problems(self, table: Mapping[str, Any]) -> list[str]:
        """What makes a credential useless as configured, said at start: granted to no tool (no
        ``tools``, or a misspelt ``tool``), or an ``env`` variable naming a key that has no value
        anywhere. Each gave nothing, with nothing said, until a tool missed it."""
        said = []
        for credential in self.credentials.values():
            if not credential.tools:
                # Not "tools" itself, given as an empty list (a re-check: "did you mean 'tools'?").
                close = difflib.get_close_matches(
                    "tools", [str(key) for key in table.get(credential.name, {}) if key != "tools"], n=1)
                hint = f" ({close[0]!r} is read as a secret's key: did you mean 'tools'?)" if close else ""
                said.append(f"credentials.{credential.name} names no tools, so no tool is granted it{hint}")
            for variable, key in credential.env.items():
                # Where ``env_for`` looks: the key's value, else the server's own variable of that name.
                if not credential.values.get(key) and not self._file.get(credential.name, {}).get(key) \
                        and not self._environ.get(variable):
                    said.append(f"credentials.{credential.name}: env {variable} names the key {key!r}, which has no "
                                f"value (keys given: {', '.join(sorted(credential.values)) or 'none'}; nor is "
                                f"{variable} set for the server)")
        return said

    def granted_to_none_of(self, tools: Iterable[str]) -> list[str]:
        """What to say of each credential whose tool patterns match none of ``tools`` (the served
        tools of files, the only ones handed credentials): a misspelt pattern gave its tool
        nothing, and nothing said so."""
        names = list(tools)
        return [f"credentials.{credential.name}: its tools {list(credential.tools)!r} match no tool served, so no "
                "tool is granted it" for credential in self.credentials.values()
                if credential.tools and not any(credential.granted_to(name) for name in names)]

    def lookup(self, tool: str, name: str, key: str = "api_key", env_var: str | None = None) -> tuple[str | None, str]:
        """``(value, "")``, or ``(None, what to set)``."""
        credential = self.credentials.get(name)
        if credential is None or not credential.granted_to(tool):
            return None, (f"the credential {name!r} is not granted to the tool {tool!r}: the operator must add "
                          f"[credentials.{name}] with tools = [\"{tool}\"] to toolbay's configuration")
        value = credential.values.get(key) or self._file.get(name, {}).get(key)
        variable = env_var or f"{name}_{key}".upper().replace("-", "_")
        if value is None:
            value = self._environ.get(variable)
        if value is None:
            return None, (f"the credential {name!r} has no {key!r}: set {key} under [credentials.{name}] in the "
                          f"configuration or in the credentials file, or the environment variable {variable}")
        self._handed.add(value)
        return value, ""

    def env_for(self, tool: str) -> dict[str, str]:
        """The environment variables granted to ``tool`` (for wasm tools, and Python workers)."""
        env: dict[str, str] = {}
        for credential in self.credentials.values():
            if credential.env and credential.granted_to(tool):
                for variable, key in credential.env.items():
                    value, _ = self.lookup(tool, credential.name, key, variable)
                    if value is not None:
                        env[variable] = value
        return env

    def secrets(self) -> set[str]:
        """Every value known, for redaction: the configuration's and the credentials file's, the
        server's environment variables a credential may be read from (``WEATHER_*`` for
        ``[credentials.weather]``, and those its ``env`` names), and any value handed to a tool."""
        prefixes = tuple(f"{name}_".upper().replace("-", "_") for name in self.credentials)
        named = {variable for c in self.credentials.values() for variable in c.env}
        return self._values_with(value for variable, value in self._environ.items()
                                 if variable in named or (prefixes and variable.startswith(prefixes)))


    def shown_nowhere(self) -> frozenset[str]:
        """The values that describe no tool, for what tools are shown as (listings, search, prompts):
        the configuration's and the credentials file's, the variables a credential reads for the
        keys it declares (``WEATHER_API_KEY``; ``api_key`` is the key asked for by default) or
        names in its ``env``, and any value handed to a tool. Not every ``WEATHER_*`` variable,
        as ``secrets`` takes for results and logs: on a CI runner ``GITHUB_REF_TYPE=branch`` made
        every "branch" of every description a credential."""
        variables: set[str] = set()
        for credential in self.credentials.values():
            keys = {"api_key", *credential.values, *self._file.get(credential.name, {}), *credential.env.values()}
            variables.update(credential.env, (f"{credential.name}_{key}".upper().replace("-", "_") for key in keys))
        return frozenset(self._values_with(self._environ[name] for name in variables if name in self._environ))

    def _values_with(self, from_environment: Iterable[str]) -> set[str]:
        """The configuration's and the credentials file's values, ``from_environment``, and every
        value handed to a tool; those of 4 characters or more (shorter ones would hide words)."""
        found = {v for c in self.credentials.values() for v in c.values.values()}
        found.update(v for table in self._file.values() for v in table.values())
        found.update(from_environment)
        found.update(self._handed)
        return {s for s in found if len(s) >= 4}


def read_credentials_file(path: Path, tool_folders: Sequence[Path] = ()) -> dict[str, dict[str, str]]:
    resolved = path.resolve()
    for folder in tool_folders:
        if resolved.is_relative_to(folder.resolve()):
            raise ConfigError(f"credentials file {path} is inside the tool folder {folder}: keep it elsewhere")
    try:
        mode = resolved.stat().st_mode
    except FileNotFoundError:
        raise ConfigError(f"credentials file {path} does not exist") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(f"credentials file {path} is readable by group or others (mode {stat.filemode(mode)}): "
                          f"chmod 600 {path}")
    try:
        data = tomllib.loads(resolved.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"credentials file {path} cannot be read as TOML: {exc}") from None
    return {name: {k: str(v) for k, v in table.items()} for name, table in data.items() if isinstance(table, dict)}
