"""Configuration: a TOML file, ``TOOLBAY_*`` environment variables and CLI flags.

Precedence, highest first: CLI flags (passed as keyword overrides), environment
variables (``TOOLBAY_PORT=9000``, nested with a double underscore:
``TOOLBAY_SANDBOX__TIMEOUT_S=600``; lists as JSON), the TOML file (``--config``, or
``toolbay.toml`` in the current folder when present), then the defaults below.
Every value is validated by pydantic; a bad one becomes a ``ConfigError`` that
names the setting and says what was expected.
"""

from __future__ import annotations

import contextvars
import difflib
import errno
import json
import os
import tomllib
import types
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from toolbay.defaults import (
    BUNDLED_AGENTS,
    BUNDLED_EXTENSIONS,
    DEFAULT_CONFIG_NAME,
    ENV_PREFIX,
    MAX_CONCURRENT_CALLS,
    default_data_dir,
    distinct_folders,
)
from toolbay.errors import ConfigError
from toolbay.file_names import is_utf8, shown
from toolbay.parsed_text import UnreadableText, parse_within_limits
from toolbay.small_files import read_small_file

# A week: a run limit is meant in minutes or hours; more is a typo.
MAX_RUN_LIMIT_S = 7 * 24 * 3600.0


def _path_text(value: Any) -> Any:
    """A path setting as written: "~" is the user's home, and an empty one is refused (it
    would mean the current folder: an unset variable in ``--workspace "$DIR"`` granted it)."""
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("is empty, which would mean the current folder; give a path, or leave the setting out")
        if _unknown_home(value):
            # Left as written, it named a folder "~ann" in the current folder, made there for data_dir.
            user = value[1:].split(os.sep, 1)[0]
            if not user:
                raise ValueError(f"{value!r} starts with your home folder, which this system does not say (HOME "
                                 "is not set): give the path itself")
            raise ValueError(f"{value!r} starts with the home folder of {user!r}, a user this system does not know; "
                             "give the path itself (~ alone is your home)")
        return os.path.expanduser(value)
    return value


def _unknown_home(value: str) -> bool:
    """Whether ``value`` starts with ``~name`` for a user that does not exist (``expanduser``
    then leaves it as written, a relative path)."""
    return value.startswith("~") and os.path.expanduser(value) == value


# Every path the configuration takes, from the file, the environment or a flag.
SettingPath = Annotated[Path, BeforeValidator(_path_text)]

# Files named under [chain], as (tables leading to it, key): relative to the config file too.
CHAIN_PATHS = (
    (("audit",), "file"),
    (("auth",), "tokens_file"),
    (("auth", "jwt"), "key_file"),
    (("auth", "jwt"), "jwks_file"),
)


class _Section(BaseModel):
    # nan and inf are no numbers a setting takes: "nan" was said to be "not less than 3600".
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class SandboxSettings(_Section):
    """Limits and grants for every guest run."""

    timeout_s: float | None = Field(
        None, gt=0, le=MAX_RUN_LIMIT_S, json_schema_extra={"renamed_to": "jobs.run_limit_s"},
        description="The old name of [jobs] run_limit_s (a call's wall-clock limit, job included); "
        "read as that when set alone.",
    )
    memory_mb: int = Field(256, ge=16, le=4096, description="Memory a guest may grow to, in MiB.")
    output_limit_kb: int = Field(1024, ge=1, le=1024 * 1024, description="Standard output kept per call, KiB.")
    stderr_limit_kb: int = Field(64, ge=1, le=1024 * 1024, description="Standard error kept per call, KiB.")
    fuel: int | None = Field(None, ge=1, description="Instruction budget per call (off when unset).")
    env_allow: list[str] = Field(default_factory=list, description="Host environment variables passed to tools.")
    quick_budget_ms: float = Field(
        20.0, ge=0, le=1000,
        description="Tools that cannot write files run on the event loop (no worker thread) while their runs "
        "stay quick; a run past this budget is stopped and run again on a worker. 0 turns it off.",
    )


class DiscoverySettings(_Section):
    help_timeout_s: float = Field(3.0, gt=0, le=120, description="Limit for one -h/--help run.")
    max_depth: int = Field(3, ge=0, le=8, description="How deep subcommands are followed.")
    file_budget_s: float = Field(15.0, gt=0, le=600, description="Limit for describing one file in full.")
    start_wait_s: float = Field(
        10.0, ge=0, le=3600,
        description="How long `serve`, from its start, waits for tools described for the first time before it "
        "answers; the rest are added when ready and announced with tools/list_changed. The bundled tools are "
        "described first.",
    )
    quick_compile: bool = Field(
        True,
        description="Compile tools not in the compiled cache with wasmtime's baseline compiler (Winch) for their "
        "--help runs and first calls; `serve` then optimises them with Cranelift in the background.",
    )
    optimise_after_quiet_s: float = Field(
        5.0, ge=0, le=3600,
        description="How long `serve` waits without compiling a new tool before it optimises what the baseline "
        "compiler made: not during a start's or a changing folder's burst of compiles, nor for a server stopped soon. "
        "A first start caches the baseline compiler's code once its first tools/list has been answered, or once it "
        "has served this long without one.",
    )


