from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import Settings, load_settings


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
    async with Toolbay.open(settings) as app, assemble(app):
        yield app
