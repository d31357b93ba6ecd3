"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import Settings, load_settings

# Servers started by tests (in-process and as subprocesses, which inherit this) wait for every
# first-time description before answering, as the tests expect the whole catalog from the
# first tools/list even on a slow, busy machine. tests/reload/test_start_wait.py sets its own.
os.environ.setdefault("TOOLBAY_DISCOVERY__START_WAIT_S", "600")

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_EXTENSIONS = REPO_ROOT / "extensions"
FIXTURE_WASM = REPO_ROOT / "tests" / "fixtures" / "wasm"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data folder for the session, so modules compile once across tests."""
    return tmp_path_factory.mktemp("toolbay-data")


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
