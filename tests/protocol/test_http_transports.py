"""Streamable HTTP at /mcp and legacy SSE at /sse, served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.sse import sse_client

from tests.protocol.hostile_messages import HOSTILE_MESSAGES
from toolbay.app import Toolbay
from toolbay.protocol.transports import serving_http

pytestmark = pytest.mark.anyio


@pytest.fixture
async def base_url(toolbay: Toolbay) -> AsyncIterator[str]:
    toolbay.settings.port = 0
    async with serving_http(toolbay) as url:
        yield url


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_streamable_http_lists_and_calls_tools(base_url: str, mode: str) -> None:
    with anyio.fail_after(30):
        async with Client(f"{base_url}/mcp", mode=mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "sha1"})
    assert "textkit_count" in names
    assert hashlib.sha1(b"abc").hexdigest() in result.content[0].text


async def test_sse_lists_and_calls_tools(base_url: str) -> None:
    with anyio.fail_after(30):
        async with Client(sse_client(f"{base_url}/sse"), mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("hashsum", {"text": "abc"})
            unknown = await client.call_tool("nope", {})
    assert "hashsum" in names
    assert hashlib.sha256(b"abc").hexdigest() in result.content[0].text
    assert unknown.is_error is True


async def test_health_endpoint_says_only_ok_on_any_host(base_url: str) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.get(f"{base_url}/healthz")
        from_afar = await http.get(f"{base_url}/healthz", headers={"Host": "balancer.internal"})
    assert response.status_code == 200 and from_afar.status_code == 200
    assert response.json() == from_afar.json() == {"status": "ok"}


async def test_an_sse_connection_with_a_foreign_host_is_refused_without_a_traceback(
    base_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.get(f"{base_url}/sse", headers={"Host": "attacker.example"})
    assert response.status_code == 421
    assert not [record for record in caplog.records if record.exc_info], caplog.text


INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def _open_session(http: httpx2.AsyncClient, base_url: str) -> dict[str, str]:
    """The headers of requests in a session opened with ``initialize``."""
    opened = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=JSON_HEADERS)
    return {**JSON_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}


async def test_a_request_whose_parameters_the_protocol_refuses_is_told_which_fields_and_why(base_url: str) -> None:
    """The SDK answered -32602 "Invalid request parameters" with empty data, naming nothing."""
    calls = {"name": 5, "arguments": "text=hello"}, {"arguments": {}}
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        answers = [await http.post(f"{base_url}/mcp", headers=session,
                                   json={"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
                   for params in calls]
        listing = await http.post(f"{base_url}/mcp", headers=session,
                                  json={"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"cursor": 3}})
    errors = [_answer_of(answer)["error"] for answer in (*answers, listing)]
    assert {error["code"] for error in errors} == {-32602}
    said = errors[0]["message"].removeprefix("Invalid tools/call parameters: ").split("; ")
    assert sorted(said) == ["arguments: Input should be a valid dictionary", "name: Input should be a valid string"]
    assert sorted(errors[0]["data"]["errors"], key=str) == [
        {"field": "arguments", "problem": "Input should be a valid dictionary"},
        {"field": "name", "problem": "Input should be a valid string"}]
    assert errors[1]["message"] == "Invalid tools/call parameters: name: Field required"
    assert errors[2]["message"] == "Invalid tools/list parameters: cursor: Input should be a valid string"


# Requests whose params is no object, with what the answer says of each.
PARAMS_NOT_OBJECTS: list[tuple[dict[str, object], str]] = [
    ({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": [1]},
     "Invalid tools/call parameters: params must be an object, not an array"),
    ({"jsonrpc": "2.0", "id": "x", "method": "tools/list", "params": "all"},
     "Invalid tools/list parameters: params must be an object, not a string"),
]


async def test_a_request_whose_params_is_no_object_is_told_so_under_its_id_over_http(base_url: str) -> None:
    """The SDK answered pydantic's report on its message union, with a null id (an outside probe)."""
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        answers = [await http.post(f"{base_url}/mcp", json=body, headers=session) for body, _ in PARAMS_NOT_OBJECTS]
    for answer, (body, said) in zip(answers, PARAMS_NOT_OBJECTS, strict=True):
        assert answer.status_code == 400, answer.text
        assert answer.json() == {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32602, "message": said}}


