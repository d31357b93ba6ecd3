"""Discovery: turn the ``.wasm`` files in the extension folders into tool handlers.

For each file: hash it; if a description for that hash is cached, use it (a warm
start runs no guest); otherwise compile the module and run ``-h``/``--help`` (and
each subcommand's ``--help``) in the sandbox with a short time limit, parse the
help, and cache the result. Files are described in parallel; a broken file is
skipped with its reason and never holds the others back beyond its own limit.
Compiled modules are loaded lazily, on a tool's first call.
"""

from __future__ import annotations

import functools
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

from handlers import wasm as wasm_handlers
from handlers.base import Handler, PermissionTier, ToolDefinition
from handlers.wasm import WasmHandler, with_stdin_property
from server.catalog import SkippedFile
from server.config import Settings
from server.description_cache import PARSER_VERSION, CachedCommand, CachedFile, DescriptionCache
from server.errors import NotHelpError, ToolbayError, WasmRejected
from server.helptext import HelpDescription, HelpRun, build_tool_schema, describe_tree
from server.helptext import schema as schema_module
from server.wasm import RunRequest, SandboxLimits, WasmModule, WasmRuntime

logger = logging.getLogger(__name__)

# A cached listing (what tools/list shows of a tool) is used only when the code that made it
# is this code: a change to the schema builder, to this module or to the wasm handler's schema
# makes every tool's listing be derived again from its cached description (no guest runs).
_LISTING_CODE = (schema_module.__file__, __file__, wasm_handlers.__file__)
LISTING_BUILDER = hashlib.sha256(b"".join(Path(source).read_bytes() for source in _LISTING_CODE)).hexdigest()[:16]
_TIERS: dict[str | None, PermissionTier] = {tier.value: tier for tier in PermissionTier}
_NAME_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
_SAFE_NAME = re.compile(r"[A-Za-z0-9-][A-Za-z0-9_-]{0,62}[A-Za-z0-9-]?")


def tool_name_for(path: Path) -> str:
    name = path.name
    stem = name[:-5] if name.endswith(".wasm") and len(name) > 5 else path.stem
    if _SAFE_NAME.fullmatch(stem) and not stem.endswith("_"):
        return stem
    return (_NAME_SAFE.sub("_", stem).strip("_") or "tool")[:64]


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

    __slots__ = ("runtime", "path", "sha256", "_module", "_lock")

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

    __call__ = get  # a handler's module provider

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
    notes: tuple[str, ...] = ()
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
        self._tier_patterns = list(settings.tiers.items())
        self._background_patterns = tuple(settings.background_tools)
        self._env_allow = tuple(settings.sandbox.env_allow)

    # -- one file -----------------------------------------------------------------

    def describe_file_sync(self, path: Path, sha: str | None = None, *, look_up: bool = True) -> FileOutcome:
        """Describes one file (``sha``: its hash when the caller already has it; ``look_up``:
        False when the caller has already found it missing from the cache).
        Blocking: call it on a worker thread."""
        if sha is None:
            try:
                sha = sha256_of(path)
            except OSError as exc:
                return FileOutcome(path, None, skipped=SkippedFile(str(path), f"cannot read the file: {exc}"))
        stem = tool_name_for(path)
        ref = ModuleRef(self.runtime, path, sha)
        cached = self.cache.get(sha, stem) if look_up else None
        if cached is not None:
            return self._outcome(ref, stem, cached, from_cache=True)
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
        return self._outcome(ref, stem, cached, from_cache=False)

    def from_cache_sync(self, path: Path, sha: str) -> FileOutcome | None:
        """The outcome for a file whose description is cached, or None. Runs no guest."""
        stem = tool_name_for(path)
        cached = self.cache.get(sha, stem)
        if cached is None:
            return None
        return self._outcome(ModuleRef(self.runtime, path, sha), stem, cached, from_cache=True)

    def _outcome(self, ref: ModuleRef, stem: str, cached: CachedFile, from_cache: bool) -> FileOutcome:
        for command in cached.commands:
            if _stale(command.listing):
                # Listed by another schema builder: derive the listings again from the descriptions
                # (no guest runs) and keep the result, so the next start need not.
                cached = CachedFile(
                    commands=tuple(_relisted(c) if _stale(c.listing) else c for c in cached.commands),
                    skipped=cached.skipped,
                )
                self.cache.put(ref.sha256, stem, cached)
                break
        origin = f"wasm:{ref.path}"
        handlers: list[Handler] = [self._handler_for(ref, stem, origin, command) for command in cached.commands]
        return FileOutcome(ref.path, ref.sha256, handlers=handlers, notes=cached.skipped, from_cache=from_cache)

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
                listing=_listing_of(c.description, c.tool_name, tuple(c.path)),
            )
            for c in tree
        )
        skipped = tuple(f"{' '.join(s.path)}: {s.reason}" for s in tree.skipped)
        return CachedFile(commands=commands, skipped=skipped)

    def _handler_for(self, ref: ModuleRef, stem: str, origin: str, command: CachedCommand) -> Handler:
        listing = command.listing
        assert listing is not None  # made fresh by ``_outcome``
        name = command.tool_name
        tier = self._tier_for(name, listing["tier"])
        definition = ToolDefinition(
            name=name,
            title=listing["title"],
            description=listing["text"],
            input_schema=listing["input_schema"],
            tier=tier,
            keywords=tuple(listing["keywords"]),
            origin=origin,
            source="wasm",
            background=listing["background"] or self._declared_background(name),
        )
        return WasmHandler(
            definition,
            self.runtime,
            ref,
            program_name=stem,
            subcommand_path=command.path,
            to_argv=_LazyArgv(command),
            limits=self.call_limits,
            workspace=self.settings.workspace,
            env_allow=self._env_allow,
        )

    def _tier_for(self, name: str, declared: str | None) -> PermissionTier | None:
        """The tier the settings give the tool, else the one its help declares."""
        for pattern, tier in self._tier_patterns:
            if fnmatchcase(name, pattern):
                return PermissionTier(tier)
        return _TIERS.get(declared)

    def _declared_background(self, name: str) -> bool:
        return any(fnmatchcase(name, pattern) for pattern in self._background_patterns)

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
            sha = known.get(path)
            describe = functools.partial(self.describe_file_sync, path, sha, look_up=sha is None)
            outcome = await anyio.to_thread.run_sync(describe, limiter=limiter)
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
        if self.cache.unsaved:
            await anyio.to_thread.run_sync(self.cache.flush)
        return [o for o in outcomes if o is not None]


