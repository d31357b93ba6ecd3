"""The server's side of an ``agent_*`` call: what the client can do, the tools the sub-agent
may use, sampling through the client, and each tool call through the chain.

``attach_host(app, call)`` puts a ``SessionHost`` in the call's context (``HOST_KEY``) for
``toolbay.handlers.agents.AgentHandler`` to use. A tool call the sub-agent makes is a new ``ToolCall``
with the parent's transport, credential and session, so the chain authenticates the same
caller, applies the same rate limits, grants and approvals, and audits it with the parent's
request id. A sub-agent's own call of an ``agent_*`` tool gets a host one level deeper,
which never takes the envelope path (its result goes to the sub-agent's model, not to a
client that could run a child session).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.validation import validate_tool_use_result_messages
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolbay.chain.call import ToolCall
from toolbay.errors import Unauthenticated
from toolbay.handlers.agents import AGENT_TOOL_PREFIX, HOST_KEY
from toolbay.internals.mcp_sdk import send_request_with_id
from toolbay.protocol.listing import definition_to_tool
from toolbay.protocol.parse_errors import SERVER_REQUEST_ID_PREFIX
from toolbay.subagents.decide import NO_ABILITIES, SUBAGENTS_CAPABILITY, ClientAbilities
from toolbay.words import CallContext, Principal, ToolDefinition, ToolResult

if TYPE_CHECKING:
    from toolbay.app import Toolbay

# Tools a sub-agent is never offered, whatever its role names: they change what exists.
NEVER_OFFERED = ("refresh_tools",)
_call_numbers = itertools.count(1)
_sampling_numbers = itertools.count(1)
# How long cancelling a sampling request may take to write (a wedged transport must not hold
# the cancelled call).
_CANCEL_WRITE_S = 1.0


def abilities_of(session: Any) -> ClientAbilities:
    """What the client on ``session`` declared, for ``choose_path``."""
    capabilities: types.ClientCapabilities | None = getattr(session, "client_capabilities", None)
    if capabilities is None:
        return NO_ABILITIES
    declared = {**(capabilities.experimental or {}), **(capabilities.extensions or {})}
    sampling = capabilities.sampling
    version = getattr(session, "protocol_version", None)
    return ClientAbilities(
        subagents=SUBAGENTS_CAPABILITY in declared,
        sampling=sampling is not None,
        sampling_tools=sampling is not None and sampling.tools is not None,
        back_channel=version not in MODERN_PROTOCOL_VERSIONS and bool(getattr(session, "can_send_request", True)),
    )


def attach_host(app: Toolbay, call: ToolCall, request_id: types.RequestId | None) -> None:
    """Gives an ``agent_*`` call its host (other calls need none)."""
    if call.name.startswith(AGENT_TOOL_PREFIX):
        call.context.extras[HOST_KEY] = SessionHost(app, call, depth=1, abilities=abilities_of(call.session),
                                                    wire_request_id=request_id)


class SessionHost:
    def __init__(self, app: Toolbay, parent: ToolCall, *, depth: int, abilities: ClientAbilities,
                 wire_request_id: types.RequestId | None = None) -> None:
        self.app = app
        self.parent = parent
        self.depth = depth
        self.abilities = abilities
        # The id of the client's tools/call this delegation serves (a nested one shares it).
        self.wire_request_id = wire_request_id

    def allowed_tools(self, patterns: Sequence[str]) -> list[ToolDefinition]:
        return self._allowed_to(self.parent.principal, patterns)

    async def allowed_tools_now(self, patterns: Sequence[str]) -> list[ToolDefinition]:
        policies = self.app.policies
        if policies is None:
            return self._allowed_to(self.parent.principal, patterns)
        try:
            principal = await policies.authenticator.identify(self.parent.transport, self.parent.credential)
        except Unauthenticated:
            return []  # its token removed, its JWT expired: each call would be refused
        return self._allowed_to(principal, patterns)

    def _allowed_to(self, principal: Principal | None, patterns: Sequence[str]) -> list[ToolDefinition]:
        # The caller's own personal tools too, as its listing has them.
        for_caller = self.app.catalog.current.definitions_for(
            principal.id if principal is not None else None,
            self.app.gives_way_for(principal) if principal is not None else None)
        matched = [
            definition for definition in for_caller
            if definition.name not in NEVER_OFFERED and any(fnmatchcase(definition.name, p) for p in patterns)
        ]
        policies = self.app.policies
        if policies is None:
            return matched
        if principal is None:  # not authenticated: nothing may be offered
            return []
        # No more than the caller could find itself, redacted as its listing shows tools.
        return self.app.offered_definitions(principal, policies.authorizer.visible(principal, matched),
                                            self.parent.session)

    def shown(self, text: str) -> str:
        return self.app.shown_text()(text)

    async def sample(self, messages: list[types.SamplingMessage], system_prompt: str,
                     tools: Sequence[ToolDefinition], max_tokens: int) -> types.CreateMessageResultWithTools:
        session = self.parent.session
        if session is None:  # abilities_of gives a call without a session no sampling
            raise RuntimeError("no client session to send a sampling request on")
        validate_tool_use_result_messages(messages)
        request = types.CreateMessageRequest(params=types.CreateMessageRequestParams(
            messages=messages,
            system_prompt=system_prompt,
            max_tokens=max_tokens,
            tools=[definition_to_tool(tool) for tool in tools] or None,
            tool_choice=types.ToolChoice(mode="auto") if tools else None,
        ))
        # Not ``create_message``, which warns that sampling is deprecated from 2026-07-28 on:
        # toolbay only samples on handshake-era connections (``back_channel``).
        related = self._related_request_id() is not None
        request_id = f"{SERVER_REQUEST_ID_PREFIX}sampling-{next(_sampling_numbers)}"
        try:
            return await send_request_with_id(session, request, types.CreateMessageResultWithTools, request_id,
                                              related=related)
        except anyio.get_cancelled_exc_class():
            if related:
                # The SDK cancels it on the stream of the call it belongs to, which is gone when
                # the client cancelled that call: said again on the connection's own channel, or
                # the client's model goes on (a client ignores a cancel for a request it ended).
                with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_WRITE_S):
                    await session.send_notification(types.CancelledNotification(
                        params=types.CancelledNotificationParams(request_id=request_id,
                                                                 reason="the agent call was cancelled")))
            raise

    def _related_request_id(self) -> types.RequestId | None:
        """The client's request the sampling belongs to, while it is open (its stream carries the
        sampling request on HTTP); once answered (the call went on as a job), none: the request
        then travels on the connection's own channel (stdio, or the HTTP GET stream)."""
        if self.wire_request_id is None or not getattr(self.parent.session, "can_send_request", False):
            return None
        return self.wire_request_id

    async def call_tool(self, name: str, arguments: Mapping[str, Any], call_id: str) -> ToolResult:
        parent = self.parent
        parent_id = parent.context.request_id or f"local-{next(_call_numbers)}"
        child = ToolCall(
            name=name,
            arguments=dict(arguments),
            context=CallContext(request_id=f"{parent_id}/{call_id}", cancelled=parent.context.cancelled),
            transport=parent.transport,
            credential=parent.credential,
            session=parent.session,
            parent_request_id=parent_id,
        )
        if name.startswith(AGENT_TOOL_PREFIX):
            child.context.extras[HOST_KEY] = SessionHost(
                self.app, child, depth=self.depth + 1, abilities=dataclasses.replace(self.abilities, subagents=False),
                wire_request_id=self.wire_request_id)
        return await self.app.call(child)
