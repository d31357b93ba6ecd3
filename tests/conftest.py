"""Fixtures shared by every test folder."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

# In a virtual environment (``uv run``), what the tests make only to save time and can always
# make again (compiled bytecode, compiled modules, mypy's cache) is kept inside it between runs,
# as Python keeps ``__pycache__``; elsewhere only for the run.
KEPT_BETWEEN_RUNS = Path(sys.prefix) / "toolbay-test-caches" if sys.prefix != sys.base_prefix else None


def _share_compiled_bytecode() -> str | None:
    """Every Python process of the test session (this one, pytest-xdist's workers, and the
    servers and commands the tests start) keeps its compiled bytecode in one folder, so a module
    is compiled from source once rather than once per process. Where bytecode is never written
    (PYTHONDONTWRITEBYTECODE, as some shells set), each ``toolbay`` subprocess would otherwise
    compile toolbay, the MCP SDK and pydantic from source, seconds of CPU each. The folder is
    kept between runs (``KEPT_BETWEEN_RUNS``) or else temporary, returned to be removed at the
    end. Set before toolbay is imported here."""
    made = None
    if not os.environ.get("PYTHONPYCACHEPREFIX"):
        if KEPT_BETWEEN_RUNS is not None:
            os.environ["PYTHONPYCACHEPREFIX"] = str(KEPT_BETWEEN_RUNS / "bytecode")
        else:
            made = tempfile.mkdtemp(prefix="toolbay-tests-bytecode-")
            os.environ["PYTHONPYCACHEPREFIX"] = made
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False
    return made


_bytecode_folder = _share_compiled_bytecode()


def drop_bytecode_of_removed_sources(prefix: Path) -> int:
    """Removes from the bytecode folder ``prefix`` (a ``PYTHONPYCACHEPREFIX``, which mirrors each
    source's absolute path) every file kept for a source that is gone (its compiled bytecode,
    and the compiled patterns toolbay keeps beside it: ``toolbay.internals.sre_code``), and the
    folders left empty; returns how many files went. The kept folder would otherwise grow by
    every temporary folder a run imports from (a wheel installed into a fresh environment, a
    fresh clone's, a build backend's): about 20 MB a run, 620 MB after a day's work here."""
    dropped = 0
    for kept in [path for path in prefix.rglob("*") if path.is_file()]:
        # "module.cpython-311.pyc" (".opt-1.pyc", ".sre") in prefix/<the source's folder>
        source = Path("/", kept.parent.relative_to(prefix), kept.name.split(".", 1)[0] + ".py")
        if not source.exists():
            kept.unlink(missing_ok=True)
            dropped += 1
    for folder, _, _ in os.walk(prefix, topdown=False):
        if Path(folder) != prefix:
            with contextlib.suppress(OSError):  # not empty
                os.rmdir(folder)
    return dropped


def _build_models_when_used() -> None:
    """Models are built when first used, as in the ``toolbay`` command (``toolbay.entry``), so
    the in-process servers the tests assemble run as a served one does, and each test process
    builds only the MCP SDK's models it uses: its 550 models built at import were about 0.65 s
    of processor time in every test process. Before anything imports pydantic models."""
    from toolbay.internals.pydantic_models import defer_model_building

    defer_model_building()


_build_models_when_used()


def _share_one_tls_context() -> None:
    """Every HTTP client the tests make (theirs and the MCP SDK's) speaks plain HTTP to a server
    on loopback, yet httpx builds each one a TLS context from the system's certificate bundle
    (``httpcore2.default_ssl_context``): about 30 ms of processor time a client, several seconds
    a run. They share one per process instead (a context is made to be shared).
    tests/test_shared_tls_context.py fails if httpx stops making its context there."""
    import httpcore2

    httpcore2.default_ssl_context = functools.cache(httpcore2.default_ssl_context)


_share_one_tls_context()

import pytest  # noqa: E402
from filelock import FileLock  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

from toolbay.app import Toolbay  # noqa: E402
from toolbay.assembly import assemble  # noqa: E402
from toolbay.config import Settings, load_settings  # noqa: E402
from toolbay.errors import WasmRejected  # noqa: E402
from toolbay.logs import QUIETED_LOGGERS  # noqa: E402
from toolbay.wasm import WasmRuntime  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_EXTENSIONS = REPO_ROOT / "extensions"
FIXTURE_WASM = REPO_ROOT / "tests" / "fixtures" / "wasm"


# Where a program looks for the user's files, by the XDG base directory specification.
XDG_FOLDERS = {"XDG_DATA_HOME": ".local/share", "XDG_CONFIG_HOME": ".config",
               "XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state"}


_home_patch = pytest.MonkeyPatch()


