"""What a user installs: a wheel that carries the bundled tools and role files under the project's own name,
and a fresh clone started exactly as `.mcp.json` says. Both go through the real tools (uv,
a new virtual environment, a subprocess over stdio, the SDK's client)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import BUNDLED_EXTENSIONS, REPO_ROOT, as_if_run_before

BUNDLED_AGENTS = REPO_ROOT / "agents"

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

UV = shutil.which("uv") or ""


def _uv_env(home: Path) -> dict[str, str]:
    """A user's environment with an empty home, sharing the machine's uv cache (so nothing is
    downloaded twice) and never letting uv fetch a Python of its own."""
    cache = subprocess.run([UV, "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLBAY_", "VIRTUAL_ENV", "UV_"))}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "UV_CACHE_DIR": cache,
            "UV_PYTHON_DOWNLOADS": "never", "TOOLBAY_DISCOVERY__START_WAIT_S": "600"}


def _bundled_tool_files() -> set[str]:
    modules = {path.name for path in BUNDLED_EXTENSIONS.glob("*.py") if not path.name.startswith("_")}
    return {path.name for path in BUNDLED_EXTENSIONS.glob("*.wasm")} | modules


async def _listed_names(params: StdioServerParameters) -> set[str]:
    with anyio.fail_after(600):
        async with Client(params, mode="legacy") as client:
            return {tool.name for tool in (await client.list_tools()).tools}


def _bundled_role_files() -> set[str]:
    return {path.name for path in BUNDLED_AGENTS.glob("*.md") if path.name != "README.md"}


def _expected_agent_tools() -> set[str]:
    """Each bundled role file's delegating tool: ``agent_`` and its name, hyphens as underscores."""
    return {"agent_" + name.removesuffix(".md").replace("-", "_") for name in _bundled_role_files()}


def _expected_names() -> set[str]:
    """Each bundled file's first tool: the file's own name, or its subcommands' prefix."""
    return {name.removesuffix(".wasm").removesuffix(".py") for name in _bundled_tool_files()}


def _serves_every_bundled_file(names: set[str]) -> bool:
    return all(any(name == stem or name.startswith(stem + "_") for name in names) for stem in _expected_names())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not UV:
        pytest.fail("uv is not installed: it builds and installs the wheel (pip install uv)")
    out = tmp_path_factory.mktemp("dist")
    # Built from a copy: setuptools leaves build/ and *.egg-info/ beside the sources it builds.
    source = tmp_path_factory.mktemp("source") / "toolbay"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".ci", "build", "*.egg-info", "__pycache__", "tests", "bench", "tools-src"))
    subprocess.run([UV, "build", "--wheel", "--out-dir", str(out), str(source)], check=True,
                   capture_output=True, env=_uv_env(tmp_path_factory.mktemp("home")))
    (built,) = out.glob("toolbay-*.whl")
    return built


def test_the_wheel_installs_one_package_named_after_the_project_with_the_bundled_tools(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"toolbay"}
    assert {name.rpartition("/")[2] for name in names if name.startswith("toolbay/extensions/")} >= \
        _bundled_tool_files()
    assert _bundled_role_files()  # the test would prove nothing without them
    assert {name.rpartition("/")[2] for name in names if name.startswith("toolbay/agents/")} >= _bundled_role_files()
    # Every package folder of the source tree is in the wheel (pyproject lists them by hand).
    for folder, package in (("server", "toolbay"), ("handlers", "toolbay/handlers")):
        for init in (REPO_ROOT / folder).rglob("__init__.py"):
            assert f"{package}/{init.relative_to(REPO_ROOT / folder).as_posix()}" in names


async def test_the_installed_wheel_serves_the_bundled_tools_from_an_empty_folder(
    wheel: Path, tmp_path: Path, shared_data_dir: Path,
) -> None:
    env = _uv_env(tmp_path / "home")
    as_if_run_before(tmp_path / "home" / "data" / "toolbay", shared_data_dir)  # not about compiling
    venv = tmp_path / "venv"
    subprocess.run([UV, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True, env=env)
    subprocess.run([UV, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(wheel)],
                   check=True, env=env)
    empty = tmp_path / "empty"
    empty.mkdir()
    version = subprocess.run([str(venv / "bin" / "toolbay"), "--version"], capture_output=True, text=True,
                             cwd=empty, env=env, check=True)
    assert version.stdout.startswith("toolbay ")
    names = await _listed_names(StdioServerParameters(command=str(venv / "bin" / "toolbay"), args=["serve"],
                                                      cwd=str(empty), env=env))
    assert _serves_every_bundled_file(names), names
    assert names >= _expected_agent_tools(), names


async def test_a_fresh_clone_starts_as_mcp_json_says(tmp_path: Path, shared_data_dir: Path) -> None:
    if not UV:
        pytest.fail("uv is not installed: .mcp.json starts the server through it (pip install uv)")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    entry = json.loads((clone / ".mcp.json").read_text())["mcpServers"]["toolbay"]
    command = UV if entry["command"] == "uv" else entry["command"]
    env = {**_uv_env(tmp_path / "home"), **entry.get("env", {})}
    as_if_run_before(tmp_path / "home" / "data" / "toolbay", shared_data_dir)  # not about compiling
    names = await _listed_names(StdioServerParameters(command=command, args=entry["args"], cwd=str(clone), env=env))
    assert _serves_every_bundled_file(names), names
    # The server's own packages, not the test tools: the first start in Claude Code installs less.
    assert (clone / ".venv" / "bin" / "toolbay").exists() and not (clone / ".venv" / "bin" / "pytest").exists()