async def test_a_request_whose_params_is_no_object_is_told_so_under_its_id_over_sse(base_url: str) -> None:
    """The SSE endpoint answered it as a body that is no JSON-RPC message, with a null id, after
    stdio and streamable HTTP had learnt better (an outside probe)."""
    async with httpx2.AsyncClient(timeout=60) as http, http.stream("GET", f"{base_url}/sse") as events:
        endpoint = await _sse_endpoint(events)
        answers = [await http.post(f"{base_url}{endpoint}", json=body) for body, _ in PARAMS_NOT_OBJECTS]
    for answer, (body, said) in zip(answers, PARAMS_NOT_OBJECTS, strict=True):
        assert answer.status_code == 400, answer.text
        assert answer.json() == {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32602, "message": said}}


async def _sse_endpoint(events: httpx2.Response) -> str:
    async for line in events.aiter_lines():
        if line.startswith("data: "):
            return line.removeprefix("data: ")
    raise AssertionError("the SSE stream named no endpoint")


async def test_a_body_that_is_not_said_to_be_json_is_told_what_content_type_is_wanted(base_url: str) -> None:
    """The SDK answered "Invalid Content-Type header" in plain text, naming neither what it
    wants nor what it got (an outside probe)."""
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        answers = {content_type: await http.post(f"{base_url}/mcp", content=json.dumps(INITIALIZE).encode(),
                                                 headers={**session, "Content-Type": content_type})
                   for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/jsonx")}
        # Media types are read in any case; the SDK took only this spelling (415 otherwise).
        upper = await http.post(f"{base_url}/mcp", json={"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
                                headers={**session, "Content-Type": "APPLICATION/JSON; charset=UTF-8"})
        without = await http.post(f"{base_url}/mcp", content=json.dumps(INITIALIZE).encode(), headers={
            name: value for name, value in JSON_HEADERS.items() if name != "Content-Type"})
        still = await http.post(f"{base_url}/mcp", json={"jsonrpc": "2.0", "id": 9, "method": "ping"},
                                headers={**session, "Content-Type": "application/json; charset=utf-8"})
    for content_type, answer in answers.items():
        assert answer.status_code == 400 and answer.json() == {"jsonrpc": "2.0", "id": INITIALIZE["id"], "error": {
            "code": -32600,
            "message": f"Invalid request: the Content-Type header must be application/json, not '{content_type}'"}}
    assert without.status_code == 400 and without.json()["error"]["message"].endswith("application/json, not none")
    async with httpx2.AsyncClient(timeout=60) as http, http.stream("GET", f"{base_url}/sse") as events:
        endpoint = await _sse_endpoint(events)  # the SDK said "Invalid Content-Type header" in plain text there too
        on_sse = await http.post(f"{base_url}{endpoint}", content=json.dumps(INITIALIZE).encode(),
                                 headers={"Content-Type": "text/plain"})
    assert on_sse.status_code == 400 and on_sse.json() == answers["text/plain"].json()
    assert "mcp-session-id" not in without.headers
    assert still.status_code == 200 and _answer_of(still)["id"] == 9
    assert upper.status_code == 200 and "tools" in _answer_of(upper)["result"]


async def test_a_refused_request_that_opens_no_session_is_given_no_session_id(base_url: str) -> None:
    """The SDK sent a new session's id with its 400 to a request without one, and had discarded
    that session already: a client that kept the id was answered 404 next."""
    refused = {"no session": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "not json-rpc": [1, 2]}
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = {what: await http.post(f"{base_url}/mcp", json=body, headers=JSON_HEADERS)
                   for what, body in refused.items()}
        opened = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=JSON_HEADERS)
        for method in ("GET", "DELETE"):  # the same for a stream or an end asked for without a session
            answers[method] = await http.request(method, f"{base_url}/mcp", headers={
                **JSON_HEADERS, "Accept": "text/event-stream", "mcp-protocol-version": "2025-06-18"})
    for what, answer in answers.items():
        assert answer.status_code == 400 and "mcp-session-id" not in answer.headers, (what, answer.headers)
    assert opened.status_code == 200 and opened.headers["mcp-session-id"]


# What made an initialize be answered in an SSE stream, whose status (200) goes out before the
# answer: refused for its parameters, it opened a session all the same, which held the caller's
# share for 30 minutes (an outside probe). A progress token; a body over what the middleware
# reads ahead (256 KiB).
STREAMED_INITIALIZES = {"progress token": {"_meta": {"progressToken": "p"}}, "large": {"padding": "x" * 300 * 1024}}


@pytest.mark.parametrize("extra", STREAMED_INITIALIZES.values(), ids=STREAMED_INITIALIZES.keys())
async def test_an_initialize_is_answered_plainly_and_opens_no_session_when_refused(
        base_url: str, extra: dict[str, object]) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        refused = await http.post(f"{base_url}/mcp", headers=JSON_HEADERS, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", **extra}})
        opened = await http.post(f"{base_url}/mcp", headers=JSON_HEADERS,
                                 json={**INITIALIZE, "params": {**INITIALIZE["params"], **extra}})
    assert refused.status_code == 400 and "mcp-session-id" not in refused.headers, refused.headers
    assert refused.json()["error"]["message"].startswith("Invalid initialize parameters: capabilities: Field required")
    assert opened.status_code == 200 and opened.headers["content-type"].startswith("application/json")
    assert opened.json()["result"]["serverInfo"]["name"] and opened.headers["mcp-session-id"]


def _answer_of(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer in a response, a JSON body or an event stream."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line.removeprefix("data: ") for line in response.text.splitlines() if line.startswith("data: ")]
    return json.loads(data[-1])


@pytest.mark.parametrize("body", HOSTILE_MESSAGES.values(), ids=HOSTILE_MESSAGES.keys())
async def test_deep_nesting_and_lone_surrogates_get_a_parse_error_over_http_without_a_traceback(
    base_url: str, body: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        answer = await http.post(f"{base_url}/mcp", content=body.encode(), headers=session)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == -32700
    _said_under_its_id(body, answer.json())
    assert not [record for record in caplog.records if record.exc_info], caplog.text


def _said_under_its_id(body: str, answer: dict[str, Any]) -> None:
    """A client would otherwise wait for its request's answer until it gives up."""
    if "\\ud800" in body:
        assert answer["id"] == 12
        assert "lone UTF-16 surrogate (\\ud800)" in answer["error"]["message"]
    if "9" * 5000 in body:
        assert answer["id"] == 15
        assert "an integer of 5000 digits, longer than the 4300 this server reads" in answer["error"]["message"]
    # Nested deeper than either reader takes, after its id: answered under it (a re-check).
    expected = {"5,000 nested objects in arguments": 11, "500 nested arrays in arguments": 14}
    for name, request_id in expected.items():
        if body == HOSTILE_MESSAGES[name]:
            assert answer["id"] == request_id, answer
    if body == HOSTILE_MESSAGES["100,000 nested arrays"]:
        assert answer["id"] is None


NOT_MESSAGES = {
    "batch": ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', "Invalid request: a batch (JSON array); "
                                                                   "send one JSON-RPC message at a time"),
    "empty batch": ("[]", "Invalid request: a batch (JSON array); send one JSON-RPC message at a time"),
    "number": ("5", "Invalid request: not a JSON-RPC 2.0 message"),
    "no method": ('{"jsonrpc": "2.0", "id": 3}', "Invalid request: not a JSON-RPC 2.0 message"),
    "old version": ('{"jsonrpc": "1.0", "id": 3, "method": "ping"}', "Invalid request: not a JSON-RPC 2.0 message"),
}
# Requests whose id is neither a string nor an integer, and what they are told.
BAD_IDS = {
    '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}': "not object",
    '{"jsonrpc": "2.0", "id": null, "method": "ping"}': "not null",
    '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}': "not float",
    '{"jsonrpc": "2.0", "id": true, "method": "ping"}': "not bool",
    '{"jsonrpc": "2.0", "id": [1], "method": "ping"}': "not array",
}


async def test_a_request_whose_id_is_no_string_or_integer_is_told_so_over_http_and_sse(base_url: str) -> None:
    """The SDK took such a request for a notification: 202 and nothing more, so its sender
    waited for ever for an answer."""
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        answers = [await http.post(f"{base_url}/mcp", content=body.encode(), headers=session) for body in BAD_IDS]
        async with http.stream("GET", f"{base_url}/sse") as events:
            endpoint = ""
            async for line in events.aiter_lines():
                if line.startswith("data: "):
                    endpoint = line.removeprefix("data: ")
                    break
            answers += [await http.post(f"{base_url}{endpoint}", content=body.encode(),
                                        headers={"Content-Type": "application/json"}) for body in BAD_IDS]
        # An initialize, without a session yet, was told the session was missing.
        answers += [await http.post(f"{base_url}/mcp", content=body.replace('"ping"', '"initialize"').encode(),
                                    headers=JSON_HEADERS) for body in BAD_IDS]
    for answer, said in zip(answers, [*BAD_IDS.values()] * 3, strict=True):
        assert answer.status_code == 400, answer.text
        assert answer.json() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": f"Invalid request: a request's id must be a string or an integer, {said}"}}


@pytest.mark.parametrize(("body", "said"), NOT_MESSAGES.values(), ids=NOT_MESSAGES.keys())
async def test_json_that_is_no_json_rpc_message_gets_an_invalid_request_in_one_sentence_over_http(
    base_url: str, body: str, said: str
) -> None:
    """The SDK answered -32602 with pydantic's report on each member of its message union."""
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        answer = await http.post(f"{base_url}/mcp", content=body.encode(), headers=session)
        without_session = await http.post(f"{base_url}/mcp", content=body.encode(), headers=JSON_HEADERS)
        # The SDK's earlier checks answer first, in their own words.
        unacceptable = await http.post(f"{base_url}/mcp", content=body.encode(),
                                       headers={**session, "Accept": "text/plain"})
        still_served = await http.post(f"{base_url}/mcp", headers=session,
                                       json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
    for refused in (answer, without_session):
        assert refused.status_code == 400, refused.text
        assert refused.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": said}}
        assert int(refused.headers["content-length"]) == len(refused.content)
    assert unacceptable.status_code == 406
    assert still_served.status_code == 200 and '"id":9' in still_served.text.replace(" ", "")


@pytest.mark.parametrize("body", HOSTILE_MESSAGES.values(), ids=HOSTILE_MESSAGES.keys())
async def test_deep_nesting_and_lone_surrogates_are_refused_on_sse_without_a_traceback(
    base_url: str, body: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with httpx2.AsyncClient(timeout=60) as http, http.stream("GET", f"{base_url}/sse") as events:
        endpoint = ""
        async for line in events.aiter_lines():
            if line.startswith("data: "):
                endpoint = line.removeprefix("data: ")
                break
        answer = await http.post(f"{base_url}{endpoint}", content=body.encode(),
                                 headers={"Content-Type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == -32700
    _said_under_its_id(body, answer.json())
    assert not [record for record in caplog.records if record.exc_info], caplog.text


async def test_one_app_serves_http_again_after_its_first_server_stopped(toolbay: Toolbay) -> None:
    """A program that embeds toolbay may serve, stop and serve again. The first server's
    serving is cancelled when its block ends; before the fix the second one listened but never
    accepted a connection (the first one's listener was still registered with the event loop)."""
    toolbay.settings.port = 0
    answers = []
    for _ in range(3):
        async with serving_http(toolbay) as url:
            with anyio.fail_after(30):
                async with Client(f"{url}/mcp", mode="legacy") as client:
                    result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "sha1"})
        answers.append(result.content[0].text)
    assert all(hashlib.sha1(b"abc").hexdigest() in answer for answer in answers)


async def test_sessions_past_the_cap_are_refused_until_one_ends(toolbay: Toolbay) -> None:
    """5,000 initialize requests from one token all opened sessions (about 40 KB each), kept
    for 30 minutes; [http] max_sessions bounds them."""
    toolbay.settings.port = 0
    toolbay.settings.http.max_sessions = 2
    async with serving_http(toolbay) as url, httpx2.AsyncClient(timeout=60) as http:
        opened = [await http.post(f"{url}/mcp", json=INITIALIZE, headers=JSON_HEADERS) for _ in range(2)]
        refused = await http.post(f"{url}/mcp", json=INITIALIZE, headers=JSON_HEADERS)
        # What could not open a session anyway is told what it is told below the cap, not that the server is full.
        no_session = [await http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
                                      headers=JSON_HEADERS),
                      await http.post(f"{url}/mcp", json=[INITIALIZE], headers=JSON_HEADERS),
                      await http.get(f"{url}/mcp", headers={"Accept": "text/event-stream"}),
                      await http.post(f"{url}/mcp", content=HOSTILE_MESSAGES["a lone surrogate"].encode(),
                                      headers=JSON_HEADERS)]
        ended = await http.delete(f"{url}/mcp", headers={"mcp-session-id": opened[0].headers["mcp-session-id"],
                                                         "mcp-protocol-version": "2025-06-18"})
        with anyio.fail_after(30):  # the session's end is noticed by the manager's task
            while (again := await http.post(f"{url}/mcp", json=INITIALIZE, headers=JSON_HEADERS)).status_code == 503:
                await anyio.sleep(0.05)
    assert [answer.status_code for answer in opened] == [200, 200]
    assert refused.status_code == 503 and "mcp-session-id" not in refused.headers
    # Said with the request's id and a way out; the SDK said "Too many open sessions" to a null id.
    assert refused.json() == {"jsonrpc": "2.0", "id": INITIALIZE["id"], "error": {"code": -32603, "message": (
        "Too many open sessions on this server ([http] max_sessions): try again once one has ended "
        "(DELETE with its mcp-session-id) or idled out")}}
    assert [(answer.status_code, answer.json()["error"]["message"]) for answer in no_session] == [
        (400, "Bad Request: Missing session ID"),
        (400, "Invalid request: a batch (JSON array); send one JSON-RPC message at a time"),
        (400, "Bad Request: Missing session ID"),
        (400, "Parse error: a string holds a lone UTF-16 surrogate (\\ud800), which is no Unicode character (a "
              "text cut inside an emoji or other character?): send whole characters")]
    assert no_session[0].json()["id"] == 5
    assert no_session[3].json()["id"] == 12
    assert ended.status_code in (200, 204)
    assert again.status_code == 200 and again.headers["mcp-session-id"]


async def test_a_protocol_version_header_no_version_has_is_named_in_the_refusal(base_url: str) -> None:
    """The SDK took an unknown MCP-Protocol-Version for its newest era and answered that the
    request's params._meta lacked that era's fields, naming nothing the client had sent."""
    ping = {"jsonrpc": "2.0", "id": 4, "method": "ping"}
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        unknown = {**session, "mcp-protocol-version": "1999-01-01"}
        refused = await http.post(f"{base_url}/mcp", json=ping, headers=unknown)
        # An empty header too (an outside check: answered with the newest era's _meta rule).
        empty = await http.post(f"{base_url}/mcp", json=ping, headers={**session, "mcp-protocol-version": ""})
        served = await http.post(f"{base_url}/mcp", json=ping, headers=session)
    assert refused.status_code == 400, refused.text
    message = refused.json()["error"]["message"]
    assert message.startswith("Unsupported MCP-Protocol-Version '1999-01-01': this server speaks 2024-11-05, ")
    assert empty.status_code == 400, empty.text
    assert empty.json()["error"]["message"].startswith("Unsupported MCP-Protocol-Version '': this server speaks ")
    assert served.status_code == 200


async def test_a_request_head_past_the_limit_is_answered_431_and_a_large_body_is_not(base_url: str) -> None:
    """One endless header line, sent in pieces, was read whole: httptools joins a value's pieces,
    so four such connections held the server's loop for seconds and its memory grew by hundreds
    of MiB, before any token was checked."""
    host, port = base_url.removeprefix("http://").split(":")
    with anyio.fail_after(30):
        async with await anyio.connect_tcp(host, int(port)) as stream:
            await stream.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ")
            answer = b""
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, ConnectionError):
                for _ in range(64):  # 4 MiB at most; refused after the first 64 KiB
                    await stream.send(b"a" * 65536)
            with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, ConnectionError):
                while True:
                    answer += await stream.receive()
        # A body of 1 MiB, sent with its head at once, is a body, not a head.
        big = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "x" * (1 << 20), "version": "1"}}}
        async with httpx2.AsyncClient() as http:
            response = await http.post(f"{base_url}/mcp", json=big,
                                       headers={"Accept": "application/json, text/event-stream"})
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert response.status_code == 200, response.text[:300]


