"""The shape shared by the checking stages: time a check, then hand the call on.

A check either returns (the call may go on) or raises a ``CallRefused`` subclass. The
time it took is recorded in ``call.timings[name]`` either way, so the audit log shows
what a refusal cost too.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from time import perf_counter
from typing import ClassVar

from toolbay.chain.call import CallNext, ToolCall
from toolbay.errors import UnknownTool
from toolbay.words import Principal, ToolDefinition, ToolResult


class CheckStage(ABC):
    name: ClassVar[str]

    async def __call__(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        started = perf_counter()
        try:
            await self.check(call)
        finally:
            call.timings[self.name] = perf_counter() - started
        return await call_next(call)

    @abstractmethod
    async def check(self, call: ToolCall) -> None:
        """Returns when the call may go on; raises a ``CallRefused`` subclass when not."""


def definition_of(call: ToolCall) -> ToolDefinition:
    """The definition of the tool called; the dispatcher leaves ``handler`` unset for unknown names."""
    if call.handler is None:
        raise UnknownTool(call.name)
    return call.handler.definition


def principal_of(call: ToolCall) -> Principal:
    """The caller; stages after authenticate may rely on it, and an unset one is a wiring fault."""
    if call.principal is None:
        raise RuntimeError("the chain reached a stage that needs a caller before authenticate ran")
    return call.principal
