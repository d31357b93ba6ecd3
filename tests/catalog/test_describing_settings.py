"""A remembered description holds for the settings it was made under: a help run or an import
that ran past a time limit is tried again once the limit is longer, and another subcommand depth
describes the file again (the cache answered "timed out after 1 s" under a limit of 5, found
by an outside probe)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import load_settings


def served(folder: Path, data_dir: Path, **settings: Any) -> tuple[set[str], dict[str, str]]:
    """The tools a server on ``folder`` and ``data_dir`` serves, and the files it skipped, why."""
    async def look() -> tuple[set[str], dict[str, str]]:
        loaded = load_settings(None, extensions=[folder], agents=[], data_dir=data_dir, **settings)
        async with CatalogKeeper.open(loaded) as keeper:
            catalog = keeper.catalog.current
            return ({d.name for d in catalog.definitions()},
                    {Path(s.path).name: s.reason for s in catalog.skipped})

    return anyio.run(look)


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "tools"
    folder.mkdir()
    return folder, tmp_path / "data"


@pytest.mark.parametrize(("tool", "section", "small", "large", "said"), [
    ("slowhelp", "discovery", {"help_timeout_s": 0.05}, {"help_timeout_s": 60}, "timed out"),
    # A help that needed more memory than the limit was remembered as failed, and said so with
    # the old limit after it was raised (an outside check): bigstart's memory starts at 32 MiB.
    ("bigstart", "sandbox", {"memory_mb": 16}, {"memory_mb": 64}, "memory limit of 16 MiB reached"),
])
def test_a_help_run_past_a_small_limit_is_tried_again_under_a_larger_one(
        folders: tuple[Path, Path], tool: str, section: str, small: dict[str, float], large: dict[str, float],
        said: str) -> None:
    folder, data = folders
    shutil.copy(FIXTURE_WASM / f"{tool}.wasm", folder / f"{tool}.wasm")
    tools, skipped = served(folder, data, **{section: small})
    assert tool not in tools and said in skipped[f"{tool}.wasm"]
    assert tool not in served(folder, data, **{section: small})[0]  # remembered
    tools, skipped = served(folder, data, **{section: large})
    assert tool in tools and not skipped


def test_a_help_longer_than_the_output_limit_that_ends_is_read_as_far_as_it_was_kept(
        folders: tuple[Path, Path]) -> None:
    """A help of 1.6 MB that ended was refused as one that "did not end", where `toolbay
    parse-help` describes its first MiB, "as the server reads no more" (an outside check)."""
    folder, data = folders
    shutil.copy(FIXTURE_WASM / "longhelp.wasm", folder / "longhelp.wasm")
    tools, skipped = served(folder, data)
    assert tools == {"longhelp"} and not skipped


def test_another_subcommand_depth_describes_the_file_again(folders: tuple[Path, Path]) -> None:
    folder, data = folders
    shutil.copy(BUNDLED_EXTENSIONS / "textkit.wasm", folder / "textkit.wasm")
    deep, _ = served(folder, data)
    assert "textkit_count" in deep and "textkit" not in deep
    assert served(folder, data, discovery={"max_depth": 0})[0] == {"textkit"}
    assert served(folder, data)[0] == deep


def test_an_import_past_a_short_limit_is_tried_again_under_a_longer_one(folders: tuple[Path, Path]) -> None:
    folder, data = folders
    (folder / "sleepy.py").write_text(
        "import time\ntime.sleep(1.5)\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'sleepy', 'description': 'Wakes up.', 'input_schema': {'type': 'object'}}]\n\n\n"
        "def sleepy():\n    return 'awake'\n", encoding="utf-8")
    tools, skipped = served(folder, data, python={"describe_timeout_s": 0.5})
    assert "sleepy" not in tools and "[python] describe_timeout_s" in skipped["sleepy.py"]
    tools, skipped = served(folder, data, python={"describe_timeout_s": 60})
    assert "sleepy" in tools and not skipped


def test_a_file_whose_subcommands_were_not_read_in_time_is_described_again(
        folders: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> None:
    """Cut short by [discovery] file_budget_s (a busy first start), a file's description was
    remembered as it was: its tools were missing at every later start, whatever the budget,
    until the file changed (an outside check: 10 of the bundled 12). Now it is described again
    at the next three starts under the same budget (not at every start: a re-check found the
    count of tries never grew), and whenever the budget is longer."""
    folder, data = folders
    shutil.copy(BUNDLED_EXTENSIONS / "textkit.wasm", folder / "textkit.wasm")
    cut = {"discovery": {"file_budget_s": 1e-6}}  # a subcommand's help is never read in a microsecond

    def described_at_start() -> bool:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="toolbay.catalog_keeper"):
            tools, skipped = served(folder, data, **cut)
        assert "textkit_count" not in tools and "time budget" in skipped["textkit.wasm"]
        return any("compiling and describing" in record.getMessage() for record in caplog.records)

    assert [described_at_start() for _ in range(6)] == [True, True, True, True, False, False]
    whole, skipped = served(folder, data)
    assert {"textkit_count", "textkit_sort"} <= whole and not skipped


def test_refresh_tools_reads_the_subcommands_a_start_ran_out_of_time_for(folders: tuple[Path, Path]) -> None:
    """A start that ran out of [discovery] file_budget_s (a busy machine) served a file without
    the subcommands it had not read, and ``refresh_tools`` said "No change": an unchanged file
    was never described again before the next start (an outside check)."""
    folder, data = folders
    shutil.copy(BUNDLED_EXTENSIONS / "textkit.wasm", folder / "textkit.wasm")

    async def look() -> tuple[set[str], set[str], set[str]]:
        loaded = load_settings(None, extensions=[folder], agents=[], data_dir=data,
                               discovery={"file_budget_s": 1e-6})
        async with CatalogKeeper.open(loaded) as keeper:
            def names() -> set[str]:
                return {d.name for d in keeper.catalog.current.definitions()}

            at_start = names()
            loaded.discovery.file_budget_s = 60.0  # the machine is quiet again; the file is unchanged
            await keeper.rescan(slow_files_later=True, patience_s=60)  # a hot reload: nothing changed on disk
            after_rescan = names()
            # What refresh_tools asks for.
            await keeper.rescan(retry_skipped_modules=True, slow_files_later=True, patience_s=60)
            return at_start, after_rescan, names()

    at_start, after_rescan, after_refresh = anyio.run(look)
    assert "textkit_count" not in at_start and after_rescan == at_start
    assert {"textkit_count", "textkit_sort"} <= after_refresh