async def test_a_body_declared_past_four_mebibytes_is_refused_413_before_it_is_sent(toolbay: Toolbay) -> None:
    """It was read first (the answer waited for the body's time limit, 30 s), and a client that
    asked "Expect: 100-continue" was told to send its gigabyte (an outside check; legacy SSE's
    /messages/ too, a re-check)."""
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    from toolbay.protocol.request_body import MAX_REQUEST_BODY

    assert MAX_REQUEST_BODY == DEFAULT_MAX_REQUEST_BODY_SIZE  # the SDK's own limit
    toolbay.settings.port = 0
    answers = []
    async with serving_http(toolbay) as url:
        host, port = url.removeprefix("http://").split(":")
        async with httpx2.AsyncClient(timeout=60) as http, http.stream("GET", f"{url}/sse") as events:
            endpoint = await _sse_endpoint(events)
            for path in ("/mcp", endpoint):
                with anyio.fail_after(20):
                    async with await anyio.connect_tcp(host, int(port)) as stream:
                        await stream.send(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                                          "Content-Type: application/json\r\nAccept: application/json, "
                                          "text/event-stream\r\nExpect: 100-continue\r\n"
                                          "Content-Length: 1000000000\r\n\r\n".encode())
                        answer = b""
                        with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, ConnectionError):
                            while b"\r\n\r\n" not in answer:
                                answer += await stream.receive()
                answers.append(answer)
    assert [answer[:13] for answer in answers] == [b"HTTP/1.1 413 ", b"HTTP/1.1 413 "], answers


