"""The words every layer speaks: plain data about tools, calls, callers and results.

This module is the floor of the package: it imports nothing of toolbay, and everything
else may import it. Behaviour lives above it (``toolbay.handlers.base`` holds the handler
contract; ``toolbay.outcomes`` turns errors into results).
"""

from __future__ import annotations

import enum
import functools
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# The scope that lets a token read /metrics over HTTP.
METRICS_SCOPE = "metrics:read"


class PermissionTier(enum.StrEnum):
    """What a tool may do to the world, from least to most dangerous.

    ``read`` tools see the workspace read-only, ``write`` tools may change it,
    ``exec`` tools are treated as able to do anything the sandbox allows.
    A tool that declares nothing is given the most restrictive sandbox
    (no workspace at all) but is authorised as ``exec`` (see ``most_restrictive``).
    """

    READ = "read"
    WRITE = "write"
    EXEC = "exec"

    @classmethod
    def parse(cls, text: str | None) -> PermissionTier | None:
        """Reads a tier the way tool authors write it (``Read``, ``read-only``, ``WRITE``...)."""
        if not text:
            return None
        word = text.strip().lower().replace("_", "-")
        aliases = {
            "read": cls.READ, "readonly": cls.READ, "read-only": cls.READ, "ro": cls.READ,
            "write": cls.WRITE, "read-write": cls.WRITE, "readwrite": cls.WRITE, "rw": cls.WRITE,
            "exec": cls.EXEC, "execute": cls.EXEC, "admin": cls.EXEC, "dangerous": cls.EXEC,
        }
        return aliases.get(word)

    @property
    def rank(self) -> int:
        return {"read": 0, "write": 1, "exec": 2}[self.value]


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """MCP behaviour hints, derived from the tier unless a handler says otherwise."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False

    def named_as_mcp(self) -> dict[str, bool]:
        """The hints under MCP's names, as clients are shown them (``toolbay list --json``)."""
        return {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}

    @classmethod
    @functools.cache  # frozen, so one instance per tier serves every tool
    def for_tier(cls, tier: PermissionTier | None) -> ToolAnnotations:
        if tier is PermissionTier.READ:
            return cls(read_only=True, destructive=False, idempotent=True)
        if tier is PermissionTier.WRITE:
            return cls(read_only=False, destructive=True, idempotent=False)
        return cls(read_only=False, destructive=True, idempotent=False)


# The longest tool description served. Every listing, every search answer (which names the
# tool's description twice) and every promoted schema carries it: a module's 1 MB description
# made each search_tools answer 2 MB, and one search of a 10 MB one took 17 s. The longest
# description this machine's 844 programs' helps give is under 3,000 characters.
MAX_DESCRIPTION_CHARS = 8000
_CUT_MARK = " [...]"