def _title(tool_name: str) -> str:
    return tool_name.replace("_", " ").replace("-", " ")


def _model_description(about: str, long: str, name: str | None, path: Sequence[str]) -> str:
    """What the model reads: the about line, the long description, and how files are seen."""
    parts = [about or f"Runs {name or 'the program'} {' '.join(path)}".strip()]
    if long and long != about:
        parts.append(long)
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _listing_of(description: HelpDescription, tool_name: str, path: tuple[str, ...]) -> dict[str, Any]:
    """What ``tools/list`` shows of a tool, stored beside its description in the cache so that
    a warm start builds neither the description nor its schema (settings apply at load)."""
    tier = PermissionTier.parse(description.permission_level)
    return {
        "builder": LISTING_BUILDER,
        "title": _title(tool_name),
        "text": _model_description(description.about, description.description, description.name, path),
        "input_schema": with_stdin_property(build_tool_schema(description).input_schema),
        "tier": None if tier is None else tier.value,
        "keywords": tuple(description.keywords),
        "background": description.background,
    }


def _stale(listing: Mapping[str, Any] | None) -> bool:
    return listing is None or listing.get("builder") != LISTING_BUILDER


def _relisted(command: CachedCommand) -> CachedCommand:
    listing = _listing_of(HelpDescription.from_dict(command.description), command.tool_name, command.path)
    return CachedCommand(command.tool_name, command.path, command.description, listing)


class _LazyArgv:
    """``to_argv`` for a tool listed from the cache: the description is read (and its schema
    built) on the tool's first call, not at start-up."""

    __slots__ = ("_command", "_to_argv")

    def __init__(self, command: CachedCommand) -> None:
        self._command = command
        self._to_argv: Callable[[Mapping[str, Any]], list[str]] | None = None

    def __call__(self, arguments: Mapping[str, Any]) -> list[str]:
        if self._to_argv is None:
            self._to_argv = build_tool_schema(HelpDescription.from_dict(self._command.description)).to_argv
        return self._to_argv(arguments)
