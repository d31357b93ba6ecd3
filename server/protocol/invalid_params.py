"""Request parameters the protocol refuses, said specifically.

The SDK answers a request whose parameters fail its validation with ``-32602 "Invalid
request parameters"`` and empty data, deliberately keeping pydantic's text off the wire. A
client author (or a model building a ``tools/call`` by hand) is then left guessing which
field was wrong. ``InvalidParamsMiddleware`` wraps the SDK's request chain, where that
validation runs, and answers the same code with the fields and what is wrong with each: the
field's place and pydantic's message, never the value sent (which may be large or hostile).
A place may hold the client's own keys (of ``_meta``, of ``arguments``): each is cut short and
its control and format characters written as escapes, so what comes back is bounded and shows
as what it is.
"""

from __future__ import annotations

import functools
import inspect
import unicodedata
from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

# What the SDK answers a request made before the session is initialized.
_NOT_INITIALIZED = (types.INVALID_PARAMS, "Invalid request parameters", "")
# pydantic's names for the members of a union in an error's place ("progressToken.str").
_UNION_MEMBERS = frozenset({"str", "int", "float", "bool", "list", "dict", "none"})

# How much of one key of a place is said.
_KEY_CHARS = 40
# How pydantic begins most problems; said once for a field failing each member of a union.
_INPUT_SHOULD_BE = "Input should be "

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
    errors = _of_the_member_meant(exc.errors())
    # One field failing each member of a union ("a valid string", "a valid integer") is one problem.
    by_field: dict[str, list[str]] = {}
    for error in errors:
        problems_of = by_field.setdefault(_field(error["loc"]), [])
        if str(error["msg"]) not in problems_of:
            problems_of.append(str(error["msg"]))
    problems = [{"field": field, "problem": _either(said)} for field, said in list(by_field.items())[:_IN_DATA]]
    said = "; ".join(f"{p['field']}: {p['problem']}" if p["field"] else p["problem"] for p in problems[:_IN_MESSAGE])
    more = len(by_field) - _IN_MESSAGE
    if more > 0:
        said += f" (and {more} more)"
    return MCPError(code=types.INVALID_PARAMS, message=f"Invalid {method} parameters: {said}",
                    data={"errors": problems})


def _of_the_member_meant(errors: list[Any]) -> list[Any]:
    """The problems, but those of a union's members whose kind (a literal ``type``) the value
    does not have, when one member's it does: ``{"type": "ref/prompt", "name": 5}`` is a prompt
    reference whose name is wrong, not also a resource reference without a ``uri``."""
    members: dict[tuple[Any, ...], bool] = {}  # a member's place -> its kind was wrong
    for error in errors:
        place = _member_place(error["loc"])
        if place is not None:
            wrong_kind = error["type"] == "literal_error" and error["loc"][len(place):] == ("type",)
            members[place] = members.get(place, False) or wrong_kind
    unions: dict[tuple[Any, ...], list[bool]] = {}
    for place, wrong_kind in members.items():
        unions.setdefault(place[:-1], []).append(wrong_kind)
    dropped = {place for place, wrong_kind in members.items() if wrong_kind and not all(unions[place[:-1]])}
    return [error for error in errors if _member_place(error["loc"]) not in dropped]


def _member_place(loc: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The place of ``loc`` up to the first member of a union of the SDK's models it names."""
    for position, part in enumerate(loc):
        if isinstance(part, str) and part in _model_names():
            return tuple(loc[:position + 1])
    return None


def _either(problems: list[str]) -> str:
    """``Input should be a valid string or a valid integer`` for one field's union members."""
    first, rest = problems[0], problems[1:]
    shared = _INPUT_SHOULD_BE if first.startswith(_INPUT_SHOULD_BE) else ""
    return " or ".join([first, *(problem.removeprefix(shared) for problem in rest)])


def _field(loc: tuple[int | str, ...]) -> str:
    """``("params", "arguments")`` -> ``arguments``: the place inside the request's params
    (``params`` itself when that is missing), without pydantic's names of union members (its
    own names of types, and the SDK's models': ``ref.PromptReference.name`` is ``ref.name``)."""
    parts = [part for part in (loc[1:] if loc[:1] == ("params",) else loc)
             if isinstance(part, int) or not _names_a_union_member(part)]
    place = "".join(f"[{part}]" if isinstance(part, int) else f".{_shown(part)}" for part in parts).lstrip(".")
    return place or "params"


def _names_a_union_member(part: str) -> bool:
    return part in _UNION_MEMBERS or part in _model_names() or "[" in part


def _shown(key: str) -> str:
    """A key of the client's as said back: cut short, controls and format characters escaped."""
    cut = key if len(key) <= _KEY_CHARS else key[:_KEY_CHARS] + "…"
    return "".join(f"\\u{ord(char):04x}" if unicodedata.category(char)[0] == "C" else char for char in cut)


@functools.cache
def _model_names() -> frozenset[str]:
    """The names of the SDK's protocol models, as pydantic names union members in a place."""
    return frozenset(name for name, value in vars(types).items()
                     if inspect.isclass(value) and issubclass(value, BaseModel))
