"""The code stays typed and lint-clean: the same checks a reviewer would run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import KEPT_BETWEEN_RUNS, REPO_ROOT

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


# Neither writes its cache beside the sources: tests write only into temporary folders and the
# virtual environment (KEPT_BETWEEN_RUNS).
def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", "--force-exclude", "--output-format", "concise",
                  *_project_python_files())
    assert result.returncode == 0, result.stdout + result.stderr


def _project_python_files() -> list[str]:
    """The project's Python files: in a git checkout, those git tracks (a user's own scripts
    left in the clone made the suite red), else everything under the checkout."""
    git = shutil.which("git")
    if git is None or not (REPO_ROOT / ".git").exists():
        return ["."]
    listed = subprocess.run([git, "ls-files", "-z", "--", "*.py"], cwd=REPO_ROOT, capture_output=True,
                            timeout=60, check=False)
    if listed.returncode != 0:
        return ["."]
    return [name for name in listed.stdout.decode().split("\0") if name and (REPO_ROOT / name).exists()]


def test_mypy_finds_no_type_errors_in_the_toolbay_package(tmp_path: Path) -> None:
    # mypy's cache (half a minute of CPU to make: it reads the SDK, pydantic and starlette) is
    # kept between runs beside the bytecode, and the tree at the same place, since the cache
    # knows modules by their path; mypy checks what changed against it, as it does for a developer.
    kept = KEPT_BETWEEN_RUNS / "mypy" if KEPT_BETWEEN_RUNS is not None else tmp_path
    shutil.rmtree(kept / "tree", ignore_errors=True)  # links to files since removed would remain
    tree = link_package_tree(kept / "tree")
    result = _run("mypy", "--config-file", str(REPO_ROOT / "pyproject.toml"), "--cache-dir", str(kept / "cache"),
                  "-p", "toolbay", cwd=tree)
    assert result.returncode == 0, result.stdout + result.stderr
