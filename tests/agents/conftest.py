"""A served app with the bundled tools and role files written by the test, and the SDK's real
client in process (handshake era, as Claude Code), with or without a scripted model behind
its sampling callback."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import BUNDLED_AGENTS, Settings, load_settings
from toolbay.protocol.mcp_server import build_mcp_server

ABC_SHA256 = hashlib.sha256(b"abc").hexdigest()

# A role over the bundled tools with a limit of turns small enough to reach in a test.
COUNTER_ROLE = """---
name: counter
description: Counts words and hashes text.
arguments:
  - name: unit
    description: What to count.
    required: true
    choices: [words, lines]
tools: [textkit_count, hashsum]
limits: {turns: 4, time_s: 600}
---
You count {{unit}} for the task you are given, with the tools you have.
"""

RECURSE_ROLE = """---
name: recurse
description: Hands its task to itself.
tools: [agent_recurse, textkit_count]
limits: {turns: 3}
---
You delegate.
"""


@pytest.fixture
def agents_dir(tmp_path: Path) -> Iterator[Path]:
    """The bundled roles plus the test roles, in a folder a test may change."""
    folder = tmp_path / "agents"
    shutil.copytree(BUNDLED_AGENTS, folder)
    (folder / "counter.md").write_text(COUNTER_ROLE, encoding="utf-8")
    (folder / "recurse.md").write_text(RECURSE_ROLE, encoding="utf-8")
    yield folder


@pytest.fixture
def make_settings(agents_dir: Path, shared_data_dir: Path, tmp_path: Path) -> Callable[..., Settings]:
    def make(config: str = "", **overrides: Any) -> Settings:
        path = tmp_path / "toolbay.toml"
        path.write_text(config, encoding="utf-8")
        return load_settings(path, extensions=[BUNDLED_EXTENSIONS], agents=[agents_dir], data_dir=shared_data_dir,
                             **overrides)

    return make


@asynccontextmanager
async def served(settings: Settings, *, watch: bool = False) -> AsyncIterator[Toolbay]:
    async with assemble(settings, watch=watch) as app:
        yield app


def text_of(result: Any) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


class ScriptedModel:
    """A sampling callback that answers from a script: each step gets the request and
    returns the reply (a string is a final answer; a list of (tool, arguments) asks for tools;
    a ``CreateMessageResultWithTools`` is sent as it is)."""

    def __init__(self, *steps: Callable[[types.CreateMessageRequestParams], Any] | Any) -> None:
        self.steps = list(steps)
        self.requests: list[types.CreateMessageRequestParams] = []
        self.before_reply: Callable[[], Awaitable[None]] | None = None

    async def __call__(self, context: ClientRequestContext,
                       params: types.CreateMessageRequestParams) -> types.CreateMessageResultWithTools:
        self.requests.append(params)
        if self.before_reply is not None:
            await self.before_reply()
        step = self.steps[min(len(self.requests), len(self.steps)) - 1]
        reply = step(params) if callable(step) else step
        if isinstance(reply, types.CreateMessageResultWithTools):  # a whole reply, as written
            return reply
        if isinstance(reply, str):
            return types.CreateMessageResultWithTools(
                role="assistant", content=[types.TextContent(type="text", text=reply)], model="scripted",
                stop_reason="endTurn")
        uses = [types.ToolUseContent(type="tool_use", id=f"use-{len(self.requests)}-{i}", name=name, input=arguments)
                for i, (name, arguments) in enumerate(reply)]
        return types.CreateMessageResultWithTools(role="assistant", content=uses, model="scripted",
                                                  stop_reason="toolUse")


def tool_results_in(params: types.CreateMessageRequestParams) -> list[types.ToolResultContent]:
    """The tool results the last message of a sampling request hands back to the model."""
    last = params.messages[-1]
    return [block for block in last.content_as_list if isinstance(block, types.ToolResultContent)]


def result_text(block: types.ToolResultContent) -> str:
    return "".join(getattr(part, "text", "") for part in block.content)


@asynccontextmanager
async def client_for(app: Toolbay, **options: Any) -> AsyncIterator[Client]:
    async with Client(build_mcp_server(app, "memory"), mode="legacy", **options) as client:
        yield client


def structured(result: Any) -> dict[str, Any]:
    data = result.structured_content
    assert isinstance(data, dict), text_of(result)
    return data


def audit_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


WAIT_S = 60
