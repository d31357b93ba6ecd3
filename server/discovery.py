"""Discovery: turn the ``.wasm`` and ``.py`` files in the tool folders into tool handlers.

Python tool modules (``toolbay.pytools``) are described the same way, by hash and cached, but
by importing them in a short-lived worker process, never in the server (``describe_python``).

For each file: hash it; if a description for that hash is cached, use it (a warm
start runs no guest); otherwise compile the module and run ``-h``/``--help`` (and
each subcommand's ``--help``) in the sandbox with a short time limit, parse the
help, and cache the result. Files are described in parallel; a broken file is
skipped with its reason and never holds the others back beyond its own limit.
Compiled modules are loaded lazily, on a tool's first call.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from toolbay.ascii_names import name_safe
from toolbay.catalog import Entry, SkippedFile
from toolbay.config import DiscoverySettings, Settings
from toolbay.control_chars import one_line
from toolbay.description_cache import PARSER_VERSION, CachedCommand, CachedFile, DescriptionCache
from toolbay.errors import (
    ConfigError,
    HelpDidNotEnd,
    NoSubcommandHelp,
    NotHelpError,
    ToolbayError,
    WasmRejected,
    why_no_folder,
)
from toolbay.file_names import is_utf8, shown
from toolbay.handlers.python import PythonHandler
from toolbay.handlers.wasm import WasmHandler
from toolbay.hash_index import HashIndex
from toolbay.helptext import HELP_BYTES_READ, HelpDescription, build_tool_schema
from toolbay.listing_format import LISTING_BUILDER, is_stale, listing_of, relisted
from toolbay.pytools import WorkerLimits, WorkerPool, WorkerSpec, module_spec_from
from toolbay.pytools.cache import PythonDescriptionCache
from toolbay.pytools.confinement import confinement_words
from toolbay.pytools.credentials import CredentialStore
from toolbay.pytools.describe import (
    NOT_A_TOOL_MODULE,
    DescribeFailed,
    describe_module,
    packages_stamp,
    probe_confinement,
)
from toolbay.pytools.workers import WORKER_SCRIPT, IdleWorkers
from toolbay.redaction import is_secret_name, redact_text
from toolbay.stoppable_threads import WorkStopped, run_stoppable
from toolbay.tool_files import MAX_TOOL_FILE_BYTES, open_tool_file, too_large
from toolbay.wasm import RunRequest, SandboxLimits, WasmModule, WasmRuntime
from toolbay.wasm.errors import INVALID_EXIT_STATUS
from toolbay.words import PermissionTier, ToolDefinition, bounded_description

if TYPE_CHECKING:
    from toolbay.helptext import HelpRun

logger = logging.getLogger(__name__)

# How long a stopping server waits for a file being described: a guest ends at once, a compile
# under way goes on alone, on a daemon thread the process does not wait for (nothing it finds
# is kept).
STOPPING_WAIT_S = 0.5

# Describing a WebAssembly file is work for this process's cores (compiling, the guest's runs,
# reading its help under Python's lock): more files at once than cores only trade the lock
# between threads (1,000 small tools: 5.0 s of CPU with eight at once, 4.0 s with two, on two
# cores). A Python tool module is described by a worker process, which this one waits for.
CORES = max(1, os.cpu_count() or 1)
# Help runs of one file at once (a program's subcommands), where fewer files than cores are
# described: a cold start waits on the largest program's, eight runs of a Go runtime that takes
# tens of milliseconds to start each. Where the files fill the cores, each runs its own in turn
# (1,000 small tools: 4.0 -> 2.9 s of CPU).
HELP_RUNS_AT_ONCE = max(1, min(4, CORES))


class HelpRunShares:
    """Help runs at once for each of a batch of WebAssembly files: ``HELP_RUNS_AT_ONCE`` shared
    among the files of the batch not yet described (as many as fill the cores), as they are when
    a file's module is ready and its runs begin. When they were fixed for the batch as its
    describing began, the Go tool, whose compile ends last on a first start, ran its help runs
    one at a time, as if the files described before it (done by then) were still running theirs."""

    def __init__(self, files: int, most: int = HELP_RUNS_AT_ONCE) -> None:
        self._left = files
        self._most = most
        self._lock = threading.Lock()

    def now(self) -> int:
        """The help runs at once of a file whose runs begin now."""
        with self._lock:
            return max(1, self._most // max(1, min(CORES, self._left)))

    def described(self) -> None:
        """One file of the batch is described."""
        with self._lock:
            self._left -= 1


# Marks a cached description that is a remembered failure of the whole file (its reason follows).
_FAILED = "\x00the whole file: "
# The notes of a WebAssembly file that are not about a subcommand it skipped (``log_notes``).
_HELP_SAYS = "its help says '"
_NOT_A_TIER = _HELP_SAYS + "PermissionLevel: "
_SERVED_AS = " is served as "
# Beside a remembered failure whose help run timed out: the limit it ran past.
_TIMED_OUT_AFTER = "\x00timed out after s: "
# Beside a remembered failure whose help run needed more memory than [sandbox] memory_mb: that limit.
_OUT_OF_MEMORY_AT = "\x00out of memory at MiB: "
# A description some of whose subcommands were not read in [discovery] file_budget_s (a busy
# first start): noted with that budget and how often it was so, and described again at the next
# starts, up to _CUT_SHORT_TRIES times, or once the budget is longer. Cached for good, the tools
# were lost until the file changed.
_CUT_SHORT = "\x00cut short by the time budget: "
_CUT_SHORT_TRIES = 4  # the first, then three more
DEFAULT_MAX_DEPTH = DiscoverySettings.model_fields["max_depth"].default
# How the reason a Python module is skipped for begins when none of its tools is served.
NO_TOOL_REASON = "it offers no tool: "
_TIERS: dict[str | None, PermissionTier] = {tier.value: tier for tier in PermissionTier}
_SCANDIR_FD = os.scandir in os.supports_fd
_SAFE_NAME = re.compile(r"[A-Za-z0-9-][A-Za-z0-9_-]{0,62}[A-Za-z0-9-]?")


def is_tool_file_name(name: str) -> bool:
    """``.wasm`` programs and ``.py`` modules; ``_private.py``, ``__init__.py`` and hidden files are not tools."""
    if name.endswith(".wasm"):
        return True
    return name.endswith(".py") and not name.startswith(("_", "."))


def tool_name_for(path: str | Path) -> str:
    name = path.rpartition(os.sep)[2] if type(path) is str else os.path.basename(path)
    stem = name[:-5] if name.endswith(".wasm") and len(name) > 5 else os.path.splitext(name)[0]
    if _SAFE_NAME.fullmatch(stem) and stem[-1] != "_":
        return stem
    return (name_safe(stem).strip("_") or "tool")[:64]


def scan_files(folders: Iterable[Path]) -> list[tuple[str, os.stat_result | None]]:
    """The ``.wasm`` files in the folders (not recursive), sorted, first folder first, each as
    its path and its ``os.stat`` (None if it went away meanwhile). One ``scandir`` pass a folder
    and no ``Path`` per file: a warm start of thousands of tools does little more."""
    found: list[tuple[str, os.stat_result | None]] = []
    for folder in folders:
        try:
            # Through a descriptor, each stat resolves one name, not the whole path again.
            fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)) if _SCANDIR_FD else None
            try:
                with os.scandir(folder if fd is None else fd) as entries:
                    # scandir knows each entry's type from the directory itself: no stat for that.
                    wasm, folders_in = [], []
                    for entry in entries:
                        try:
                            if is_tool_file_name(entry.name) and entry.is_file():
                                wasm.append(entry)
                            elif entry.name[:1] not in "._" and entry.is_dir():
                                folders_in.append(entry.name)
                            if is_tool_file_name(entry.name) and not entry.is_file():
                                # Said, not skipped without a word: a mistyped link's target was
                                # found nowhere (it is served once the target is there).
                                _warn_once(os.path.join(folder, entry.name), f"%s is {_what_it_is(entry)}, "
                                           "not a file; skipping it")
                        except OSError as exc:
                            # A link that loops ("self.wasm -> self.wasm"), or one this user may not
                            # follow: that entry is skipped, said once; it stopped the whole scan (a
                            # start with a traceback, a folder whose changes no longer reloaded).
                            _warn_once(os.path.join(folder, entry.name),
                                       f"%s cannot be read ({exc.strerror or exc}); skipping it")
                wasm.sort(key=_name_of)
                prefix = os.path.join(folder, "")
                if folders_in:
                    _note_tools_in_subfolders(prefix, folders_in)
                found += [(prefix + entry.name, _stat_of(entry)) for entry in wasm]
            finally:
                if fd is not None:
                    os.close(fd)
        except (FileNotFoundError, NotADirectoryError) as exc:
            _warn_once(folder, f"extension folder %s {why_no_folder(exc)}; skipping it")
        except OSError as exc:  # a folder this user may no longer read (its mode changed while served)
            _warn_once(folder, f"extension folder %s cannot be read ({exc.strerror or exc}); skipping it")
        else:
            _missing_folders.discard(str(folder))
    return found


# Folders already said to be missing: every rescan (each change the watcher sees) would say
# it again. Said again once the folder has come and gone.
_missing_folders: set[str] = set()
# Subfolders of tool folders already looked into (once each, not at every rescan).
_subfolders_seen: set[str] = set()


def _note_tools_in_subfolders(prefix: str, names: list[str]) -> None:
    """Says, once, that a subfolder holding tool files is not served: only the files directly
    in a tool folder are, and a .wasm dropped into ``tools/new/`` was served by nothing, said by
    nothing. A Python package (``__init__.py``) beside the modules is their helper: not said."""
    for name in names:
        path = prefix + name
        if path in _subfolders_seen:
            continue
        _subfolders_seen.add(path)
        try:
            inside = os.listdir(path)
        except OSError:
            continue
        if "__init__.py" in inside:
            continue
        tools = sorted(n for n in inside if is_tool_file_name(n))
        if tools:
            logger.info("%s holds %s, not served: only the files directly in a tool folder are (name %s in "
                        "extensions to serve it)", path, ", ".join(tools[:5]) + (", ..." if len(tools) > 5 else ""),
                        path)


def names_not_files(folders: Iterable[Path]) -> list[str]:
    """A note for each tool's name in ``folders`` that is not a file (a link to nothing, a
    folder, a named pipe), as ``toolbay list`` says them; ``scan_files`` logs the same."""
    notes = []
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                notes += [f"{entry.path} is {_what_it_is(entry)}, not a file; it is skipped" for entry in entries
                          if is_tool_file_name(entry.name) and not _is_file(entry)]
        except OSError:
            continue  # said as the folder's problem (``folder_problems``)
    return sorted(notes)


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False  # a link that loops: said as one that cannot be read


def _what_it_is(entry: os.DirEntry[str]) -> str:
    """What a tool's name in a folder is, when it is not a file."""
    try:
        mode = entry.stat().st_mode
    except FileNotFoundError:
        return "a link to nothing"
    except OSError as exc:  # a link that loops
        return f"a link that cannot be followed ({exc.strerror or exc})"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"