class PythonSettings(_Section):
    """Python tool modules (``.py`` files in the tool folders): workers, confinement, folders."""

    workers_per_module: int = Field(2, ge=1, le=64, description="Warm worker processes per module at most.")
    worker_idle_s: float = Field(
        300.0, ge=0, le=7 * 24 * 3600,
        description="A warm worker idle this long is stopped (started again by the next call); 0 keeps them.")
    max_idle_workers: int = Field(
        16, ge=1, le=10_000,
        description="Idle warm workers kept in all, every module's together; past it the one idle longest is stopped.")
    describe_timeout_s: float = Field(10.0, gt=0, le=600, description="Limit for importing a module to describe it.")
    max_processes: int = Field(64, ge=1, le=100_000, description="Processes a worker's tool may run at once, the "
                               "worker included; past it all of them are stopped and the call fails.")
    confine: bool = Field(True, description="Confine workers with Landlock and a network namespace where the "
                          "kernel allows; false runs them with only the rlimits.")
    network_allow: list[str] = Field(default_factory=list, description="Module-name patterns granted the network.")
    credentials_file: SettingPath | None = Field(None, description="TOML file of secrets, [NAME] tables; mode 600.")
    personal_dir: str | None = Field(
        None, description="Each caller's own tool folder, with {caller} in it: /srv/toolbay/people/{caller}.")
    authoring: bool = Field(False, description="Offer create_tool and share_tool (each needs its own scope).")

    @field_validator("personal_dir")
    @classmethod
    def _names_each_caller(cls, pattern: str | None) -> str | None:
        # Without the placeholder no caller has a folder: personal tools would be off, unsaid.
        if pattern is not None and "{caller}" not in pattern:
            raise ValueError(f"{pattern!r} has no {{caller}} in it, where each caller's id goes: "
                             f"e.g. {str(Path(pattern) / '{caller}')!r}")
        return pattern


class HttpSettings(_Section):
    allow_insecure: bool = Field(False, description="Serve a non-loopback address without authentication.")
    page_size: int = Field(200, ge=1, le=10_000, description="Tools per tools/list page.")
    max_head_kb: int = Field(
        64, ge=1, le=1024, description="A request's line and headers together at most (KiB); longer is answered 431."
    )
    header_timeout_s: float = Field(
        10.0, gt=0, le=3600, description="A request's line and headers must arrive within this, or it is closed."
    )
    body_timeout_s: float = Field(
        30.0, gt=0, le=3600, description="Longest pause while a request body is read before it is closed."
    )
    max_connections: int = Field(
        4096, ge=1, le=1_000_000,
        description="Open HTTP connections in all (at most the open-files limit less 128); "
        "at the cap a new one replaces the slowest still sending its headers.",
    )
    max_connections_per_peer: int = Field(256, ge=1, le=1_000_000, description="Open HTTP connections per client IP.")
    max_sessions: int = Field(
        1000, ge=1, le=1_000_000,
        description="Open MCP sessions on /mcp (each holds about 40 KB); at the cap a new one is answered 503 "
        "until one ends or idles out.",
    )
    max_sessions_per_caller: int = Field(
        100, ge=1, le=1_000_000,
        description="Open MCP sessions on /mcp per authenticated caller (token or JWT subject); at the cap a new "
        "one is answered 429, so one caller cannot take every session of the server.",
    )
    max_requests_per_caller: int = Field(
        64, ge=1, le=1_000_000,
        description="Requests on /mcp one authenticated caller may have in flight at once on this server (a "
        "job_wait holds one until it answers); one more is answered 429 at once, so one caller cannot hold "
        "every connection.",
    )
    session_idle_s: float = Field(
        1800.0, gt=0, le=7 * 24 * 3600,
        description="A session with no request for this long is closed (a client that never finished its "
        "handshake, or went away without saying so).",
    )
    metrics: bool = Field(True, description="Serve Prometheus metrics at /metrics (no arguments or secrets in them).")


class JobSettings(_Section):
    sync_budget_s: float = Field(
        5.0, ge=0, le=3600,
        description="How long a caller waits for the answer; a call still running then goes on as a job.")
    run_limit_s: float = Field(
        900.0, gt=0, le=MAX_RUN_LIMIT_S,
        description="How long one call may run in all, inline and then as a job; past it the guest is "
        "stopped and the job recorded as timed out.",
    )
    drain_s: float = Field(
        900.0, ge=0, le=MAX_RUN_LIMIT_S,
        description="On stdio, how long a server whose client has gone keeps running its jobs to their end "
        "before it exits (0: it exits at once and they are interrupted).")
    restart_read_jobs: bool = Field(
        True, description="After a crash, start again the unfinished jobs of read-tier tools (safe to repeat).")
    result_preview_kb: int = Field(
        64, ge=1, le=1024 * 1024,
        description="A job result longer than this is answered as a preview plus a resource_link to the whole.")
    max_concurrent: int = Field(MAX_CONCURRENT_CALLS, ge=1, le=1024)
    max_per_caller: int = Field(4, ge=1, le=1024)
    max_queued_per_caller: int = Field(16, ge=1, le=100_000)
    retention_s: float = Field(7 * 24 * 3600, gt=0, description="Finished jobs are kept this long.")


