"""A sub-agent behind a real HTTP server: sampling travels on the call's stream, and the
sub-agent gets only the role's tools its caller's token may use, each call checked and
audited as that caller."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from tests.agents.conftest import COUNTER_ROLE, ScriptedModel, result_text, structured, tool_results_in
from tests.chain_e2e.conftest import audit_lines, served_client, text_of
from toolbay.config import Settings

pytestmark = pytest.mark.anyio


async def test_a_sub_agent_is_offered_only_what_the_callers_token_allows_and_acts_as_that_caller(
    make_settings: Callable[..., Settings], mint: Callable[..., str], config_dir: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    roles = tmp_path / "roles"
    roles.mkdir()
    (roles / "counter.md").write_text(COUNTER_ROLE, encoding="utf-8")
    monkeypatch.setenv("TOOLBAY_AGENTS", json.dumps([str(roles)]))
    # hashsum is raised to exec by the base config: a read token may not use it.
    token = mint("alice", scope="tools:read")
    model = ScriptedModel(
        [("hashsum", {"text": "abc"})],
        [("textkit_count", {"stdin": "one two", "words": True})],
        "Two words.",
    )
    sampling = types.SamplingCapability(tools=types.SamplingToolsCapability())
    async with served_client(make_settings(), token, sampling_callback=model, sampling_capabilities=sampling) as client:
        result = await client.call_tool("agent_counter", {"task": "Count the words.", "unit": "words"})
    assert not result.is_error, text_of(result)
    assert [tool.name for tool in model.requests[0].tools or []] == ["textkit_count"]
    assert "not available to this role" in result_text(tool_results_in(model.requests[1])[0])
    assert result_text(tool_results_in(model.requests[2])[0]).split()[0] == "2"
    assert structured(result)["stop_reason"] == "answered"
    lines = audit_lines(config_dir)
    parent = next(line for line in lines if line["tool"] == "agent_counter")
    children = [line for line in lines if line.get("parent_request_id") == parent["request_id"]]
    assert [(line["tool"], line["caller"], line["transport"]) for line in children] == [
        ("textkit_count", "alice", "http")]
    assert parent["caller"] == "alice"


async def test_a_sub_agent_that_went_on_as_a_job_still_reaches_the_clients_model(
    make_settings: Callable[..., Settings], mint: Callable[..., str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the call is answered with a job id its stream is closed: the next sampling
    requests travel on the session's own stream (the client's GET)."""
    roles = tmp_path / "roles"
    roles.mkdir()
    (roles / "counter.md").write_text(COUNTER_ROLE, encoding="utf-8")
    monkeypatch.setenv("TOOLBAY_AGENTS", json.dumps([str(roles)]))
    released = anyio.Event()

    async def hold_the_first_turn() -> None:
        if len(model.requests) == 1:
            await released.wait()

    model = ScriptedModel([("textkit_count", {"stdin": "a b c", "words": True})], "Three words.")
    model.before_reply = hold_the_first_turn
    sampling = types.SamplingCapability(tools=types.SamplingToolsCapability())
    settings = make_settings("\n[jobs]\nsync_budget_s = 0.05\n")
    async with served_client(settings, mint("bob", scope="tools:read"), sampling_callback=model,
                             sampling_capabilities=sampling) as client:
        accepted = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
        job_id = structured(accepted)["job_id"]
        released.set()
        ended = await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": 50})
        result = await client.call_tool("job_result", {"job_id": job_id})
    assert structured(ended)["status"] == "completed", text_of(result)
    assert structured(result)["turns"] == 2 and "Three words." in text_of(result)
    assert len(model.requests) == 2


async def test_a_client_cancelling_its_agent_call_over_http_cancels_the_sampling_request_it_is_answering(
    make_settings: Callable[..., Settings], mint: Callable[..., str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SDK cancels the sampling request on the stream of the call it belongs to, which is
    gone once the client cancelled that call: the client's model went on until the session
    closed. toolbay says the cancel again on the session's own stream."""
    roles = tmp_path / "roles"
    roles.mkdir()
    (roles / "counter.md").write_text(COUNTER_ROLE, encoding="utf-8")
    monkeypatch.setenv("TOOLBAY_AGENTS", json.dumps([str(roles)]))
    asked, cancelled = anyio.Event(), anyio.Event()

    async def never_answers() -> None:
        asked.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()  # cancelled at the client: the model stops

    model = ScriptedModel("never sent")
    model.before_reply = never_answers
    sampling = types.SamplingCapability(tools=types.SamplingToolsCapability())
    token = mint("alice", scope="tools:read")
    async with served_client(make_settings(), token, sampling_callback=model, sampling_capabilities=sampling) as client:
        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "agent_counter", {"task": "Count.", "unit": "words"})
                await asked.wait()
                group.cancel_scope.cancel()  # the client cancels its call (notifications/cancelled)
            await cancelled.wait()  # while the session is still open


async def test_prompts_are_shown_to_callers_who_may_see_the_roles_tool_and_name_no_server_path(
    make_settings: Callable[..., Settings], mint: Callable[..., str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every caller got every role's text from prompts/get, its tool hidden from its tools/list
    and refused at the call, and each prompt's _meta named the role file's absolute path on
    the server (an outside probe)."""
    from mcp.shared.exceptions import MCPError

    roles = tmp_path / "roles"
    roles.mkdir()
    (roles / "counter.md").write_text(COUNTER_ROLE, encoding="utf-8")
    monkeypatch.setenv("TOOLBAY_AGENTS", json.dumps([str(roles)]))
    async with served_client(make_settings(), mint("frank", scope="tool:textkit_*")) as narrow:
        narrow_tools = {tool.name for tool in (await narrow.list_tools()).tools}
        narrow_prompts = (await narrow.list_prompts()).prompts
        with pytest.raises(MCPError, match="unknown prompt 'counter'"):
            await narrow.get_prompt("counter", {"unit": "words"})
    async with served_client(make_settings(), mint("alice", scope="tools:exec")) as wide:
        wide_tools = {tool.name for tool in (await wide.list_tools()).tools}
        wide_prompts = (await wide.list_prompts()).prompts
        got = await wide.get_prompt("counter", {"unit": "words"})
    assert "agent_counter" not in narrow_tools and narrow_prompts == []
    assert "agent_counter" in wide_tools and [prompt.name for prompt in wide_prompts] == ["counter"]
    assert str(roles) not in json.dumps(wide_prompts[0].model_dump(by_alias=True))
    assert got.messages
