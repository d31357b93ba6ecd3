"""Reaching past sse_starlette's public API (the MCP SDK depends on it; its version is locked).

``sse_starlette.sse`` imports uvicorn as it loads, only to wrap uvicorn's ``Server.handle_exit``
so that its event streams end when uvicorn is told to stop; where uvicorn is not installed it
catches the ``ImportError`` and goes without. The MCP SDK's low-level server imports it with
its streamable HTTP transport, so a stdio server loaded uvicorn, and click with it, for an HTTP
server it never runs: 30 to 50 ms of processor time on the way to a first start's listing.
``load_without_uvicorn`` loads it as where uvicorn is not installed, for a process that serves
no HTTP (``serve`` over stdio): there is then no uvicorn server whose exit it could hear.
"""

from __future__ import annotations

import sys


def load_without_uvicorn() -> None:
    """Imports ``sse_starlette.sse`` as if uvicorn were not installed, unless one of them is
    loaded already. uvicorn can still be imported afterwards (without sse_starlette's wrapper:
    only for a process that serves no HTTP)."""
    if "sse_starlette.sse" in sys.modules or "uvicorn" in sys.modules:
        return
    # A None entry makes ``from uvicorn.main import Server`` raise ImportError at once, before
    # uvicorn's own package (its config, logging.config) is loaded.
    sys.modules["uvicorn"] = None  # type: ignore[assignment]
    try:
        import sse_starlette.sse  # noqa: F401
    finally:
        if "uvicorn" in sys.modules and sys.modules["uvicorn"] is None:
            del sys.modules["uvicorn"]