class ClusterSettings(_Section):
    """Several replicas sharing one Redis (``toolbay.cluster``); unset, nothing of it runs."""

    redis: str | None = Field(
        None,
        description="redis://host:port/db (or rediss://, unix://): rate limits, jobs and catalog notices are "
        "shared by every replica that names the same Redis; HTTP is served stateless.")
    on_outage: Literal["open", "closed"] = Field(
        "closed",
        description="While Redis cannot be reached: closed refuses rate-limited calls with a tool error; "
        "open lets them through unlimited.")
    lease_s: float = Field(
        10.0, ge=1, le=3600,
        description="A replica that has not renewed its lease for this long is taken for dead: its "
        "read-tier jobs are run again by another replica, the others marked interrupted.")

    @field_validator("redis")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("write a Redis URL: redis://host:port/db, rediss://... or unix:///path")
        if value is not None and not value.startswith("unix://"):
            # redis-py reads a database it cannot parse ("/1x", "/abc") as database 0, quietly.
            database = urlsplit(value).path.strip("/")
            if database and not database.isdigit():
                raise ValueError(f"the database after the host is a number: redis://host:port/0, not /{database}")
        return value


class TelemetrySettings(_Section):
    """OpenTelemetry traces of calls (``toolbay.tracing``); off unless an exporter is named."""

    traces: Literal["otlp", "console", "none"] | None = Field(
        None,
        description="otlp: spans sent to an OpenTelemetry collector (OTEL_EXPORTER_OTLP_* say where); "
        "console: printed on stderr; none: off. Unset: OTEL_TRACES_EXPORTER decides, off when that is unset.")
    service_name: str | None = Field(
        None, description="The service.name of the spans (default: OTEL_SERVICE_NAME, else toolbay).")


class SearchSettings(_Section):
    """How ``search_tools`` (and ``toolbay search``) ranks tools (``toolbay.search``)."""

    semantic: bool = Field(
        False,
        description="Re-rank the words' results by meaning too, with a static embedding model that ships inside "
        "the wordllama package (the semantic extra: uv sync --extra semantic; nothing is downloaded): finds tools "
        "described in other words than the request's, at about twice the search's CPU time. On without the package, "
        "the server stops at start saying so.",
    )


DelegationPathName = Literal["envelope", "sampling"]
DELEGATION_PATHS: tuple[DelegationPathName, ...] = ("envelope", "sampling")


class SubagentSettings(_Section):
    """How ``agent_*`` tools hand a role and a task to a sub-agent (see ``toolbay.subagents``)."""

    paths: list[DelegationPathName] = Field(
        default_factory=lambda: list(DELEGATION_PATHS),
        description="The ways toolbay may delegate, in order of preference, each used only when the client "
        "declares it can; the fallback (the role prompt handed back to the calling model) is always last.",
    )
    max_depth: int = Field(2, ge=1, le=8, description="How deep sub-agents may delegate to sub-agents.")
    max_turns: int = Field(10, ge=1, le=200, description="Model turns of a role that names no limit.")
    time_s: float = Field(300.0, gt=0, le=24 * 3600, description="Time limit of a role that names none.")
    max_tokens: int = Field(4096, ge=64, le=200_000, description="max_tokens asked of each sampling request.")


class DisclosureSettings(_Section):
    """How much of the catalog ``tools/list`` shows; the rest is found with ``search_tools``."""

    mode: Literal["full", "search-first", "auto"] = Field(
        "auto",
        description="full: every tool with its schema; search-first: essential tools in full, connected tools "
        "by name and one line, catalog tools only through search_tools; auto: search-first once the full "
        "listing of the caller's tools would pass token_budget.",
    )
    token_budget: int = Field(
        10_000, ge=0,
        description="For auto: the full listing's size in tokens (its JSON's characters / 4) above which "
        "disclosure is search-first.",
    )
    connected_budget: int = Field(
        3_000, ge=0,
        description="In search-first: connected tools are listed by name and one line, folder by folder in "
        "the order of `extensions`, while that listing stays within this many tokens; the tools of a folder "
        "that does not fit are found only by search_tools, whose description names the folder.",
    )
    promoted_max: int = Field(
        20, ge=1,
        description="In search-first: the tools a session's searches found that its listing shows in full, "
        "the most recently found first; past this many, the one found longest ago leaves the listing (it "
        "can still be called by name, and a search finds it again).",
    )
    essential: list[str] = Field(
        default_factory=list,
        description="Name patterns of tools always listed in full (built-ins always are; a catalog folder's tool "
        "only to callers that may search its folder).")
    catalog: list[SettingPath] = Field(
        default_factory=list,
        description="Extension folders (also in `extensions`) whose tools are never listed, only searched.")
    catalog_allow: list[str] = Field(
        default_factory=lambda: ["*"],
        description="Which catalog folders (by folder name, patterns) callers may search; a caller's "
        "`catalog:PATTERN` scopes add to it. Empty: none.",
    )


