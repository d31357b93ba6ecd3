"""The code stays typed and lint-clean: the same checks a reviewer would run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


# Neither writes its cache into the checkout: tests write only into temporary folders.
def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_type_errors_in_server_and_handlers(tmp_path: Path) -> None:
    result = _run("mypy", "--cache-dir", str(tmp_path / "mypy-cache"))
    assert result.returncode == 0, result.stdout + result.stderr
