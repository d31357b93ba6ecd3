from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolbay.jobs import JobManager, SqliteJobStore
from toolbay.words import CallContext, ToolResult


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "jobs.sqlite3"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteJobStore]:
    async with SqliteJobStore(db_path) as store:
        yield store


MakeManager = Callable[..., AbstractAsyncContextManager[JobManager]]


@pytest.fixture
def make_manager(db_path: Path) -> MakeManager:
    """``async with make_manager(sync_budget_s=...) as manager`` on a real SQLite file."""

    def make(**options: Any) -> JobManager:
        options.setdefault("sync_budget_s", 0.05)
        options.setdefault("poll_interval_s", 1.0)
        return JobManager(SqliteJobStore(db_path), **options)

    return make


class Gate:
    """A tool whose calls run until the test opens the gate (or they are cancelled)."""

    def __init__(self, text: str = "done") -> None:
        self.text = text
        self.opened = anyio.Event()
        self.started = anyio.Event()
        self.calls = 0
        self.seen_cancel = False

    def open(self) -> None:
        self.opened.set()

    async def __call__(self, context: CallContext) -> ToolResult:
        self.calls += 1
        self.started.set()
        try:
            await self.opened.wait()
        finally:
            self.seen_cancel = context.cancelled.is_set()
        return ToolResult(text=self.text, structured={"answer": 42})


async def instant(context: CallContext) -> ToolResult:
    return ToolResult(text="quick", structured={"n": 1})


def context(caller: str = "alice", **kwargs: Any) -> CallContext:
    return CallContext(caller=caller, **kwargs)


async def start_job(manager: JobManager, work: Any, caller: str = "alice", ctx: CallContext | None = None,
                    tool: str = "slow") -> str:
    """Starts ``work`` as a declared-background job and returns its id."""
    answer = await manager.run_or_background(caller, tool, {}, work, ctx or context(caller), background=True)
    assert answer.structured is not None
    return str(answer.structured["job_id"])


async def ready_words(process: anyio.abc.Process) -> list[str]:
    """The words after READY on the first line a worker process prints (its job ids)."""
    assert process.stdout is not None
    line = b""
    async for chunk in process.stdout:
        line += chunk
        if line.endswith(b"\n"):
            break
    words = line.decode().split()
    assert words and words[0] == "READY", line
    return words[1:]
