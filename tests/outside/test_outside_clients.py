"""Clients written by others, not by toolbay's authors: the MCP Inspector CLI and the
TypeScript SDK, each over stdio and over streamable HTTP.

They run when ``OUTSIDE_CLIENTS_NODE`` names a folder whose ``node_modules`` holds Node 22
(the npm package ``node@22``), ``@modelcontextprotocol/inspector`` and
``@modelcontextprotocol/sdk``; ``.ci/outside-clients.sh`` makes one. Otherwise they skip, except
under CI (``CI=true``), where they fail.

The same commands by hand (with ``T=$OUTSIDE_CLIENTS_NODE``)::

    $T/node_modules/.bin/mcp-inspector --cli --format json -q --method tools/list \\
        python -m server serve
    $T/node_modules/.bin/mcp-inspector --cli --format json -q --method tools/call \\
        --tool-name hashsum --tool-args-json '{"text": "abc"}' http://127.0.0.1:8765/mcp
    OUTSIDE_CLIENTS_NODE=$T $T/node_modules/.bin/node tests/outside/ts_client.mjs stdio python -m server serve
    OUTSIDE_CLIENTS_NODE=$T $T/node_modules/.bin/node tests/outside/ts_client.mjs http http://127.0.0.1:8765/mcp
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.conftest import REPO_ROOT

HERE = Path(__file__).resolve().parent
ABC_SHA256 = hashlib.sha256(b"abc").hexdigest()
TIMEOUT_S = 120


def under_ci() -> bool:
    """CI services set ``CI=true``; .ci/run sets it too."""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def unavailable(reason: str) -> NoReturn:
    """Skips where the clients are not installed, but fails under CI, where a missing client
    must not let these checks pass unseen."""
    if under_ci():
        pytest.fail(f"CI is set but the outside clients cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def node_tools() -> Path:
    folder = os.environ.get("OUTSIDE_CLIENTS_NODE")
    if not folder:
        unavailable("OUTSIDE_CLIENTS_NODE is not set: run .ci/outside-clients.sh to install Node 22 and the clients")
    bin_dir = Path(folder) / "node_modules" / ".bin"
    missing = [name for name in ("node", "mcp-inspector") if not (bin_dir / name).exists()]
    if not (Path(folder) / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        missing.append("@modelcontextprotocol/sdk")
    if missing:
        unavailable(f"{folder} lacks {', '.join(missing)}: run .ci/outside-clients.sh")
    version = subprocess.run([str(bin_dir / "node"), "--version"], capture_output=True, text=True).stdout.strip()
    if not re.match(r"v(2[2-9]|[3-9]\d)\.", version):
        unavailable(f"Node 22 or later is needed, {bin_dir / 'node'} is {version or 'not runnable'}")
    return Path(folder)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Described once (the first start pays the cold start), then warm for every client."""
    folder = tmp_path_factory.mktemp("outside-data")
    subprocess.run([sys.executable, "-m", "toolbay", "list", "--data-dir", str(folder)],
                   cwd=REPO_ROOT, check=True, capture_output=True, timeout=TIMEOUT_S)
    return folder


def _serve_stdio(data_dir: Path) -> list[str]:
    return [sys.executable, "-m", "toolbay", "serve", "--data-dir", str(data_dir)]


@pytest.fixture(scope="module")
def http_url(data_dir: Path) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0", "--data-dir", str(data_dir)],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    drain: threading.Thread | None = None
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the server says where it listens once it does
            found = re.search(r"serving MCP on (http://\S+/mcp)", line)
            if found:
                break
        else:
            raise AssertionError(f"toolbay exited with {process.wait()} before serving HTTP")
        # Keep reading its log, so that a full pipe never blocks the server.
        drain = threading.Thread(target=process.stderr.read, daemon=True)
        drain.start()
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=15)
        if process.stderr is not None:
            if drain is not None:
                drain.join(timeout=5)
            process.stderr.close()


def _run(command: list[str], node_tools: Path) -> dict:
    # The Inspector keeps its catalog under ~/.mcp-inspector: the session's temporary home.
    env = {**os.environ, "OUTSIDE_CLIENTS_NODE": str(node_tools)}
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, f"{command[:6]} exited with {done.returncode}: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def _inspector(node_tools: Path, *args: str) -> list[str]:
    return [str(node_tools / "node_modules" / ".bin" / "mcp-inspector"), "--cli", "--format", "json", "-q",
            "--connect-timeout", str(TIMEOUT_S * 1000), *args]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_inspector_cli_lists_the_tools(node_tools: Path, data_dir: Path, transport: str, request) -> None:
    target = _serve_stdio(data_dir) if transport == "stdio" else [request.getfixturevalue("http_url")]
    listed = _run(_inspector(node_tools, "--method", "tools/list", *target), node_tools)["result"]
    names = {tool["name"] for tool in listed["tools"]}
    assert {"hashsum", "textkit_count", "jsonkit_get", "job_status"} <= names
    hashsum = next(tool for tool in listed["tools"] if tool["name"] == "hashsum")
    assert "algorithm" in hashsum["inputSchema"]["properties"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_inspector_cli_calls_hashsum(node_tools: Path, data_dir: Path, transport: str, request) -> None:
    target = _serve_stdio(data_dir) if transport == "stdio" else [request.getfixturevalue("http_url")]
    called = _run(_inspector(
        node_tools, "--method", "tools/call", "--tool-name", "hashsum",
        "--tool-args-json", json.dumps({"text": "abc", "algorithm": "sha256"}), *target,
    ), node_tools)["result"]
    assert called.get("isError") in (None, False)
    assert ABC_SHA256 in called["content"][0]["text"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_typescript_sdk_client_lists_and_calls_tools(
    node_tools: Path, data_dir: Path, transport: str, request: pytest.FixtureRequest
) -> None:
    target = _serve_stdio(data_dir) if transport == "stdio" else [request.getfixturevalue("http_url")]
    node = str(node_tools / "node_modules" / ".bin" / "node")
    answer = _run([node, str(HERE / "ts_client.mjs"), transport, *target], node_tools)
    assert answer["server"]["name"] == "toolbay"
    assert "hashsum" in answer["tools"]
    assert answer["isError"] is False
    assert ABC_SHA256 in answer["text"]