async def test_a_head_past_the_limit_that_comes_in_one_piece_is_answered_431_and_runs_nothing(
        toolbay: Toolbay) -> None:
    # Counted only while it was not whole: a head that came in one read passed any limit up to
    # the size of a read (about 125 KiB: [http] max_head_kb = 1 let a 60 KB header through).
    toolbay.settings.port = 0
    toolbay.settings.http.max_head_kb = 1
    async with serving_http(toolbay) as url:
        host, port = url.removeprefix("http://").split(":")
        answers = []
        for size in (500, 3000, 60_000):
            with anyio.fail_after(30):
                async with await anyio.connect_tcp(host, int(port)) as stream:
                    await stream.send(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\nX-Big: {'a' * size}\r\n"
                                      "Connection: close\r\n\r\n".encode())
                    answer = b""
                    with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, ConnectionError):
                        while True:
                            answer += await stream.receive()
            answers.append(answer.split(b"\r\n", 1)[0])
    assert answers == [b"HTTP/1.1 200 OK", b"HTTP/1.1 431 Request Header Fields Too Large",
                       b"HTTP/1.1 431 Request Header Fields Too Large"]


async def test_a_large_body_read_with_the_start_of_the_next_request_is_no_head_past_the_limit(base_url: str) -> None:
    # A 100 KB initialize and the first bytes of the next request, in one write on a kept-alive
    # connection: the whole read was counted as the next request's head, and answered 431.
    host, port = base_url.removeprefix("http://").split(":")
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "x" * 100_000, "version": "1"}}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    with anyio.fail_after(30):
        async with await anyio.connect_tcp(host, int(port)) as stream:
            await stream.send(head + body + b"GET /healthz HTTP/1.1\r\nHo")
            answer = b""
            while b"\r\n" not in answer:
                answer += await stream.receive()
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


