"""The description index: what a restart costs, and what it never gets wrong.

A warm start reads one index file and runs no guest; a damaged index, a changed file, a
deleted file and a data folder written by toolbay 0.1 each end with the right tools.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import Settings, load_settings
from toolbay.description_cache import (
    INDEX_NAME,
    CachedCommand,
    CachedFile,
    DescriptionCache,
)
from toolbay.wasm import WasmRuntime

pytestmark = pytest.mark.anyio

GREET_V1 = FIXTURE_WASM / "greet_v1.wasm"
GREET_V2 = FIXTURE_WASM / "greet_v2.wasm"
HASHSUM = BUNDLED_EXTENSIONS / "hashsum.wasm"


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    extensions, data = tmp_path / "extensions", tmp_path / "data"
    extensions.mkdir()
    shutil.copyfile(GREET_V1, extensions / "greet.wasm")
    shutil.copyfile(HASHSUM, extensions / "hashsum.wasm")
    return extensions, data


@pytest.fixture
def settings(folders: tuple[Path, Path]) -> Settings:
    extensions, data = folders
    # The extension folder alone: no role files, whose agent_* tools would be listed too.
    return load_settings(None, extensions=[extensions], agents=[], data_dir=data)


@pytest.fixture
def no_guest(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fails the test if anything compiles or runs a module."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a guest was compiled or run")

    with monkeypatch.context() as patch:
        patch.setattr(WasmRuntime, "load", refuse)
        patch.setattr(WasmRuntime, "run", refuse)
        yield


async def _tools(settings: Settings) -> dict[str, Any]:
    async with CatalogKeeper.open(settings) as app:
        return {handler.name: handler.definition for handler in app.catalog.current}


async def _describe(settings: Settings) -> tuple[int, int]:
    """Starts and stops once; the description cache's (hits, misses)."""
    async with CatalogKeeper.open(settings) as app:
        return app.discovery.cache.hits, app.discovery.cache.misses


async def test_a_restart_describes_nothing_and_runs_no_guest(
    settings: Settings, request: pytest.FixtureRequest,
) -> None:
    first = await _tools(settings)
    assert {"greet", "hashsum"} <= set(first)
    assert (settings.data_dir / "descriptions" / INDEX_NAME).is_file()
    request.getfixturevalue("no_guest")
    async with CatalogKeeper.open(settings) as app:
        assert (app.discovery.cache.hits, app.discovery.cache.misses) == (2, 0)
        again = {handler.name: handler.definition for handler in app.catalog.current}
    assert again == first


async def test_a_damaged_index_is_rebuilt_with_a_warning_and_the_tools_still_appear(
    settings: Settings, caplog: pytest.LogCaptureFixture,
) -> None:
    first = await _tools(settings)
    index = settings.data_dir / "descriptions" / INDEX_NAME
    data = bytearray(index.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte, as a bad sector would leave it
    index.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="toolbay.description_cache"):
        assert await _tools(settings) == first
    assert any("damaged" in record.getMessage() for record in caplog.records)
    caplog.clear()
    assert await _describe(settings) == (2, 0)  # rewritten whole
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


@pytest.mark.parametrize("garbage", [b"", b"toolbay-descriptions/2 1 00000000 5\nxxxxx", b"\x00" * 64])
async def test_an_index_that_is_not_one_is_ignored(settings: Settings, garbage: bytes) -> None:
    index = settings.data_dir / "descriptions" / INDEX_NAME
    index.parent.mkdir(parents=True)
    index.write_bytes(garbage)
    assert {"greet", "hashsum"} <= set(await _tools(settings))


async def test_a_changed_file_is_described_again(settings: Settings, folders: tuple[Path, Path]) -> None:
    extensions, _ = folders
    assert "shout" not in (await _tools(settings))["greet"].input_schema["properties"]
    shutil.copyfile(GREET_V2, extensions / "greet.wasm")  # same name, same folder, new content
    assert await _describe(settings) == (1, 1)
    assert "shout" in (await _tools(settings))["greet"].input_schema["properties"]


async def test_a_deleted_file_stays_gone_although_its_entry_is_kept(
    settings: Settings, folders: tuple[Path, Path],
) -> None:
    extensions, _ = folders
    await _tools(settings)
    (extensions / "greet.wasm").unlink()
    assert "greet" not in await _tools(settings)
    # The entry outlives the file (another server may serve it): putting the file back costs nothing.
    shutil.copyfile(GREET_V1, extensions / "greet.wasm")
    assert await _describe(settings) == (2, 0)


