"""The list-changed notification reaches clients on every transport: stdio (a real process),
streamable HTTP (on the client's standing GET stream), SSE, and 2026-07-28 listeners over HTTP."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client

from tests.conftest import REPO_ROOT
from tests.reload.conftest import GREET_V1, GREET_V2, WAIT_S, GetStreamSpy, ListChanged, drop, text_of
from toolbay.app import Toolbay

pytestmark = pytest.mark.anyio


async def test_a_stdio_client_is_told_of_added_replaced_and_deleted_tools(
    reload_dir: Path, shared_data_dir: Path,
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(reload_dir), "--data-dir", str(shared_data_dir)],
        cwd=str(REPO_ROOT),
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    changed = ListChanged()
    with anyio.fail_after(60):
        async with Client(params, mode="legacy", message_handler=changed) as client:
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True
            await client.list_tools()  # a round trip, so the server has handled `initialized`
            seen = changed.count
            target = drop(GREET_V1, reload_dir, "greet.wasm")
            await changed.after(seen)
            first = await client.call_tool("greet", {"name": "stdio"})
            seen = changed.count
            drop(GREET_V2, reload_dir, "greet.wasm")
            await changed.after(seen)
            second = await client.call_tool("greet", {"name": "stdio"})
            seen = changed.count
            target.unlink()
            await changed.after(seen)
            names = {tool.name for tool in (await client.list_tools()).tools}
    assert text_of(first).strip() == "hello, stdio (greet v1)"
    assert text_of(second).strip() == "good day, stdio (greet v2)"
    assert "greet" not in names


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_an_http_client_hears_it(
    http_server: tuple[str, GetStreamSpy], reload_dir: Path, transport: str,
) -> None:
    # On streamable HTTP the SDK's client opens the standing GET stream itself, right after
    # `notifications/initialized`; a notification sent before that stream is open is lost (no
    # event store), so the test waits for it. On SSE the stream is the connection.
    url, streams = http_server
    target = f"{url}/mcp" if transport == "streamable-http" else sse_client(f"{url}/sse")
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with Client(target, mode="legacy", message_handler=changed) as client:
            if transport == "streamable-http":
                await streams.after(0)
            await client.list_tools()
            seen = changed.count
            drop(GREET_V1, reload_dir, "greet.wasm")
            await changed.after(seen)
            result = await client.call_tool("greet", {"name": transport})
    assert text_of(result).strip() == f"hello, {transport} (greet v1)"


async def test_every_connected_client_hears_one_change(
    http_server: tuple[str, GetStreamSpy], reload_app: Toolbay, reload_dir: Path,
) -> None:
    url, streams = http_server
    over_http, over_sse, listened = ListChanged(), ListChanged(), anyio.Event()
    with anyio.fail_after(WAIT_S):
        async with (
            Client(f"{url}/mcp", mode="legacy", message_handler=over_http) as http_client,
            Client(sse_client(f"{url}/sse"), mode="legacy", message_handler=over_sse) as sse_client_,
            Client(f"{url}/mcp", mode="2026-07-28") as modern,
        ):
            await streams.after(0)
            await http_client.list_tools()
            await sse_client_.list_tools()
            async with modern.listen(tools_list_changed=True) as subscription:
                drop(GREET_V1, reload_dir, "greet.wasm")
                await over_http.after(0)
                await over_sse.after(0)
                await subscription.__anext__()
                listened.set()
            result = await modern.call_tool("greet", {"name": "modern"})
    assert listened.is_set()
    assert text_of(result).strip() == "hello, modern (greet v1)"



MODULE = '''def get_tool_schemas():
    return [{"name": "echoes_say", "description": "Say a word back.",
             "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}}}]


def dispatch(name, args):
    return "{said} " + args.get("word", "")
'''


async def test_a_file_whose_change_leaves_the_listing_as_it_was_tells_no_client(
    http_server: tuple[str, GetStreamSpy], reload_dir: Path,
) -> None:
    """A function's body edited (or a file's bytes put back) was announced as a change of the
    list: each client listed its tools again for nothing. The new version still answers."""
    url, streams = http_server
    changed = ListChanged()
    module = reload_dir / "echoes.py"
    with anyio.fail_after(WAIT_S * 2):
        async with Client(f"{url}/mcp", mode="legacy", message_handler=changed) as client:
            await streams.after(0)
            await client.list_tools()
            seen = changed.count
            module.write_text(MODULE.replace("{said}", "first"))
            await changed.after(seen)
            listed = (await client.list_tools()).tools
            seen = changed.count
            module.write_text(MODULE.replace("{said}", "second"))  # the body alone
            while text_of(await client.call_tool("echoes_say", {"word": "x"})).strip() != "second x":
                await anyio.sleep(0.05)  # the new version serves calls: the change has been taken
            drop(GREET_V1, reload_dir, "greet.wasm")  # a change clients must hear of, after it
            await changed.after(seen)
            assert (await client.list_tools()).tools != listed
    assert changed.count == seen + 1
