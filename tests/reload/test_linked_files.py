"""Tool files and folders reached through links follow their targets.

A module linked into the folder (``linked.py -> /srv/shared/real.py``) was served as it was
first read: a save of its target was never noticed. A tool folder named through a link that a
deployment points at each release (``current -> releases/7``) went on being watched where it
first pointed, and the old release served.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import load_settings

pytestmark = pytest.mark.anyio


def _role(folder: Path, name: str) -> None:
    (folder / f"{name}.md").write_text(f"---\nname: {name}\ndescription: Role {name}.\ntools: []\n---\nBody.\n",
                                       encoding="utf-8")


def _module(folder: Path, name: str, tool: str, says: str) -> None:
    """A module ``name``.py offering ``tool``, saved as an editor saves (a new file renamed in)."""
    text = (f"def get_tool_schemas():\n    return [{{'name': {tool!r}, 'description': {says!r}}}]\n"
            f"def {tool}():\n    return {says!r}\n")
    fresh = folder / f".{name}.py.tmp"
    fresh.write_text(text, encoding="utf-8")
    os.replace(fresh, folder / f"{name}.py")


def _releases_and_current(tmp_path: Path) -> tuple[Path, Path]:
    """``releases/1`` offering deploy_one, ``releases/2`` deploy_two, and ``current -> releases/1``."""
    releases = tmp_path / "releases"
    for number, tool in ((1, "deploy_one"), (2, "deploy_two")):
        (releases / str(number)).mkdir(parents=True)
        _module(releases / str(number), "deploy", tool, f"release {number}")
    current = tmp_path / "current"
    current.symlink_to(releases / "1")
    return releases, current


async def _until(app: Toolbay, settled: Callable[[set[str], dict[str, str]], bool]) -> None:
    with anyio.fail_after(60):
        while True:
            definitions = {d.name: d.description for d in app.catalog.current.definitions()}
            if settled(set(definitions), definitions):
                return
            await anyio.sleep(0.05)  # the watcher's rescan swaps the catalog


async def test_a_save_of_a_linked_modules_target_is_served(tmp_path: Path, shared_data_dir: Path) -> None:
    shared, folder = tmp_path / "shared", tmp_path / "extensions"
    shared.mkdir()
    folder.mkdir()
    _module(shared, "real", "linked", "version one")
    (folder / "linked.py").symlink_to(shared / "real.py")
    settings = load_settings(None, extensions=[folder], agents=[], data_dir=shared_data_dir)
    async with assemble(settings) as app:
        await _until(app, lambda names, said: said.get("linked") == "version one")
        _module(shared, "real", "linked", "version two")
        await _until(app, lambda names, said: said.get("linked") == "version two")


async def test_a_tool_folder_named_through_a_link_follows_the_link_when_it_is_pointed_elsewhere(
        tmp_path: Path, shared_data_dir: Path) -> None:
    releases, current = _releases_and_current(tmp_path)
    settings = load_settings(None, extensions=[current], agents=[], data_dir=shared_data_dir)
    async with assemble(settings) as app:
        await _until(app, lambda names, said: "deploy_one" in names)
        pointed = tmp_path / "current.new"
        pointed.symlink_to(releases / "2")
        os.replace(pointed, current)  # ln -sfn, done atomically
        await _until(app, lambda names, said: "deploy_two" in names and "deploy_one" not in names)


async def test_folders_named_through_links_in_the_config_file_follow_the_links_when_they_are_pointed_elsewhere(
        tmp_path: Path, shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file's paths were resolved as it was read: the folders the links first pointed at
    were served for good."""
    releases, roles = tmp_path / "releases", tmp_path / "roles"
    for number, tool in ((1, "deploy_one"), (2, "deploy_two")):
        (releases / str(number)).mkdir(parents=True)
        _module(releases / str(number), "deploy", tool, f"release {number}")
        (roles / str(number)).mkdir(parents=True)
        _role(roles / str(number), f"role_{tool}")
    config = tmp_path / "conf" / "toolbay.toml"
    config.parent.mkdir()
    (config.parent / "current").symlink_to(releases / "1")
    (config.parent / "agents").symlink_to(roles / "1")
    # Relative to the file's folder, not to where the server starts.
    config.write_text('extensions = ["current"]\nagents = ["agents"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    settings = load_settings(config, data_dir=shared_data_dir)
    async with assemble(settings) as app:
        await _until(app, lambda names, said: {"deploy_one", "agent_role_deploy_one"} <= names)
        for link, target in (("current", releases / "2"), ("agents", roles / "2")):
            pointed = config.parent / f"{link}.new"
            pointed.symlink_to(target)
            os.replace(pointed, config.parent / link)  # ln -sfn, done atomically
        await _until(app, lambda names, said: {"deploy_two", "agent_role_deploy_two"} <= names
                     and not {"deploy_one", "agent_role_deploy_one"} & names)


async def test_a_folder_named_both_through_a_link_and_by_its_own_path_is_served_by_both_once_the_link_moves(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """``extensions = ["current", "releases/1"]`` with ``current -> releases/1``: one folder,
    served once; the settings kept only its first name, so once the link moved to another
    release, ``releases/1`` was no longer served until a restart."""
    releases, current = _releases_and_current(tmp_path)
    settings = load_settings(None, extensions=[current, releases / "1"], agents=[], data_dir=shared_data_dir)
    async with assemble(settings) as app:
        await _until(app, lambda names, said: "deploy_one" in names)
        origins = [d.origin for d in app.catalog.current.definitions() if d.name == "deploy_one"]
        assert origins == [f"python:{current / 'deploy.py'}"], origins  # described once, by its first name
        pointed = tmp_path / "current.new"
        pointed.symlink_to(releases / "2")
        os.replace(pointed, current)  # ln -sfn, done atomically
        await _until(app, lambda names, said: {"deploy_one", "deploy_two"} <= names)
        origins = [d.origin for d in app.catalog.current.definitions() if d.name.startswith("deploy_")]
        assert sorted(origins) == sorted([f"python:{current / 'deploy.py'}", f"python:{releases / '1' / 'deploy.py'}"])


async def test_a_role_folder_named_both_through_a_link_and_by_its_own_path_keeps_both_once_the_link_moves(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """As for tool folders: the settings kept one name of the two, and once the link moved the
    other release's roles were gone until a restart (a re-check)."""
    roles = tmp_path / "roles"
    for number in (7, 8):
        (roles / str(number)).mkdir(parents=True)
        _role(roles / str(number), f"release_{number}")
    current = tmp_path / "current"
    current.symlink_to(roles / "7")
    settings = load_settings(None, extensions=[], agents=[current, roles / "7"], data_dir=shared_data_dir)
    async with assemble(settings) as app:
        await _until(app, lambda names, said: "agent_release_7" in names)
        pointed = tmp_path / "current.new"
        pointed.symlink_to(roles / "8")
        os.replace(pointed, current)  # ln -sfn, done atomically
        await _until(app, lambda names, said: {"agent_release_7", "agent_release_8"} <= names)
