"""The catalog: one name, one tool; who wins a clash and what the operator is told."""

from __future__ import annotations

import json
import logging
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.catalog import Catalog, CatalogHolder
from toolbay.cli import app as cli
from toolbay.handlers.base import Handler
from toolbay.words import CallContext, ToolDefinition, ToolResult


class _Named(Handler):
    def __init__(self, name: str, source: str, origin: str) -> None:
        super().__init__(ToolDefinition(name=name, description=name, input_schema={"type": "object"},
                                        source=source, origin=origin))

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text=self.definition.origin)


def test_a_built_in_tool_keeps_its_name_against_a_discovered_one() -> None:
    wasm = _Named("job_wait", "wasm", "wasm:/ext/job_wait.wasm")
    builtin = _Named("job_wait", "builtin", "builtin")
    catalog = Catalog.build([wasm, builtin])
    assert catalog.get("job_wait") is builtin
    assert catalog.diagnostics == (
        "tool name 'job_wait' is offered by both builtin and wasm:/ext/job_wait.wasm; keeping the one from builtin",
    )


def test_between_two_files_the_first_in_discovery_order_wins() -> None:
    first = _Named("hashsum", "wasm", "wasm:/a/hashsum.wasm")
    second = _Named("hashsum", "wasm", "wasm:/b/hashsum.wasm")
    catalog = Catalog.build([first, second])
    assert catalog.get("hashsum") is first and len(catalog) == 1
    assert "/a/hashsum.wasm and wasm:/b/hashsum.wasm" in catalog.diagnostics[0]


def test_a_swap_reports_what_was_added_removed_and_changed() -> None:
    keep, old, gone = _Named("keep", "wasm", "a"), _Named("edit", "wasm", "a"), _Named("gone", "wasm", "a")
    holder = CatalogHolder(Catalog.build([keep, old, gone]))
    seen: list[str] = []
    holder.subscribe(lambda catalog, change: seen.append(change.summary()))
    change = holder.swap(Catalog.build([keep, _Named("edit", "wasm", "b"), _Named("new", "wasm", "b")]))
    assert (change.added, change.removed, change.changed) == (("new",), ("gone",), ("edit",))
    assert seen == ["added: new; removed: gone; changed: edit"]


class _Schema(Handler):
    def __init__(self, schema: dict[str, Any]) -> None:
        super().__init__(ToolDefinition(name="pick", description="pick", input_schema=schema, source="python",
                                        origin="python:/a/pick.py"))

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text="picked")


@pytest.mark.parametrize(("before", "after", "told"), [
    ({"enum": [1]}, {"enum": [1]}, False),           # a new version, listed alike: no one is told
    ({"enum": [1]}, {"enum": [True]}, True),         # Python's 1 == True: clients see 1 and true
    ({"const": False}, {"const": 0}, True),
    ({"maximum": 1}, {"maximum": 1.0}, True),
    ({"a": {}, "b": {}}, {"b": {}, "a": {}}, True),  # the properties in another order
])
def test_a_new_version_is_a_change_exactly_when_its_listing_is_written_otherwise(
        before: dict[str, Any], after: dict[str, Any], told: bool) -> None:
    """A tool's schema from [1] to [true] went unannounced (the second re-check of this session's
    fix), while a client holding the old one had {"x": 1} refused."""
    def schema(x: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": x if "enum" not in x and "const" not in x and "maximum" not in x
                else {"x": x}}

    holder = CatalogHolder(Catalog.build([_Schema(schema(before))]))
    change = holder.swap(Catalog.build([_Schema(schema(after))]))
    assert change.changed == (("pick",) if told else ())


def test_toolbay_list_names_both_origins_of_a_clashing_tool(tmp_path: Path, shared_data_dir: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        shutil.copy(BUNDLED_EXTENSIONS / "hashsum.wasm", folder / "hashsum.wasm")
    result = CliRunner().invoke(cli, ["list", "--json", "--extensions", str(first), "--extensions", str(second),
                                      "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    assert [tool["origin"] for tool in listing["tools"] if tool["name"] == "hashsum"] == [
        str(first / "hashsum.wasm")
    ]
    assert len(listing["diagnostics"]) == 1
    assert str(first / "hashsum.wasm") in listing["diagnostics"][0]
    assert str(second / "hashsum.wasm") in listing["diagnostics"][0]


def test_a_trusted_definition_is_the_one_init_makes() -> None:
    from dataclasses import fields

    from toolbay.words import PermissionTier

    values = ("n", "text", {"type": "object"}, "a title", PermissionTier.READ, ("k",), "wasm:/a/n.wasm", "wasm", True)
    trusted = ToolDefinition.trusted(*values, version="1.2.0")
    made = ToolDefinition(*values, version="1.2.0")
    assert trusted == made
    assert all(getattr(trusted, field.name) == getattr(made, field.name) for field in fields(ToolDefinition))


def test_a_missing_extension_folder_is_said_once_until_it_comes_and_goes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Every rescan (one per change the watcher sees) said it again."""
    from toolbay.discovery import scan_files

    folder = tmp_path / "later"
    caplog.set_level(logging.WARNING, logger="toolbay.discovery")
    for _ in range(3):
        scan_files([folder])
    folder.mkdir()
    scan_files([folder])
    folder.rmdir()
    scan_files([folder])
    said = [r.getMessage() for r in caplog.records if "does not exist" in r.getMessage()]
    assert said == [f"extension folder {folder} does not exist; skipping it"] * 2


def test_a_clash_is_said_at_warning_once_not_at_every_reload(caplog: pytest.LogCaptureFixture) -> None:
    # A catalog is built again at every reload: the same clash was warned of each time.
    caplog.set_level(logging.DEBUG, logger="toolbay.catalog")
    name = f"clash_{uuid.uuid4().hex[:8]}"  # said by no other test in this process
    for _ in range(3):
        Catalog.build([_Named(name, "wasm", "wasm:/a/x.wasm"), _Named(name, "wasm", "wasm:/b/x.wasm")])
    said = [record.levelno for record in caplog.records if name in record.getMessage()]
    assert said == [logging.WARNING, logging.DEBUG, logging.DEBUG]
