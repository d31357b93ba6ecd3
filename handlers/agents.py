"""``agent_NAME``: a role file as a tool that hands a task to a sub-agent in that role.

The tool takes ``task`` and the role's arguments. Which way the task goes is decided once,
by ``toolbay.subagents.decide.choose_path``, from what the client declared:

- envelope: the result's ``_meta._subagent`` holds everything a child session needs (role
  name, assembled role prompt, task, the allowed tools with their schemas, the limits);
- sampling: the loop of ``toolbay.subagents.loop`` runs here, each tool call through the chain;
- fallback: the result tells the calling model the role prompt and the task, to act in role.

The server puts a ``SubagentHost`` for the call in ``context.extras[HOST_KEY]``; without one
(``toolbay call``) the fallback is the only path. The allowed tools are the role's patterns
matched against the catalog, less those the caller may not use (the host decides).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from toolbay.config import BUNDLED_AGENTS
from toolbay.handlers.base import CallContext, Handler, PermissionTier, ToolDefinition, ToolResult
from toolbay.subagents.decide import NO_ABILITIES, ClientAbilities, DelegationPath, choose_path
from toolbay.subagents.loop import LoopLimits, LoopOutcome, SubagentHost, run_loop
from toolbay.subagents.roles import MissingArguments, Role
from toolbay.words import ToolAnnotations

AGENT_TOOL_PREFIX = "agent_"
HOST_KEY = "toolbay/subagent_host"
ENVELOPE_KEY = "_subagent"  # sent as _meta._subagent, unprefixed (see toolbay.protocol.results)
ENVELOPE_VERSION = 1


@dataclass(frozen=True, slots=True)
class DelegationPolicy:
    """The ``[subagents]`` settings, as the handler needs them."""

    paths: tuple[str, ...] = ("envelope", "sampling")
    max_depth: int = 2
    max_turns: int = 10
    time_s: float = 300.0
    max_tokens: int = 4096
    # [jobs] run_limit_s: how long any call may run in all.
    run_limit_s: float = float("inf")


class DelegationHost(SubagentHost, Protocol):
    """The server's side of one agent call (see ``toolbay.protocol.subagents``)."""

    @property
    def depth(self) -> int:
        """1 for a call from the client, one more for each sub-agent in between."""

    @property
    def abilities(self) -> ClientAbilities: ...

    def allowed_tools(self, patterns: Sequence[str]) -> list[ToolDefinition]:
        """The catalog's tools matching ``patterns`` that the caller may use, name-sorted."""

    async def allowed_tools_now(self, patterns: Sequence[str]) -> list[ToolDefinition]:
        """``allowed_tools`` with the caller's credential checked again (its scopes may have
        changed since the call began; none once it is refused) and the catalog of the moment."""

    def shown(self, text: str) -> str:
        """A role's text as clients are shown it (the audit log's rules, the credentials'
        values blotted out), as prompts/get shows it."""


# How much of the caller's task a fallback answer repeats (see ``AgentHandler._fallback``).
ECHOED_TASK_CHARS = 4000


def input_schema(role: Role) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "task": {"type": "string", "minLength": 1,
                 "description": "What the sub-agent should do, in full: it sees nothing of your conversation."},
    }
    for argument in role.arguments:
        schema: dict[str, Any] = {"type": "string", "description": argument.description}
        if argument.choices is not None:
            schema["enum"] = list(argument.choices)
        elif argument.required:
            # An empty value is none (the role's text would read it as missing): refused with the
            # arguments' check before the call, as a missing one is, not by the tool after it.
            schema["minLength"] = 1
        properties[argument.name] = schema
    required = ["task", *(argument.name for argument in role.arguments if argument.required)]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


