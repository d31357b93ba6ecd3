"""DNS rebinding: on every loopback bind (which needs no token), a request naming another
host, or coming from another origin, is refused before it reaches a tool."""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest

from toolbay.app import Toolbay
from toolbay.auth import is_loopback
from toolbay.protocol.transports import serving_http

pytestmark = pytest.mark.anyio

LOOPBACK_BINDS = ["127.0.0.1", "127.0.0.2", "127.200.10.9", "localhost", "::1", "::ffff:127.0.0.1"]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize(
    "host",
    [*LOOPBACK_BINDS, "localhost.localdomain", "LOCALHOST", "[::1]", "127.0.0.1.", "ip6-localhost", "0:0:0:0:0:0:0:1"],
)
def test_every_loopback_spelling_counts_as_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "::ffff:10.0.0.1", "example.invalid"])
def test_addresses_others_can_reach_are_not_loopback(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize("bind", LOOPBACK_BINDS)
async def test_a_foreign_host_or_origin_is_refused_on_every_loopback_bind(toolbay: Toolbay, bind: str) -> None:
    toolbay.settings.host = bind
    toolbay.settings.port = 0
    body = json.dumps(INITIALIZE)
    async with serving_http(toolbay) as url, httpx2.AsyncClient(timeout=30) as http:
        port = url.rsplit(":", 1)[1]
        rebound = {"Host": f"attacker.example:{port}", "Origin": f"http://attacker.example:{port}"}
        foreign_origin = {"Origin": f"http://attacker.example:{port}"}
        with anyio.fail_after(60):
            own = await http.post(f"{url}/mcp", content=body, headers=MCP_HEADERS)
            to_mcp = await http.post(f"{url}/mcp", content=body, headers={**MCP_HEADERS, **rebound})
            from_page = await http.post(f"{url}/mcp", content=body, headers={**MCP_HEADERS, **foreign_origin})
            to_sse = await http.get(f"{url}/sse", headers=rebound)
            to_messages = await http.post(
                f"{url}/messages/?session_id=00000000000000000000000000000000",
                content=body,
                headers={"Content-Type": "application/json", **rebound},
            )
    assert own.status_code == 200, own.text
    assert to_mcp.status_code == 421
    assert from_page.status_code == 403
    assert to_sse.status_code == 421
    assert to_messages.status_code == 421