def _warn_once(folder: Path | str, message: str) -> None:
    if str(folder) not in _missing_folders:
        _missing_folders.add(str(folder))
        logger.warning(message, folder)


def _name_of(entry: os.DirEntry[str]) -> str:
    return entry.name


def _stat_of(entry: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return entry.stat()
    except OSError:
        return None


def scan(folders: Iterable[Path]) -> list[Path]:
    """The paths ``scan_files`` finds."""
    return [Path(path) for path, _ in scan_files(folders)]


def sha256_of(path: str | Path) -> str:
    """The file's sha256, read without blocking and up to the size a tool can be
    (``toolbay.tool_files``): a name leading to a file whose reads wait for ever stopped every
    later rescan, and with it hot reload; one past the size raises ``OSError`` too, and either
    is left out as unreadable."""
    digest = hashlib.sha256()
    read = 0
    with open_tool_file(path) as handle:
        if (why := too_large(os.fstat(handle.fileno()).st_size, "a tool's file")) is not None:
            raise OSError(errno.EFBIG, why)
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            read += len(chunk)
            if read > MAX_TOOL_FILE_BYTES:  # a file of the kernel's that said it was empty
                raise OSError(errno.EFBIG, f"more than the {MAX_TOOL_FILE_BYTES // 2**20} MiB a tool's file may be")
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Explanation:
    """One file described in full: each help run (argv, what it printed) and the tools."""

    help_runs: list[tuple[list[str], HelpRun]]
    tools: list[ToolDefinition]
    skipped: tuple[str, ...]
    # False when the file serves nothing at all (its help was no help): ``skipped`` says why.
    described: bool = True


class ModuleRef:
    """A compiled module, loaded on first use and then kept (thread-safe)."""

    __slots__ = ("runtime", "path", "sha256", "_module", "_lock")

    def __init__(self, runtime: WasmRuntime, path: str, sha256: str) -> None:
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
                    self._module = self.runtime.load(Path(self.path), sha256=self.sha256)
        return self._module

    __call__ = get  # a handler's module provider

    @property
    def loaded(self) -> bool:
        return self._module is not None

    def release(self) -> None:
        self._module = None


class ListedTool:
    """A wasm tool as its listing describes it, for the catalog (a ``catalog.Deferred``): its
    ``WasmHandler`` is made on first use, so a warm start of thousands of tools makes only the
    definitions a listing needs."""

    __slots__ = ("definition", "_discovery", "_ref", "stem", "command", "_handler", "_closed")
    _making = threading.Lock()  # two first uses at once still make one handler

    def __init__(
        self, definition: ToolDefinition, discovery: Discovery, ref: ModuleRef, stem: str, command: CachedCommand,
    ) -> None:
        self.definition = definition
        self._discovery = discovery
        self._ref = ref
        self.stem = stem
        self.command = command
        self._handler: WasmHandler | None = None
        self._closed = False

    def handler(self) -> WasmHandler:
        handler = self._handler
        if handler is None:
            with self._making:
                handler = self._handler
                if handler is None:
                    # Closed before it was ever used: its version is gone, and loading by path
                    # would run whatever is there now, so its calls say it was replaced.
                    ref = self._gone if self._closed else self._ref
                    handler = self._handler = self._discovery.handler_for(self, ref)
        return handler

    def _gone(self) -> WasmModule:
        raise WasmRejected(self._ref.path, "it was replaced or removed; call tools/list to see the tools you can use")

    async def close(self) -> None:
        self._closed = True
        if self._handler is not None:
            await self._handler.close()


@dataclass(slots=True)
class FileOutcome:
    path: str
    sha256: str | None
    handlers: list[Entry] = field(default_factory=list)
    skipped: SkippedFile | None = None
    notes: tuple[str, ...] = ()
    from_cache: bool = False
    # The hash of what is at the path now, when it differs from the version served
    # (a rejected replacement whose previous tools were kept).
    rejected_sha256: str | None = None
    # A Python module's helpers its description was built with (``helpers_unchanged``): files
    # of its folder, relative to it, each with its sha256.
    helpers: Mapping[str, str] = field(default_factory=dict)
    # How often its description has been cut short by [discovery] file_budget_s (0: it was
    # not): ``refresh_tools`` describes such a file again though it is unchanged.
    cut_short_tries: int = 0
    # A Python module that failed to import or describe: its folder as it was then
    # (``folder_stamp``). The failure may be the folder's (a helper or a data file not there
    # yet), so it holds only until the folder changes.
    failed_in: str | None = None

    @property
    def content_sha256(self) -> str | None:
        return self.rejected_sha256 or self.sha256


def _the_machines_doing(reason: str) -> bool:
    """A help run that failed for want of what the machine gave it (address space under
    ``ulimit -v``), not for anything of the file's: not remembered. Remembered, the file was
    skipped at every later start, after the limit was raised, until it changed."""
    return "Cannot allocate memory" in reason


def _cut_short(cached: CachedFile) -> tuple[float, int] | None:
    """(the budget, how often) ``cached``'s description was cut short by the time budget
    (``_CUT_SHORT``); None if it was not, or its note cannot be read."""
    note = next((n for n in cached.skipped if n.startswith(_CUT_SHORT)), None)
    if note is None:
        return None
    budget, _, tries = note.removeprefix(_CUT_SHORT).partition(" ")
    try:
        return float(budget), int(tries)
    except ValueError:
        return None


def _cut_short_tries(cached: CachedFile) -> int:
    """How often ``cached``'s description was cut short by the time budget."""
    cut = _cut_short(cached)
    return 0 if cut is None else cut[1]


def _limit_raised(timed_out_after_s: object, limit_s: float) -> bool:
    """Whether a describing that ran past ``timed_out_after_s`` has a longer limit now."""
    return isinstance(timed_out_after_s, int | float) and limit_s > timed_out_after_s


def _helpers_of(entry: Mapping[str, Any]) -> Mapping[str, str]:
    helpers = (entry.get("description") or {}).get("helpers")
    if not isinstance(helpers, dict):
        return {}
    return {name: sha for name, sha in helpers.items() if isinstance(name, str) and isinstance(sha, str)}


class Discovery:
    def __init__(self, settings: Settings, runtime: WasmRuntime) -> None:
        self.settings = settings
        self.runtime = runtime
        self.cache = DescriptionCache(settings.data_dir / "descriptions", PARSER_VERSION)
        limits = settings.sandbox
        self.call_limits = SandboxLimits(
            # Any call may go on as a job, so its guest may run as long as a job may.
            timeout_s=settings.run_limit_s,
            memory_mb=limits.memory_mb,
            stdout_limit_bytes=limits.output_limit_kb * 1024,
            stderr_limit_bytes=limits.stderr_limit_kb * 1024,
            fuel=limits.fuel,
        )
        self.help_limits = SandboxLimits(
            timeout_s=settings.discovery.help_timeout_s,
            memory_mb=limits.memory_mb,
            stdout_limit_bytes=HELP_BYTES_READ,
            stderr_limit_bytes=HELP_BYTES_READ,
        )
        self._tier_patterns = list(settings.tiers.items())
        self._background_patterns = tuple(settings.background_tools)
        self._env_allow = tuple(settings.sandbox.env_allow)
        self.python_cache = PythonDescriptionCache(settings.data_dir / "python")
        # The sha256 of tool files and of the helpers Python modules were described with.
        self.hash_index = HashIndex(settings.data_dir / "hashes.json", sha256_of)
        # Files a batch found cut short by the time budget (``_CUT_SHORT``), to describe again: their tries so far.
        self._cut_short_retried: dict[tuple[str, str], int] = {}
        self.credentials = CredentialStore.from_settings(
            settings.credentials, settings.python.credentials_file, settings.extensions)
        self.python_limits = WorkerLimits(
            timeout_s=settings.run_limit_s, memory_mb=limits.memory_mb, output_limit=limits.output_limit_kb * 1024,
            start_timeout_s=settings.python.describe_timeout_s, max_processes=settings.python.max_processes)
        # Folder -> (realm, owner), set by the keeper before each scan (personal folders come and go).
        self.realms: dict[str, tuple[str, str | None]] = {}
        # Module path -> what its last worker reported it was confined by.
        self.confinement: dict[str, dict[str, Any]] = {}
        self._probed: dict[WorkerSpec, dict[str, Any]] = {}  # what a probe with these grants reported
        self.idle_workers = IdleWorkers(settings.python.max_idle_workers)  # every module's, in all

    def realm_of(self, path: str) -> tuple[str, str | None]:
        return self.realms.get(os.path.dirname(path), ("shared", None))

    # -- one file -----------------------------------------------------------------

    def describe_file_sync(self, path: str | Path, sha: str | None = None, *, look_up: bool = True,
                           stop: threading.Event | None = None, help_runs: int = HELP_RUNS_AT_ONCE,
                           shares: HelpRunShares | None = None) -> FileOutcome:
        """Describes one file (``sha``: its hash when the caller already has it; ``look_up``:
        False when the caller has already found it missing from the cache; ``help_runs``: its
        help runs at once, or ``shares``' share of them, when given).
        Blocking: call it on a worker thread. Once ``stop`` is set, the guest or worker
        describing it is stopped and ``WorkStopped`` raised: nothing is cached."""
        path = os.fspath(path)
        if sha is None:
            try:
                sha = sha256_of(path)
            except OSError as exc:
                why = exc.strerror or exc  # the path is the skipped file's own
                return FileOutcome(path, None, skipped=SkippedFile(path, f"cannot read the file: {why}"))
        stem = tool_name_for(path)
        if is_secret_name(stem):
            # Its tools' names would be shown to every client and indexed for search as written:
            # a name cannot be hidden and still be called (nor can a schema's property's).
            return FileOutcome(path, sha, skipped=SkippedFile(path, f"its name {redact_text(stem)!r} looks like a "
                                                               "secret (a key or token); rename the file"))
        if path.endswith(".py"):
            return self.describe_python(path, sha, look_up=look_up, stop=stop)
        ref = ModuleRef(self.runtime, path, sha)
        cached = self.cache.get(sha, self._cache_key(stem)) if look_up else None
        if cached is not None and not self._timed_out_under_a_shorter_limit(cached) \
                and not self._cut_short_to_try_again(cached):
            return self._outcome(ref, stem, cached, from_cache=True)
        # Counted whether this looked it up or a batch did (``from_cache``): the count must grow,
        # or a file cut short at every start was described again at every start.
        retried = self._cut_short_retried.pop((sha, self._cache_key(stem)), 0)
        tries_before = _cut_short_tries(cached) if cached is not None else retried
        try:
            cached = self._describe_with_guest(ref, stem, stop=stop, help_runs=help_runs, shares=shares,
                                               tries_before=tries_before)
        except (WasmRejected, NotHelpError) as exc:
            if stop is not None and stop.is_set():
                # Help runs stopped because the server is stopping: not the file's doing.
                raise WorkStopped from None
            # A property of these bytes (not WebAssembly we run, or a --help that is not help or
            # never ends): remembered like a description, so the file costs its help timeout
            # once, not at every start, until it changes.
            notes: tuple[str, ...] = ()
            if isinstance(exc, WasmRejected):
                reason = exc.reason
            elif isinstance(exc, HelpDidNotEnd):
                timed_out = "timed out" in exc.reason
                reason = exc.reason + (" ([discovery] help_timeout_s)" if timed_out else "")
                if timed_out:  # a longer limit may let it end: described again then
                    notes = (f"{_TIMED_OUT_AFTER}{self.settings.discovery.help_timeout_s!r}",)
                elif "memory limit of" in exc.reason:  # so may more memory (an outside check)
                    notes = (f"{_OUT_OF_MEMORY_AT}{self.settings.sandbox.memory_mb!r}",)
            elif isinstance(exc, NoSubcommandHelp):
                reason = exc.reason
                if exc.out_of_time:
                    notes = (f"{_CUT_SHORT}{self.settings.discovery.file_budget_s!r} {tries_before + 1}",)
            else:
                reason = f"its -h/--help output is not help text: {exc.reason}"
            failed = CachedFile(commands=(), skipped=(_FAILED + reason, *notes))
            if not _the_machines_doing(reason):
                self.cache.put(sha, self._cache_key(stem), failed)
            return FileOutcome(path, sha, skipped=SkippedFile(path, reason), cut_short_tries=_cut_short_tries(failed))
        except ToolbayError as exc:
            return FileOutcome(path, sha, skipped=SkippedFile(path, str(exc)))
        if stop is not None and stop.is_set():
            raise WorkStopped  # a subcommand's help may have been cut short
        self.cache.put(sha, self._cache_key(stem), cached)
        return self._outcome(ref, stem, cached, from_cache=False)

    def from_cache(self, files: Sequence[tuple[str, str]]) -> list[FileOutcome | None]:
        """The outcome of each ``(path, sha256)`` whose description is cached, else None, in
        order. Runs no guest; blocking (one worker thread does a warm start's thousands)."""
        python = [index for index, (path, _) in enumerate(files) if path.endswith(".py")]
        if python:
            wasm_files = [item for item in files if not item[0].endswith(".py")]
            wasm_found = iter(self.from_cache(wasm_files) if wasm_files else [])
            found_python = {index: self._python_from_cache(*files[index]) for index in python}
            return [found_python[i] if i in found_python else next(wasm_found) for i in range(len(files))]
        stems = [tool_name_for(path) for path, _ in files]
        found = self.cache.get_many([(sha, self._cache_key(stem)) for (_, sha), stem in zip(files, stems, strict=True)])
        outcomes: list[FileOutcome | None] = []
        runtime = self.runtime
        for (path, sha), stem, cached in zip(files, stems, found, strict=True):
            if cached is not None and self._cut_short_to_try_again(cached):
                self._cut_short_retried[(sha, self._cache_key(stem))] = _cut_short_tries(cached)
                cached = None
            if cached is not None and self._timed_out_under_a_shorter_limit(cached):
                cached = None
            outcome = None if cached is None else self._outcome(ModuleRef(runtime, path, sha), stem, cached, True)
            outcomes.append(outcome)
        if self.cache.unsaved:  # e.g. entries first used today, or listings derived again
            self.cache.flush()
        return outcomes

    def describe_again(self, outcome: FileOutcome) -> None:
        """Counts a file cut short by the time budget as tried that often when it is next
        described without a look in the cache (``refresh_tools``): a refresh that cuts it short
        again adds a try, and does not start the count anew."""
        if outcome.cut_short_tries and outcome.sha256 is not None:
            key = (outcome.sha256, self._cache_key(tool_name_for(outcome.path)))
            self._cut_short_retried[key] = outcome.cut_short_tries

    def _cache_key(self, stem: str) -> str:
        """What a file's description is cached under beside its hash: its stem, and the depth
        subcommands were followed to where that is not the default (another depth describes
        other tools)."""
        depth = self.settings.discovery.max_depth
        return stem if depth == DEFAULT_MAX_DEPTH else f"{stem}@depth{depth}"

    def _timed_out_under_a_shorter_limit(self, cached: CachedFile) -> bool:
        """A remembered failure whose help run ran past a shorter time limit than today's, or
        out of a smaller memory limit."""
        for note in cached.skipped[1:] if cached.skipped and cached.skipped[0].startswith(_FAILED) else ():
            for mark, limit in ((_TIMED_OUT_AFTER, self.settings.discovery.help_timeout_s),
                                (_OUT_OF_MEMORY_AT, self.settings.sandbox.memory_mb)):
                if note.startswith(mark):
                    with contextlib.suppress(ValueError):
                        return _limit_raised(float(note.removeprefix(mark)), limit)
        return False

    def _cut_short_to_try_again(self, cached: CachedFile) -> bool:
        """A description cut short by the time budget, to be made again: tried fewer than
        ``_CUT_SHORT_TRIES`` times, or under a shorter budget than today's."""
        cut = _cut_short(cached)
        if cut is None:
            return any(note.startswith(_CUT_SHORT) for note in cached.skipped)  # a note it cannot read: try again
        budget, tries = cut
        return tries < _CUT_SHORT_TRIES or _limit_raised(budget, self.settings.discovery.file_budget_s)

    def _outcome(self, ref: ModuleRef, stem: str, cached: CachedFile, from_cache: bool) -> FileOutcome:
        if not cached.commands and cached.skipped and cached.skipped[0].startswith(_FAILED):
            reason = cached.skipped[0].removeprefix(_FAILED)
            return FileOutcome(ref.path, ref.sha256, skipped=SkippedFile(ref.path, reason), from_cache=from_cache,
                               cut_short_tries=_cut_short_tries(cached))
        for command in cached.commands:
            listing = command.listing
            if listing is None or listing.get("builder") != LISTING_BUILDER:  # ``_stale``, inline
                # Listed by another schema builder: derive the listings again from the descriptions
                # (no guest runs) and keep the result, so the next start need not.
                cached = CachedFile(
                    commands=tuple(relisted(c) if is_stale(c.listing) else c for c in cached.commands),
                    skipped=cached.skipped,
                )
                self.cache.put(ref.sha256, self._cache_key(stem), cached)
                break
        origin = "wasm:" + ref.path
        realm = self.realm_of(ref.path)
        tools: list[Entry] = [self._tool_for(ref, stem, origin, command, realm) for command in cached.commands]
        notes = tuple(note for note in cached.skipped if not note.startswith(_CUT_SHORT))
        file_name = os.path.basename(ref.path)
        if file_name[:-len(".wasm")] != stem:
            # 日本.wasm is served as "tool": two such files would clash without a word.
            notes = (*notes, f"{one_line(shown(file_name))}{_SERVED_AS}{stem!r}: a tool name is ASCII letters, "
                             "digits, '_' and "
                             "'-', at most 64 (rename the file to choose it)")
        return FileOutcome(ref.path, ref.sha256, tools, None, notes, from_cache,
                           cut_short_tries=_cut_short_tries(cached))

    def explain(self, path: str) -> Explanation:
        """Describes one file afresh (no cache read or written), keeping every help text the
        guest printed, with the tools made of them: what ``toolbay describe`` shows."""
        stem = tool_name_for(path)
        runs: list[tuple[list[str], HelpRun]] = []
        try:
            sha = sha256_of(path)
        except OSError as exc:  # past the size a tool can be, a read error (EIO): it was "cannot write the output"
            raise ConfigError(f"describe: cannot read {path} ({exc.strerror or exc})") from None
        ref = ModuleRef(self.runtime, path, sha)
        try:
            described = self._describe_with_guest(ref, stem, record=lambda argv, run: runs.append((argv, run)))
        except NotHelpError as exc:
            # What it printed is what its author needs to see beside why it is no help.
            if not runs:
                raise
            why = exc.reason if isinstance(exc, NoSubcommandHelp) else \
                f"its -h/--help output is not help text: {exc.reason}"
            return Explanation(runs, [], (why,), described=False)
        tools = [self._tool_for(ref, stem, "wasm:" + path, command).definition for command in described.commands]
        return Explanation(runs, tools, described.skipped)

    def _describe_with_guest(self, ref: ModuleRef, stem: str,
                             record: Callable[[list[str], HelpRun], None] | None = None,
                             stop: threading.Event | None = None, help_runs: int = HELP_RUNS_AT_ONCE,
                             shares: HelpRunShares | None = None, tries_before: int = 0) -> CachedFile:
        """``tries_before``: how often the file's description was cut short by the time budget
        before (``_CUT_SHORT``); ``shares``: what decides its help runs at once, if not ``help_runs``."""
        # The help-text parser loads with the first file to describe (see toolbay.helptext).
        from toolbay.helptext import HelpRun, describe_tree
        from toolbay.helptext.conventions import unknown_executions, unknown_tiers
        from toolbay.helptext.tree import OUT_OF_TIME

        module = ref.get()  # compiles (or loads the compiled cache); raises WasmRejected
        not_tiers: dict[str, None] = {}
        not_executions: dict[str, None] = {}

        def run_help(argv: list[str]) -> HelpRun:
            result = self.runtime.run(module, RunRequest(argv=[stem, *argv], limits=self.help_limits), stop)
            # A status past 125 ended the program as it meant to (git exits 129 on an unknown
            # option, so "sub --help" of a git-style program does): what it printed is whole.
            # A help that ended after more than the output limit is read as far as it was kept (its
            # first MiB), as `toolbay parse-help` reads one: it was refused as one that "did not
            # end" (an outside check). One that never ends is stopped by the runtime (a trap).
            stopped = None if result.trap == INVALID_EXIT_STATUS else result.trap
            run = HelpRun(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code, stopped=stopped)
            if record is not None:
                record([stem, *argv], run)
            for output in (result.stdout, result.stderr):
                text = output.decode("utf-8", "replace")  # once for both: a help may be a MiB
                not_tiers.update(dict.fromkeys(unknown_tiers(text)))
                not_executions.update(dict.fromkeys(unknown_executions(text)))
            return run

        tree = describe_tree(
            run_help,
            stem,
            max_depth=self.settings.discovery.max_depth,
            time_budget_s=self.settings.discovery.file_budget_s,
            # Runs at once where cores allow; ``toolbay describe`` shows the runs in their order.
            workers=1 if record is not None else help_runs if shares is None else shares.now(),
        )
        commands = tuple(
            CachedCommand(
                tool_name=c.tool_name, path=tuple(c.path), description=c.description.to_dict(),
                listing=listing_of(c.description, c.tool_name, tuple(c.path)),
            )
            for c in tree
        )
        if not commands and tree.skipped:
            # Subcommands listed, none readable: a file that serves no tool says so as a skipped
            # file, naming why, not as notes that name no file beside zero tools.
            first = tree.skipped[0]
            raise NoSubcommandHelp(f"it lists subcommands, but none of their help could be read "
                                   f"({' '.join(first.path)}: {first.reason})",
                                   out_of_time=any(s.reason == OUT_OF_TIME for s in tree.skipped))
        skipped = tuple(f"{' '.join(s.path)}: {s.reason}" for s in tree.skipped) + tuple(
            f"{_NOT_A_TIER}{word}', which is no tier (read, write or exec): its tools are "
            "served as undeclared, with no workspace" for word in not_tiers) + tuple(
            f"{_HELP_SAYS}Execution: {word}', which toolbay does not read ('Execution: background' makes every "
            "call a job at once): its calls run inline" for word in not_executions)
        if any(s.reason == OUT_OF_TIME for s in tree.skipped):
            skipped = (*skipped, f"{_CUT_SHORT}{self.settings.discovery.file_budget_s!r} {tries_before + 1}")
        return CachedFile(commands=commands, skipped=skipped)

    def _tool_for(self, ref: ModuleRef, stem: str, origin: str, command: CachedCommand,
                  realm: tuple[str, str | None] = ("core", None)) -> ListedTool:
        listing = command.listing
        assert listing is not None  # made fresh by ``_outcome``
        name = command.tool_name
        tier = self._tier_for(name, listing["tier"]) if self._tier_patterns else _TIERS.get(listing["tier"])
        background = listing["background"] or bool(self._background_patterns) and self._declared_background(name)
        text, _ = bounded_description(listing["text"])  # a help of a megabyte is no description
        definition = ToolDefinition.trusted(
            name, text, listing["input_schema"], listing["title"], tier, tuple(listing["keywords"]),
            origin, "wasm", bool(background), realm[0], realm[1], listing.get("version"),
        )
        return ListedTool(definition, self, ref, stem, command)

    def handler_for(self, tool: ListedTool, ref: ModuleRef | Callable[[], WasmModule]) -> WasmHandler:
        """The handler serving ``tool``, its module from ``ref``."""
        return WasmHandler(
            tool.definition,
            self.runtime,
            ref,
            program_name=tool.stem,
            subcommand_path=tool.command.path,
            to_argv=_LazyArgv(tool.command),
            limits=self.call_limits,
            workspace=self.settings.workspace,
            **self._wasm_env(tool.definition.name),
        )

    def _wasm_env(self, name: str) -> dict[str, Any]:
        """``env_allow`` and ``host_env`` for a wasm tool: the allowed host variables, plus the
        variables its credentials grant it alone (whose values are kept out of its results)."""
        granted = self.credentials.env_for(name) if self.credentials.credentials else {}
        if not granted:
            return {"env_allow": self._env_allow}
        return {"env_allow": (*self._env_allow, *granted), "host_env": {**os.environ, **granted},
                "secrets": tuple(granted.values())}

    # -- Python tool modules --------------------------------------------------------

    def describe_python(self, path: str, sha: str, *, look_up: bool = True,
                        stop: threading.Event | None = None) -> FileOutcome:
        """Describes a ``.py`` file in a worker process (or from the cache). Blocking; once
        ``stop`` is set, the worker is killed and ``WorkStopped`` raised."""
        if not is_utf8(path):
            # The worker is told what to import in JSON, which has no way to write the bytes of such
            # a name; nor could its tools' module be imported by it in the worker.
            return FileOutcome(path, sha, skipped=SkippedFile(path, _NOT_UTF8))
        try:
            size = os.stat(path).st_size
        except OSError as exc:
            return FileOutcome(path, sha, skipped=SkippedFile(path, f"cannot read the file: {exc.strerror or exc}"))
        if (why := too_large(size, "a Python tool module", MAX_PYTHON_MODULE_BYTES)) is not None:
            # Read whole to be described and imported: a 200 MB file took 700 MB of the server's memory.
            return FileOutcome(path, sha, skipped=SkippedFile(path, why))
        entry = self._python_cached(path, sha) if look_up else None
        source = source_of(path, sha)
        module = tool_name_for(path)  # as the worker imports it
        if entry is None:
            stamp = folder_stamp(path)  # before the import: a file added while it runs changes it
            spec = self._worker_spec(path, module, None, source)
            # The worker imports the file as it is now: if that is no longer version ``sha``,
            # what it finds must not be remembered as that version's (a good file would be
            # refused for an error it does not hold, until it changed again).
            remember = source is not None or _still_version(path, sha)
            try:
                description, enforced = describe_module(spec, self.settings.python.describe_timeout_s, stop)
            except DescribeFailed as failed:
                # The module's own words (its import's error) reach clients (refresh_tools) and the
                # operator's listing: a secret in them is hidden as in every text served.
                reason = redact_text(failed.reason)
                if remember and failed.lasting:
                    self.python_cache.put(sha, {"skipped": reason, "module": module})
                elif remember and failed.with_packages:
                    self.python_cache.put(sha, {"skipped": reason, "packages": packages_stamp(),
                                                "timed_out_after_s": failed.timed_out_after_s, "module": module,
                                                "failed_in": stamp})
                return FileOutcome(path, sha, skipped=_python_skipped(path, reason),
                                   failed_in=None if failed.lasting else stamp)
            self.confinement[path] = enforced
            entry = {"description": description, "module": module}
            if remember:
                self.python_cache.put(sha, entry)
        return self._python_outcome(path, sha, entry, source)

    def _python_from_cache(self, path: str, sha: str) -> FileOutcome | None:
        entry = self._python_cached(path, sha)
        return None if entry is None else self._python_outcome(path, sha, entry, source_of(path, sha))

    def _python_cached(self, path: str, sha: str) -> Mapping[str, Any] | None:
        """The cached description of version ``sha``, while the helpers it was built with are
        unchanged; a failure to import it only while the installed packages are those it
        failed with (a package installed since may mend it)."""
        entry = self.python_cache.get(sha)
        if entry is not None and entry.get("module") != tool_name_for(path):
            return None  # the same text as another module: what it is depends on its name too
        if entry is not None and "packages" in entry and entry["packages"] != packages_stamp():
            return None
        if entry is not None and _limit_raised(entry.get("timed_out_after_s"), self.settings.python.describe_timeout_s):
            return None  # it ran past a shorter limit than today's: it may finish now
        if entry is not None and not self.helpers_unchanged(path, _helpers_of(entry)):
            return None
        if entry is not None and not failed_here(path, entry.get("failed_in")):
            return None  # failed in another folder, or in this one before a file came or went
        return entry

    def helpers_unchanged(self, path: str, helpers: Mapping[str, str]) -> bool:
        """Whether each helper the module at ``path`` imported when it was described
        (``_helpers_imported`` in the worker) still holds what it held then: a schema built from
        ``shared_schemas.py`` is stale once that file changes, though the module did not. Hashed
        through the hash index, so a helper that two hundred modules import is read once."""
        if not helpers:
            return True
        folder = Path(path).parent
        wanted = {folder / relative: sha256 for relative, sha256 in helpers.items()}
        now = self.hash_index.hashes(wanted)
        return all(now.get(helper) == sha256 for helper, sha256 in wanted.items())

    def _python_outcome(self, path: str, sha: str, entry: Mapping[str, Any], source: str | None) -> FileOutcome:
        """``source``: the file's text as version ``sha`` (``source_of``), which its workers run."""
        if "skipped" in entry:
            failed_in = entry.get("failed_in")
            return FileOutcome(path, sha, skipped=_python_skipped(path, str(entry["skipped"])), from_cache=True,
                               failed_in=failed_in if isinstance(failed_in, str) else None)
        module = tool_name_for(path)
        spec = module_spec_from(module, entry.get("description") or {})
        notes = (*(f"{module}: refused {redact_text(reason)}" for reason in spec.refused),
                 *(f"{module}: {redact_text(note)}" for note in spec.notes))
        if not spec.tools:
            # None declared (an empty list) is meant; all refused is a save to be mended.
            return FileOutcome(path, sha, skipped=SkippedFile(path, NO_TOOL_REASON + spec.reason_skipped,
                                                              offers_nothing=not spec.refused),
                               notes=notes)
        realm, owner = self.realm_of(path)
        tiers = [self._tier_for(t.name, spec.tier.value if spec.tier else None) for t in spec.tools]
        strongest = max((t for t in tiers if t is not None), key=lambda t: t.rank, default=None)
        # Workers run the version described (``sha``), not whatever the file holds when one
        # starts: after a broken save the tools keep their last good version, worker restarts
        # included.
        pool = WorkerPool(self._worker_spec(path, module, strongest, source),
                          self.settings.python.workers_per_module, self.settings.python.worker_idle_s,
                          self.idle_workers)
        handlers: list[Entry] = []
        for tool, tier in zip(spec.tools, tiers, strict=True):
            background = spec.long_running or self._declared_background(tool.name)
            definition = ToolDefinition(
                name=tool.name, description=tool.description, input_schema=tool.input_schema, tier=tier,
                origin="python:" + path, source="python", background=background, realm=realm, owner=owner)
            handlers.append(PythonHandler(definition, pool, credentials=self.credentials,
                                          env=self.credentials.env_for(tool.name)))
        return FileOutcome(path, sha, handlers, notes=notes, helpers=_helpers_of(entry))

    def _worker_spec(self, path: str, module: str, tier: PermissionTier | None,
                     source: str | None = None) -> WorkerSpec:
        workspace = self.settings.workspace
        grant = () if workspace is None or tier is None else (str(workspace.resolve()),)
        writable = tier is not None and tier is not PermissionTier.READ
        network = any(fnmatchcase(module, pattern) for pattern in self.settings.python.network_allow)
        return WorkerSpec(
            path=os.path.abspath(path), module=module, limits=self.python_limits, read=() if writable else grant,
            write=grant if writable else (), network=network, confine=self.settings.python.confine,
            cwd=grant[0] if grant else None, source=source,
        )

    def confinement_of(self, definition: ToolDefinition) -> str:
        """``toolbay list``'s words for a Python tool's confinement, from what a worker of the
        same grants reported (its description's, or a probe's). Blocking."""
        path = definition.origin.removeprefix("python:")
        module = tool_name_for(path)
        tier = definition.tier
        workspace = "none" if tier is None or self.settings.workspace is None else (
            "read-only" if tier is PermissionTier.READ else "read-write")
        network = any(fnmatchcase(module, pattern) for pattern in self.settings.python.network_allow)
        enforced = self.confinement.get(path)
        if enforced is None and self.settings.python.confine:
            spec = self._worker_spec(path, module, tier)
            helper = str(WORKER_SCRIPT.parent / "lib" / "toolbay_tools.py")
            probe = WorkerSpec(helper, "toolbay_tools", spec.limits, spec.read, spec.write, spec.network)
            # One probe for each set of grants: modules of one folder and tier share theirs (a
            # listing of 100 modules described from the cache started 100 workers).
            enforced = self._probed.get(probe)
            if enforced is None:
                enforced = self._probed[probe] = probe_confinement(probe, self.settings.python.describe_timeout_s)
            self.confinement[path] = enforced
        return confinement_words(enforced, asked=self.settings.python.confine, workspace=workspace, network=network)

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
        paths: Sequence[str],
        on_done: Callable[[FileOutcome], None] | None = None,
        uncached: Mapping[str, str] | None = None,
    ) -> list[FileOutcome]:
        """Describes files by running their guests, in parallel (WebAssembly files one a core,
        Python tool modules one a runtime worker: see ``CORES``), keeping the input order.
        ``uncached``: the sha256 of files already looked up in the cache and not found there
        (see ``from_cache``); the others are hashed and looked up.
        """
        outcomes: list[FileOutcome | None] = [None] * len(paths)
        known = uncached or {}
        modules = anyio.CapacityLimiter(CORES)
        workers = anyio.CapacityLimiter(max(1, self.runtime.max_workers))
        shares = HelpRunShares(sum(not path.endswith(".py") for path in paths))

        async def one(index: int, path: str) -> None:
            started = time.perf_counter()
            sha = known.get(path)

            def describe(stop: threading.Event) -> FileOutcome:
                try:
                    return self.describe_file_sync(path, sha, look_up=sha is None, stop=stop, shares=shares)
                finally:
                    if not path.endswith(".py"):
                        shares.described()

            # Cancelled (the server stops), the guest or worker describing the file is stopped
            # at once rather than waited for to the end of its help or describe timeout. A
            # compile cannot be stopped: it is waited for only briefly, and ends on its own (a
            # Ctrl-C during a first start of large tools waited 4 to 24 s for them).
            limiter = workers if path.endswith(".py") else modules
            try:
                outcome = await run_stoppable(describe, limiter=limiter, wait_s=STOPPING_WAIT_S, daemon=True)
            except (WorkStopped, anyio.get_cancelled_exc_class()):
                raise
            except Exception as exc:  # noqa: BLE001 - one file's failure (out of memory) must not end the server
                logger.exception("describing %s failed", shown(path))
                outcome = FileOutcome(path, sha, skipped=SkippedFile(
                    path, f"it could not be described ({type(exc).__name__}: {exc})"))
            outcomes[index] = outcome
            name = os.path.basename(path)
            log_skipped(outcome)
            log_notes(outcome)
            logger.debug("described %s in %.1f ms", name, (time.perf_counter() - started) * 1000)
            if on_done is not None:
                on_done(outcome)

        # Optimising code in the background waits until these are described.
        with self.runtime.first_uses():
            async with anyio.create_task_group() as group:
                for index, path in enumerate(paths):
                    group.start_soon(one, index, path)
        if self.cache.unsaved:
            await anyio.to_thread.run_sync(self.cache.flush)
        return [o for o in outcomes if o is not None]