# Test processes when none are asked for (pytest-xdist): one more than the cores. Many tests
# wait on a server they started (its start, a job's end, a deadline), and a third process keeps
# both cores busy through those waits. On this project's two-core machine, quiet, one run each
# (--dist loadfile): 2 processes 3:45 (338 s of processor time), 3 processes 2:59 (324 s),
# 4 processes 3:07 (362 s).
DEFAULT_TEST_PROCESSES = (os.cpu_count() or 2) + 1


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The suite runs in ``DEFAULT_TEST_PROCESSES`` processes (pytest-xdist) unless told otherwise:
    ``-n N`` (``-n 0``: this process), ``-p no:xdist``, or naming single tests (``path::test``),
    which run here at once rather than waiting for workers to start. Set here rather than in
    ``addopts``, where ``-n`` would make ``-p no:xdist`` an error. Each test file runs whole in
    one process (``--dist loadfile``), so what a module sets up once (a server process, three
    replicas and Redis, a built wheel) is set up once per run, not once in every process that
    runs one of its tests: 457 -> 345 s of processor time for the suite, with the CLI's lighter
    imports. (``xdist_group`` marks would do it per group, but with pytest 9.2 and pytest-xdist
    3.8 they group nothing: xdist renames grouped tests through ``item._nodeid``, which pytest 9
    no longer reads.)"""
    if os.environ.get("PYTEST_XDIST_WORKER") or hasattr(config, "workerinput"):
        return  # a worker: it runs its share here (it calls this hook too, with -n reset)
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is None:
        if config.option.collectonly or any("::" in argument for argument in config.args):
            return
        config.option.numprocesses = DEFAULT_TEST_PROCESSES
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadfile"


def pytest_configure(config: pytest.Config) -> None:
    """Tests never touch the user's home: ``HOME`` and the XDG folders point at an empty
    temporary folder for the whole session (set before collection, as some test modules copy
    ``os.environ`` when imported), in this process and every server it starts: ``serve`` with
    no ``--data-dir`` keeps its data under ``$XDG_DATA_HOME/toolbay``."""
    # uv's package cache stays the one that made the test environment: .mcp.json starts
    # toolbay through `uv run`, which would otherwise fetch every package into the empty home.
    user_cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    _home_patch.setenv("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR") or str(Path(user_cache) / "uv"))
    # Settings a developer exported for their own server (TOOLBAY_...) would change what the
    # tests see; each test sets the ones it means.
    for variable in [name for name in os.environ if name.startswith("TOOLBAY_")]:
        _home_patch.delenv(variable)
    home = Path(tempfile.mkdtemp(prefix="toolbay-tests-home-"))
    _home_patch.setenv("HOME", str(home))
    for variable, folder in XDG_FOLDERS.items():
        _home_patch.setenv(variable, str(home / folder))
    # Hypothesis keeps what it learns in .hypothesis/ of the current folder: beside the other
    # caches kept between runs instead (its harvest of constants from every local module, about
    # a second of CPU per test process when made afresh), else in the temporary home.
    set_hypothesis_home_dir(KEPT_BETWEEN_RUNS / "hypothesis" if KEPT_BETWEEN_RUNS else home / ".hypothesis")
    _let_started_processes_see_ctrl_c()


def _let_started_processes_see_ctrl_c() -> None:
    """Tests stop ``serve`` with SIGINT, as Ctrl-C at a terminal does. A test run started in the
    background by a non-interactive shell (``pytest &`` in a script) ignores SIGINT, and an
    ignored signal stays ignored in every program it starts, so those servers would never see
    it. Python's own handler is put back for the session: unlike "ignore", a handler is reset to
    the default in a started program."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN and threading.current_thread() is threading.main_thread():
        _signals_ignored.append(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)


_signals_ignored: list[signal.Signals] = []


def pytest_unconfigure(config: pytest.Config) -> None:
    home = os.environ.get("HOME")
    _home_patch.undo()
    while _signals_ignored:
        signal.signal(_signals_ignored.pop(), signal.SIG_IGN)
    if home is not None and Path(home).name.startswith("toolbay-tests-home-"):
        shutil.rmtree(home, ignore_errors=True)
    if _bytecode_folder is not None:
        shutil.rmtree(_bytecode_folder, ignore_errors=True)
    elif (KEPT_BETWEEN_RUNS is not None and sys.pycache_prefix == str(KEPT_BETWEEN_RUNS / "bytecode")
          and not hasattr(config, "workerinput")):  # once, after every worker; not a folder of the user's own
        drop_bytecode_of_removed_sources(KEPT_BETWEEN_RUNS / "bytecode")


