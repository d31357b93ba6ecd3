"""What toolbay reaches into in sse_starlette (``toolbay.internals.sse_starlette_uvicorn``): it
loads, and the MCP SDK's server with it, without uvicorn, which a stdio ``serve`` then never
loads. The first test fails when an sse_starlette upgrade stops going without uvicorn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURE_WASM, REPO_ROOT, patient_start

WITHOUT_UVICORN = """
import sys
from toolbay.internals.sse_starlette_uvicorn import load_without_uvicorn

load_without_uvicorn()
import mcp.server.lowlevel.server  # the SDK's server, its streamable HTTP transport with it
import sse_starlette.sse

print("uvicorn" in sys.modules, sse_starlette.sse.AppStatus.original_handler is None)
import uvicorn  # still there for whoever asks

print(uvicorn.Server.handle_exit.__module__)
"""


def test_sse_starlette_and_the_sdks_server_load_without_uvicorn_which_still_imports_afterwards() -> None:
    completed = subprocess.run([sys.executable, "-c", WITHOUT_UVICORN], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == ["False True", "uvicorn.server"]


def test_a_stdio_server_answers_without_loading_uvicorn_or_click(tmp_path: Path) -> None:
    """Python's import log (``-X importtime``, on standard error) names every module the server
    process loads until its client goes."""
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    (extensions / "echo.wasm").write_bytes((FIXTURE_WASM / "echo.wasm").read_bytes())
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolbay", "serve", "--extensions", str(extensions),
         "--data-dir", str(tmp_path / "data")],
        input="".join(json.dumps(message) + "\n" for message in messages), capture_output=True, text=True,
        cwd=REPO_ROOT, env=patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)}), timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert '"id":1' in completed.stdout.replace(" ", "")  # the listing was answered
    loaded = {line.rpartition("|")[2].strip() for line in completed.stderr.splitlines()
              if line.startswith("import time:")}
    assert "mcp.server.streamable_http" in loaded  # the SDK's server and its HTTP transport: loaded
    assert not {"uvicorn.config", "uvicorn.server", "click"} & loaded