class AgentHandler(Handler):
    supports_cancellation = True
    # Its work is the caller's client's (sampling, or the client's child session): after a
    # crash there is no client to run it again with.
    runs_again_without_its_caller = False
    __slots__ = ("role", "policy")

    def __init__(self, role: Role, policy: DelegationPolicy) -> None:
        super().__init__(ToolDefinition(
            name=role.tool_name,
            title=f"Delegate to the {role.name} role",
            description=(f"{role.description} Hands the task to a sub-agent in the role {role.name!r}, "
                         "which works in its own session with its own tools and answers with the outcome."),
            input_schema=input_schema(role),
            # Delegating does nothing by itself: each tool the sub-agent calls is authorised
            # for the caller on its own, at its own tier.
            tier=PermissionTier.READ,
            keywords=("agent", "role", role.name),
            origin=f"agent:{role.path}",
            source="agent",
            # The bundled roles are toolbay's own; the operator's folders are shared, as tools are.
            realm="core" if Path(role.path).parent.resolve() == BUNDLED_AGENTS.resolve() else "shared",
            # Authorised as a read, but what it does is what the sub-agent does: a client's child
            # session has the client's own tools, and a role may be given write tools. Hinted
            # read-only and idempotent (the read tier's hints), a client could run it unasked.
            hints=ToolAnnotations(read_only=False, destructive=True, idempotent=False),
        ))
        self.role = role
        self.policy = policy

    @property
    def limits(self) -> LoopLimits:
        # [jobs] run_limit_s bounds every call, job included: a role's own time limit as well.
        return LoopLimits(turns=self.role.max_turns or self.policy.max_turns,
                          time_s=min(self.role.time_s or self.policy.time_s, self.policy.run_limit_s),
                          max_tokens=self.policy.max_tokens)

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        host: DelegationHost | None = context.extras.get(HOST_KEY)
        if host is not None and host.depth > self.policy.max_depth:
            return ToolResult.error(
                f"Delegation is {self.policy.max_depth} levels deep at most: this sub-agent cannot hand work "
                f"to {self.role.tool_name}. Do the task with the tools you have.",
                refusal={"code": "depth_limit", "depth": host.depth},
            )
        task = str(arguments.get("task", "")).strip()
        if not task:
            return ToolResult.error("The task is blank: say in full what the sub-agent should do (it sees nothing "
                                    "of your conversation).")
        values = {key: value for key, value in arguments.items() if key != "task"}
        try:
            prompt = self.role.render(values, host.shown) if host is not None else self.role.render(values)
        except MissingArguments as missing:
            return ToolResult.error("Cannot start the sub-agent: " + "; ".join(missing.problems) + ".")
        tools = self._offered(host, host.allowed_tools(self.role.tools)) if host is not None else []
        abilities = host.abilities if host is not None else NO_ABILITIES
        path = choose_path(abilities, self.policy.paths, offers_tools=bool(tools))
        if path == "envelope":
            return self._envelope(prompt, task, values, tools, host)
        if path == "sampling" and host is not None:
            sampling_host = host

            async def offered_now() -> list[ToolDefinition]:
                return self._offered(sampling_host, await sampling_host.allowed_tools_now(self.role.tools))

            outcome = await run_loop(host, system_prompt=prompt, task=task, tools=offered_now, limits=self.limits,
                                     report_progress=context.report_progress)
            return self._sampled(outcome)
        return self._fallback(prompt, task, tools, abilities, connected=host is not None)

    def _offered(self, host: DelegationHost, tools: list[ToolDefinition]) -> list[ToolDefinition]:
        if host.depth >= self.policy.max_depth:
            # At the deepest level a sub-agent may not hand work on: offered agent_* tools, it
            # spent its turns on calls that were all refused.
            return [tool for tool in tools if not tool.name.startswith(AGENT_TOOL_PREFIX)]
        return tools

    def _summary(self, path: DelegationPath, tools: Sequence[ToolDefinition]) -> dict[str, Any]:
        limits = self.limits
        return {"path": path, "role": self.role.name, "tools": [tool.name for tool in tools],
                "limits": {"turns": limits.turns, "time_s": limits.time_s}}

    def _envelope(self, prompt: str, task: str, values: Mapping[str, Any], tools: Sequence[ToolDefinition],
                  host: DelegationHost | None) -> ToolResult:
        limits = self.limits
        envelope = {
            "version": ENVELOPE_VERSION,
            "role": self.role.name,
            "prompt": prompt,
            "task": task,
            "arguments": dict(values),
            "tools": [{"name": tool.name, "description": tool.description, "inputSchema": dict(tool.input_schema)}
                      for tool in tools],
            # The client runs the child sessions, and only it can tell a child's call from its
            # caller's: it is told how deep delegation may go (the sampling path counts it here).
            "limits": {"turns": limits.turns, "time_s": limits.time_s, "max_depth": self.policy.max_depth},
            "depth": host.depth if host is not None else 1,
        }
        text = (f"Handed to a sub-agent in the role {self.role.name!r}: your client runs it in a session of its "
                f"own with the role prompt, the task and {len(tools)} tool(s); its answer comes from there.")
        return ToolResult(text=text, structured=self._summary("envelope", tools),
                          meta={"delegation": "envelope", ENVELOPE_KEY: envelope})

    def _sampled(self, outcome: LoopOutcome) -> ToolResult:
        # The answer is the text alone: in both, it reached the client twice (128 KiB for one
        # of 64 KiB; an outside check), where the README promises the record of the loop here.
        structured = {
            "path": "sampling", "role": self.role.name, "turns": outcome.turns,
            "tool_calls": [record.as_dict() for record in outcome.tool_calls],
            "stop_reason": outcome.stop_reason, "model": outcome.model,
        }
        calls = len(outcome.tool_calls)
        footer = (f"[sub-agent {self.role.name}: {outcome.turns} turn(s), {calls} tool call(s), "
                  f"stopped: {outcome.stop_reason}]")
        if outcome.stop_reason == "answered":
            return ToolResult(text=f"{outcome.answer}\n\n{footer}", structured=structured,
                              meta={"delegation": "sampling"})
        why = {
            "no_answer": f"its last reply held no answer in text ({outcome.error})",
            "max_tokens": f"its reply was cut at the token limit ({self.limits.max_tokens} tokens): what it "
                          "wrote is incomplete",
            "turn_limit": (f"it used all {self.limits.turns} turns without a final answer" if self.limits.turns != 1
                           else "it used its one turn without a final answer"),
            "time_limit": f"it ran out of its {self.limits.time_s:g} s",
            "sampling_failed": f"the client did not complete a sampling request ({outcome.error})",
        }[outcome.stop_reason]
        last = f" Its last words: {outcome.answer}" if outcome.answer else ""
        return ToolResult(text=f"The sub-agent in the role {self.role.name!r} stopped: {why}.{last}\n\n{footer}",
                          structured=structured, is_error=True, meta={"delegation": "sampling"})

    def _fallback(self, prompt: str, task: str, tools: Sequence[ToolDefinition],
                  abilities: ClientAbilities, *, connected: bool) -> ToolResult:
        names = ", ".join(tool.name for tool in tools) or "none"
        if not connected:  # toolbay call: no client, and no caller to match the tools against
            why, names = "no MCP client is connected", ", ".join(self.role.tools) or "none"
        elif not self.policy.paths:
            why = "this server hands no work to sub-agents: its [subagents] paths setting is empty"
        elif left_out := [path for path in ("envelope", "sampling")
                          if path not in self.policy.paths and _client_takes(path, abilities, bool(tools))]:
            allowed = ", ".join(self.policy.paths)
            why = (f"this client takes the {left_out[0]} path, which this server's [subagents] paths setting "
                   f"({allowed}) leaves out")
        elif abilities.sampling and not abilities.back_channel:
            why = "this connection cannot carry sampling requests"
        elif abilities.sampling:
            why = "this client offers sampling without tools, and the role needs tools"
        else:
            why = "this client declares neither the toolbay/subagents capability nor sampling"
        # The caller wrote the task: a long one is not handed back whole (twice, in the text and
        # in the structured result: a 3 MB task came back as 6 MB of the caller's context).
        if len(task) > ECHOED_TASK_CHARS:
            shown = (f"{task[:ECHOED_TASK_CHARS]}\n\n[... and {len(task) - ECHOED_TASK_CHARS:,} more characters of "
                     "the task you gave, not repeated here]")
        else:
            shown = task
        text = (f"No sub-agent was started ({why}). Do the task yourself, acting in the role below, "
                f"with these tools: {names}.\n\n## Role: {self.role.name}\n\n{prompt}\n\n## Task\n\n{shown}")
        structured = {**self._summary("fallback", tools), "prompt": prompt, "task": shown,
                      "task_chars": len(task)}
        return ToolResult(text=text, structured=structured, meta={"delegation": "fallback"})


def _client_takes(path: str, abilities: ClientAbilities, offers_tools: bool) -> bool:
    """Whether the client could take ``path`` were the configuration to allow it."""
    return choose_path(abilities, (path,), offers_tools=offers_tools) == path
