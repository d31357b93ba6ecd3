"""What toolbay reaches into in the MCP SDK (``toolbay.internals.mcp_sdk``): these fail when an
SDK upgrade moves it. The behaviour built on them is tested end to end too (per-request JSON
answers in ``tests/protocol``, sessions forgotten on close in ``tests/reload/test_release.py``)."""

from __future__ import annotations

import inspect
import subprocess
import sys

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


# Each in a process of its own: the deferral must come before the SDK's first import.
SERVER_AFTER_DEFERRING = """
import sys
from toolbay.internals.mcp_sdk import defer_package_imports
defer_package_imports()
import toolbay.protocol.transports  # everything a server of any transport loads
print(sorted(name for name in ("mcp.client", "mcp.server.mcpserver", "httpx2") if name in sys.modules))
import mcp, mcp.server
from mcp import Client, ClientSession, types
from mcp.server import MCPServer, Server
import mcp.client.client, mcp.server.lowlevel, mcp.types
print(Client is mcp.client.client.Client, Server is mcp.server.lowlevel.Server, types is mcp.types,
      MCPServer.__module__, "Client" in mcp.__all__)
"""


THREADS_AFTER_DEFERRING = """
import threading
from toolbay.internals.mcp_sdk import defer_package_imports
defer_package_imports()
import mcp.server.lowlevel, mcp.types
together = threading.Barrier(8)
found = []

def use() -> None:
    together.wait()
    try:
        from mcp import Client
        from mcp.server import MCPServer
        found.append(Client.__module__ + " " + MCPServer.__module__)
    except ImportError as error:
        found.append(repr(error))

threads = [threading.Thread(target=use) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(sorted(set(found)))
"""


def _printed(script: str) -> list[str]:
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.splitlines()


def test_with_package_imports_deferred_a_server_loads_no_client_and_every_name_still_imports() -> None:
    # Fails when the SDK's server (its low-level server, its transports) comes to import the
    # client or the MCPServer framework itself, or when a package's names move.
    not_loaded, names = _printed(SERVER_AFTER_DEFERRING)
    assert not_loaded == "[]"
    assert names == "True True True mcp.server.mcpserver.server True"


def test_the_toolbay_command_defers_the_sdk_packages_imports() -> None:
    script = ("import sys\n"
              "sys.argv = ['toolbay', 'token', 'new', '--client-id', 'a', '--scope', 'tools:read']\n"
              "import toolbay.entry\n"
              "try:\n    toolbay.entry.main()\nexcept SystemExit:\n    pass\n"
              "import mcp.server.lowlevel\n"
              "print('mcp.client' in sys.modules)\n")
    assert _printed(script)[-1] == "False"


def test_threads_that_ask_a_deferred_package_for_a_name_at_once_all_get_it() -> None:
    # The first ran the package's imports; the others, asking meanwhile, found it half made
    # ("cannot import name 'Client' from 'mcp'") where they should wait for it.
    assert _printed(THREADS_AFTER_DEFERRING) == ["['mcp.client.client mcp.server.mcpserver.server']"]


def test_a_streamable_http_transport_hands_its_clients_messages_to_the_session_through_its_read_writer() -> None:
    """``tell_session_as_client`` writes to ``_read_stream_writer``, where the transport puts
    each message its client POSTs (a JSON answer's disconnect is told to the session so)."""
    source = inspect.getsource(StreamableHTTPServerTransport._handle_post_request)
    assert "writer = self._read_stream_writer" in source and "await writer.send(session_message)" in source
    assert "_read_stream_writer" in inspect.getsource(StreamableHTTPServerTransport.connect)
