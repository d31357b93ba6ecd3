"""The sub-agent loop run through MCP sampling: ask the client's model, run the tools it asks
for, hand back their results, until it answers or a limit is reached.

The loop knows its host only through ``SubagentHost``: the host asks the client's model
(``sampling/createMessage``) and runs a tool call through the same chain as any call, with
the identity of whoever called the agent tool. Each turn is reported as progress, so a
loop that outlives the job budget is followed like any job.

Stop reasons: ``answered`` (the model answered in text without asking for a tool),
``no_answer`` (its last reply held no text: only an image, say, or nothing), ``max_tokens``
(its last reply was cut at the token limit), ``turn_limit``, ``time_limit``,
``sampling_failed`` (the client refused or failed the sampling request). Only ``answered`` is
a success: a reply that is no answer must never read as one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import anyio
from pydantic import ValidationError

from toolbay.words import ProgressCallback, ToolDefinition, ToolResult

if TYPE_CHECKING:
    import mcp_types as types

logger = logging.getLogger(__name__)

StopReason = Literal["answered", "no_answer", "max_tokens", "turn_limit", "time_limit", "sampling_failed"]
# A tool's output handed back to the model is cut here: the sub-agent's context is small too.
MAX_TOOL_TEXT = 32 * 1024
# The answer handed to the calling model is cut here: delegating is meant to keep its context free.
MAX_ANSWER_TEXT = 64 * 1024
# Tool calls run for one reply; those past it are answered "not run", so the model's turn
# limit bounds the work (a reply asking for 2,000 calls ran them all).
MAX_TOOL_USES_PER_TURN = 16


class SubagentHost(Protocol):
    """What the loop needs from the server around it."""

    async def sample(self, messages: list[types.SamplingMessage], system_prompt: str,
                     tools: Sequence[ToolDefinition], max_tokens: int) -> types.CreateMessageResultWithTools:
        """One ``sampling/createMessage``; raises when the client refuses or fails it."""

    async def call_tool(self, name: str, arguments: Mapping[str, Any], call_id: str) -> ToolResult:
        """Runs one tool call through the chain as the original caller; never raises for a refusal."""


@dataclass(frozen=True, slots=True)
class LoopLimits:
    turns: int
    time_s: float
    max_tokens: int


@dataclass(slots=True)
class ToolCallRecord:
    turn: int
    tool: str
    is_error: bool
    refusal: str | None = None

    def as_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"turn": self.turn, "tool": self.tool, "is_error": self.is_error}
        if self.refusal is not None:
            record["refusal"] = self.refusal
        return record


@dataclass(slots=True)
class LoopOutcome:
    answer: str = ""
    turns: int = 0
    stop_reason: StopReason = "turn_limit"
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    model: str | None = None
    error: str | None = None


async def run_loop(host: SubagentHost, *, system_prompt: str, task: str,
                   tools: Callable[[], Awaitable[Sequence[ToolDefinition]]],
                   limits: LoopLimits, report_progress: ProgressCallback) -> LoopOutcome:
    """Runs the sub-agent until it answers or a limit stops it. Never raises for the model's
    or a tool's fault; cancellation (the job cancelled, the server stopping) passes through.
    ``tools()`` gives the tools to offer, asked again at every turn: the caller's scopes and the
    catalog may change while the loop runs (a tool offered once its caller's scope was cut was
    refused when the model called it)."""
    # The MCP SDK's types load here, with a server's first sampling loop, not with the module:
    # the CLI's commands describe agent tools without ever running one.
    import mcp_types as types

    outcome = LoopOutcome()
    messages = [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=task))]
    with anyio.move_on_after(limits.time_s) as deadline:
        while outcome.turns < limits.turns:
            outcome.turns += 1
            turn = outcome.turns
            await report_progress(turn - 1, limits.turns, f"turn {turn}: asking the model")
            offered = await tools()
            allowed = {definition.name for definition in offered}
            try:
                reply = await host.sample(messages, system_prompt, offered, limits.max_tokens)
            except anyio.get_cancelled_exc_class():
                raise
            except Exception as exc:
                outcome.stop_reason, outcome.error = "sampling_failed", _say(exc)
                return outcome
            outcome.model = reply.model
            blocks = reply.content_as_list
            text = "\n".join(block.text for block in blocks if isinstance(block, types.TextContent)).strip()
            uses = [block for block in blocks if isinstance(block, types.ToolUseContent)]
            if text:
                outcome.answer = _cut(text, MAX_ANSWER_TEXT)  # its last words, should a limit stop it
            if not uses:
                if reply.stop_reason == "maxTokens":
                    outcome.stop_reason = "max_tokens"
                elif not text:
                    # An earlier turn's words ("Let me count first.") are no answer either.
                    outcome.stop_reason, outcome.error = "no_answer", _kinds(blocks)
                else:
                    outcome.stop_reason = "answered"
                return outcome
            messages.append(types.SamplingMessage(role="assistant", content=list(blocks)))
            names = ", ".join(use.name for use in uses)
            await report_progress(turn - 0.5, limits.turns, f"turn {turn}: running {names}")
            answers: list[types.SamplingMessageContentBlock] = []
            for index, use in enumerate(uses, 1):
                refusal: str | None
                if index > MAX_TOOL_USES_PER_TURN:
                    result, refusal = ToolResult.error(
                        f"Not run: at most {MAX_TOOL_USES_PER_TURN} tool calls are run for one reply. Ask for "
                        "fewer at a time."), "too_many_calls"
                else:
                    result, refusal = await _run_one(host, use, allowed, f"{turn}.{index}")
                outcome.tool_calls.append(ToolCallRecord(turn, use.name, result.is_error, refusal))
                answers.append(types.ToolResultContent(
                    type="tool_result", tool_use_id=use.id,
                    content=[types.TextContent(type="text", text=_cut(result.text, MAX_TOOL_TEXT))],
                    is_error=result.is_error or None,
                ))
            messages.append(types.SamplingMessage(role="user", content=answers))
        outcome.stop_reason = "turn_limit"
    if deadline.cancelled_caught:
        outcome.stop_reason = "time_limit"
    return outcome


async def _run_one(host: SubagentHost, use: types.ToolUseContent, allowed: set[str],
                   call_id: str) -> tuple[ToolResult, str | None]:
    """One tool call the model asked for, and the refusal code when it was refused."""
    if use.name not in allowed:
        return ToolResult.error(
            f"The tool {use.name!r} is not available to this role: use only the tools offered."
        ), "not_offered"
    result = await host.call_tool(use.name, use.input, call_id)
    refusal = result.meta.get("refusal")
    return result, refusal.get("code") if isinstance(refusal, dict) else None


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[cut: {len(text) - limit} more characters]"


def _kinds(blocks: Sequence[Any]) -> str:
    """What a reply without text held, in words: "only image content", "nothing"."""
    # Its text blocks, if any, are blank: it is asked only of a reply without text.
    kinds = sorted({"blank text" if getattr(block, "type", None) == "text" else
                    str(getattr(block, "type", type(block).__name__)) for block in blocks})
    return "nothing" if not kinds else "only " + " and ".join(kinds) + " content"


# The most of a client's own words on a failed sampling request passed on (and logged): a
# client answered with a 5 MB error message, which went whole to the calling model.
_SAID_AT_MOST = 500


def _say(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        # pydantic's dump (a line per field, and links to its docs) is no reason for a model.
        fields = ", ".join(".".join(str(part) for part in error["loc"]) or "the result" for error in exc.errors()[:5])
        message = f"its answer is not a sampling result (wrong or missing: {fields})"
    else:
        message = str(getattr(exc, "message", None) or str(exc) or type(exc).__name__)
    if len(message) > _SAID_AT_MOST:
        message = f"{message[:_SAID_AT_MOST]}... (cut: {len(message)} characters)"
    logger.info("sampling request failed: %s", message)
    return message