class Settings(BaseSettings):
    """Everything toolbay can be told. See the README's configuration reference."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
        allow_inf_nan=False,
    )

    # The configuration file these were read from (None: none), named where a section another
    # module validates ([chain]) is refused, as the settings' own are.
    _config_file: Path | None = PrivateAttr(default=None)

    extensions: list[SettingPath] = Field(default_factory=lambda: [BUNDLED_EXTENSIONS])
    # Folders of role files (NAME.md), served as prompts and agent_NAME tools.
    agents: list[SettingPath] = Field(default_factory=lambda: [BUNDLED_AGENTS])
    data_dir: SettingPath = Field(default_factory=default_data_dir)
    workspace: SettingPath | None = None
    transport: Literal["stdio", "http", "sse"] = "stdio"
    # A tools/call the app answers at once skips the SDK's per-request machinery, on stdio and
    # in streamable HTTP sessions (toolbay.protocol.quick_lane, http_lane); same answers either way.
    quick_lane: bool = True
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    # Any case: TOOLBAY_LOG_LEVEL=DEBUG is what people type.
    log_level: Annotated[Literal["debug", "info", "warning", "error"],
                         BeforeValidator(lambda v: v.lower() if isinstance(v, str) else v)] = "info"
    log_file: SettingPath | None = None
    # text: one line per record for people; json: one JSON object per line for log collectors.
    log_format: Literal["text", "json"] = "text"
    # Per-tool permission tiers that override what a tool's help declares: {"textkit_*": "read"}.
    tiers: dict[str, Literal["read", "write", "exec"]] = Field(default_factory=dict)
    # Tools declared long-running (name patterns): they become jobs at once.
    background_tools: list[str] = Field(default_factory=list)

    @field_validator("workspace")
    @classmethod
    def _workspace_is_a_folder(cls, workspace: Path | None) -> Path | None:
        # Checked at start: a missing workspace would otherwise fail every call that uses it.
        if workspace is not None and (reason := _unreadable(workspace)) is not None:
            # Unreadable too: tools ran elsewhere (a Python tool in the server's own folder) and
            # said their files could not be read because of their permission level.
            reason = "is not a folder" if reason.startswith("is a file") else reason
            where = "" if workspace.is_absolute() else f" (read as {shown(str(Path.cwd() / workspace))})"
            raise ValueError(f"{shown(str(workspace))}{where} {reason}")
        return workspace
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    discovery: DiscoverySettings = Field(default_factory=DiscoverySettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    python: PythonSettings = Field(default_factory=PythonSettings)
    # Secrets granted to tools by name pattern: {"weather": {"tools": ["weather_*"], "api_key": "..."}}.
    credentials: dict[str, Any] = Field(default_factory=dict)
    jobs: JobSettings = Field(default_factory=JobSettings)
    disclosure: DisclosureSettings = Field(default_factory=DisclosureSettings)
    subagents: SubagentSettings = Field(default_factory=SubagentSettings)
    cluster: ClusterSettings = Field(default_factory=ClusterSettings)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    # Sections owned by the call chain (auth, rate limits, authorization, approval, audit);
    # validated by server.chain.settings when it is built.
    chain: dict[str, Any] = Field(default_factory=dict)

    @field_validator("host")
    @classmethod
    def _bare_host(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is empty: name an address to listen on (127.0.0.1 for this machine alone, 0.0.0.0 "
                             "for every interface)")
        if value.startswith("[") or value.endswith("]"):
            raise ValueError(f"write an IPv6 address without brackets, e.g. {value.strip('[]')}")
        try:
            value.encode("idna")  # what the resolver is given: a name that is not one was a traceback
        except UnicodeError:
            raise ValueError(f"{_shown(value)} is no host name or address") from None
        return value

    @field_validator("extensions", "agents", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str | Path):
            return [value]
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _TomlSource(settings_cls))

    @property
    def config_file(self) -> Path | None:
        """The configuration file these settings were read from, if any."""
        return self._config_file

    @property
    def run_limit_s(self) -> float:
        """A call's wall-clock limit: ``[jobs] run_limit_s``, or the old ``[sandbox] timeout_s``
        when only that is set (``check_job_settings`` refuses both at once)."""
        if self.sandbox.timeout_s is not None and "run_limit_s" not in self.jobs.model_fields_set:
            return self.sandbox.timeout_s
        return self.jobs.run_limit_s


# The TOML file in use for the settings being built: a context variable because
# pydantic-settings builds sources inside the constructor, where no argument reaches.
_NO_TOML: dict[str, Any] = {}  # never mutated: sources copy it
_toml_data: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("toolbay_toml", default=_NO_TOML)


class _TomlSource(PydanticBaseSettingsSource):
    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return _toml_data.get().get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_toml_data.get())


def read_toml(path: Path) -> dict[str, Any]:
    try:
        # A byte-order mark (which some editors write) is no TOML: read past it.
        data = parse_within_limits(tomllib.loads, read_small_file(path).decode("utf-8-sig"))
    except FileNotFoundError as exc:
        if os.path.islink(path):
            raise ConfigError(f"config file {path} is a symbolic link to {os.readlink(path)}, which does not "
                              "exist") from exc
        raise ConfigError(f"config file {path} does not exist") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"config file {path} is a folder; name the TOML file in it") from exc
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnreadableText) as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not UTF-8 text (byte {exc.start}: {exc.reason}); "
                          "save it as UTF-8") from exc
    # Relative paths in the file are relative to the file, as users expect ("~" is the home;
    # an empty one is left for the settings to refuse, and anything not text to report).
    def beside(value: Any) -> Any:
        if not isinstance(value, str) or not value.strip() or _unknown_home(value):
            return value  # for the setting to refuse by name
        # realpath, not resolve(): a link in a loop is said as such where the setting is
        # checked (resolve() raised RuntimeError, a traceback, from the configuration file).
        return os.path.realpath(path.parent / os.path.expanduser(value))

    # Tool and role folders as named, links kept: the watcher follows a link (``current ->
    # releases/7``) each time it is pointed elsewhere, which one resolved here could not. A
    # ``..`` still means the folder above the one before it, as resolving took it.
    def named(value: Any) -> Any:
        if not isinstance(value, str) or not value.strip() or _unknown_home(value):
            return value
        parts = (path.parent.resolve() / os.path.expanduser(value)).parts
        up = max((index for index, part in enumerate(parts) if part == ".."), default=0)
        return str(Path(os.path.realpath(Path(*parts[:up + 1]))).joinpath(*parts[up + 1:]))

    for key in ("data_dir", "workspace", "log_file"):
        if key in data:
            data[key] = beside(data[key])
    disclosure = data.get("disclosure")
    if isinstance(disclosure, dict) and isinstance(disclosure.get("catalog"), list):
        disclosure["catalog"] = [named(p) for p in disclosure["catalog"]]  # named as extensions are
    for key in ("extensions", "agents"):
        if isinstance(data.get(key), list):
            data[key] = [named(p) for p in data[key]]
        elif isinstance(data.get(key), str):
            data[key] = [named(data[key])]
    python = data.get("python")
    if isinstance(python, dict):
        for key in ("credentials_file", "personal_dir"):
            if key in python:
                python[key] = beside(python[key])
    chain = data.get("chain")
    if isinstance(chain, dict):
        for section, key in CHAIN_PATHS:
            table: Any = chain
            for part in section:
                table = table.get(part) if isinstance(table, dict) else None
            if isinstance(table, dict) and key in table:
                table[key] = beside(table[key])
    return data


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Builds the settings. ``overrides`` are CLI flags; ``None`` values are ignored."""
    if config_file is None and os.path.lexists(DEFAULT_CONFIG_NAME):
        # Read whatever it is: a folder or a link to a file gone was passed over without a word,
        # and the command ran on the defaults, not on the settings written for it.
        config_file = Path(DEFAULT_CONFIG_NAME)
    data = read_toml(config_file) if config_file is not None else {}
    token = _toml_data.set(data)
    try:
        given = {key: value for key, value in overrides.items() if value is not None}
        settings = Settings(**given)
        settings._config_file = config_file
    except ValidationError as exc:
        raise SettingsInvalid(exc, config_file) from None
    except SettingsError as exc:
        # pydantic-settings could not decode an environment variable holding a list or table.
        field = str(exc).split('"')[1] if str(exc).count('"') >= 2 else "?"
        variable, annotation = _undecodable_variable(field)
        table = typing.get_origin(annotation) is dict
        value = os.environ.get(variable, "")
        kind = "table" if table else "list"
        if value.lstrip().startswith(("[", "{")):
            # Meant as JSON, and broken: said where, not wrapped whole in a list as one path.
            try:
                json.loads(value)
                broken = f"it is JSON, but no {kind}"
            except json.JSONDecodeError as error:
                broken = f"it is not valid JSON ({error.msg.lower()}, at character {error.pos})"
            example = '{"NAME": "VALUE"}' if table else '["..."]'
            raise ConfigError(f"environment variable {variable}: {broken}; its value must be a JSON {kind}, "
                              f"e.g. {variable}='{example}'") from None
        example = '{"NAME": "VALUE"}' if table else json.dumps([value] if value else ["..."])
        raise ConfigError(f"environment variable {variable}: its value must be JSON (a {kind}), "
                          f"e.g. {variable}='{example}'") from None
    finally:
        _toml_data.reset(token)
    check_job_settings(settings)
    _catalog_named_as_extensions(settings)
    check_catalog_folders(settings)
    return settings


