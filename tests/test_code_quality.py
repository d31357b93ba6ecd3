"""The code stays typed and lint-clean: the same checks a reviewer would run."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_type_errors_in_server_and_handlers() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
