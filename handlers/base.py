"""The contract every kind of tool implements.

A handler is a definition (what the model sees: name, description, input schema,
permission tier) plus one coroutine, ``handle(arguments, context)``. Handlers know
nothing of transports, authentication, rate limits or jobs: the server wraps them.
The plain data they speak (``ToolDefinition``, ``ToolResult``, ``CallContext`` ...) lives in
``toolbay.words`` and is re-exported here for tool code.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from toolbay.words import (
    CallContext,
    PermissionTier,
    ProgressCallback,
    ToolAnnotations,
    ToolDefinition,
    ToolResult,
)

__all__ = [
    "CallContext", "Handler", "PermissionTier", "ProgressCallback", "ToolAnnotations", "ToolDefinition", "ToolResult",
]



# The meta of a call that never ran because its module was replaced (or removed) first: the
# app gives it to the version now served, when that takes the same arguments.
MODULE_REPLACED = "module_replaced"

class Handler(ABC):
    """One tool. Subclasses set ``definition`` and override ``handle``."""

    # Capability flags, read by the server without calling the handler.
    supports_cancellation: ClassVar[bool] = False
    # Runs in the request, never as a job (tools about jobs or the catalog themselves).
    runs_inline: ClassVar[bool] = False
    # Acts only on the caller's own jobs, or on the tools it may use: every caller may use it,
    # whatever its scopes (a caller allowed one tool that goes on as a job must be able to poll
    # it). The server-wide allow and deny patterns still apply.
    for_every_caller: ClassVar[bool] = False
    # A scope the caller needs besides its tier's (the authoring tools'): without it the tool is
    # neither listed to it nor called.
    needs_scope: ClassVar[str | None] = None
    # Counted by the per-caller rate limits. The job tools are not: a client polls a job every
    # couple of seconds, as the server asks it to, and the limit would cut it off from its own
    # results (the server-wide limit still counts them).
    counted_per_caller: ClassVar[bool] = True
    # A read-tier job unfinished at a crash may be run again by the next server, with no caller
    # there (``toolbay.job_recovery``). Not one that works through its caller's client (an agent
    # tool: the client's model, or the client's own child session).
    runs_again_without_its_caller: ClassVar[bool] = True
    # Sends nothing to the caller before its answer, however long it runs, but progress (which
    # needs a progress token): no question, no sampling. HTTP then answers with one JSON body,
    # which the SDK's client reads whole; as an SSE event, an answer past 1 MiB (a result of the
    # default output limit, escaped) was refused by it and lost.
    sends_nothing_before_its_answer: ClassVar[bool] = False
    # A catalog holds thousands of handlers: a subclass that declares __slots__ too (as
    # WasmHandler does) has no __dict__ per instance; one that does not gets one as usual.
    __slots__ = ("definition", "__weakref__")

    def __init__(self, definition: ToolDefinition) -> None:
        self.definition = definition

    @property
    def name(self) -> str:
        return self.definition.name

    @abstractmethod
    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        """Runs the tool. Expected failures come back as ``ToolResult.error``; anything
        raised is an unexpected fault, which the server logs and reports generically."""

    def expects_quick_answer(self) -> bool:
        """True when ``answer_at_once`` will most likely answer (the transport may then skip
        setting up a stream for what would come before the answer)."""
        return False

    def proven_quick(self) -> bool:
        """True when a call is known to end at once (a tool that has run within its quick budget):
        an HTTP answer in one JSON body then needs no watch for its client going away. A handler
        expected to answer at once is, unless it says otherwise."""
        return self.expects_quick_answer()

    def answer_at_once(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult | None:
        """The call's result, computed now on the calling thread, when the handler knows it will
        be quick; ``None`` to go the usual way (``handle``, through the job manager). The server
        tries this first, so it must be cheap when it declines."""
        return None

    async def close(self) -> None:
        """Releases what the handler holds (compiled modules, files). Called when it leaves the catalog."""
        return None

    async def renew(self) -> None:
        """Lets go of warm state made from files other than the tool's own (a Python module's
        workers imported its sibling modules, one of which changed); the next call starts afresh."""
        return None


# Structured content sits two levels down in a tool's answer (the message, then its result).
# Past its JSON parser's recursion limit the SDK's client refuses the whole answer and, over
# stdio, never answers its caller; so the content is parsed with that parser, inside as many
# levels as the answer puts around it and two more to spare.
_LEVELS_AROUND_STRUCTURED = 4
_JSON_STARTS = frozenset('{["-0123456789tfn')


def structured_from_json(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON document ``text`` as a result's structured content (an object as it is, any other
    value as ``{"result": value}``), or None when it is not JSON; and, when a document is left
    out for nesting deeper than a client reads, why (the text still holds it)."""
    start = text.lstrip()[:1]
    if start not in _JSON_STARTS:
        return None, None
    levels = _LEVELS_AROUND_STRUCTURED + (start != "{")  # {"result": value} adds one
    import pydantic_core  # with the first JSON output, not with every handler module

    try:
        value = pydantic_core.from_json("[" * levels + text + "]" * levels, allow_inf_nan=False)
    except ValueError as error:
        if "recursion limit" in str(error):
            return None, "nested too deeply for a client's JSON parser; the text holds it"
        return None, None  # not JSON (NaN and lone surrogates included)
    for _ in range(levels):
        value = value[0]
    if _MAY_OVERFLOW.search(text) and not _all_finite(value):
        return None, None  # 1e999 is read as infinity, which JSON cannot say: it was sent as null
    return (value if isinstance(value, dict) else {"result": value}), None


# A number past a float's range (an exponent of three digits, or hundreds of digits): read as
# infinity. Only a text holding one is walked for it.
_MAY_OVERFLOW = re.compile(r"[eE][+]?\d{3}|\d{300}")


def _all_finite(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True
