"""Reaching past anyio's public API (its version is locked): the modules ``anyio.run`` imports as it
starts an event loop, imported beforehand.

``anyio.run`` imports its asyncio backend (``anyio._backends._asyncio``, and uvloop when asked for it)
only as it is called. A server calls it once Python's own Ctrl-C handler is back (``start_interrupts``),
while the MCP SDK may still be loading on its own thread: a Ctrl-C that came as the main thread got
Python's import lock for these modules left the lock held, as it did before ``start_interrupts``
(over HTTP on a first start: "Exception ignored in ... cb", the server never served nor stopped).
``tests/internals/test_event_loop_modules.py`` fails if anyio imports another module there.
"""

from __future__ import annotations

import importlib.util


def import_event_loop_modules() -> None:
    """Imports what ``anyio.run`` would import as it starts (with uvloop when it is installed)."""
    import anyio._backends._asyncio  # noqa: F401

    if importlib.util.find_spec("uvloop") is not None:
        import uvloop  # noqa: F401
