"""Static bearer tokens read from a tokens file, stored hashed.

The file is TOML or JSON (chosen by its suffix) and lists one entry per token::

    [[tokens]]
    client_id = "ci-bot"
    sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    scopes = ["tools:read"]

    # JSON: {"tokens": [{"client_id": "ci-bot", "sha256": "...", "scopes": ["tools:read"]}]}

Only the SHA-256 of a token is ever stored; ``new_token()`` makes a token and its hash
(``toolbay token new`` prints the token once and the entry to paste). Tokens are long
random strings, so an unsalted fast hash is the right tool: there is nothing to brute-force.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import json
import logging
import secrets
import time
import tomllib
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolbay.errors import ConfigError
from toolbay.parsed_text import parse_within_limits
from toolbay.small_files import read_small_file

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

TOKEN_PREFIX = "tb_"

# How often, at most, the tokens file is checked for changes: the longest a removed token
# stays valid.
RELOAD_CHECK_S = 1.0

logger = logging.getLogger(__name__)


def hash_token(token: str) -> str:
    """The hex SHA-256 of a token, as stored in the tokens file."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh random token (256 bits) and its hash: ``(token, sha256_hex)``."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, hash_token(token)


@dataclass(frozen=True, slots=True)
class TokenEntry:
    client_id: str
    sha256: str
    scopes: tuple[str, ...] = ()


# What was said of a reading of a tokens file (its path, its signature, a client and a scope).
_SAID_OF_FILES: set[tuple[Any, ...]] = set()


class TokenStore:
    """A ``TokenVerifier`` over hashed static tokens (``mcp.server.auth.provider.TokenVerifier``).

    Made ``from_file``, it reads the file again when it changes (checked at most once every
    ``RELOAD_CHECK_S`` seconds, on the next request), so a token removed from the file stops
    working without a restart; so does every token once the file holds none (empty, comments
    only) or is removed. A file that is broken mid-edit is logged and the tokens read before
    stay in force until it is fixed.
    """

    def __init__(self, entries: Iterable[TokenEntry], *, source: Path | None = None,
                 known_tool_scopes: Collection[str] = ()) -> None:
        self._known_tool_scopes = frozenset(known_tool_scopes)
        self._by_hash = _by_hash(entries)
        self._source = source
        self._signature = _signature(source) if source is not None else None
        self._warn_of_unknown_scopes()
        self._next_check = time.monotonic() + RELOAD_CHECK_S
        self._generation = 0
        # Client ids whose tokens or scopes a reading changed, until taken (``take_changed_clients``).
        self._changed_clients: set[str] = set()

    @classmethod
    def from_file(cls, path: Path, known_tool_scopes: Collection[str] = ()) -> TokenStore:
        """``known_tool_scopes``: the ``tools:`` scopes that grant something (built in, or
        defined by the configuration); a token given another is said at each reading."""
        entries = _read_entries(path)
        if not entries:
            logger.warning("tokens file %s holds no tokens: every request that needs one is refused", path)
        return cls(entries, source=path, known_tool_scopes=known_tool_scopes)

    def _warn_of_unknown_scopes(self) -> None:
        """A misspelt ``tools:exce`` in the file grants nothing: its holder's every call is
        refused, and nothing said so until a client complained."""
        if not self._known_tool_scopes:
            return
        for entry in self._by_hash.values():
            for scope in entry.scopes:
                if scope.startswith("tools:") and scope not in self._known_tool_scopes:
                    # Once per reading of the file: the server reads it twice as it starts (its
                    # check before describing tools, then the chain's), and said each twice.
                    said = (self._source, self._signature, entry.client_id, scope)
                    if self._source is not None and said in _SAID_OF_FILES:
                        continue
                    _SAID_OF_FILES.add(said)
                    close = difflib.get_close_matches(scope, sorted(self._known_tool_scopes), n=1)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    logger.warning("tokens file: the token of %r has the scope %r, which grants nothing%s",
                                   entry.client_id, scope, hint)

    def scopes_given(self) -> list[tuple[str, str]]:
        """(client id, scope) of every token in the file as last read."""
        return [(entry.client_id, scope) for entry in self._by_hash.values() for scope in entry.scopes]

    def __len__(self) -> int:
        self._reload_if_changed()
        return len(self._by_hash)

    def _reload_if_changed(self) -> None:
        if self._source is None or time.monotonic() < self._next_check:
            return
        self._next_check = time.monotonic() + RELOAD_CHECK_S
        signature = _signature(self._source)
        if signature == self._signature:
            return
        self._signature = signature
        try:
            by_hash = _by_hash(_read_entries(self._source))
        except _Gone:
            # Removed (``rm tokens.toml``): every token is refused, as when its entries are
            # removed; kept in force, they were all still taken. An editor that replaces the
            # file writes the new one before the old one goes.
            logger.error("tokens file %s is gone: every token is refused until it is back", self._source)
            by_hash = {}
        except ConfigError as exc:
            logger.error("%s; the tokens read before stay in force until it is fixed", exc)
            return
        self._changed_clients |= _clients_changed(self._by_hash, by_hash)
        self._by_hash = by_hash
        self._warn_of_unknown_scopes()
        self._generation += 1
        logger.info("tokens file %s changed: %d tokens now", self._source, len(self._by_hash))
        if not self._by_hash:
            logger.warning("tokens file %s holds no tokens: every request that needs one is refused", self._source)

    def generation(self) -> int:
        """Which reading of the file is in force (reading it again first if it is due): an
        answer remembered from an earlier one may no longer hold (a token removed, its scopes
        changed)."""
        self._reload_if_changed()
        return self._generation

    def scopes_of(self, client_id: str) -> frozenset[str]:
        """The scopes the file grants ``client_id`` now, over all its tokens (none once its
        entries are gone), reading it again first if it is due."""
        self._reload_if_changed()
        return frozenset(scope for entry in self._by_hash.values() if entry.client_id == client_id
                         for scope in entry.scopes)

    def take_changed_clients(self) -> frozenset[str]:
        """The client ids whose tokens or scopes the file's readings changed (added, removed,
        given other scopes) since the last call, reading it again first if it is due: their
        sessions' tool lists may show other tools now."""
        self._reload_if_changed()
        changed, self._changed_clients = frozenset(self._changed_clients), set()
        return changed

    async def verify_token(self, token: str) -> AccessToken | None:
        self._reload_if_changed()
        digest = hash_token(token)
        entry = self._by_hash.get(digest)
        # The dict lookup already found it; compare_digest keeps the final check constant-time.
        if entry is None or not hmac.compare_digest(entry.sha256, digest):
            return None
        # Loaded at the first verification (a server's), not with the module: `toolbay token new`
        # and the CLI's commands never need the MCP SDK.
        from mcp.server.auth.provider import AccessToken

        return AccessToken(token=token, client_id=entry.client_id, scopes=list(entry.scopes))


