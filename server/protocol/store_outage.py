"""A shared store that cannot be reached, said as a server error a client may retry.

A job tool answers an outage of the shared job store (Redis) with a refusal that says when to
try again. The protocol's own job requests (``resources/list`` and ``resources/read`` of job
results, ``tasks/*``) raised the same refusal to the SDK, which answered it with code 0 (no
JSON-RPC code) and, over plain JSON, HTTP 400: a client could not tell a passing outage of
the server from a mistake of its own. ``StoreOutageMiddleware`` answers it ``-32603`` with
``data.retry_after`` (seconds). A data folder that cannot be used (``StorageError``) is said
as a server error too, without the folder's place to a caller over HTTP.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from toolbay.errors import StorageError, StoreUnavailable


class StoreOutageMiddleware:
    """``data_dir``: where the server keeps its data, which a data folder's error (a job
    database deleted, damaged, a full disk) says to a local caller and not to one over HTTP."""

    def __init__(self, data_dir: str | None = None) -> None:
        self.data_dir = data_dir

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except StoreUnavailable as exc:
            raise MCPError(code=types.INTERNAL_ERROR, message=exc.message,
                           data={"code": exc.code, **exc.meta}) from None
        except StorageError as exc:
            said = str(exc) if self.data_dir is None else exc.said_to_a_remote_caller(self.data_dir)
            raise MCPError(code=types.INTERNAL_ERROR, message=said) from None
