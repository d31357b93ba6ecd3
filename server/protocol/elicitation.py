"""Approval through MCP elicitation: the chain's ``ask`` for the approve stage."""

from __future__ import annotations

import logging

from toolbay.chain.approve import Answer
from toolbay.chain.call import ToolCall

logger = logging.getLogger(__name__)

_NO_FIELDS = {"type": "object", "properties": {}}


async def ask_by_elicitation(call: ToolCall, message: str) -> Answer:
    """Asks the person behind the client; ``unsupported`` when the client cannot ask them,
    ``failed`` when it answered with an error or with no answer elicitation has."""
    # Here, not at the top: the assembly imports this module, and toolbay list loads no SDK.
    from mcp.shared.exceptions import MCPError, NoBackChannelError
    from pydantic import ValidationError

    session = call.session
    if session is None:
        return "unsupported"
    capabilities = session.client_capabilities
    if capabilities is None:
        # A session that never saw its client's initialize: a request of stateless HTTP (replicas
        # under [cluster]), answered on its own, whatever its client could do.
        return "no_back_channel"
    if capabilities.elicitation is None:
        return "unsupported"
    try:
        result = await session.elicit_form(message, _NO_FIELDS, related_request_id=call.context.request_id)
    except NoBackChannelError as exc:  # 2026-07-28, stateless HTTP: nobody can be asked
        logger.info("elicitation for %s not possible: %s", call.name, exc)
        return "no_back_channel"
    except (MCPError, ValidationError) as exc:
        # The client was asked and answered, with an error or with no answer elicitation has
        # ("maybe"): that is no approval, and no client that cannot ask either (which
        # when_unsupported = "allow" would let run).
        logger.info("the client's answer to the approval of %s was no answer: %s", call.name, exc)
        return "failed"
    except Exception as exc:  # a session that cannot send it (closed, say): cannot ask
        logger.info("elicitation for %s not possible: %s", call.name, exc)
        return "unsupported"
    action = result.action
    return action if action in ("accept", "decline", "cancel") else "cancel"
