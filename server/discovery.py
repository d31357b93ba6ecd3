"""Discovery: turn the ``.wasm`` files in the extension folders into tool handlers.

For each file: hash it; if a description for that hash is cached, use it (a warm
start runs no guest); otherwise compile the module and run ``-h``/``--help`` (and
each subcommand's ``--help``) in the sandbox with a short time limit, parse the
help, and cache the result. Files are described in parallel; a broken file is
skipped with its reason and never holds the others back beyond its own limit.
Compiled modules are loaded lazily, on a tool's first call.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from handlers.base import Handler, PermissionTier, ToolDefinition
from handlers.wasm import WasmHandler, with_stdin_property
from server.catalog import SkippedFile
from server.config import Settings
from server.description_cache import CachedCommand, CachedFile, DescriptionCache
from server.errors import NotHelpError, ToolbayError, WasmRejected
from server.helptext import HelpDescription, HelpRun, build_tool_schema, describe_tree
from server.helptext import schema as schema_module
from server.wasm import RunRequest, SandboxLimits, WasmModule, WasmRuntime

logger = logging.getLogger(__name__)

PARSER_VERSION = "1"
# A cached listing (input schema) is used only when the schema builder that made it is this
# one: a change to its code makes every tool's listing be derived again from its description.
SCHEMA_BUILDER = hashlib.sha256(Path(schema_module.__file__).read_bytes()).hexdigest()[:16]
_NAME_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def tool_name_for(path: Path) -> str:
    name = _NAME_SAFE.sub("_", path.stem).strip("_") or "tool"
    return name[:64]


def scan(folders: Iterable[Path]) -> list[Path]:
    """The ``.wasm`` files in the folders (not recursive), sorted, first folder first."""
    found: list[Path] = []
    for folder in folders:
        if not folder.is_dir():
            logger.warning("extension folder %s does not exist; skipping it", folder)
            continue
        # scandir knows each entry's type from the directory itself: no stat per file.
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(".wasm") and e.is_file())
        found.extend(folder / name for name in names)
    return found


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class ModuleRef:
    """A compiled module, loaded on first use and then kept (thread-safe)."""

    def __init__(self, runtime: WasmRuntime, path: Path, sha256: str) -> None:
        self.runtime = runtime
        self.path = path
        self.sha256 = sha256
        self._module: WasmModule | None = None
        self._lock = threading.Lock()

    def get(self) -> WasmModule:
        if self._module is None:
            with self._lock:
                if self._module is None:
                    # By hash: the version that was described, even if the file changed since.
                    self._module = self.runtime.load(self.path, sha256=self.sha256)
        return self._module

    @property
    def loaded(self) -> bool:
        return self._module is not None

    def release(self) -> None:
        self._module = None


@dataclass(slots=True)
class FileOutcome:
    path: Path
    sha256: str | None
    handlers: list[Handler] = field(default_factory=list)
    skipped: SkippedFile | None = None
    notes: list[str] = field(default_factory=list)
    from_cache: bool = False
    # The hash of what is at the path now, when it differs from the version served
    # (a rejected replacement whose previous tools were kept).
    rejected_sha256: str | None = None

    @property
    def content_sha256(self) -> str | None:
        return self.rejected_sha256 or self.sha256


class Discovery:
    def __init__(self, settings: Settings, runtime: WasmRuntime) -> None:
        self.settings = settings
        self.runtime = runtime
        self.cache = DescriptionCache(settings.data_dir / "descriptions", PARSER_VERSION)
        limits = settings.sandbox
        self.call_limits = SandboxLimits(
            timeout_s=limits.timeout_s,
            memory_mb=limits.memory_mb,
            stdout_limit_bytes=limits.output_limit_kb * 1024,
            stderr_limit_bytes=limits.stderr_limit_kb * 1024,
            fuel=limits.fuel,
        )
        self.help_limits = SandboxLimits(
            timeout_s=settings.discovery.help_timeout_s,
            memory_mb=limits.memory_mb,
            stdout_limit_bytes=1 << 20,
            stderr_limit_bytes=1 << 20,
        )

    # -- one file -----------------------------------------------------------------

    def describe_file_sync(self, path: Path, sha: str | None = None) -> FileOutcome:
        """Describes one file (``sha``: its hash when the caller already has it).
        Blocking: call it on a worker thread."""
        if sha is None:
            try:
                sha = sha256_of(path)
            except OSError as exc:
                return FileOutcome(path, None, skipped=SkippedFile(str(path), f"cannot read the file: {exc}"))
        stem = tool_name_for(path)
        ref = ModuleRef(self.runtime, path, sha)
        cached = self.cache.get(sha, stem)
        from_cache = cached is not None
        if cached is None:
            try:
                cached = self._describe_with_guest(ref, stem)
            except WasmRejected as exc:
                return FileOutcome(path, sha, skipped=SkippedFile(str(path), exc.reason))
            except NotHelpError as exc:
                reason = f"its -h/--help output is not help text: {exc.reason}"
                return FileOutcome(path, sha, skipped=SkippedFile(str(path), reason))
            except ToolbayError as exc:
                return FileOutcome(path, sha, skipped=SkippedFile(str(path), str(exc)))
            self.cache.put(sha, stem, cached)
        return self._outcome(ref, cached, from_cache)

    def from_cache_sync(self, path: Path, sha: str) -> FileOutcome | None:
        """The outcome for a file whose description is cached, or None. Runs no guest."""
        cached = self.cache.get(sha, tool_name_for(path))
        if cached is None:
            return None
        return self._outcome(ModuleRef(self.runtime, path, sha), cached, from_cache=True)

    def _outcome(self, ref: ModuleRef, cached: CachedFile, from_cache: bool) -> FileOutcome:
        handlers = [self._handler_for(ref, command) for command in cached.commands]
        return FileOutcome(ref.path, ref.sha256, handlers=handlers, notes=list(cached.skipped), from_cache=from_cache)

    def _describe_with_guest(self, ref: ModuleRef, stem: str) -> CachedFile:
        module = ref.get()  # compiles (or loads the compiled cache); raises WasmRejected

        def run_help(argv: list[str]) -> HelpRun:
            result = self.runtime.run(module, RunRequest(argv=[stem, *argv], limits=self.help_limits))
            return HelpRun(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code)

        tree = describe_tree(
            run_help,
            stem,
            max_depth=self.settings.discovery.max_depth,
            time_budget_s=self.settings.discovery.file_budget_s,
        )
        commands = tuple(
            CachedCommand(
                tool_name=c.tool_name, path=tuple(c.path), description=c.description.to_dict(),
                listing=_listing_of(c.description),
            )
            for c in tree
        )
        skipped = tuple(f"{' '.join(s.path)}: {s.reason}" for s in tree.skipped)
        return CachedFile(commands=commands, skipped=skipped)

    def _handler_for(self, ref: ModuleRef, command: CachedCommand) -> Handler:
        listing = command.listing
        to_argv: Callable[[Mapping[str, Any]], list[str]]
        if listing is not None and listing.get("builder") == SCHEMA_BUILDER:
            to_argv = _LazyArgv(command.description)
        else:  # cached by an older toolbay: derive the listing now
            description = HelpDescription.from_dict(command.description)
            schema = build_tool_schema(description)
            listing = _listing_of(description, schema.input_schema)
            to_argv = schema.to_argv
        permission_level = listing["permission_level"]
        definition = ToolDefinition(
            name=command.tool_name,
            title=_title(command.tool_name),
            description=_model_description(listing["about"], listing["description"], listing["name"], command.path),
            input_schema=with_stdin_property(listing["input_schema"]),
            tier=self._tier_for(command.tool_name, permission_level),
            keywords=tuple(listing["keywords"]),
            origin=f"wasm:{ref.path}",
            source="wasm",
            background=listing["background"] or self._declared_background(command.tool_name),
        )
        return WasmHandler(
            definition,
            self.runtime,
            ref.get,
            program_name=tool_name_for(ref.path),
            subcommand_path=command.path,
            to_argv=to_argv,
            limits=self.call_limits,
            workspace=self.settings.workspace,
            env_allow=tuple(self.settings.sandbox.env_allow),
        )

    def _tier_for(self, name: str, permission_level: str | None) -> PermissionTier | None:
        for pattern, tier in self.settings.tiers.items():
            if fnmatchcase(name, pattern):
                return PermissionTier(tier)
        return PermissionTier.parse(permission_level)

    def _declared_background(self, name: str) -> bool:
        return any(fnmatchcase(name, pattern) for pattern in self.settings.background_tools)

    # -- many files ---------------------------------------------------------------

    async def describe_files(
        self,
        paths: Sequence[Path],
        on_done: Callable[[FileOutcome], None] | None = None,
        hashes: Mapping[Path, str] | None = None,
    ) -> list[FileOutcome]:
        """Describes files, keeping the input order. ``hashes``: the files' sha256 when known.

        Files whose description is cached are done first, all in one worker thread (a warm
        start of a thousand tools would otherwise spend most of its time hopping threads);
        the rest run their guests in parallel, one worker thread per core.
        """
        outcomes: list[FileOutcome | None] = [None] * len(paths)
        known = hashes or {}

        def from_cache() -> list[tuple[int, FileOutcome]]:
            found = []
            for index, path in enumerate(paths):
                sha = known.get(path)
                outcome = self.from_cache_sync(path, sha) if sha is not None else None
                if outcome is not None:
                    found.append((index, outcome))
            return found

        for index, outcome in await anyio.to_thread.run_sync(from_cache) if known else []:
            outcomes[index] = outcome
            for note in outcome.notes:
                logger.info("%s: skipped subcommand %s", outcome.path.name, note)
            if on_done is not None:
                on_done(outcome)
        limiter = anyio.CapacityLimiter(max(1, self.runtime.max_workers))

        async def one(index: int, path: Path) -> None:
            started = time.perf_counter()
            outcome = await anyio.to_thread.run_sync(self.describe_file_sync, path, known.get(path), limiter=limiter)
            outcomes[index] = outcome
            if outcome.skipped:
                logger.warning("skipping %s: %s", path, outcome.skipped.reason)
            for note in outcome.notes:
                logger.info("%s: skipped subcommand %s", path.name, note)
            logger.debug("described %s in %.1f ms", path.name, (time.perf_counter() - started) * 1000)
            if on_done is not None:
                on_done(outcome)

        async with anyio.create_task_group() as group:
            for index, path in enumerate(paths):
                if outcomes[index] is None:
                    group.start_soon(one, index, path)
        return [o for o in outcomes if o is not None]


def _title(tool_name: str) -> str:
    return tool_name.replace("_", " ").replace("-", " ")


def _model_description(about: str, long: str, name: str | None, path: Sequence[str]) -> str:
    """What the model reads: the about line, the long description, and how files are seen."""
    parts = [about or f"Runs {name or 'the program'} {' '.join(path)}".strip()]
    if long and long != about:
        parts.append(long)
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _listing_of(description: HelpDescription, input_schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The few facts ``tools/list`` needs, stored beside the description in the cache."""
    if input_schema is None:
        input_schema = build_tool_schema(description).input_schema
    return {
        "builder": SCHEMA_BUILDER,
        "input_schema": dict(input_schema),
        "name": description.name,
        "about": description.about,
        "description": description.description,
        "keywords": list(description.keywords),
        "permission_level": description.permission_level,
        "background": description.background,
    }


class _LazyArgv:
    """``to_argv`` for a tool listed from the cache: the description is rebuilt (and its
    schema with it) on the tool's first call, not at start-up."""

    __slots__ = ("_description", "_to_argv")

    def __init__(self, description: dict[str, Any]) -> None:
        self._description = description
        self._to_argv: Callable[[Mapping[str, Any]], list[str]] | None = None

    def __call__(self, arguments: Mapping[str, Any]) -> list[str]:
        if self._to_argv is None:
            self._to_argv = build_tool_schema(HelpDescription.from_dict(self._description)).to_argv
        return self._to_argv(arguments)