def _by_hash(entries: Iterable[TokenEntry]) -> dict[str, TokenEntry]:
    by_hash: dict[str, TokenEntry] = {}
    for entry in entries:
        if entry.sha256 in by_hash:
            raise ConfigError(
                f"tokens for {by_hash[entry.sha256].client_id!r} and {entry.client_id!r} "
                "have the same hash; give each client its own token"
            )
        by_hash[entry.sha256] = entry
    return by_hash


def _clients_changed(before: dict[str, TokenEntry], after: dict[str, TokenEntry]) -> set[str]:
    """The client ids whose tokens or scopes differ between two readings of the file."""
    def by_client(entries: dict[str, TokenEntry]) -> dict[str, set[tuple[str, frozenset[str]]]]:
        grouped: dict[str, set[tuple[str, frozenset[str]]]] = {}
        for entry in entries.values():
            grouped.setdefault(entry.client_id, set()).add((entry.sha256, frozenset(entry.scopes)))
        return grouped

    old, new = by_client(before), by_client(after)
    return {client for client in old.keys() | new.keys() if old.get(client) != new.get(client)}


class _Gone(ConfigError):
    """The tokens file is no longer there."""


def _read_entries(path: Path) -> list[TokenEntry]:
    try:
        raw = read_small_file(path)
    except FileNotFoundError as exc:
        raise _Gone(f"tokens file {path} cannot be read: {exc.strerror or exc}") from exc
    except OSError as exc:
        raise ConfigError(f"tokens file {path} cannot be read: {exc.strerror or exc}") from exc
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM some editors write: no part of either format
    if not raw.strip():
        return []  # emptied (its last entry taken out), in either format: no tokens, not a broken file
    try:
        # UnreadableText (nesting past the reader's recursion, a traceback before) is a ValueError too.
        data = parse_within_limits(json.loads, raw) if path.suffix.lower() == ".json" else \
            parse_within_limits(tomllib.loads, raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"tokens file {path} is not valid {_format_name(path)}: {exc}") from exc
    return _entries(data, path)


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What changes when the file is rewritten or replaced (editors often write a new file)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size, found.st_ino


def _format_name(path: Path) -> str:
    return "JSON" if path.suffix.lower() == ".json" else "TOML"


def _entries(data: Any, path: Path) -> list[TokenEntry]:
    if data == {}:
        # Empty, or comments only: what an editor leaves of a file whose last token was taken
        # out. No tokens, not a broken file (which keeps the tokens read before in force).
        return []
    items = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ConfigError(f"tokens file {path} must hold a list named 'tokens'")
    entries = []
    for number, item in enumerate(items, start=1):
        where = f"tokens file {path}, entry {number}"
        if not isinstance(item, dict):
            raise ConfigError(f"{where}: expected a table with client_id, sha256 and scopes")
        if "token" in item:
            raise ConfigError(f"{where}: holds a plaintext 'token'; store only its sha256 (toolbay token new)")
        client_id, digest, scopes = item.get("client_id"), item.get("sha256"), item.get("scopes", [])
        if not isinstance(client_id, str) or not client_id:
            raise ConfigError(f"{where}: 'client_id' must be a non-empty string")
        if not isinstance(digest, str) or len(digest) != 64 or not _is_hex(digest):
            raise ConfigError(f"{where}: 'sha256' must be the 64-character hex SHA-256 of the token")
        if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
            raise ConfigError(f"{where}: 'scopes' must be a list of strings")
        entries.append(TokenEntry(client_id=client_id, sha256=digest.lower(), scopes=tuple(scopes)))
    return entries


def _is_hex(text: str) -> bool:
    try:
        int(text, 16)
    except ValueError:
        return False
    return True