def _undecodable_variable(field: str) -> tuple[str, Any]:
    """The environment variable (and its setting's type) behind pydantic-settings' failure to
    decode the top-level ``field``: ``TOOLBAY_FIELD`` itself, or for a section the nested
    ``TOOLBAY_FIELD__KEY`` holding a list or table whose value is no JSON (the error names only
    the section)."""
    variable = f"{ENV_PREFIX}{field.upper()}"
    declared = Settings.model_fields.get(field)
    annotation = declared.annotation if declared is not None else None
    section = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    if section is not None:
        for name, value in os.environ.items():
            key = name[len(variable) + 2:].lower() if name.upper().startswith(variable + "__") else None
            nested = section.model_fields.get(key) if key else None
            if nested is None or typing.get_origin(nested.annotation) not in (list, dict):
                continue
            try:
                json.loads(value)
            except ValueError:
                return name, nested.annotation
    return variable, annotation


def _catalog_named_as_extensions(settings: Settings) -> None:
    """A catalog folder named otherwise than the extension folder it is (``releases/8`` and
    ``current -> releases/8``) takes the extension folder's name: tools are told catalog by
    where the extension folders find them. The names of a TOML file are kept as written (a link
    in them is followed as it is pointed elsewhere), so two spellings of one folder no longer
    met, and the server refused to start (a re-check)."""
    as_named = {os.path.abspath(folder) for folder in settings.extensions}
    by_place = {os.path.realpath(folder): folder for folder in settings.extensions}
    named = [folder if os.path.abspath(folder) in as_named else by_place.get(os.path.realpath(folder), folder)
             for folder in settings.disclosure.catalog]
    if named != list(settings.disclosure.catalog):
        settings.disclosure.catalog = named