def patient_start(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a ``serve`` subprocess that must list the whole catalog at its
    first tools/list, however slowly a busy machine describes the tools for the first time:
    it waits for every description before answering (``[discovery] start_wait_s``). Tests
    of the default start wait leave this out."""
    return {**(os.environ if env is None else env), "TOOLBAY_DISCOVERY__START_WAIT_S": "600"}


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A test that runs a command in process (``serve``, ``call``...) configures logging the way
    the command does: its root level and handlers, and the levels of the SDK's loggers (and
    uvicorn's configuration disables the loggers that exist then). They are put back afterwards,
    so that no later test sees another test's logging."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    quieted = {name: logging.getLogger(name).level for name in QUIETED_LOGGERS}
    disabled = {name for name, logger in logging.root.manager.loggerDict.items()
                if isinstance(logger, logging.Logger) and logger.disabled}
    yield
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and logger.disabled and name not in disabled:
            logger.disabled = False
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)
    for name, was in quieted.items():
        logging.getLogger(name).setLevel(was)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``make(folder)`` once for the whole test run: under
    pytest-xdist every worker process runs each session fixture itself, so what is costly to
    make (compiled modules, described catalogs) is made by the first worker that asks, under a
    lock, and found done by the others. ``make`` must leave the folder complete or raise."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, shared by its workers (theirs are inside it)
    folder, done = base / name, base / f"{name}.done"
    with FileLock(str(base / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed left half made
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


def kept_up_to_date(tmp_path_factory: pytest.TempPathFactory, name: str, update: Callable[[Path], None]) -> Path:
    """The folder ``name`` kept between runs (``KEPT_BETWEEN_RUNS``), brought up to date by
    ``update(folder)`` once per run under a lock (``update`` must be cheap when nothing
    changed); without a virtual environment, made for this run only (``once_per_run``)."""
    if KEPT_BETWEEN_RUNS is None:
        return once_per_run(tmp_path_factory, name, update)

    def update_kept(stamp: Path) -> None:
        KEPT_BETWEEN_RUNS.mkdir(parents=True, exist_ok=True)
        with FileLock(str(KEPT_BETWEEN_RUNS / f"{name}.lock")):
            update(KEPT_BETWEEN_RUNS / name)

    once_per_run(tmp_path_factory, f"{name}-updated", update_kept)
    return KEPT_BETWEEN_RUNS / name


def _compile_test_modules(folder: Path) -> None:
    """Cranelift's code for the bundled tools and the test programs, as a server that has run
    once leaves it (its background optimiser replaces the baseline compiler's code and drops
    it). Compiled up front and in parallel, so that no server started on a copy of this folder
    begins optimising the 7 MB Go tool again (seconds of CPU each, thrown away when its test
    stops it) and no test waits on a module that is still being optimised. Modules already
    compiled there are only read back (the cache's key names the content, wasmtime's version
    and settings, so what it holds is never stale)."""
    runtime = WasmRuntime(cache_dir=folder / "modules", consume_fuel=False, quick_compile=False)
    try:
        for path in sorted([*BUNDLED_EXTENSIONS.glob("*.wasm"), *FIXTURE_WASM.glob("*.wasm")]):
            with contextlib.suppress(WasmRejected):  # the fixtures that are broken on purpose
                assert runtime.load(path).compiler == "cranelift"
    finally:
        runtime.close()


def _link_tree(source: Path, target: Path) -> None:
    """``source`` copied as hard links (copies across file systems): the compiled-module cache
    only ever replaces or removes an entry whole (``toolbay.atomic_files``), never writes into
    one, so the copies of a test run share the 16 MB of code rather than each writing it out."""

    def link(from_path: str, to_path: str) -> None:
        try:
            os.link(from_path, to_path)
        except OSError:
            shutil.copy2(from_path, to_path)

    shutil.copytree(source, target, copy_function=link)


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data folder for the session (each test process has its own copy: its job database
    and description cache are its own), starting with every module compiled as a server that
    has run before leaves it (see ``_compile_test_modules``), compiled once, not once per worker."""
    compiled = kept_up_to_date(tmp_path_factory, "compiled-modules", _compile_test_modules)
    folder = tmp_path_factory.mktemp("toolbay-data")
    _link_tree(compiled / "modules", folder / "modules")
    return folder


def as_if_run_before(data_dir: Path, shared_data_dir: Path) -> Path:
    """``data_dir`` (made if missing) starts with the compiled modules a server that has run
    before leaves there, for a test that needs a data folder of its own but is not about
    compiling: compiling the 7 MB Go tool from nothing costs seconds of processor time
    (tests/reload/test_start_wait.py is about that). The cache's key names each module's content
    and wasmtime's version and settings, so a server uses only what it would have compiled."""
    _link_tree(shared_data_dir / "modules", data_dir / "modules")
    return data_dir


# The app over a private copy of the bundled tools (tests/app, tests/catalog, tests/protocol).

@pytest.fixture
def extensions_dir(tmp_path: Path) -> Iterator[Path]:
    """A private copy of the bundled tools, so a test may change it."""
    folder = tmp_path / "extensions"
    shutil.copytree(BUNDLED_EXTENSIONS, folder)
    yield folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    return folder


@pytest.fixture
def settings(extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> Settings:
    return load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace)


@pytest.fixture
async def toolbay(settings: Settings) -> AsyncIterator[Toolbay]:
    async with assemble(settings) as app:
        yield app