def _still_version(path: str, sha: str) -> bool:
    """Whether the file at ``path`` is still version ``sha`` (False when it cannot be read)."""
    try:
        return hashlib.sha256(_read_whole(path)).hexdigest() == sha
    except OSError:
        return False


def _read_whole(path: str) -> bytes:
    """The file's bytes, read without blocking (see ``sha256_of``)."""
    with open_tool_file(path) as file:
        return file.read() or b""


def source_of(path: str, sha: str) -> str | None:
    """The text of the Python file ``path`` while it is still the version ``sha``; None when it
    has changed since (its workers then import the file as it is) or is not UTF-8."""
    try:
        data = _read_whole(path)
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != sha:
        return None
    try:
        return data.decode("utf-8-sig")  # a byte-order mark is not part of the code
    except UnicodeDecodeError:
        return None


def log_skipped(outcome: FileOutcome) -> None:
    """Logs why a file serves no tool, when it serves none: said as it is described, and as a
    rescan finds it in the description cache (a file seen before: an empty .wasm dropped in
    left no line in the log, where a new one said why)."""
    if outcome.skipped is None:
        return
    if outcome.skipped.reason.startswith(NOT_A_TOOL_MODULE):
        # A helper the tool modules import: the README says it belongs there.
        logger.info("%s serves no tool (%s)", shown(outcome.path), outcome.skipped.reason)
    else:
        logger.warning("skipping %s: %s", shown(outcome.path), outcome.skipped.reason)


