"""A full disk costs speed or a clear error, never the server."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from toolbay.assembly import assemble
from toolbay.chain.call import ToolCall
from toolbay.cli import app as cli
from toolbay.config import Settings
from toolbay.handlers.base import Handler
from toolbay.words import CallContext, ToolDefinition, ToolResult

pytestmark = pytest.mark.anyio


class _Sleeper(Handler):
    def __init__(self, background: bool = False) -> None:
        super().__init__(ToolDefinition(name="sleeper", description="sleeps", input_schema={"type": "object"},
                                        background=background))

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        await anyio.sleep(0.3)
        return ToolResult(text="rested")


@pytest.mark.parametrize("declared", [False, True])
async def test_a_job_that_cannot_be_recorded_is_a_clear_error_and_the_server_goes_on(
        settings: Settings, declared: bool) -> None:
    settings.jobs.sync_budget_s = 0.01
    if declared:  # a job from its start: it never "ran past" a budget (it was said so)
        settings.jobs.sync_budget_s = 60
    async with assemble(settings, watch=False, builtins=[_Sleeper(background=declared)]) as app:
        assert app.jobs is not None

        async def disk_full(*args: Any, **kwargs: Any) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        app.jobs.store.create = disk_full  # type: ignore[method-assign]
        with anyio.fail_after(10):
            result = await app.call(ToolCall(name="sleeper", arguments={}, context=CallContext()))
            # A call that needs no job record (any tool may take longer than 0.01 s on a busy machine).
            after = await app.call(ToolCall(name="job_list", arguments={}, context=CallContext()))
    assert result.is_error
    assert "could not be recorded (database or disk is full)" in result.text
    assert "data folder may be full" in result.text
    assert result.text.startswith("sleeper runs as a job from its start" if declared else "sleeper ran past 0.01 s")
    assert not after.is_error


def test_a_data_folder_where_the_job_database_cannot_open_is_one_clear_line(tmp_path: Path) -> None:
    blocked = tmp_path / "data"
    blocked.mkdir()
    (blocked / "jobs.sqlite3").mkdir()  # a folder where the database file must go
    result = CliRunner().invoke(cli, ["call", "hashsum", "--args", '{"text": "abc"}', "--data-dir", str(blocked)])
    assert result.exit_code == 2
    assert result.stderr.startswith("toolbay: cannot open the job database")
    assert "Traceback" not in result.stderr


def test_a_job_database_that_cannot_be_written_is_not_said_to_need_space() -> None:
    """A read-only data folder was told to 'free some space'."""
    from toolbay.jobs.sqlite import _remedy

    assert _remedy(PermissionError(13, "Permission denied")).startswith("Make the data folder writable")
    assert _remedy(sqlite3.OperationalError("attempt to write a readonly database")).startswith(
        "Make the data folder writable")
    assert _remedy(OSError(28, "No space left on device")).startswith("Free some space")
    assert _remedy(sqlite3.OperationalError("database or disk is full")).startswith("Free some space")
