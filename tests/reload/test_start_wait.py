"""A slow first description does not hold the server back: after ``[discovery] start_wait_s``
it answers with the tools described so far, and announces the rest when they are ready."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM, REPO_ROOT
from tests.reload.conftest import ListChanged

pytestmark = pytest.mark.anyio


def _server(extensions: Path, data_dir: Path, wait_s: float) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", str(data_dir)],
        cwd=str(REPO_ROOT),
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "TOOLBAY_DISCOVERY__START_WAIT_S": str(wait_s)},
    )


async def test_tools_still_being_described_are_announced_when_ready(tmp_path: Path) -> None:
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", extensions / "echo.wasm")
    # 7 MB of Go: compiling it for the first time takes seconds, far beyond the wait.
    shutil.copy(BUNDLED_EXTENSIONS / "jsonkit.wasm", extensions / "jsonkit.wasm")
    heard = ListChanged()
    started = time.monotonic()
    with anyio.fail_after(90):
        async with Client(_server(extensions, tmp_path / "data", 0.3), mode="legacy",
                          message_handler=heard) as client:
            answered_after = time.monotonic() - started
            first = {tool.name for tool in (await client.list_tools()).tools}
            if not any(name.startswith("jsonkit") for name in first):  # still being described
                await heard.after(0)
            later = {tool.name for tool in (await client.list_tools()).tools}
            formatted = await client.call_tool("jsonkit_fmt", {"stdin": '{"b":1}'})
    assert "jsonkit_fmt" not in first, f"the first listing came after everything was described ({answered_after:.1f} s)"
    assert {"jsonkit_fmt", "jsonkit_get", "echo"} <= later
    assert formatted.is_error is False and '"b": 1' in formatted.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("wait_s", [None, 5.0])
async def test_an_error_while_the_app_is_open_comes_out_as_itself(tmp_path: Path, wait_s: float | None) -> None:
    from toolbay.catalog_keeper import CatalogKeeper
    from toolbay.config import load_settings

    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", extensions / "echo.wasm")
    settings = load_settings(None, extensions=[extensions], data_dir=tmp_path / "data")
    with pytest.raises(LookupError, match="not an exception group"):
        async with CatalogKeeper.open(settings, start_wait_s=wait_s) as app:
            assert app.catalog.current.get("echo") is not None
            raise LookupError("not an exception group")