async def test_a_client_that_goes_away_while_sending_a_body_leaves_no_error_in_the_log(
    base_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The SDK logged each one as an error with its traceback, which any caller could repeat at will.
    port = int(base_url.rsplit(":", 1)[1])
    async with httpx2.AsyncClient(timeout=60) as http:
        session = await _open_session(http, base_url)
        stream = await anyio.connect_tcp("127.0.0.1", port)
        head = "".join(f"{name}: {value}\r\n" for name, value in session.items())
        await stream.send(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}Content-Length: 1000\r\n\r\n"
                          '{"jsonrpc": "2.0", '.encode())
        await anyio.sleep(0)
        await stream.aclose()
        # A round trip after it: the server has taken in the connection's end by then.
        for _ in range(3):
            assert (await http.post(f"{base_url}/mcp", json={"jsonrpc": "2.0", "id": 9, "method": "ping"},
                                    headers=session)).status_code == 200
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR], caplog.text


async def test_the_host_header_is_read_in_any_case_and_a_second_host_or_origin_is_refused(base_url: str) -> None:
    """``Host: LOCALHOST:port`` was refused (421) where ``localhost:port`` is taken (host names
    are case-insensitive); two Host or two Origin headers were taken, the SDK reading the first
    (an outside check)."""
    port = base_url.rsplit(":", 1)[1]
    async with httpx2.AsyncClient(timeout=30) as http:
        upper = await http.post(f"{base_url}/mcp", json=INITIALIZE,
                                headers={**JSON_HEADERS, "Host": f"LOCALHOST:{port}"})
        two_origins = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=[
            *JSON_HEADERS.items(), ("Origin", f"http://localhost:{port}"), ("Origin", "http://evil.example")])
    assert upper.status_code == 200, upper.text
    assert two_origins.status_code == 400 and "more than one Origin header" in two_origins.text


