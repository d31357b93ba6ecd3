"""Approval through MCP elicitation: the chain's ``ask`` for the approve stage."""

from __future__ import annotations

import logging

from toolbay.chain.approve import Answer
from toolbay.chain.call import ToolCall

logger = logging.getLogger(__name__)

_NO_FIELDS = {"type": "object", "properties": {}}


async def ask_by_elicitation(call: ToolCall, message: str) -> Answer:
    """Asks the person behind the client; ``unsupported`` when the client cannot ask them."""
    session = call.session
    capabilities = session.client_capabilities if session is not None else None
    if session is None or capabilities is None or capabilities.elicitation is None:
        return "unsupported"
    try:
        result = await session.elicit_form(message, _NO_FIELDS, related_request_id=call.context.request_id)
    except Exception as exc:  # no back channel (2026-07-28) or a client that errs: cannot ask
        logger.info("elicitation for %s not possible: %s", call.name, exc)
        return "unsupported"
    action = result.action
    return action if action in ("accept", "decline", "cancel") else "cancel"
