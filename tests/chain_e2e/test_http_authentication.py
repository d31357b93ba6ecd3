"""Who may talk to the HTTP transports: bearer tokens from the tokens file and JWTs, on
streamable HTTP and legacy SSE, with RFC 9728 metadata for clients that have none."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.sse import sse_client
from mcp.shared.exceptions import MCPError

from tests.chain_e2e.conftest import ISSUER, Tokens, audit_lines, connect, running, text_of
from tests.conftest import as_if_run_before
from tests.reload.conftest import ListChanged
from toolbay.config import BUNDLED_EXTENSIONS, Settings, load_settings
from toolbay.protocol.plain_json import PerRequestJsonTransport

pytestmark = pytest.mark.anyio

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "0"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
async def base_url(make_settings: Callable[..., Settings]) -> AsyncIterator[str]:
    async with running(make_settings()) as url:
        yield url


async def post_initialize(base_url: str, token: str | None) -> httpx2.Response:
    headers = dict(MCP_HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient() as http:
        with anyio.fail_after(10):
            return await http.post(f"{base_url}/mcp", content=json.dumps(INITIALIZE), headers=headers)


async def test_a_request_without_a_token_gets_401_pointing_at_the_resource_metadata(base_url: str) -> None:
    response = await post_initialize(base_url, None)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    metadata_url = f"{base_url}/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{metadata_url}"' in challenge

    async with httpx2.AsyncClient() as http:
        with anyio.fail_after(10):
            metadata = await http.get(metadata_url)
    assert metadata.status_code == 200
    document = metadata.json()
    assert document["resource"] == f"{base_url}/mcp"
    assert document["authorization_servers"] == [ISSUER]
    assert {"tools:read", "tools:write", "tools:exec"} <= set(document["scopes_supported"])


async def test_two_authorization_headers_get_400_whichever_holds(base_url: str, tokens: Tokens) -> None:
    """The first was taken: a proxy in front that checks the last one would pass a request the
    server then served as another caller."""
    headers = [(name, value) for name, value in MCP_HEADERS.items()]
    async with httpx2.AsyncClient() as http:
        with anyio.fail_after(10):
            for pair in ((tokens["reader"], "tb_not-a-token"), ("tb_not-a-token", tokens["reader"]),
                         (tokens["reader"], tokens["operator"])):
                response = await http.post(f"{base_url}/mcp", content=json.dumps(INITIALIZE), headers=[
                    *headers, *(("Authorization", f"Bearer {token}") for token in pair)])
                assert response.status_code == 400, response.text
                assert response.json() == {"error": "invalid_request",
                                           "error_description": "Send one Authorization header; this request has 2."}
            alone = await http.post(f"{base_url}/mcp", content=json.dumps(INITIALIZE),
                                    headers=[*headers, ("Authorization", f"Bearer {tokens['reader']}")])
    assert alone.status_code == 200


BAD_TOKENS: dict[str, Callable[[Callable[..., str]], str]] = {
    "an unknown static token": lambda mint: "tb_not-a-token-anyone-was-given",
    "an expired JWT": lambda mint: mint("alice", expires_in=-120),
    "a JWT for another audience": lambda mint: mint("alice", audience="https://elsewhere.test/mcp"),
}


@pytest.mark.parametrize("kind", list(BAD_TOKENS))
async def test_a_bad_token_gets_401_invalid_token(base_url: str, mint: Callable[..., str], kind: str) -> None:
    response = await post_initialize(base_url, BAD_TOKENS[kind](mint))
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert response.json()["error"] == "invalid_token"


async def test_a_jwt_expired_within_the_verifiers_leeway_is_accepted_over_http(
        base_url: str, mint: Callable[..., str]) -> None:
    # The verifier took it (30 s of leeway for clocks apart); the HTTP layer then refused it by exp.
    response = await post_initialize(base_url, mint("alice", expires_in=-10))
    assert response.status_code == 200, response.text


async def test_a_token_from_the_tokens_file_lists_and_calls_tools(base_url: str, tokens: Tokens) -> None:
    with anyio.fail_after(30):
        async with connect(base_url, tokens["reader"]) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("textkit_case", {"to": "upper", "stdin": "quiet"})
    assert "textkit_case" in names
    assert result.is_error is False
    assert text_of(result).strip() == "QUIET"


async def test_a_valid_jwt_is_accepted_and_its_subject_is_the_caller(
    base_url: str, mint: Callable[..., str], config_dir: Path
) -> None:
    with anyio.fail_after(30):
        async with connect(base_url, mint("alice", scope="tools:read")) as client:
            result = await client.call_tool("textkit_case", {"to": "lower", "stdin": "LOUD"})
    assert text_of(result).strip() == "loud"
    [line] = audit_lines(config_dir)
    assert (line["caller"], line["caller_kind"], line["transport"], line["outcome"]) == ("alice", "jwt", "http", "ok")


async def test_sse_needs_the_token_too_and_works_with_it(base_url: str, tokens: Tokens) -> None:
    async with httpx2.AsyncClient() as http:
        with anyio.fail_after(10):
            refused = await http.get(f"{base_url}/sse")
            refused_post = await http.post(f"{base_url}/messages/?session_id=0", content=b"{}")
    assert refused.status_code == 401
    assert refused_post.status_code == 401
    assert f"{base_url}/.well-known/oauth-protected-resource/sse" in refused.headers["www-authenticate"]

    headers = {"Authorization": f"Bearer {tokens['operator']}"}
    with anyio.fail_after(30):
        async with Client(sse_client(f"{base_url}/sse", headers=headers), mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("textkit_case", {"to": "upper", "stdin": "abc"})
    assert "hashsum" in names  # the operator holds tools:exec
    assert text_of(result).strip() == "ABC"


async def test_a_token_removed_from_the_tokens_file_is_refused_within_seconds_without_a_restart(
    make_settings: Callable[[str], Settings], tokens: Tokens, config_dir: Path
) -> None:
    settings = make_settings("")
    async with running(settings) as url, httpx2.AsyncClient(timeout=30) as http:
        headers = {"Authorization": f"Bearer {tokens['reader']}"}
        assert (await http.post(f"{url}/mcp", json={}, headers=headers)).status_code != 401
        tokens_file = config_dir / "tokens.toml"
        kept = [block for block in tokens_file.read_text(encoding="utf-8").split("\n\n")
                if '"reader"' not in block]
        tokens_file.write_text("\n\n".join(kept), encoding="utf-8")
        with anyio.fail_after(30):
            while (await http.post(f"{url}/mcp", json={}, headers=headers)).status_code != 401:
                await anyio.sleep(0.2)  # the file is checked at most once a second
        still = await http.post(f"{url}/mcp", json={}, headers={"Authorization": f"Bearer {tokens['operator']}"})
    assert still.status_code != 401


async def test_a_caller_whose_scopes_change_in_the_tokens_file_is_told_its_tool_list_changed(
    make_settings: Callable[[str], Settings], tokens: Tokens, config_dir: Path
) -> None:
    """Raised from tools:read to tools:exec, the reader's session kept the listing it had: no
    list_changed came, so a client that lists only when told never saw hashsum (exec here)."""
    reader_changes, operator_changes = ListChanged(), ListChanged()
    async with running(make_settings("")) as url:
        with anyio.fail_after(60):
            async with connect(url, tokens["reader"], message_handler=reader_changes) as reader, \
                    connect(url, tokens["operator"], message_handler=operator_changes) as operator:
                before = {tool.name for tool in (await reader.list_tools()).tools}
                await operator.list_tools()
                _give_the_reader(config_dir, 'scopes = ["tools:exec"]')
                await reader_changes.after(0)  # no request is made meanwhile: the server notices itself
                after = {tool.name for tool in (await reader.list_tools()).tools}
    assert "hashsum" not in before and "hashsum" in after
    assert operator_changes.count == 0  # whose scopes did not change hears nothing


async def test_a_caller_whose_scopes_change_in_the_tokens_file_is_told_its_prompt_list_changed(
    make_settings: Callable[[str], Settings], tokens: Tokens, config_dir: Path
) -> None:
    """A role's prompt is listed to whoever may use its tool: lowered from tools:read to one
    tool's pattern, the reader's roles went, and only the tools' list_changed came (an outside
    check), so a client that keeps the prompts it listed (slash commands) kept them."""
    prompt_changes = ListChanged(types.PromptListChangedNotification)
    async with running(make_settings("")) as url:
        with anyio.fail_after(60):
            async with connect(url, tokens["reader"], message_handler=prompt_changes) as reader:
                before = {prompt.name for prompt in (await reader.list_prompts()).prompts}
                _give_the_reader(config_dir, 'scopes = ["tool:textkit_*"]')
                await prompt_changes.after(0)  # no request is made meanwhile: the server notices itself
                after = {prompt.name for prompt in (await reader.list_prompts()).prompts}
    assert before and not after


def _give_the_reader(config_dir: Path, scopes: str) -> None:
    """Rewrites the reader's scopes (tools:read) in the tokens file as ``scopes``."""
    tokens_file = config_dir / "tokens.toml"
    blocks = tokens_file.read_text(encoding="utf-8").split("\n\n")
    tokens_file.write_text("\n\n".join(block.replace('scopes = ["tools:read"]', scopes) if '"reader"' in block
                                       else block for block in blocks), encoding="utf-8")


