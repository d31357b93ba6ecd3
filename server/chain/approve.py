"""Stage 5, approve (opt-in): ask the human before tools of the configured tiers run.

Policy: ``Approver``. It is given ``ask(call, message)``, which the serving layer wires to
MCP elicitation::

    async def ask(call: ToolCall, message: str) -> Answer:
        session = call.session
        if session is None or not session.client_capabilities.elicitation:   # or NoBackChannel
            return "unsupported"
        result = await session.elicit_form(message, {"type": "object", "properties": {}},
                                           related_request_id=call.context.request_id)
        return result.action                                   # "accept" | "decline" | "cancel"

``accept`` lets the call run; ``decline`` and ``cancel`` refuse it with ``ApprovalDenied``;
``unsupported`` (a client that cannot be asked) and ``no_back_channel`` (a client that could,
on a transport with no way back to it: stateless HTTP) get the configured default, ``deny``
unless told otherwise. An ``ask`` that fails counts as ``cancel``: approval fails closed, and
so does a question left unanswered past ``timeout_s``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Literal

import anyio

from toolbay.chain.base import CheckStage, definition_of
from toolbay.chain.call import ToolCall
from toolbay.errors import ApprovalDenied
from toolbay.shortening import shown_arguments
from toolbay.words import PermissionTier

logger = logging.getLogger(__name__)

Answer = Literal["accept", "decline", "cancel", "unsupported", "no_back_channel", "failed"]
Ask = Callable[[ToolCall, str], Awaitable[Answer]]


class Approver:
    def __init__(
        self,
        ask: Ask,
        *,
        tiers: Iterable[PermissionTier | str] = (PermissionTier.EXEC,),
        when_unsupported: Literal["allow", "deny"] = "deny",
        timeout_s: float = 300.0,
    ) -> None:
        """
        Args:
            ask: asks the human; see the module docstring.
            tiers: tools of these tiers need approval; empty means the stage is left out.
            when_unsupported: what happens when the client cannot ask its user.
            timeout_s: how long a question may go unanswered; the call is refused then.
        """
        self.ask = ask
        self.timeout_s = timeout_s
        self.tiers = frozenset(PermissionTier(t) for t in tiers)
        self.when_unsupported = when_unsupported

    def needs_approval(self, tier: PermissionTier) -> bool:
        return tier in self.tiers

    async def approve(self, call: ToolCall, tier: PermissionTier) -> None:
        """Returns when the call may run; raises ``ApprovalDenied`` when it may not."""
        message = f"Allow the tool {call.name!r} ({tier.value} tier) to run with {_summary(call)}?"
        answer: Answer | None = None
        try:
            with anyio.move_on_after(self.timeout_s):
                answer = await self.ask(call, message)
        except Exception:
            logger.exception("asking for approval of %s failed; refusing the call", call.name)
            answer = "cancel"
        if answer is None:
            raise ApprovalDenied(f"Nobody answered the approval of {call.name!r} within {self.timeout_s:g} s; "
                                 "it did not run.", answer="timeout")
        if answer == "accept":
            return
        if answer == "decline":
            raise ApprovalDenied(f"The user declined to run {call.name!r}. Do not retry it unchanged.",
                                 answer=answer)
        if answer in ("unsupported", "no_back_channel"):
            if self.when_unsupported == "allow":
                return
            # A client that supports elicitation, told to use one that does, could do nothing
            # (an outside check, against replicas under [cluster]).
            if answer == "unsupported":
                why = ("this client cannot ask its user (no elicitation support). Use a client that supports "
                       "elicitation, or ask")
            else:
                why = ("nobody can be asked here: this server answers each request on its own (stateless HTTP), "
                       "with no way back to the client to ask its user. Ask")
            raise ApprovalDenied(f"The tool {call.name!r} needs a person's approval ({tier.value} tier), and {why} "
                                 "the operator to change the approval settings.", answer="unsupported")
        if answer == "failed":
            raise ApprovalDenied(f"The client answered the approval of {call.name!r} with an error or with no "
                                 "answer elicitation has (accept, decline, cancel); it did not run.", answer=answer)
        raise ApprovalDenied(f"The user cancelled the approval of {call.name!r}; it did not run.", answer=answer)


_SHOWN_CHARACTERS = 500


def _summary(call: ToolCall) -> str:
    """The arguments as the person will judge them: secrets hidden, long values cut."""
    if not call.arguments:
        return "no arguments"
    # Cut before redacting: redacting megabytes held the event loop for seconds.
    shown = json.dumps(shown_arguments(call.arguments, total=_SHOWN_CHARACTERS), ensure_ascii=False, default=str)
    return "the arguments " + (shown if len(shown) <= _SHOWN_CHARACTERS else shown[:_SHOWN_CHARACTERS - 3] + "...")


class Approve(CheckStage):
    name = "approve"

    def __init__(self, approver: Approver) -> None:
        self.approver = approver

    async def check(self, call: ToolCall) -> None:
        tier = definition_of(call).effective_tier
        if self.approver.needs_approval(tier):
            await self.approver.approve(call, tier)
