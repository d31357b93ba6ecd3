"""What toolbay reaches into in the MCP SDK (``toolbay.internals.mcp_sdk``): these fail when an
SDK upgrade moves it. The behaviour built on them is tested end to end too (per-request JSON
answers in ``tests/protocol``, sessions forgotten on close in ``tests/reload/test_release.py``)."""

from __future__ import annotations

import inspect

import anyio
import mcp.server.streamable_http_manager as sdk_manager
import pytest
from mcp.server.streamable_http import StreamableHTTPServerTransport

from toolbay.internals.mcp_sdk import connection_of, use_streamable_http_transport
from toolbay.sessions import SessionRegistry

pytestmark = pytest.mark.anyio


def test_the_session_manager_builds_its_transports_by_the_module_level_name() -> None:
    source = inspect.getsource(sdk_manager.StreamableHTTPSessionManager)
    assert "StreamableHTTPServerTransport(" in source

    class Marked(StreamableHTTPServerTransport):
        pass

    original = sdk_manager.StreamableHTTPServerTransport
    try:
        use_streamable_http_transport(Marked)
        assert sdk_manager.StreamableHTTPServerTransport is Marked
    finally:
        use_streamable_http_transport(original)


def test_the_transport_checks_a_post_before_handing_it_to_handle_post_request() -> None:
    """The HTTP quick lane overrides ``_handle_post_request`` (``plain_json.PerRequestJsonTransport``)
    and relies on the SDK having checked Host, Origin, Content-Type and a terminated session
    first, and on ``handle_request`` keeping the session's idle countdown around it."""
    handle = inspect.getsource(StreamableHTTPServerTransport._handle_request)
    checks = handle.index("self._security.validate_request(")
    terminated = handle.index("if self._terminated")
    handed = handle.index("await self._handle_post_request(scope, request, receive, send)")
    assert checks < terminated < handed
    assert list(inspect.signature(StreamableHTTPServerTransport._handle_post_request).parameters) == [
        "self", "scope", "request", "receive", "send"]
    outer = inspect.getsource(StreamableHTTPServerTransport.handle_request)
    assert "_requests_in_flight += 1" in outer and "await self._handle_request(scope, receive, send)" in outer


async def test_a_per_message_session_leads_to_its_connection_which_closes_with_the_client() -> None:
    from mcp import Client
    from mcp.server import Server

    registry = SessionRegistry()
    seen = []
    initialized = anyio.Event()

    async def on_initialized(ctx, params) -> None:  # type: ignore[no-untyped-def]
        seen.append(connection_of(ctx.session))
        registry.add(ctx.session)
        initialized.set()

    import mcp_types as types

    server: Server = Server("probe")
    server.add_notification_handler("notifications/initialized", types.NotificationParams, on_initialized)
    with anyio.fail_after(10):
        async with Client(server, mode="legacy"):
            await initialized.wait()
            assert seen[0] is not None and hasattr(seen[0], "exit_stack")
            assert len(registry) == 1
    assert len(registry) == 0
