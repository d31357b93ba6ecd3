"""What ``toolbay token new`` reads of the configuration: the named scopes it defines (a scope
that is neither these nor built in grants nothing, and is noted), and where it names the tokens
file, so that the lines printed for ``--append FILE`` go into it as they are.

The lines were always ``[chain.auth]`` and ``tokens_file``: added to a configuration that has a
``[chain.auth]`` table already, TOML refuses the file (a table defined twice), and the server
does not start. Dotted keys (``chain.auth.tokens_file = ...``) are no way out: they cannot add
to a table a header defined, and after another table they would land in it. So the lines are
chosen for the file: tried appended to it first, as ``>>`` would add them."""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbay.config import read_toml
from toolbay.defaults import DEFAULT_CONFIG_NAME
from toolbay.small_files import read_small_file

# A [chain.auth] table's header, as TOML allows it written (spaces, quoted keys: ["chain".'auth']).
_AUTH_HEADER = re.compile(r"""^[ \t]*\[[ \t]*(?:chain|"chain"|'chain')[ \t]*\.[ \t]*(?:auth|"auth"|'auth')[ \t]*\]""",
                          re.MULTILINE)


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


def naming_lines(config: Configuration, tokens_file: str) -> tuple[str, str]:
    """The TOML lines that make ``config`` name ``tokens_file`` (an absolute path), empty when it
    does already, and what to do with them, said to the user."""
    table = f"[chain.auth]\ntokens_file = {json.dumps(tokens_file)}\n"
    key = f"tokens_file = {json.dumps(tokens_file)}\n"
    if config.path is None:
        return table, (f"the lines after the token go in the configuration file (there is no ./{DEFAULT_CONFIG_NAME} "
                       "here: they can begin one; --config FILE names yours)")
    auth = _table(config.data, "chain", "auth")
    named = auth.get("tokens_file") if auth is not None else None
    if named == tokens_file:
        return "", f"{config.path} names that file already"
    original = tomllib.loads(config.text)
    wanted = _with_tokens_file(original, tokens_file)
    separator = "\n" if config.text and not config.text.endswith("\n") else ""
    # Dotted too: a configuration that sets chain.auth by top-level dotted keys alone
    # (chain.auth.local_scopes = [...]) takes one more, and refuses a [chain.auth] header.
    for lines in (table, key, f"chain.auth.{key}"):
        try:
            if tomllib.loads(config.text + separator + lines) == wanted:  # nothing else changed, nothing lost
                return lines, f"append the lines after the token to {config.path}"
        except tomllib.TOMLDecodeError:
            continue
    if isinstance(named, str):
        return key, (f"{config.path} names another tokens file ({named}) in [chain.auth]: put the line after the "
                     "token in place of its tokens_file")
    if not _AUTH_HEADER.search(config.text):
        # An inline table (chain = {auth = {...}}) or dotted keys under [chain]: a [chain.auth]
        # header added there is a table defined twice, which TOML refuses.
        return key, (f"{config.path} sets chain.auth without a [chain.auth] header: add the line after the token's "
                     "tokens_file where it does (in its inline table, or beside its dotted keys)")
    return key, f"add the line after the token under [chain.auth] in {config.path}"


def _with_tokens_file(data: dict[str, Any], tokens_file: str) -> dict[str, Any] | None:
    """``data`` with ``[chain.auth] tokens_file`` set, or None where it cannot be (``chain`` is no table)."""
    chain = data.get("chain", {})
    if not isinstance(chain, dict) or not isinstance(chain.get("auth", {}), dict):
        return None
    return {**data, "chain": {**chain, "auth": {**chain.get("auth", {}), "tokens_file": tokens_file}}}


def _table(data: dict[str, Any], *keys: str) -> dict[str, Any] | None:
    for key in keys:
        value = data.get(key)
        if not isinstance(value, dict):
            return None
        data = value
    return data
