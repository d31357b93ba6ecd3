"""Hot reload: a folder the tests change under a running server, and ways to wait on it.

Nothing here sleeps to wait: a test waits on the client's ``notifications/tools/list_changed``
(``ListChanged``), on the end of a rescan (``RescanSpy``) or on a standing HTTP stream opening
(``GetStreamSpy``), always inside ``anyio.fail_after``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from starlette.types import Message, Receive, Scope, Send

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.catalog import CatalogChange
from toolbay.config import Settings, load_settings
from toolbay.protocol.transports import build_http_app, serving_http

WAIT_S = 15.0

GREET_V1 = FIXTURE_WASM / "greet_v1.wasm"
GREET_V2 = FIXTURE_WASM / "greet_v2.wasm"
JUNK = FIXTURE_WASM / "junk.wasm"
HASHSUM = BUNDLED_EXTENSIONS / "hashsum.wasm"
TEXTKIT = BUNDLED_EXTENSIONS / "textkit.wasm"


def drop(source: Path, folder: Path, name: str | None = None) -> Path:
    """Copies ``source`` into ``folder`` in place, as ``cp`` does (not atomically)."""
    target = folder / (name or source.name)
    shutil.copyfile(source, target)
    return target


def drop_atomically(source: Path, folder: Path, name: str) -> Path:
    """Writes a hidden temporary file and renames it into place, as careful build tools do."""
    target = folder / name
    temporary = folder / f".{name}.partial"
    shutil.copyfile(source, temporary)
    os.replace(temporary, target)
    return target


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


class ListChanged:
    """A client ``message_handler`` that counts ``notifications/tools/list_changed`` (or the
    notifications of ``kind``)."""

    def __init__(self, kind: type[Any] = types.ToolListChangedNotification) -> None:
        self.kind = kind
        self.count = 0
        self._event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, self.kind):
            self.count += 1
            self._event.set()
            self._event = anyio.Event()

    async def after(self, seen: int, timeout: float = WAIT_S) -> None:
        """Returns once more than ``seen`` notifications have arrived."""
        with anyio.fail_after(timeout):
            while self.count <= seen:
                await self._event.wait()


class RescanSpy:
    """Wraps the catalog keeper's ``rescan`` (the watcher looks it up on each change) to tell
    when one finished."""

    def __init__(self, app: Toolbay) -> None:
        self.started = 0
        self.finished: list[tuple[int, CatalogChange]] = []
        self._event = anyio.Event()
        self._rescan = app.keeper.rescan
        app.keeper.rescan = self._spy  # type: ignore[method-assign]

    async def _spy(self, **kwargs: Any) -> CatalogChange:
        self.started += 1
        number = self.started
        change = await self._rescan(**kwargs)
        self.finished.append((number, change))
        self._event.set()
        self._event = anyio.Event()
        return change

    async def one_started_after(self, started: int, timeout: float = WAIT_S) -> CatalogChange:
        """Waits for a rescan that began after ``started`` rescans had begun, and returns its change."""
        with anyio.fail_after(timeout):
            while True:
                for number, change in self.finished:
                    if number > started:
                        return change
                await self._event.wait()


class GetStreamSpy:
    """ASGI wrapper that tells when a client's standing GET stream on /mcp has opened."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app
        self.opened = 0
        self._event = anyio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"].rstrip("/") != "/mcp":
            await self.app(scope, receive, send)
            return

        async def spy(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.start" and message["status"] == 200:
                self.opened += 1
                self._event.set()
                self._event = anyio.Event()

        await self.app(scope, receive, spy)

    async def after(self, seen: int, timeout: float = WAIT_S) -> None:
        with anyio.fail_after(timeout):
            while self.opened <= seen:
                await self._event.wait()


@pytest.fixture
def reload_dir(tmp_path: Path) -> Path:
    """An extension folder that starts empty."""
    folder = tmp_path / "extensions"
    folder.mkdir()
    return folder


@pytest.fixture
def reload_settings(reload_dir: Path, shared_data_dir: Path, tmp_path: Path) -> Settings:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    # The extension folder alone: no role files, whose agent_* tools would be listed too.
    return load_settings(None, extensions=[reload_dir], agents=[], data_dir=shared_data_dir, workspace=workspace)


@pytest.fixture
async def reload_app(reload_settings: Settings) -> AsyncIterator[Toolbay]:
    """An app with the watcher running on ``reload_dir``."""
    async with assemble(reload_settings) as app:
        yield app


@pytest.fixture
async def http_server(reload_app: Toolbay) -> AsyncIterator[tuple[str, GetStreamSpy]]:
    """Streamable HTTP (/mcp) and SSE (/sse) on a free loopback port; the base URL and the GET spy."""
    reload_app.settings.port = 0
    spy = GetStreamSpy(build_http_app(reload_app))
    async with serving_http(reload_app, spy) as url:
        yield url, spy