async def test_a_get_resuming_from_an_event_id_opens_the_stream_as_any_get(base_url: str) -> None:
    """toolbay keeps no event store: a GET with Last-Event-ID was answered 500 (the SDK replays
    nothing and starts no response; an outside check)."""
    async with httpx2.AsyncClient(timeout=30) as http:
        headers = await _open_session(http, base_url)
        async with http.stream("GET", f"{base_url}/mcp", headers={
                **headers, "Accept": "text/event-stream", "Last-Event-ID": "0"}) as resumed:
            status, kind = resumed.status_code, resumed.headers.get("content-type", "")
    assert status == 200 and kind.startswith("text/event-stream")

async def test_a_long_cursor_prompt_name_or_resource_uri_is_said_back_only_in_part(base_url: str) -> None:
    """A 100,000-character cursor came back whole in its error, as a prompt's name and a
    resource's URI did (an outside check); a tool's name was already cut."""
    async with httpx2.AsyncClient(timeout=30) as http:
        headers = await _open_session(http, base_url)
        answers = [await http.post(f"{base_url}/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": number, "method": method, "params": params}) for number, (method, params) in
            enumerate([("tools/list", {"cursor": "A" * 100_000}), ("prompts/get", {"name": "x" * 100_000}),
                       ("resources/read", {"uri": "toolbay://" + "x" * 100_000}),
                       # A role's argument: one it does not take, and a choice it does not offer (a re-check).
                       ("prompts/get", {"name": "json-reviewer", "arguments": {"path": "x", "a" * 100_000: "v"}}),
                       ("prompts/get", {"name": "json-reviewer",
                                        "arguments": {"path": "x", "strictness": "z" * 100_000}})], start=1)]
    for answer in answers:
        error = answer.json()["error"]
        assert len(error["message"]) < 2_000 and "characters" in error["message"], error["message"][:300]


async def test_a_body_past_the_limit_is_refused_saying_its_connection_closes_and_the_next_request_goes_on(
        base_url: str) -> None:
    """The server closes a connection whose body it did not read, but the 413 did not say so: the
    client kept it for its next request, which failed (httpx: ReadError) instead of going on a
    new connection. Several rounds: whether the reused connection was closed yet was a race."""
    too_large = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"x": "x" * (5 << 20)}}}
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=30) as http:
        for _ in range(5):
            refused = await http.post(f"{base_url}/mcp", json=too_large, headers=headers)
            assert refused.status_code == 413 and refused.headers.get("connection") == "close", refused.headers
            answered = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=headers)
            assert answered.status_code == 200, answered.text[:300]
        small = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=headers)
    assert "connection" not in small.headers  # a request read whole keeps its connection