async def test_one_caller_opens_at_most_its_share_of_sessions_and_others_still_get_theirs(
        make_settings: Callable[..., Settings], tokens: Tokens) -> None:
    """One token whose client opened a session per request took every session of the server
    (the SDK caps them all, 1,000, not one caller's share): everyone else was answered 503 for
    the 30 minutes until they idled out."""
    settings = make_settings("[http]\nmax_sessions_per_caller = 2\n")
    async with running(settings) as url:
        opened = [await post_initialize(url, tokens["reader"]) for _ in range(2)]
        refused = await post_initialize(url, tokens["reader"])
        other = await post_initialize(url, tokens["operator"])
        ended = opened[0].headers["mcp-session-id"]
        async with httpx2.AsyncClient() as http:
            deleted = await http.delete(f"{url}/mcp", headers={
                **MCP_HEADERS, "Authorization": f"Bearer {tokens['reader']}", "mcp-session-id": ended,
                "mcp-protocol-version": "2025-06-18"})
        again = await post_initialize(url, tokens["reader"])
    assert [response.status_code for response in opened] == [200, 200]
    assert refused.status_code == 429 and "mcp-session-id" not in refused.headers
    assert "max_sessions_per_caller" in refused.json()["error"]["message"]
    assert refused.json()["id"] == INITIALIZE["id"]  # its own id, as any answer to a request
    assert other.status_code == 200  # another caller's share is untouched
    assert deleted.status_code == 200 and again.status_code == 200  # an ended session makes room


