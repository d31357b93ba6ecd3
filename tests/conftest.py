"""Fixtures shared by every test folder."""

from __future__ import annotations

from pathlib import Path

import pytest

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
