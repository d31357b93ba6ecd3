"""Reaching past the MCP SDK's public API (``mcp`` is pinned in pyproject).

- The session manager builds its streamable HTTP transports by the module-level name
  ``StreamableHTTPServerTransport``; there is no parameter for another class, and toolbay's
  per-request JSON answers need one (``toolbay.protocol.plain_json``). That subclass also
  overrides the transport's ``_handle_post_request``, the one point after the SDK's own checks
  of a POST (session, Host, Origin, Content-Type) where the HTTP quick lane can answer a call.
- A per-message ``ServerSession`` has no public accessor for the connection it belongs to,
  which is what outlives the message and closes with the client (``toolbay.sessions``).
- ``ServerSession.send_request`` chooses the request's id itself and gives no way to learn
  it, and its courtesy cancel (when the awaiting task is cancelled) goes out on the stream of
  the client's request it relates to. When the client cancelled that request, its stream has
  closed and the cancel is dropped: the client's model went on sampling. The dispatcher takes
  an id of the caller's choosing (``request_id`` in its call options), so toolbay can cancel
  the request again on the connection's own channel (``send_request_with_id``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the SDK itself loads with a server, not with the modules that keep sessions
    from mcp.server.session import ServerSession
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from pydantic import BaseModel

Result = TypeVar("Result", bound="BaseModel")


def use_streamable_http_transport(transport_class: type[StreamableHTTPServerTransport]) -> None:
    """Makes the SDK's session manager build ``transport_class`` for new sessions (idempotent)."""
    import mcp.server.streamable_http_manager as sdk_manager

    sdk_manager.StreamableHTTPServerTransport = transport_class  # type: ignore[misc]


def connection_of(session: ServerSession) -> Any:
    """The connection behind a per-message session, or None when the SDK keeps none."""
    return getattr(session, "_connection", None)


def when_connection_closes(session: ServerSession, callback: Callable[..., object], *args: Any) -> bool:
    """Calls ``callback(*args)`` when the connection behind ``session`` closes (the SDK unwinds
    the connection's exit stack when its client goes away, on every transport). False when the
    SDK gives no way to tell; then nothing is arranged."""
    exit_stack = getattr(connection_of(session), "exit_stack", None)
    if exit_stack is None:
        return False
    exit_stack.callback(callback, *args)
    return True


async def send_request_with_id(session: ServerSession, request: Any, result_type: type[Result],
                               request_id: str, *, related: bool) -> Result:
    """``session.send_request(request, result_type)`` with the id ``request_id``; ``related``:
    on the stream of the client's request being handled (as ``related_request_id`` does),
    else on the connection's own channel."""
    channel = session._request_outbound if related else session._connection.outbound
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    result = await channel.send_raw_request(data["method"], data.get("params"), {"request_id": request_id})
    return result_type.model_validate(result, by_name=False)