def test_servers_sharing_a_data_folder_keep_each_others_entries(tmp_path: Path) -> None:
    folder = tmp_path / "descriptions"
    setup = DescriptionCache(folder)
    cached = CachedFile((CachedCommand("tool", (), {"name": "tool", "options": []}, {"builder": "test"}),))
    setup.put("a" * 64, "one", cached)
    setup.flush()
    first, second = DescriptionCache(folder), DescriptionCache(folder)
    assert first.get("a" * 64, "one") is not None  # both have read the index
    assert second.get("a" * 64, "one") is not None
    first.put("b" * 64, "two", cached)
    first.flush()
    second.put("c" * 64, "three", cached)
    second.flush()  # merges with what ``first`` saved meanwhile
    again = DescriptionCache(folder)
    for sha, stem in (("a" * 64, "one"), ("b" * 64, "two"), ("c" * 64, "three")):
        entry = again.get(sha, stem)
        assert entry is not None and entry.commands[0].description == cached.commands[0].description


async def test_a_warm_start_lists_every_tool_but_makes_a_handler_only_for_one_looked_up(settings: Settings) -> None:
    from toolbay.discovery import ListedTool
    from toolbay.handlers.wasm import WasmHandler

    first = await _tools(settings)
    async with CatalogKeeper.open(settings) as app:
        catalog = app.catalog.current
        assert {d.name: d for d in catalog.definitions()} == first
        listed = [entry for entry in catalog.entries() if isinstance(entry, ListedTool)]
        assert {tool.definition.name for tool in listed} == set(first)
        assert all(tool._handler is None for tool in listed)
        greet = catalog.get("greet")
        assert isinstance(greet, WasmHandler)
        assert catalog.get("greet") is greet
        assert [tool.definition.name for tool in listed if tool._handler is not None] == ["greet"]


async def test_a_listed_tool_closed_before_its_first_call_says_it_was_replaced(settings: Settings) -> None:
    from toolbay.discovery import ListedTool
    from toolbay.words import CallContext

    async with CatalogKeeper.open(settings) as app:
        entries = app.catalog.current.entries()
        tool = next(e for e in entries if isinstance(e, ListedTool) and e.definition.name == "greet")
        await tool.close()
        result = await tool.handler().handle({"name": "late"}, CallContext())
    assert result.is_error
    assert "replaced or removed" in result.text


async def test_a_help_that_never_ends_is_no_tool_even_though_what_it_printed_looks_like_help(
        folders: tuple[Path, Path]) -> None:
    """helpforever prints option lines until it is stopped: it was served as a tool with about
    20,000 parameters read from the cut-off output."""
    extensions, data = folders
    shutil.copyfile(FIXTURE_WASM / "helpforever.wasm", extensions / "helpforever.wasm")
    settings = load_settings(None, extensions=[extensions], data_dir=data, discovery={"help_timeout_s": 0.5})
    async with CatalogKeeper.open(settings) as app:
        skipped = {Path(s.path).name: s.reason for s in app.skipped_files}
        names = set(app.catalog.current.names())
    assert "helpforever" not in names
    assert skipped["helpforever.wasm"].startswith("its --help did not end: ")


async def test_a_help_that_crashes_is_said_to_have_crashed_not_to_have_run_on(folders: tuple[Path, Path]) -> None:
    extensions, data = folders
    shutil.copyfile(FIXTURE_WASM / "trap.wasm", extensions / "crasher.wasm")
    settings = load_settings(None, extensions=[extensions], data_dir=data)
    async with CatalogKeeper.open(settings) as app:
        skipped = {Path(s.path).name: s.reason for s in app.skipped_files}
    assert skipped["crasher.wasm"] == "its --help crashed: wasm trap: unreachable", skipped