def extension_folders_now(settings: Settings) -> list[Path]:
    """The extension folders as a scan takes them now: each once, by what its names lead to, and
    by the name ``[disclosure] catalog`` gives it, if it gives one (its tools are told catalog by
    that name). The settings keep every name given (of agent folders too, read once each by
    ``RoleLibrary``): ``current -> releases/7`` beside ``releases/7`` is one folder until the link
    is pointed elsewhere, then two, and the settings once kept one name of them for good."""
    catalog = {os.path.abspath(folder) for folder in settings.disclosure.catalog}
    return distinct_folders(settings.extensions, prefer=catalog)


def check_catalog_folders(settings: Settings) -> None:
    """Refuses a ``[disclosure] catalog`` folder that is not one of the extension folders: its
    tools would not be served at all, and a misspelt one would leave the folder meant to be
    hidden listed in full. Raises ``ConfigError`` naming it."""
    served = {os.path.abspath(folder) for folder in settings.extensions}
    for folder in settings.disclosure.catalog:
        if os.path.abspath(folder) not in served:
            raise ConfigError(
                f"[disclosure] catalog: {folder} is not one of the extension folders "
                f"({', '.join(str(f) for f in settings.extensions) or 'none'}); a catalog folder is "
                "also named in extensions")
    # catalog_allow and catalog:PATTERN scopes name catalog folders by their last part: two of
    # one name could not be told apart, and allowing one would allow the other.
    by_name: dict[str, Path] = {}
    for folder in settings.disclosure.catalog:
        same = by_name.setdefault(Path(folder).name, Path(folder))
        if os.path.abspath(same) != os.path.abspath(folder):
            raise ConfigError(
                f"[disclosure] catalog: {same} and {folder} are both named {Path(folder).name!r}; catalog_allow "
                "and catalog:PATTERN scopes name a catalog folder by its name, so give each its own")


def check_job_settings(settings: Settings) -> None:
    """Refuses settings that, taken in pairs, would keep every call from becoming a job.

    Raises ``ConfigError`` naming both settings and what to change.
    """
    jobs, sandbox = settings.jobs, settings.sandbox
    if sandbox.timeout_s is not None and "run_limit_s" in jobs.model_fields_set:
        raise ConfigError(
            f"[sandbox] timeout_s ({sandbox.timeout_s:g} s) and [jobs] run_limit_s ({jobs.run_limit_s:g} s) "
            "are both set, and they are the same limit (timeout_s is its old name): keep only "
            "[jobs] run_limit_s.")
    limit_name = "[jobs] run_limit_s" if sandbox.timeout_s is None or "run_limit_s" in jobs.model_fields_set \
        else "[sandbox] timeout_s"
    if settings.run_limit_s <= jobs.sync_budget_s:
        raise ConfigError(
            f"{limit_name} ({settings.run_limit_s:g} s) is not longer than [jobs] sync_budget_s "
            f"({jobs.sync_budget_s:g} s), so every call would be stopped before it could go on as a job. "
            f"Make {limit_name} longer (minutes: it bounds a job's whole run) or [jobs] sync_budget_s "
            "shorter (seconds: it is how long a caller waits).")


def unknown_environment(environ: Mapping[str, str] | None = None) -> list[str]:
    """A sentence for each ``TOOLBAY_*`` variable that names no setting (ignored otherwise),
    with the closest real name: ``TOOLBAY_SANDBOX_TIMEOUT_S`` -> ``TOOLBAY_SANDBOX__TIMEOUT_S``."""
    known = _known_environment_names()
    # A table of names the operator chooses ([tiers], [credentials.NAME], [chain...]): any key
    # below it is a setting (TOOLBAY_TIERS__HASHSUM=write took effect, and was said to be ignored).
    tables = tuple(f"{ENV_PREFIX}{name.upper()}__" for name, field in Settings.model_fields.items()
                   if typing.get_origin(field.annotation) is dict)
    found = []
    for name in sorted(environ if environ is not None else os.environ):
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or upper in known or upper.startswith(tables):
            continue
        close = difflib.get_close_matches(upper, known, n=1, cutoff=0.75)
        hint = f"; did you mean {close[0]}?" if close else ""
        found.append(f"environment variable {name} names no setting and is ignored{hint}")
    return found


