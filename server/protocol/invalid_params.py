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
from collections.abc import Mapping
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
            raise invalid_params_error(ctx.method, exc, ctx.params) from None
        except MCPError as exc:
            if (exc.error.code, exc.error.message, exc.error.data) != _NOT_INITIALIZED:
                raise
            # The SDK's answer to a request before the handshake (kept for compatibility) names
            # no reason; the code stays, and the words do not name another code's meaning
            # ("Invalid request" is -32600's; an outside check).
            raise MCPError(code=types.INVALID_PARAMS, message=f"{ctx.method} came before the session was "
                           "initialized (send initialize, then notifications/initialized)") from None


def invalid_params_error(method: str, exc: ValidationError, params: Any = None) -> MCPError:
    """``params``: what the request sent, which tells the client's own keys in a problem's place
    from pydantic's names of a union's members (without it, names it uses are taken for those)."""
    errors = [(error, _place(error, params)) for error in exc.errors()]
    errors = _of_the_member_meant(errors)
    # One field failing each member of a union ("a valid string", "a valid integer") is one problem.
    by_field: dict[str, list[str]] = {}
    for error, place in errors:
        problems_of = by_field.setdefault(_field(place), [])
        problem = _problem(error)
        if problem not in problems_of:
            problems_of.append(problem)
    problems = [{"field": field, "problem": _either(said)} for field, said in list(by_field.items())[:_IN_DATA]]
    said = "; ".join(f"{p['field']}: {p['problem']}" if p["field"] else p["problem"] for p in problems[:_IN_MESSAGE])
    more = len(by_field) - _IN_MESSAGE
    if more > 0:
        said += f" (and {more} more)"
    return MCPError(code=types.INVALID_PARAMS, message=f"Invalid {method} parameters: {said}",
                    data={"errors": problems})


# A part of a problem's place: (the key or index, True when it is pydantic's name of a union's member).
_Part = tuple[int | str, bool]


def _place(error: Any, params: Any) -> list[_Part]:
    """The parts of a problem's place inside the request's params, each marked when it names a
    member of a union rather than a key or an index of what was sent. With ``params``, a part is a
    key when the value sent at that place has it (a field reported missing is one too); without,
    pydantic's names of types and the SDK's model names are taken for members."""
    loc = tuple(error["loc"])
    parts = loc[1:] if loc[:1] == ("params",) else loc
    at: Any = params if params is not None else _UNKNOWN
    marked: list[_Part] = []
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        if at is _UNKNOWN:
            member = isinstance(part, str) and _names_a_union_member(part)
        elif isinstance(part, int):
            member = not isinstance(at, list)
        else:
            member = not ((isinstance(at, Mapping) and part in at) or (last and error["type"] == "missing"))
        marked.append((part, member))
        if not member and at is not _UNKNOWN:
            try:
                at = at[part]
            except (KeyError, IndexError, TypeError):  # a field reported missing: nothing below it
                at = _UNKNOWN
    return marked


_UNKNOWN = object()


def _of_the_member_meant(errors: list[tuple[Any, list[_Part]]]) -> list[tuple[Any, list[_Part]]]:
    """The problems, but those of a union's members whose kind (a literal ``type``) the value
    does not have, when one member's it does: ``{"type": "ref/prompt", "name": 5}`` is a prompt
    reference whose name is wrong, not also a resource reference without a ``uri``."""
    members: dict[tuple[_Part, ...], bool] = {}  # a member's place -> its kind was wrong
    for error, place in errors:
        member = _member_place(place)
        if member is not None:
            wrong_kind = error["type"] == "literal_error" and [part for part, _ in place[len(member):]] == ["type"]
            members[member] = members.get(member, False) or wrong_kind
    unions: dict[tuple[_Part, ...], list[bool]] = {}
    for member, wrong_kind in members.items():
        unions.setdefault(member[:-1], []).append(wrong_kind)
    dropped = {member for member, wrong_kind in members.items() if wrong_kind and not all(unions[member[:-1]])}
    return [(error, place) for error, place in errors if _member_place(place) not in dropped]


def _member_place(place: list[_Part]) -> tuple[_Part, ...] | None:
    """``place`` up to the first member of a union it names."""
    for position, (_, member) in enumerate(place):
        if member:
            return tuple(place[:position + 1])
    return None


def _problem(error: Any) -> str:
    """pydantic's message, but a model expected is "an object" (not "a valid dictionary or
    instance of PromptReference", once per member)."""
    if error["type"] in ("model_type", "model_attributes_type", "dataclass_type"):
        return _INPUT_SHOULD_BE + "an object"
    return str(error["msg"])


def _either(problems: list[str]) -> str:
    """``Input should be a valid string or a valid integer`` for one field's union members."""
    first, rest = problems[0], problems[1:]
    shared = _INPUT_SHOULD_BE if first.startswith(_INPUT_SHOULD_BE) else ""
    return " or ".join([first, *(problem.removeprefix(shared) for problem in rest)])


def _field(place: list[_Part]) -> str:
    """``arguments.name``, ``items[2]``: the place inside the request's params (``params`` itself
    when that is missing), without pydantic's names of union members."""
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{_shown(part)}"
                   for part, member in place if not member).lstrip(".")
    return text or "params"


def _names_a_union_member(part: str) -> bool:
    """pydantic's names of types ("str", "function-after[...]") and the SDK's model names."""
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
