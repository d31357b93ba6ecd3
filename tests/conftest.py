"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
