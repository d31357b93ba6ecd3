"""Lines and bodies that are not JSON-RPC messages get JSON-RPC's own answer, with no traceback.

The SDK's stdio session drops what it cannot parse without a word, and its SSE endpoint logs
a traceback and answers plain text. JSON-RPC asks for a parse error (-32700) when the text is
not JSON (nesting deeper than the parser takes and lone surrogates included) and an invalid
request (-32600) when it is JSON of another shape, both with a null id, as none could be read.
``stdio`` uses ``error_for``; the SSE POST endpoint is wrapped in ``AnswerUnparsableMessages``.
"""

from __future__ import annotations

import logging

import mcp.types as types
from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from toolbay.protocol.plain_json import read_small_body, replay

logger = logging.getLogger(__name__)


def error_for(exc: ValidationError) -> types.ErrorData:
    """The JSON-RPC error for a message the SDK's adapter refused."""
    errors = exc.errors()
    if errors and errors[0]["type"] == "json_invalid":
        reason = str(errors[0]["msg"]).removeprefix("Invalid JSON: ")
        return types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {reason}")
    return types.ErrorData(code=types.INVALID_REQUEST, message="Invalid request: not a JSON-RPC 2.0 message")


def error_message(error: types.ErrorData) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)


class AnswerUnparsableMessages:
    """ASGI wrapper for the SSE POST endpoint: a body that is not a JSON-RPC message is answered
    400 with the JSON-RPC error here, before the SDK logs a traceback for it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages, body = await read_small_body(receive)
        if body is not None:
            try:
                types.jsonrpc_message_adapter.validate_json(body, by_name=False)
            except ValidationError as exc:
                error = error_for(exc)
                logger.info("answered an error to a body that is not a JSON-RPC message: %s", error.message)
                answer = error_message(error).model_dump(by_alias=True, exclude_unset=True)
                await JSONResponse(answer, status_code=400)(scope, receive, send)
                return
        await self.app(scope, replay(messages, receive), send)