def log_notes(outcome: FileOutcome) -> None:
    """Logs what a described file offers no tool for, and why: a program's subcommands; a
    Python module's refused schemas (their notes name the module already)."""
    name = shown(os.path.basename(outcome.path))
    for note in outcome.notes:
        if outcome.path.endswith(".py"):
            logger.info("%s: %s", name, note)
        else:
            logger.info("%s", said_of_program(name, note))


def said_of_program(name: str, note: str) -> str:
    """A WebAssembly file's ``note`` as its author reads it, in the log and in ``toolbay list``:
    naming the file (``name``, as shown), and a subcommand's as skipped. ``toolbay list`` said
    "put: no usage line ..." among every folder's notes, naming neither."""
    if _SERVED_AS in note:
        return note  # it begins with the file's name
    return f"{name}: {note}" if note.startswith(_HELP_SAYS) else f"{name}: skipped subcommand {note}"


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


# A Python tool module is read whole (hashed, described, imported): one larger than this is
# no hand-written module, and is not read.
MAX_PYTHON_MODULE_BYTES = 16 * 1024 * 1024
_NOT_UTF8 = "its path is not valid UTF-8: rename the file (or its folder) to serve it"


def folder_stamp(path: str) -> str | None:
    """The folder holding ``path`` as it is now: its name and the time an entry of it was last
    added, removed or renamed (an editor's save by renaming too)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        return f"{folder}@{os.stat(folder).st_mtime_ns}"
    except OSError:
        return None


def failed_here(path: str, failed_in: object) -> bool:
    """Whether a failure recorded with ``failed_in`` (``folder_stamp`` then, or None for one
    the file alone says) still holds for the file at ``path``: its folder is as it was."""
    return failed_in is None or failed_in == folder_stamp(path)


def _python_skipped(path: str, reason: str) -> SkippedFile:
    """A module that offers no tool for ``reason``: a helper (no ``get_tool_schemas``) offers
    nothing by design; an import or a describe that failed is a version to be mended."""
    return SkippedFile(path, reason, offers_nothing=reason.startswith(NOT_A_TOOL_MODULE))

