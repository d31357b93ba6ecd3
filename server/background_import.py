"""Importing a module on a thread of its own while the caller goes on: ``serve`` loads the MCP
SDK this way. Standard library only, so that a server can begin it before its own imports."""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable

logger = logging.getLogger(__name__)


class ImportInBackground:
    """Imports ``module`` on a thread of its own, then calls ``then``; ``first`` runs on that
    thread before the import.

    ``serve`` loads the MCP SDK (about half a second of processor time) this way while it reads
    its settings, loads its own modules and describes the tools: describing a new file is
    mostly compiling it, which wasmtime does outside Python's lock, so the two overlap. Whoever
    needs the module waits for ``loaded`` first; if the import failed here, their own import
    fails again and says why.
    """

    def __init__(self, module: str, then: Callable[[], None] = lambda: None,
                 first: Callable[[], None] = lambda: None) -> None:
        self.module = module
        self.then = then
        self.first = first
        self._thread = threading.Thread(target=self._load, name=f"import {module}", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        try:
            self.first()
            importlib.import_module(self.module)
        except BaseException:
            logger.debug("importing %s in the background failed", self.module, exc_info=True)
        finally:
            self.then()

    async def loaded(self) -> None:
        if not self._thread.is_alive():
            # Done already, as on a first start, whose imports end while the tools compile: no
            # worker thread to join it (starting one, or waiting for one that is free, was
            # 0 to 4 ms before the first listing, more on a busy machine).
            return
        import anyio.to_thread

        await anyio.to_thread.run_sync(self._thread.join)

    def underway(self) -> bool:
        """The import (or ``then``) has not ended yet."""
        return self._thread.is_alive()

    def wait(self, timeout_s: float) -> None:
        """Blocks until the import (and ``then``) is done, or ``timeout_s`` has passed."""
        self._thread.join(timeout_s)