async def test_one_caller_has_at_most_its_share_of_requests_in_flight_and_others_are_still_answered(
        make_settings: Callable[..., Settings], tokens: Tokens) -> None:
    """One token holder sending hundreds of job_waits at once held every connection the server
    allows an address: behind a load balancer (every caller's address) the other callers and the
    balancer's health checks were refused, and every replica was taken for dead (an outside
    probe). Requests held open here by bodies that have not ended yet."""
    settings = make_settings("[http]\nmax_requests_per_caller = 2\n")
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['reader']}"}
    body = json.dumps(INITIALIZE).encode()
    release = anyio.Event()
    held: list[int] = []
    sending: list[bool] = []

    async def slow_body() -> AsyncIterator[bytes]:
        sending.append(True)  # its head is on its way
        yield body[:10]
        await release.wait()
        yield body[10:]

    async with running(settings) as url, httpx2.AsyncClient(timeout=30) as http:

        async def hold() -> None:
            held.append((await http.post(f"{url}/mcp", content=slow_body(), headers=headers)).status_code)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(hold)
                group.start_soon(hold)
                while len(sending) < 2:
                    await anyio.sleep(0.01)
                while (refused := await http.post(f"{url}/mcp", json=INITIALIZE, headers=headers)).status_code != 429:
                    assert refused.status_code == 200  # answered before both held requests were read
                    await anyio.sleep(0.02)
                other = await post_initialize(url, tokens["operator"])
                release.set()
            again = await post_initialize(url, tokens["reader"])
    assert refused.headers["retry-after"] == "1"
    assert "max_requests_per_caller" in refused.json()["error"]["message"]
    assert refused.json()["id"] == INITIALIZE["id"]
    assert other.status_code == 200  # another caller's share is untouched
    assert held == [200, 200] and again.status_code == 200  # answered requests make room


async def test_one_caller_holds_at_most_its_share_of_legacy_sse_sessions(
        make_settings: Callable[..., Settings], tokens: Tokens) -> None:
    """Each GET /sse is a session of the legacy transport, held open: one caller opened 4,000 and
    filled its proxy, locking every other caller out (a re-check); only /mcp's were capped."""
    settings = make_settings("[http]\nmax_sessions_per_caller = 2\n")
    reader = {"Authorization": f"Bearer {tokens['reader']}"}
    with anyio.fail_after(30):
        async with running(settings) as url, AsyncExitStack() as sessions:
            for _ in range(2):
                client = await sessions.enter_async_context(Client(sse_client(f"{url}/sse", headers=reader),
                                                                   mode="legacy"))
                await client.list_tools()
            async with httpx2.AsyncClient(timeout=30) as http:
                refused = await http.get(f"{url}/sse", headers=reader)
            operator = {"Authorization": f"Bearer {tokens['operator']}"}
            async with Client(sse_client(f"{url}/sse", headers=operator), mode="legacy") as other:
                assert (await other.list_tools()).tools  # another caller's share is untouched
    assert refused.status_code == 429 and "max_sessions_per_caller" in refused.json()["error"]["message"]


