"""What a replica (a stateless server on Redis) answers over the wire: the protocol's own job
requests during an outage of the shared job store, a server error a client may retry, with
when; a request whose id is of no kind JSON-RPC has, an error rather than silence."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.cluster.servers import RedisServer
from tests.conftest import BUNDLED_EXTENSIONS, as_if_run_before
from tests.jobs_e2e.conftest import http_client, http_server, settings_for

pytestmark = pytest.mark.anyio


def replica_config(tmp_path: Path, redis: RedisServer, compiled: Path) -> Path:
    """The bundled tools on a data folder with their modules compiled (``compiled``: the
    session's ``shared_data_dir``): these tests are not about compiling."""
    config = tmp_path / "toolbay.toml"
    data_dir = as_if_run_before(tmp_path / "data", compiled)
    config.write_text(f"extensions = [{str(BUNDLED_EXTENSIONS)!r}]\ndata_dir = {str(data_dir)!r}\n"
                      f"[cluster]\nredis = {redis.url!r}\n", encoding="utf-8")
    return config


async def test_a_request_whose_id_is_no_string_or_integer_is_refused_not_left_unanswered(
        tmp_path: Path, own_redis: RedisServer, shared_data_dir: Path) -> None:
    """A replica took it for a notification, answered 202 and nothing more: its client waited
    for ever (an outside probe; a server with sessions said so already)."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-06-18"}
    async with http_server(settings_for(replica_config(tmp_path, own_redis, shared_data_dir))) as (url, _), \
            httpx2.AsyncClient(timeout=30) as http:
        for request_id, kind in ((1.5, "float"), ({"a": 1}, "object")):
            answer = await http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": request_id, "method": "ping"})
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"]["message"].endswith(f"must be a string or an integer, not {kind}")


async def test_resources_and_tasks_about_jobs_answer_a_store_outage_as_a_server_error_to_retry(
        tmp_path: Path, own_redis: RedisServer, shared_data_dir: Path) -> None:
    """They were answered with code 0, no JSON-RPC code (an outside probe), and over plain JSON
    with HTTP 400: a client could not tell a passing outage from a mistake of its own."""
    config = replica_config(tmp_path, own_redis, shared_data_dir)
    async with http_server(settings_for(config)) as (url, _), http_client(url) as client:
        await client.list_resources()
        own_redis.stop()
        for asking in (client.list_resources,
                       lambda: client.read_resource("toolbay://jobs/job_0123456789abcdef/result")):
            with pytest.raises(MCPError) as refused:
                await asking()
            assert refused.value.error.code == -32603
            assert "cannot reach its shared job store" in refused.value.error.message
            assert refused.value.error.data["code"] == "jobs_unavailable"
            assert refused.value.error.data["retry_after"] > 0
        # Over plain JSON the status is no client error either: it is the server's trouble (it was 400).
        async with httpx2.AsyncClient(timeout=30) as http:
            answer = await http.post(url, json={"jsonrpc": "2.0", "id": 7, "method": "resources/list"}, headers={
                "content-type": "application/json", "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-06-18"})
        assert answer.status_code == 200 and answer.json()["error"]["code"] == -32603, answer.text


async def test_a_call_needing_approval_on_a_replica_is_refused_saying_nobody_can_be_asked_there(
        tmp_path: Path, own_redis: RedisServer, shared_data_dir: Path) -> None:
    """A replica answers each request on its own, with no way back to the client: the refusal
    told a client that supports elicitation to use one that does (an outside check)."""
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    asked: list[str] = []

    async def answer(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept")

    config = replica_config(tmp_path, own_redis, shared_data_dir)
    config.write_text(config.read_text() + '[chain.approval]\ntiers = ["read"]\n', encoding="utf-8")
    async with http_server(settings_for(config)) as (url, _), httpx2.AsyncClient(timeout=60) as http, \
            Client(streamable_http_client(url, http_client=http), mode="legacy", elicitation_callback=answer) as client:
        refused = await client.call_tool("hashsum", {"text": "abc"})
    assert refused.is_error and asked == []
    said = refused.content[0].text  # type: ignore[union-attr]
    assert "needs a person's approval (read tier), and nobody can be asked here: this server answers each " \
           "request on its own (stateless HTTP)" in said, said
    assert "Use a client that supports elicitation" not in said


async def test_a_replica_tells_a_handshake_client_it_sends_no_list_changes(
        tmp_path: Path, own_redis: RedisServer, shared_data_dir: Path) -> None:
    """Its listening stream is accepted and never carries anything (no session reaches it), yet
    the handshake said listChanged: true for tools and prompts: a client that trusted it never
    listed again (an outside check). A server with sessions says true, and sends them."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    async def capabilities(url: str, version: str) -> dict:
        answer = await http.post(url, headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        return answer.json()["result"]["capabilities"]

    sessions_config = tmp_path / "sessions.toml"
    sessions_data = as_if_run_before(tmp_path / "d2", shared_data_dir)
    sessions_config.write_text(f"extensions = [{str(BUNDLED_EXTENSIONS)!r}]\ndata_dir = {str(sessions_data)!r}\n",
                               encoding="utf-8")
    async with httpx2.AsyncClient(timeout=30) as http:
        async with http_server(settings_for(replica_config(tmp_path, own_redis, shared_data_dir))) as (url, _):
            for version in ("2025-06-18", "2025-11-25"):
                said = await capabilities(url, version)
                assert (said["tools"]["listChanged"], said["prompts"]["listChanged"]) == (False, False), said
        async with http_server(settings_for(sessions_config)) as (url, _):
            said = await capabilities(url, "2025-11-25")
            assert (said["tools"]["listChanged"], said["prompts"]["listChanged"]) == (True, True), said


async def test_a_replicas_call_is_cancelled_when_its_client_goes(tmp_path: Path, own_redis: RedisServer) -> None:
    """A replica's quick lane runs a call in the request itself: a client that went away left it
    running to its end (a re-check), where a server with sessions cancels it."""
    import json

    import anyio

    from tests.protocol.test_large_answers import LINGERER

    extensions, workspace = tmp_path / "extensions", tmp_path / "workspace"
    extensions.mkdir()
    workspace.mkdir()
    (extensions / "linger.py").write_text(LINGERER, encoding="utf-8")
    audit, mark = tmp_path / "audit.jsonl", workspace / "begun"
    config = tmp_path / "toolbay.toml"
    config.write_text(f"extensions = [{str(extensions)!r}]\ndata_dir = {str(tmp_path / 'data')!r}\n"
                      f"workspace = {str(workspace)!r}\n[jobs]\nsync_budget_s = 30\n"
                      f"[chain.audit]\nfile = {str(audit)!r}\n[cluster]\nredis = {own_redis.url!r}\n", encoding="utf-8")
    async with http_server(settings_for(config)) as (url, _):
        host, port = url.removeprefix("http://").split("/")[0].split(":")
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                           "params": {"name": "linger_on", "arguments": {"mark": str(mark)}}}).encode()
        with anyio.fail_after(60):
            async with await anyio.connect_tcp(host, int(port)) as stream:
                await stream.send(f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                                  "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n"
                                  f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
                while not mark.exists():  # the tool has begun
                    await anyio.sleep(0.05)
            while not audit.exists() or '"linger_on"' not in audit.read_text(encoding="utf-8"):
                await anyio.sleep(0.05)
    [record] = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines() if '"linger_on"' in line]
    assert record["outcome"] == "cancelled", record
