"""The code stays typed and lint-clean: the same checks a reviewer would run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

# The folders installed as the ``toolbay`` package, by their place in it (pyproject's package-dir).
PACKAGE_FOLDERS = {"toolbay": REPO_ROOT / "server", "toolbay/handlers": REPO_ROOT / "handlers"}


def _run(*command: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)


def link_package_tree(root: Path) -> Path:
    """``root/toolbay`` laid out as installed, its entries linked to the repository's files.

    mypy reads imports from folders and cannot follow the import hook of an editable install
    that maps ``server/`` to ``toolbay``; this tree is that mapping on disk."""
    for place, folder in PACKAGE_FOLDERS.items():
        target = root / place
        target.mkdir(parents=True, exist_ok=True)
        for entry in folder.iterdir():
            if entry.name != "__pycache__" and not (target / entry.name).exists():
                (target / entry.name).symlink_to(entry)
    return root


# Neither writes its cache into the checkout: tests write only into temporary folders.
def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_type_errors_in_the_toolbay_package(tmp_path: Path) -> None:
    tree = link_package_tree(tmp_path)
    result = _run("mypy", "--config-file", str(REPO_ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / ".cache"),
                  "-p", "toolbay", cwd=tree)
    assert result.returncode == 0, result.stdout + result.stderr