def bounded_description(text: str) -> tuple[str, bool]:
    """``text`` cut to ``MAX_DESCRIPTION_CHARS`` (at a word's end where one is near), and
    whether it was cut."""
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text, False
    room = MAX_DESCRIPTION_CHARS - len(_CUT_MARK)
    head = text[:room]
    space = head.rfind(" ", room - 200)
    return (head[:space] if space > 0 else head).rstrip() + _CUT_MARK, True


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """Everything a client is told about a tool."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    title: str | None = None
    tier: PermissionTier | None = None
    keywords: tuple[str, ...] = ()
    # Where the tool came from, for diagnostics: "wasm:/path/foo.wasm", "builtin", ...
    origin: str = "builtin"
    # The kind of source ("wasm", "builtin", "python", "agent"), for listings and precedence.
    source: str = "builtin"
    # Declared long-running: the server starts it as a job at once.
    background: bool = False
    output_schema: Mapping[str, Any] | None = None
    # Who offers it: "core" (built in, bundled), "shared" (the operator's folders) or
    # "personal" (one caller's own folder, seen and called by ``owner`` only).
    realm: str = "core"
    owner: str | None = None
    # The version the program says it is (its help header or its --version), for clients.
    version: str | None = None
    # MCP's behaviour hints where the tier does not say them (``annotations``).
    hints: ToolAnnotations | None = None

    @classmethod
    def trusted(
        cls, name: str, description: str, input_schema: Mapping[str, Any], title: str | None,
        tier: PermissionTier | None, keywords: tuple[str, ...], origin: str, source: str, background: bool,
        realm: str = "core", owner: str | None = None, version: str | None = None,
    ) -> ToolDefinition:
        """The definition ``cls(...)`` makes of these (no output schema), without the frozen
        ``__init__``'s ``object.__setattr__`` per field: a warm start makes thousands. A test
        checks that it matches ``__init__`` and sets every field."""
        definition = object.__new__(cls)
        _set_name(definition, name)
        _set_description(definition, description)
        _set_input_schema(definition, input_schema)
        _set_title(definition, title)
        _set_tier(definition, tier)
        _set_keywords(definition, keywords)
        _set_origin(definition, origin)
        _set_source(definition, source)
        _set_background(definition, background)
        _set_output_schema(definition, None)
        _set_realm(definition, realm)
        _set_owner(definition, owner)
        _set_version(definition, version)
        _set_hints(definition, None)
        return definition

    @property
    def effective_tier(self) -> PermissionTier:
        """The tier used for authorisation: undeclared tools count as the most dangerous."""
        return self.tier or PermissionTier.EXEC

    @property
    def annotations(self) -> ToolAnnotations:
        return self.hints if self.hints is not None else ToolAnnotations.for_tier(self.tier)


# The slots' own setters, which a frozen dataclass's __setattr__ does not guard (see ``trusted``).
(_set_name, _set_description, _set_input_schema, _set_title, _set_tier, _set_keywords, _set_origin, _set_source,
 _set_background, _set_output_schema, _set_realm, _set_owner, _set_version, _set_hints) = (
    ToolDefinition.__dict__[name].__set__ for name in ToolDefinition.__slots__)


@dataclass(slots=True)
class ToolResult:
    """What a tool produced. ``is_error`` results are failures the model can read and act on."""

    text: str
    structured: Mapping[str, Any] | None = None
    is_error: bool = False
    # Extra facts for clients and logs (exit code, truncation, timings); sent as ``_meta``.
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def error(cls, text: str, **meta: Any) -> ToolResult:
        return cls(text=text, is_error=True, meta=dict(meta))


ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]


async def _no_progress(done: float, total: float | None, message: str | None) -> None:
    return None


@dataclass(slots=True)
class CallContext:
    """What a handler may know about the call it serves.

    ``cancelled`` is a thread-safe flag: blocking work on a worker thread (a guest in
    wasmtime) polls it, because cancelling the awaiting task cannot stop a thread.
    """

    caller: str = "local"
    # Whom a job this call becomes belongs to (``Principal.job_owner``); the caller's id when unset.
    owner: str | None = None
    request_id: str | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    report_progress: ProgressCallback = _no_progress
    # Filled by the server for handlers that need it (e.g. the workspace folder).
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def job_owner(self) -> str:
        return self.owner if self.owner is not None else self.caller


# How a call reached the server. ``memory`` is the SDK's in-process client (tests), ``cli`` is
# ``toolbay call``; the local ones have no credential and act for the local user.
Transport = Literal["stdio", "http", "sse", "memory", "cli"]
LOCAL_TRANSPORTS: tuple[Transport, ...] = ("stdio", "memory", "cli")


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling. Authentication always yields one, anonymous included."""

    id: str
    scopes: frozenset[str] = frozenset()
    kind: Literal["local", "token", "jwt", "anonymous"] = "anonymous"
    claims: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def anonymous(cls) -> Principal:
        return cls(id="anonymous")

    @property
    def job_owner(self) -> str:
        """Whom this caller's jobs belong to: the id, qualified by its kind except for the local
        user's. Ids of different kinds are chosen by different people (an OS user name, a tokens
        file's client id, a JWT issuer's subject), so one spelling in two of them is two callers:
        a token made with the client id ``root`` must not see the OS user root's jobs on a data
        folder both use. The local user's stays bare, so ``toolbay jobs`` finds it as before."""
        return self.id if self.kind == "local" else f"{self.kind}:{self.id}"
