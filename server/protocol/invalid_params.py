"""Request parameters the protocol refuses, said specifically.

The SDK answers a request whose parameters fail its validation with ``-32602 "Invalid
request parameters"`` and empty data, deliberately keeping pydantic's text off the wire. A
client author (or a model building a ``tools/call`` by hand) is then left guessing which
field was wrong. ``InvalidParamsMiddleware`` wraps the SDK's request chain, where that
validation runs, and answers the same code with the fields and what is wrong with each: the
field's place and pydantic's message, never the value sent (which may be large or hostile).
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

# What the SDK answers a request made before the session is initialized.
_NOT_INITIALIZED = (types.INVALID_PARAMS, "Invalid request parameters", "")
# pydantic's names for the members of a union in an error's place ("progressToken.str").
_UNION_MEMBERS = frozenset({"str", "int", "float", "bool", "list", "dict", "none"})

# Problems named in the message; the data carries them all, up to this many.
_IN_MESSAGE = 3
_IN_DATA = 20


class InvalidParamsMiddleware:
    """Turns the SDK's validation of a request's parameters into an error that says which
    fields are wrong and how."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except ValidationError as exc:
            raise invalid_params_error(ctx.method, exc) from None
        except MCPError as exc:
            if (exc.error.code, exc.error.message, exc.error.data) != _NOT_INITIALIZED:
                raise
            # The SDK's answer to a request before the handshake (kept for compatibility) names
            # no reason; the code stays.
            raise MCPError(code=types.INVALID_PARAMS, message=f"Invalid request: {ctx.method} before the session is "
                           "initialized (send initialize, then notifications/initialized)") from None


def invalid_params_error(method: str, exc: ValidationError) -> MCPError:
    errors = exc.errors()
    problems = [{"field": _field(error["loc"]), "problem": error["msg"]} for error in errors[:_IN_DATA]]
    said = "; ".join(f"{p['field']}: {p['problem']}" if p["field"] else p["problem"] for p in problems[:_IN_MESSAGE])
    more = len(errors) - _IN_MESSAGE
    if more > 0:
        said += f" (and {more} more)"
    return MCPError(code=types.INVALID_PARAMS, message=f"Invalid {method} parameters: {said}",
                    data={"errors": problems})


def _field(loc: tuple[int | str, ...]) -> str:
    """``("params", "arguments")`` -> ``arguments``: the place inside the request's params
    (``params`` itself when that is missing), without pydantic's names of union members."""
    parts = [part for part in (loc[1:] if loc[:1] == ("params",) else loc)
             if isinstance(part, int) or (part not in _UNION_MEMBERS and "[" not in part)]
    place = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts).lstrip(".")
    return place or "params"