async def test_a_helper_module_beside_the_tools_is_no_warning_a_broken_file_is(
        folders: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> None:
    # The README says a helper the modules import belongs beside them; each save of it warned.
    extensions, data = folders
    (extensions / "helpers.py").write_text("SHARED = 1\n", encoding="utf-8")
    shutil.copyfile(FIXTURE_WASM / "junk.wasm", extensions / "junk.wasm")
    settings = load_settings(None, extensions=[extensions], data_dir=data)
    with caplog.at_level(logging.INFO, logger="toolbay.discovery"):
        async with CatalogKeeper.open(settings):
            pass
    levels = {record.getMessage().split()[0].rpartition("/")[2]: record.levelname for record in caplog.records
              if record.name == "toolbay.discovery" and record.levelno >= logging.INFO}
    assert levels.get("helpers.py") == "INFO", caplog.text
    assert any(record.levelname == "WARNING" and "junk.wasm" in record.getMessage() for record in caplog.records)


async def test_a_tool_file_in_a_subfolder_is_said_not_to_be_served_once(
        folders: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> None:
    # A .wasm dropped into tools/new/ was served by nothing and said by nothing.
    extensions, data = folders
    (extensions / "new").mkdir()
    shutil.copyfile(FIXTURE_WASM / "echo.wasm", extensions / "new" / "echo.wasm")
    (extensions / "helpers").mkdir()  # a package the modules import: not a folder of tools
    (extensions / "helpers" / "__init__.py").write_text("", encoding="utf-8")
    (extensions / "helpers" / "text.py").write_text("X = 1\n", encoding="utf-8")
    settings = load_settings(None, extensions=[extensions], data_dir=data)
    with caplog.at_level(logging.INFO, logger="toolbay.discovery"):
        async with CatalogKeeper.open(settings) as keeper:
            names = set(keeper.catalog.current.names())
            await keeper.rescan()
    said = [r.getMessage() for r in caplog.records if "not served" in r.getMessage()]
    assert "echo" not in names
    assert said == [f"{extensions / 'new'} holds echo.wasm, not served: only the files directly in a tool folder "
                    f"are (name {extensions / 'new'} in extensions to serve it)"]


async def test_a_file_that_failed_to_describe_is_remembered_until_it_changes(folders: tuple[Path, Path]) -> None:
    """A --help that never ends costs its help timeout once, not at every start."""
    extensions, data = folders
    shutil.copyfile(FIXTURE_WASM / "spin.wasm", extensions / "forever.wasm")
    shutil.copyfile(FIXTURE_WASM / "junk.wasm", extensions / "junk.wasm")
    # A short limit: the guest spins on a core for all of it, and what is checked is that it is not spun again.
    settings = load_settings(None, extensions=[extensions], data_dir=data, discovery={"help_timeout_s": 0.2})
    async with CatalogKeeper.open(settings) as app:
        first = {Path(s.path).name: s.reason for s in app.skipped_files}
    assert set(first) == {"forever.wasm", "junk.wasm"}
    # The reason names the limit (a loop printing nothing once read "the output is empty").
    assert first["forever.wasm"] == "its --help did not end: timed out after 0.2 s ([discovery] help_timeout_s)"

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a guest was compiled or run")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WasmRuntime, "load", refuse)
        patch.setattr(WasmRuntime, "run", refuse)
        async with CatalogKeeper.open(settings) as app:
            assert (app.discovery.cache.hits, app.discovery.cache.misses) == (4, 0)
            again = {Path(s.path).name: s.reason for s in app.skipped_files}
    assert again == first
    shutil.copyfile(GREET_V2, extensions / "forever.wasm")  # changed: described anew
    async with CatalogKeeper.open(load_settings(None, extensions=[extensions], data_dir=data)) as app:  # 3 s limit
        assert "forever" in {handler.name for handler in app.catalog.current}


async def test_a_python_module_that_cannot_be_imported_is_remembered_until_a_package_is_installed(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """It was described again (a worker started, its import awaited) at every start."""
    from toolbay.pytools import describe

    extensions, data = folders
    (extensions / "needs.py").write_text("import a_package_not_installed_here\n\n\ndef get_tool_schemas():\n"
                                         "    return []\n", encoding="utf-8")
    settings = load_settings(None, extensions=[extensions], data_dir=data)
    async with CatalogKeeper.open(settings) as app:
        first = {Path(s.path).name: s.reason for s in app.skipped_files}
    assert "No module named 'a_package_not_installed_here'" in first["needs.py"]

    described: list[str] = []
    real = describe.describe_module

    def counted(spec: Any, *args: Any) -> Any:
        described.append(spec.path)
        return real(spec, *args)

    monkeypatch.setattr("toolbay.discovery.describe_module", counted)
    async with CatalogKeeper.open(settings) as app:
        again = {Path(s.path).name: s.reason for s in app.skipped_files}
    assert again == first and described == []
    # A package installed since (site-packages changed) may mend the import: it is tried again.
    monkeypatch.setattr("toolbay.discovery.packages_stamp", lambda: "another set of packages")
    async with CatalogKeeper.open(settings) as app:
        assert "needs.py" in {Path(s.path).name for s in app.skipped_files}
    assert [Path(path).name for path in described] == ["needs.py"]


async def test_a_file_whose_name_is_no_tool_name_is_served_under_another_with_a_note(
        folders: tuple[Path, Path]) -> None:
    extensions, data = folders
    shutil.copyfile(GREET_V2, extensions / "日本.wasm")
    shutil.copyfile(GREET_V2, extensions / "my greet.wasm")
    # Letters with marks keep their plain forms (they were cut out: "ünï" was served as "n").
    shutil.copyfile(GREET_V2, extensions / "ünï.wasm")
    shutil.copyfile(GREET_V2, extensions / "Ærøskøbing straße.wasm")
    settings = load_settings(None, extensions=[extensions], data_dir=data)
    async with CatalogKeeper.open(settings) as app:
        names = set(app.catalog.current.names())
        notes = app.notes()
    assert {"tool", "my_greet", "uni", "AEroskobing_strasse"} <= names
    assert "ünï.wasm is served as 'uni': a tool name is ASCII letters, digits, '_' and '-', at most 64 " \
        "(rename the file to choose it)" in notes
    assert "日本.wasm is served as 'tool': a tool name is ASCII letters, digits, '_' and '-', at most 64 " \
        "(rename the file to choose it)" in notes
    assert any(note.startswith("my greet.wasm is served as 'my_greet'") for note in notes)
