"""Jobs end to end: a real server (in-process uvicorn, or a `python -m server serve`
subprocess) with the `slow` fixture program and the bundled textkit, driven by the SDK's
own client. Each test gets its own data folder (its own job database); compiled modules
and tool descriptions are shared through symlinks so that they are made once per session.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM, REPO_ROOT, as_if_run_before
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.auth import new_token
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import Settings, load_settings

TOOLS = (FIXTURE_WASM / "slow.wasm", BUNDLED_EXTENSIONS / "textkit.wasm")
CACHES = ("modules", "descriptions")


@pytest.fixture(scope="session")
def extensions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("jobs-e2e-extensions")
    for tool in TOOLS:
        shutil.copy2(tool, folder / tool.name)
    return folder


@pytest.fixture(scope="session")
def warm_caches(tmp_path_factory: pytest.TempPathFactory, extensions: Path, shared_data_dir: Path) -> Path:
    """A data folder whose module and description caches hold the tools above, their code
    optimised as a server that has run before leaves it: described from the baseline
    compiler's code, every server started on it went on to optimise textkit again."""
    folder = as_if_run_before(tmp_path_factory.mktemp("jobs-e2e-warm"), shared_data_dir)

    async def describe() -> None:
        async with CatalogKeeper.open(load_settings(None, extensions=[extensions], data_dir=folder)):
            pass

    anyio.run(describe)
    return folder


@pytest.fixture
def data_dir(tmp_path: Path, warm_caches: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for name in CACHES:
        if (warm_caches / name).is_dir():
            (folder / name).symlink_to(warm_caches / name, target_is_directory=True)
    return folder


@dataclass
class Callers:
    """Bearer tokens of two callers, alice and bob, and the tokens file that knows them."""

    tokens_file: Path
    tokens: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def callers(tmp_path: Path) -> Callers:
    lines, tokens = [], {}
    for name in ("alice", "bob"):
        token, digest = new_token()
        tokens[name] = token
        lines += ["[[tokens]]", f'client_id = "{name}"', f'sha256 = "{digest}"', 'scopes = ["tools:exec"]', ""]
    path = tmp_path / "tokens.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return Callers(path, tokens)


def write_config(path: Path, extensions: Path, data_dir: Path, *, jobs: Mapping[str, Any] | None = None,
                 timeout_s: float = 60, background_tools: tuple[str, ...] = (),
                 tokens_file: Path | None = None, quick_budget_ms: float | None = None,
                 workspace: Path | None = None) -> Path:
    """A toolbay.toml for a test server: small sync budget, fast polling of nothing else."""
    job_settings = {"sync_budget_s": 0.2, **(jobs or {})}
    lines = [
        f"extensions = [{str(extensions)!r}]",
        f"data_dir = {str(data_dir)!r}",
        *([f"workspace = {str(workspace)!r}"] if workspace is not None else []),
        f"background_tools = {list(background_tools)!r}",
        "[sandbox]", f"timeout_s = {timeout_s}",
        *([f"quick_budget_ms = {quick_budget_ms}"] if quick_budget_ms is not None else []),
        "[jobs]", *(f"{key} = {value!r}" for key, value in job_settings.items()),
    ]
    if tokens_file is not None:
        lines += ["[chain.auth]", f"tokens_file = {str(tokens_file)!r}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def stdio_params(config: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--transport", "stdio", "--config", str(config)],
        cwd=str(REPO_ROOT),
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )


@asynccontextmanager
async def http_server(settings: Settings) -> AsyncIterator[tuple[str, Toolbay]]:
    """The app served by uvicorn on 127.0.0.1 and a free port; yields the /mcp URL."""
    from toolbay.protocol.transports import serving_http

    settings.port = 0
    # build_http_app mounts bearer auth when a tokens file is configured.
    async with assemble(settings, watch=False) as app, serving_http(app) as url:
        yield f"{url}/mcp", app


@asynccontextmanager
async def http_client(url: str, token: str | None = None) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, with a bearer token when given."""
    async with AsyncExitStack() as stack:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
        client = await stack.enter_async_context(
            Client(streamable_http_client(url, http_client=http), mode="legacy"))
        yield client


@asynccontextmanager
async def sse_client(url: str) -> AsyncIterator[Client]:
    """The SDK's client over the legacy SSE transport of the server whose /mcp URL is ``url``."""
    from mcp.client.sse import sse_client as sdk_sse_client

    async with Client(sdk_sse_client(url.removesuffix("/mcp") + "/sse"), mode="legacy") as client:
        yield client


def settings_for(config: Path) -> Settings:
    return load_settings(config)


class Progress:
    """A ``progress_callback`` that keeps what it heard."""

    def __init__(self) -> None:
        self.heard: list[tuple[float, float | None, str | None]] = []
        self.changed = anyio.Event()

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.heard.append((progress, total, message))
        self.changed.set()
        self.changed = anyio.Event()

    @property
    def messages(self) -> list[str]:
        return [message or "" for _, _, message in self.heard]


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def output(result: types.CallToolResult) -> str:
    """The tool's exact output: the first text block (a successful run's stderr comes after it)."""
    return next(block.text for block in result.content if isinstance(block, types.TextContent))


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, text(result)
    return dict(result.structured_content)


async def call(client: Client, name: str, arguments: Mapping[str, Any] | None = None,
               **options: Any) -> types.CallToolResult:
    return await client.call_tool(name, dict(arguments or {}), **options)


async def start_job(client: Client, arguments: Mapping[str, Any], tool: str = "slow",
                    **options: Any) -> str:
    """Calls a tool that must go on as a job; returns the job id."""
    result = await call(client, tool, arguments, **options)
    assert result.is_error is False, text(result)
    return str(structured(result)["job_id"])


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started
