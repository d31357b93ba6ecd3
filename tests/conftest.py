"""Fixtures shared by every test folder."""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path


def _share_compiled_bytecode() -> str | None:
    """Every Python process of the test session (this one, pytest-xdist's workers, and the
    servers and commands the tests start) keeps its compiled bytecode in one temporary folder,
    so a module is compiled from source once per session rather than once per process. Where
    bytecode is never written (PYTHONDONTWRITEBYTECODE, as some shells set), each ``toolbay``
    subprocess would otherwise compile toolbay, the MCP SDK and pydantic from source, seconds of
    CPU each. Set before toolbay is imported here; the folder made is returned, to remove at the end."""
    made = None
    if not os.environ.get("PYTHONPYCACHEPREFIX"):
        made = tempfile.mkdtemp(prefix="toolbay-tests-bytecode-")
        os.environ["PYTHONPYCACHEPREFIX"] = made
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False
    return made


_bytecode_folder = _share_compiled_bytecode()

import pytest  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

from toolbay.app import Toolbay  # noqa: E402
from toolbay.assembly import assemble  # noqa: E402
from toolbay.config import Settings, load_settings  # noqa: E402
from toolbay.logs import QUIETED_LOGGERS  # noqa: E402
from toolbay.wasm import WasmRuntime  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_EXTENSIONS = REPO_ROOT / "extensions"
FIXTURE_WASM = REPO_ROOT / "tests" / "fixtures" / "wasm"


# Where a program looks for the user's files, by the XDG base directory specification.
XDG_FOLDERS = {"XDG_DATA_HOME": ".local/share", "XDG_CONFIG_HOME": ".config",
               "XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state"}


_home_patch = pytest.MonkeyPatch()


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
    # Hypothesis keeps what it learns in .hypothesis/ of the current folder: the home instead.
    set_hypothesis_home_dir(home / ".hypothesis")


def pytest_unconfigure(config: pytest.Config) -> None:
    home = os.environ.get("HOME")
    _home_patch.undo()
    if home is not None and Path(home).name.startswith("toolbay-tests-home-"):
        shutil.rmtree(home, ignore_errors=True)
    if _bytecode_folder is not None:
        shutil.rmtree(_bytecode_folder, ignore_errors=True)


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


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data folder for the session, so modules compile once across tests.

    The bundled tools are compiled into it first with both compilers, as a server that has run
    once leaves them (Winch's code, then Cranelift's from the background optimiser). Without
    Cranelift's entries every server started on this folder would begin optimising the 7 MB Go
    tool again, seconds of CPU each, and be stopped by its test before it is done."""
    folder = tmp_path_factory.mktemp("toolbay-data")
    runtime = WasmRuntime(cache_dir=folder / "modules", consume_fuel=False, optimise_in_background=True)
    try:
        for path in sorted(BUNDLED_EXTENSIONS.glob("*.wasm")):
            runtime.load(path)
        assert runtime.wait_optimised(timeout=600), "the bundled tools were not optimised within 10 minutes"
    finally:
        runtime.close()
    return folder


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