def _known_environment_names() -> list[str]:
    names = []
    for field_name, field_info in Settings.model_fields.items():
        names.append(f"{ENV_PREFIX}{field_name.upper()}")
        section = field_info.annotation
        if isinstance(section, type) and issubclass(section, BaseModel):
            names += [f"{ENV_PREFIX}{field_name.upper()}__{sub.upper()}" for sub in section.model_fields]
    return names


# Tables of the configuration kept raw here and validated by a module of their own, by name:
# ``toolbay.chain.settings`` adds "chain" when it is imported, so that a name of its put in the
# wrong place is pointed to where it belongs (``tokens_file`` at the top: ``[chain.auth]``).
OTHER_SECTIONS: dict[str, type[BaseModel]] = {}


class SettingsInvalid(ConfigError):
    """Settings that do not validate, said when the error is shown: with the names of the
    tables registered in ``OTHER_SECTIONS`` by then (a command loads those modules only when
    the settings turn out wrong: their imports cost every start)."""

    def __init__(self, error: ValidationError, config_file: Path | None) -> None:
        super().__init__()
        self.error = error
        self.config_file = config_file

    def __str__(self) -> str:
        return describe_validation_error(self.error, self.config_file)


def _closest_setting(location: tuple[Any, ...], root: type[BaseModel], section: str = "") -> str:
    """"; did you mean memory_mb?" for ("sandbox", "memroy_mb"); where a name put in the wrong
    place belongs ("; it is [sandbox] memory_mb", first: the same name elsewhere is surer than a
    close one here); or "" when nothing is close. ``section``: where ``root`` sits ("chain")."""
    model: Any = root
    for part in location[:-1]:
        field = _fields_of(model).get(str(part))
        model = field.annotation if field is not None else None
    name = str(location[-1])
    trees = [(Settings, ()), *((tree, (table,)) for table, tree in OTHER_SECTIONS.items()),
             (root, (section,) if section else ())]
    places = list(dict.fromkeys(place for tree, path in trees for place in _places(name, tree, path)))
    if places == [f"top-level {name}"]:
        return f"; {name} is a top-level setting (before any [section])"
    if places:
        return "; it is " + " or ".join(places)
    close = difflib.get_close_matches(name, list(_fields_of(model)), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _fields_of(annotation: Any) -> dict[str, Any]:
    """The fields of a section's model, also where it is optional (``JwtSettings | None``)."""
    optional = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    for model in (annotation, *(typing.get_args(annotation) if optional else ())):
        if isinstance(model, type) and issubclass(model, BaseModel):
            return dict(model.model_fields)
    return {}


def _places(name: str, model: Any, path: tuple[str, ...]) -> Iterator[str]:
    """Where a setting or table named ``name`` is under ``model`` (``[jobs] run_limit_s``,
    ``[chain.auth]``, ``top-level port``); an old name as the setting that replaced it, whose
    ``renamed_to`` is its full place (``[sandbox] timeout_s``: "jobs.run_limit_s")."""
    for field_name, field in _fields_of(model).items():
        if field_name == name:
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            renamed = extra.get("renamed_to")
            if isinstance(renamed, str):
                sections, _, setting = renamed.rpartition(".")
                yield f"[{sections}] {setting}" if sections else f"top-level {setting}"
            elif _fields_of(field.annotation):
                yield f"[{'.'.join((*path, name))}]"  # a table
            else:
                yield f"[{'.'.join(path)}] {name}" if path else f"top-level {name}"
        yield from _places(name, field.annotation, (*path, field_name))


def describe_validation_error(exc: ValidationError, config_file: Path | None, *,
                              root: type[BaseModel] | None = None, section: str = "") -> str:
    """One line naming each bad setting of ``root`` (the settings, or the section ``section``
    of them that another module validates: ``[chain]``)."""
    where = f" (config file {config_file}, environment TOOLBAY_*, or flags)" if config_file else ""
    root = Settings if root is None else root
    in_file = _read_quietly(config_file)
    problems = []
    for error in exc.errors():
        location = ".".join(str(part) for part in (*([section] if section else []), *error["loc"])) or "settings"
        given = error.get("input")
        if error["type"] == "value_error":  # toolbay's own checks, in their own words
            message = str(error.get("ctx", {}).get("error", error["msg"]))
        elif error["type"] == "extra_forbidden":  # a misspelt name, in a table or a TOOLBAY__ variable
            message = "no such setting" + _closest_setting(error["loc"], root, section)
        elif error["type"] == "path_type":  # pydantic's words named a Python class: "for <class 'pathlib.Path'>"
            message = "should be a path, written as text in quotes"
        elif error["type"] in ("model_type", "model_attributes_type", "dict_type"):
            # pydantic's words named a Python class: "a valid dictionary or instance of AuthSettings"
            message = "should be a table of settings"
        else:
            message = error["msg"]
        # A number is always said ("greater than 0" holds the 0 it was given by chance).
        if isinstance(given, int | float) or (str(given) not in message and _shown(given) not in message):
            message += f" (got {_shown(given)})"
        full = (*([section] if section else []), *error["loc"])
        if (variable := _variable_for(full)) is not None:
            message += f" (from the environment variable {variable})"  # not in the file, where one looks first
        elif _holds(in_file, full):
            message += f" (in {config_file})"  # not from a flag or a variable
        problems.append(f"{location}: {message}")
    return "invalid configuration" + where + ": " + "; ".join(problems)


# Of a value a setting refused, what the message quotes: a 10 MB value was quoted whole, one line of 10 MB.
_GIVEN_CHARACTERS = 200


def _shown(given: Any) -> str:
    """``given`` as the message quotes it: cut (saying how long it was), secret-looking text hidden."""
    from toolbay.shortening import shown_arguments  # here: only an error loads the secret patterns

    return repr(shown_arguments(given, total=_GIVEN_CHARACTERS))


def _read_quietly(config_file: Path | None) -> Any:
    """The configuration file's TOML as it is written, or None (it was read once already: what
    could not be read then was said then)."""
    try:
        return tomllib.loads(read_small_file(config_file).decode("utf-8-sig")) if config_file else None
    except (OSError, ValueError):
        return None


def _holds(data: Any, location: tuple[Any, ...]) -> bool:
    """Whether ``data`` (a TOML document) sets the setting at ``location``."""
    for part in location:
        if isinstance(data, dict) and str(part) in data:
            data = data[str(part)]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return False
    return data is not None and bool(location)


def _variable_for(location: tuple[Any, ...]) -> str | None:
    """The ``TOOLBAY_`` variable set for the setting at ``location``, if one is: its own, the
    one that gives the list or table it is in (``TOOLBAY_TIERS='{"x": "bogus"}'`` for
    ``tiers.x``), or one of a setting inside it."""
    for end in range(len(location), 0, -1):
        wanted = ENV_PREFIX + "__".join(str(part).upper() for part in location[:end])
        if (found := next((name for name in os.environ if name.upper() == wanted), None)) is not None:
            return found
    # A table no setting is, given by a variable of a setting in it (TOOLBAY_CHAIN__RATE_LIMIT__PER_MINUTE
    # for chain.rate_limit).
    inside = ENV_PREFIX + "__".join(str(part).upper() for part in location) + "__"
    return next((name for name in sorted(os.environ) if name.upper().startswith(inside)), None) if location else None


def folder_problems(settings: Settings) -> list[str]:
    """The tool and role folders that hold nothing because they are not folders: a mistyped
    one would otherwise look like a folder without tools."""
    problems = []
    named = (("extension", extension_folders_now(settings)), ("agents", distinct_folders(settings.agents)))
    for kind, folders in named:
        for folder in folders:
            reason = _unreadable(folder)
            if reason is not None:
                # A relative one is read from the current folder, which may not be the one meant.
                where = "" if folder.is_absolute() else f" (read as {shown(str(Path.cwd() / folder))})"
                problems.append(f"{kind} folder {shown(str(folder))}{where} {reason}")
    return problems


def unfollowed_link(folder: Path) -> str | None:
    """Why ``folder``, a symbolic link (or a path through one) that leads nowhere, cannot be
    followed, or None: in a loop, to nothing, out of this user's reach."""
    try:
        os.stat(folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link in a loop (it leads back to itself)" if os.path.islink(folder) else \
                "passes through a symbolic link in a loop"
        if os.path.islink(folder):
            try:
                link = f"is a symbolic link to {shown(os.readlink(folder))}"
            except OSError as unread:  # /proc/1/root in a container, even to root: a traceback
                return f"is a symbolic link this user cannot follow ({unread.strerror or unread})"
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return f"{link}, which does not exist"
            # Into another user's folder: it is there ("does not exist" sent the user looking for it).
            return f"{link}, which this user cannot reach ({exc.strerror or exc})"
    return None


def _unreadable(folder: Path) -> str | None:
    """Why ``folder`` holds nothing that can be read, or None: not there, a file, or a folder
    this user may not list (another user's), which stopped a start with a traceback."""
    if (link := unfollowed_link(folder)) is not None:
        return link
    try:
        if not folder.is_dir():
            return "is a file, not a folder" if folder.exists() else "does not exist"
        with os.scandir(folder):
            pass
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not os.access(folder, os.X_OK):
        # Listed but not entered (read without search permission, "chmod 744" of another user's):
        # every file in it failed to open, blamed on the tool's permission level (a re-check).
        return "cannot be entered by this user (no search permission)"
    if not is_utf8(str(folder.resolve())):
        # The sandbox and the Python workers are given a folder's name as UTF-8 text: one that
        # is not (bytes Python keeps as lone surrogates) was accepted, then failed every call
        # as an internal error.
        return "is not named in UTF-8, which tools are given their folders' names in"
    return None