async def test_a_caller_s_share_holds_against_initializes_sent_at_once_and_its_refusals_are_said_once(
        make_settings: Callable[..., Settings], tokens: Tokens, caplog: pytest.LogCaptureFixture) -> None:
    """Each request was checked against the sessions already answered, so initializes sent at
    once all passed: 50 opened against a cap of 3. And each refusal wrote a warning line: 298
    identical lines for a client in a loop (an outside probe)."""
    settings = make_settings("[http]\nmax_sessions_per_caller = 2\n")
    statuses: list[int] = []
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['reader']}"}
    async with running(settings) as url, httpx2.AsyncClient(timeout=30) as http:

        async def initialize() -> None:
            statuses.append((await http.post(f"{url}/mcp", json=INITIALIZE, headers=headers)).status_code)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for _ in range(12):
                    group.start_soon(initialize)
    assert sorted(statuses) == [200, 200] + [429] * 10
    said = [record.getMessage() for record in caplog.records if "max_sessions_per_caller" in record.getMessage()]
    assert len(said) == 1, said


# The opening grace in these tests: longer than any client's round trip between two requests, so
# only a client that said nothing is ended by it, however slowly a busy machine runs this one.
OPENING_GRACE_S = 3.0


class EndedSessions:
    """Spies on the sessions' ends (each ends through its transport's ``terminate``): their ids,
    and a wait for one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ids: list[str | None] = []
        self._event = anyio.Event()
        terminate = PerRequestJsonTransport.terminate

        async def spy(transport: PerRequestJsonTransport) -> None:
            await terminate(transport)
            self.ids.append(transport.mcp_session_id)
            self._event.set()
            self._event = anyio.Event()

        monkeypatch.setattr(PerRequestJsonTransport, "terminate", spy)

    async def wait_for(self, session_id: str) -> None:
        with anyio.fail_after(30):
            while session_id not in self.ids:
                await self._event.wait()


async def test_a_session_whose_client_said_nothing_after_its_initialize_ends_soon_and_frees_its_place(
        make_settings: Callable[..., Settings], tokens: Tokens, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that went away before reading the answer to its initialize left a session it never
    learnt the id of, holding a place in its caller's share for the whole idle time, 30 minutes (an
    outside probe). A session whose client carries on is not touched."""
    monkeypatch.setattr(PerRequestJsonTransport, "OPENING_GRACE_S", OPENING_GRACE_S)
    ended = EndedSessions(monkeypatch)
    settings = make_settings("[http]\nmax_sessions_per_caller = 1\n")
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['reader']}"}
    async with running(settings) as url, httpx2.AsyncClient(timeout=30) as http:
        # Another caller's session, whose client speaks after its initialize and carries on.
        spoke = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['operator']}"}
        opened = await http.post(f"{url}/mcp", json=INITIALIZE, headers=spoke)
        session = {**spoke, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        initialized = await http.post(f"{url}/mcp", headers=session,
                                      json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        # Opened after that one spoke, then abandoned: once its grace has run out, the session
        # that spoke (begun earlier) would have too, had speaking not lifted it.
        abandoned = await http.post(f"{url}/mcp", json=INITIALIZE, headers=headers)
        refused = await http.post(f"{url}/mcp", json=INITIALIZE, headers=headers)
        await ended.wait_for(abandoned.headers["mcp-session-id"])
        ended_by_then = list(ended.ids)
        again = await http.post(f"{url}/mcp", json=INITIALIZE, headers=headers)  # its place came back
        listing = await http.post(f"{url}/mcp", headers=session,
                                  json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert abandoned.status_code == 200 and refused.status_code == 429 and again.status_code == 200
    assert opened.status_code == 200 and initialized.status_code == 202
    assert listing.status_code == 200 and '"tools"' in listing.text
    assert opened.headers["mcp-session-id"] not in ended_by_then


async def test_an_initialize_refused_for_its_parameters_opens_no_session(
        make_settings: Callable[..., Settings], tokens: Tokens) -> None:
    """The SDK answered it -32602 with status 200 and kept the session it had opened, which
    took the caller's share until it idled out (30 minutes; an outside probe)."""
    settings = make_settings("[http]\nmax_sessions_per_caller = 1\n")
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['reader']}"}
    async with running(settings) as url, httpx2.AsyncClient(timeout=30) as http:
        refused = [await http.post(f"{url}/mcp", headers=headers,
                                   json={"jsonrpc": "2.0", "id": 0, "method": "initialize"}) for _ in range(2)]
        opened = await post_initialize(url, tokens["reader"])
    for answer in refused:
        assert answer.status_code == 400 and "mcp-session-id" not in answer.headers, answer.headers
        assert answer.json()["error"]["message"] == "Invalid initialize parameters: params: Field required"
    assert opened.status_code == 200 and opened.headers["mcp-session-id"]


async def test_an_open_sse_stream_whose_token_is_removed_from_the_tokens_file_is_ended(
    make_settings: Callable[[str], Settings], tokens: Tokens, config_dir: Path
) -> None:
    """The stream stayed open: the SDK's client, whose posts were refused (401), waited on it
    for the answers for ever. A request held open outlives no token."""
    async with running(make_settings("")) as url:
        tokens_file = config_dir / "tokens.toml"
        with anyio.fail_after(30):
            with pytest.raises(BaseException) as ended:  # the client's stream ends under it
                async with Client(sse_client(f"{url}/sse", headers={"Authorization": f"Bearer {tokens['reader']}"}),
                                  mode="legacy") as client:
                    done = await client.call_tool("textkit_case", {"to": "upper", "stdin": "abc"})
                    assert text_of(done).strip() == "ABC"
                    tokens_file.write_text("\n\n".join(
                        block for block in tokens_file.read_text(encoding="utf-8").split("\n\n")
                        if '"reader"' not in block), encoding="utf-8")
                    while True:
                        await client.call_tool("textkit_case", {"to": "upper", "stdin": "abc"})
    # Not the deadline's cancellation: the server ended the stream, and the client says so.
    assert "Connection closed" in repr(ended.value), repr(ended.value)


async def test_a_job_wait_whose_token_is_removed_is_answered_with_an_error_that_says_so(
    config_dir: Path, tokens: Tokens, shared_data_dir: Path, tmp_path: Path
) -> None:
    """The waiting request's stream was ended with no answer to it: the client was left to
    guess from a closed connection why its job_wait came back empty."""
    import shutil

    from tests.chain_e2e.conftest import BASE_TOML
    from tests.conftest import BUNDLED_EXTENSIONS
    from tests.pytools.conftest import FIXTURE_PYTHON
    from toolbay.config import load_settings

    folder = tmp_path / "slow-tools"
    folder.mkdir()
    shutil.copy(FIXTURE_PYTHON / "slow.py", folder / "slow.py")
    config = config_dir / "toolbay.toml"
    config.write_text(BASE_TOML, encoding="utf-8")
    settings = load_settings(config, extensions=[BUNDLED_EXTENSIONS, folder], data_dir=shared_data_dir, port=0)
    tokens_file = config_dir / "tokens.toml"
    async with running(settings) as url, connect(url, tokens["reader"]) as client:
        with anyio.fail_after(60):
            started = await client.call_tool("slow_nap", {"seconds": 30})
            job_id = started.structured_content["job_id"]
            tokens_file.write_text("\n\n".join(
                block for block in tokens_file.read_text(encoding="utf-8").split("\n\n")
                if '"reader"' not in block), encoding="utf-8")
            with pytest.raises(BaseException) as ended:
                await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": 30})
    assert "The bearer token no longer holds" in str(ended.value), repr(ended.value)


async def test_a_storage_error_tells_an_http_caller_nothing_of_where_the_server_keeps_its_data(
        make_settings: Callable[[str], Settings], tokens: Tokens, config_dir: Path, tmp_path: Path,
        shared_data_dir: Path) -> None:
    """The job database replaced under a running server: every token's job_list was told its
    absolute path (an outside check); the log says it, the caller is told what happened."""
    make_settings("")  # the chain's configuration; a data folder of its own, whose database goes
    settings = load_settings(config_dir / "toolbay.toml", extensions=[BUNDLED_EXTENSIONS],
                             data_dir=as_if_run_before(tmp_path / "data", shared_data_dir), port=0)
    async with running(settings) as url:
        with anyio.fail_after(60):
            async with connect(url, tokens["reader"]) as client:
                await client.call_tool("job_list", {})  # the database is open
                (settings.data_dir / "jobs.sqlite3").unlink()
                listed = await client.call_tool("job_list", {})
                # The protocol's own job requests too (a re-check).
                with pytest.raises(MCPError) as as_resources:
                    await client.list_resources()
    said = text_of(listed)
    assert listed.is_error and "was deleted while this server was using it" in said, said
    assert str(settings.data_dir) not in said and "<the server's data folder>" in said
    said = str(as_resources.value)
    assert "was deleted while this server was using it" in said and str(settings.data_dir) not in said, said
