"""Reaching past the MCP SDK's public API (``mcp`` is pinned in pyproject).

- The session manager builds its streamable HTTP transports by the module-level name
  ``StreamableHTTPServerTransport``; there is no parameter for another class, and toolbay's
  per-request JSON answers need one (``toolbay.protocol.plain_json``). That subclass also
  overrides the transport's ``_handle_post_request``, the one point after the SDK's own checks
  of a POST (session, Host, Origin, Content-Type) where the HTTP quick lane can answer a call.
- A per-message ``ServerSession`` has no public accessor for the connection it belongs to,
  which is what outlives the message and closes with the client (``toolbay.sessions``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK itself loads with a server, not with the modules that keep sessions
    from mcp.server.session import ServerSession
    from mcp.server.streamable_http import StreamableHTTPServerTransport


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
