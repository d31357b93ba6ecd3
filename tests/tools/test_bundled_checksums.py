"""The committed bundled tools in extensions/ are exactly the ones tools-src/build.sh produced."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EXTENSIONS = REPO_ROOT / "extensions"
SUMS = REPO_ROOT / "tools-src" / "SHA256SUMS"


def read_sums() -> dict[str, str]:
    """Map repo-relative path -> sha256 hex from tools-src/SHA256SUMS (sha256sum format)."""
    sums: dict[str, str] = {}
    for lineno, line in enumerate(SUMS.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        assert sep and len(digest) == 64, f"SHA256SUMS line {lineno} is not in sha256sum format: {line!r}"
        name = name.removeprefix("*")
        assert name not in sums, f"SHA256SUMS lists {name} twice"
        sums[name] = digest.lower()
    return sums


def test_sums_file_lists_the_three_bundled_tools() -> None:
    assert set(read_sums()) >= {
        "extensions/textkit.wasm",
        "extensions/jsonkit.wasm",
        "extensions/hashsum.wasm",
    }


def test_every_bundled_wasm_is_listed() -> None:
    listed = set(read_sums())
    present = {f"extensions/{p.name}" for p in EXTENSIONS.glob("*.wasm")}
    unlisted = sorted(present - listed)
    assert not unlisted, (
        f"{unlisted} in extensions/ are not in tools-src/SHA256SUMS: bundled tools must be built "
        "from tools-src/ with tools-src/build.sh"
    )


@pytest.mark.parametrize("name", sorted(read_sums()))
def test_listed_file_matches_checksum(name: str) -> None:
    path = REPO_ROOT / name
    assert path.is_file(), f"{name} is listed in tools-src/SHA256SUMS but missing"
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    assert actual == read_sums()[name], (
        f"{name} does not match tools-src/SHA256SUMS: rebuild with tools-src/build.sh and commit both"
    )


@pytest.mark.parametrize("name", sorted(read_sums()))
def test_listed_tool_has_sources(name: str) -> None:
    tool = Path(name).stem
    src = REPO_ROOT / "tools-src" / tool
    assert src.is_dir(), f"{name} has no source directory tools-src/{tool}/"
