"""Running one CLI command: its coroutine on the event loop, its settings loaded, toolbay's own
errors turned into a one-line message and exit status 2. Shared by ``toolbay.cli`` and
``toolbay.jobs_cli`` (which the main CLI mounts, so it cannot import the CLI module back)."""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import typer
from rich.console import Console

from toolbay.config import Settings, load_settings, unknown_environment
from toolbay.errors import ToolbayError

err = Console(stderr=True)
T = TypeVar("T")


def run_command(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Runs one command's coroutine; toolbay's own errors become a message and exit 2."""
    try:
        return anyio.run(function, *args, backend_options=_loop_options())
    except* ToolbayError as group:
        error = _first_toolbay_error(group)
        err.print(f"toolbay: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _loop_options() -> dict[str, Any]:
    """uvloop when it is installed (it is a dependency; its event loop halves the time asyncio
    itself takes per request), else asyncio's own loop."""
    return {"use_uvloop": importlib.util.find_spec("uvloop") is not None}


def _first_toolbay_error(group: BaseExceptionGroup[ToolbayError]) -> ToolbayError:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            return _first_toolbay_error(error)
        return error
    raise AssertionError("empty exception group")


def settings_or_exit(config: Path | None, **overrides: Any) -> Settings:
    try:
        settings = load_settings(config, **overrides)
    except ToolbayError as exc:
        err.print(f"toolbay: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    for warning in unknown_environment():
        err.print(f"toolbay: warning: {warning}", markup=False, highlight=False, soft_wrap=True)
    return settings
