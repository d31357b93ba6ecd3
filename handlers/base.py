"""The contract every kind of tool implements.

A handler is a definition (what the model sees: name, description, input schema,
permission tier) plus one coroutine, ``handle(arguments, context)``. Handlers know
nothing of transports, authentication, rate limits or jobs: the server wraps them.
The plain data they speak (``ToolDefinition``, ``ToolResult``, ``CallContext`` ...) lives in
``toolbay.words`` and is re-exported here for tool code.
"""

from __future__ import annotations

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


class Handler(ABC):
    """One tool. Subclasses set ``definition`` and override ``handle``."""

    # Capability flags, read by the server without calling the handler.
    supports_cancellation: ClassVar[bool] = False
    # Runs in the request, never as a job (tools about jobs or the catalog themselves).
    runs_inline: ClassVar[bool] = False
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

    def answer_at_once(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult | None:
        """The call's result, computed now on the calling thread, when the handler knows it will
        be quick; ``None`` to go the usual way (``handle``, through the job manager). The server
        tries this first, so it must be cheap when it declines."""
        return None

    async def close(self) -> None:
        """Releases what the handler holds (compiled modules, files). Called when it leaves the catalog."""
        return None
