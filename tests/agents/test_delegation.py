"""agent_* tools end to end, with the SDK's real client in process: the envelope for a client
that declares child sessions, the sampling loop for one with a (scripted) model, the fallback
for one with neither, and the limits that stop runaway loops."""

from __future__ import annotations

import json
import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import advertise

from tests.agents.conftest import (
    ABC_SHA256,
    WAIT_S,
    ScriptedModel,
    audit_records,
    client_for,
    result_text,
    served,
    structured,
    text_of,
    tool_results_in,
)
from toolbay.handlers.agents import ECHOED_TASK_CHARS
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio

WITH_TOOLS = types.SamplingCapability(tools=types.SamplingToolsCapability())
AUDIT = '[chain.audit]\nfile = "audit.jsonl"\n'


def _never_sampled(model: ScriptedModel) -> None:
    assert model.requests == [], "the client was asked to sample"


async def test_a_client_declaring_child_sessions_gets_the_envelope_and_no_sampling_request(make_settings: Any) -> None:
    model = ScriptedModel("should not be asked")
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS,
                                  extensions=[advertise("toolbay/subagents", {"version": 1})]) as client:
                result = await client.call_tool("agent_counter", {"task": "Count the words in 'a b c'.",
                                                                  "unit": "words"})
    _never_sampled(model)
    assert not result.is_error
    envelope = (result.meta or {})["_subagent"]
    assert envelope["role"] == "counter" and envelope["task"] == "Count the words in 'a b c'."
    assert envelope["prompt"] == "You count words for the task you are given, with the tools you have."
    assert [tool["name"] for tool in envelope["tools"]] == ["hashsum", "textkit_count"]
    assert envelope["tools"][0]["inputSchema"]["properties"]["algorithm"]["default"] == "sha256"
    # max_depth: the client, which alone can tell a child session's call from its caller's, keeps
    # delegation that deep (the envelope said nothing of it, and offered agent_* again at every level).
    assert envelope["limits"] == {"turns": 4, "time_s": 600.0, "max_depth": 2}
    assert "counter" in text_of(result) and "2 tool(s)" in text_of(result)


async def test_a_sampling_client_runs_the_whole_loop_with_each_tool_call_through_the_chain(
    make_settings: Any, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [("textkit_count", {"stdin": "one two three", "words": True})],
        [("hashsum", {"text": "abc"})],
        "Three words; the sha256 of abc is known.",
    )
    async with served(make_settings(AUDIT)) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count and hash.", "unit": "words"})
    assert not result.is_error, text_of(result)
    summary = structured(result)
    assert summary["turns"] == 3 and summary["stop_reason"] == "answered"
    assert [(c["tool"], c["is_error"]) for c in summary["tool_calls"]] == [("textkit_count", False),
                                                                          ("hashsum", False)]
    assert text_of(result).startswith("Three words; the sha256 of abc is known.\n\n[sub-agent counter: 3 turn(s)")
    assert "answer" not in summary  # the text's alone: it came twice (an outside check)
    # The model was given the role prompt, the task and only the role's tools ...
    first = model.requests[0]
    assert first.system_prompt == "You count words for the task you are given, with the tools you have."
    assert [tool.name for tool in first.tools or []] == ["hashsum", "textkit_count"]
    assert first.messages[0].content_as_list[0].text == "Count and hash."  # type: ignore[union-attr]
    # ... and the real outputs of the real tools.
    assert result_text(tool_results_in(model.requests[1])[0]).split()[0] == "3"
    assert ABC_SHA256 in result_text(tool_results_in(model.requests[2])[0])
    # Every sub-agent call is audited with the id of the agent call it served.
    records = audit_records(tmp_path / "audit.jsonl")
    parent = next(r for r in records if r["tool"] == "agent_counter")
    children = [r for r in records if r.get("parent_request_id") is not None]
    assert [(r["tool"], r["outcome"]) for r in children] == [("textkit_count", "ok"), ("hashsum", "ok")]
    assert {r["parent_request_id"] for r in children} == {parent["request_id"]}
    assert {r["caller"] for r in children} == {parent["caller"]}


async def test_a_tool_the_chain_refuses_or_the_role_does_not_offer_is_refused_to_the_model(
    make_settings: Any, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [("textkit_count", {"stdin": "x", "no_such_option": True})],  # the chain's validation refuses
        [("jsonkit_fmt", {"input": "{}"})],  # a bundled tool, but not one of the role's
        [("hashsum", {"text": "abc"})],  # denied on this server: never offered
        "I could not do it.",
    )
    config = AUDIT + '[chain.access]\ndeny = ["hashsum"]\n'
    async with served(make_settings(config)) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "lines"})
    assert [tool.name for tool in model.requests[0].tools or []] == ["textkit_count"]
    refused = [tool_results_in(request)[0] for request in model.requests[1:4]]
    assert all(block.is_error for block in refused)
    assert "no_such_option" in result_text(refused[0])
    assert "not available to this role" in result_text(refused[1])
    assert "not available to this role" in result_text(refused[2])
    calls = structured(result)["tool_calls"]
    assert [(c["tool"], c.get("refusal")) for c in calls] == [
        ("textkit_count", "invalid_arguments"), ("jsonkit_fmt", "not_offered"), ("hashsum", "not_offered")]
    # The chain saw (and audited) the one it refused; the others never reached it.
    children = [r for r in audit_records(tmp_path / "audit.jsonl") if r.get("parent_request_id")]
    assert [(r["tool"], r["outcome"]) for r in children] == [("textkit_count", "refused:invalid_arguments")]


async def test_a_slow_loop_becomes_a_job_with_progress_per_turn(make_settings: Any) -> None:
    released = anyio.Event()
    seen_progress: list[str] = []
    job_id: str | None = None

    async def hold_first_turn_then_look_at_the_job() -> None:
        if len(model.requests) == 1:
            await released.wait()  # the call must outlive its budget: it waits for the job's id
        else:
            assert app.jobs is not None and job_id is not None
            view = await app.jobs.status(app.owner_id_for("memory", None), job_id)
            seen_progress.append(str((view.progress or {}).get("message")))

    model = ScriptedModel([("textkit_count", {"stdin": "a b", "words": True})], "Two words.")
    model.before_reply = hold_first_turn_then_look_at_the_job
    heard: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message or "")

    async with served(make_settings("[jobs]\nsync_budget_s = 0.05\n")) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                accepted = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"},
                                                  progress_callback=on_progress)
                job_id = structured(accepted)["job_id"]
                released.set()
                ended = await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": 50})
                result = await client.call_tool("job_result", {"job_id": job_id})
                assert structured(ended)["status"] == "completed", text_of(result)
    assert "turn 1: asking the model" in heard
    assert seen_progress == ["turn 2: asking the model"]
    summary = structured(result)
    assert (summary["turns"], summary["stop_reason"]) == (2, "answered")
    assert text_of(result).startswith("Two words.")


async def test_a_client_with_neither_gets_the_role_prompt_and_task_to_act_on_itself(make_settings: Any) -> None:
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app) as client:
                result = await client.call_tool("agent_json_reviewer",
                                                {"task": "Review it.", "path": "conf.json", "strictness": "strict"})
    assert not result.is_error
    text = text_of(result)
    assert "No sub-agent was started" in text and "neither" in text
    assert "You are a careful reviewer of JSON configuration files. You review `conf.json`" in text
    assert "Strictness asked for: strict (" in text and text.rstrip().endswith("Review it.")
    assert "_subagent" not in (result.meta or {})
    assert structured(result)["path"] == "fallback"


async def test_a_fallback_repeats_a_long_task_in_part_only(make_settings: Any) -> None:
    """The task came back whole, twice: a 3 MB task was 6 MB of the caller's context."""
    task = "Review it. " + "x" * 200_000
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app) as client:
                result = await client.call_tool("agent_json_reviewer", {"task": task, "path": "conf.json"})
    assert not result.is_error and structured(result)["path"] == "fallback"
    assert len(text_of(result)) + len(json.dumps(structured(result))) < 20_000
    assert task[:ECHOED_TASK_CHARS] in text_of(result)
    assert f"and {len(task) - ECHOED_TASK_CHARS:,} more characters of the task you gave" in text_of(result)
    assert structured(result)["task_chars"] == len(task)


async def test_a_client_sampling_without_tools_is_not_asked_for_a_role_that_needs_tools(make_settings: Any) -> None:
    model = ScriptedModel("never")
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    _never_sampled(model)
    assert "sampling without tools" in text_of(result)


async def test_the_turn_limit_stops_a_model_that_never_answers(make_settings: Any) -> None:
    model = ScriptedModel([("textkit_count", {"stdin": "a", "words": True})])  # asks again, forever
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert result.is_error
    assert len(model.requests) == 4  # the role's limit
    summary = structured(result)
    assert (summary["turns"], summary["stop_reason"], len(summary["tool_calls"])) == (4, "turn_limit", 4)
    assert "used all 4 turns" in text_of(result)


async def test_a_role_of_one_turn_says_it_used_its_one_turn(make_settings: Any, agents_dir: Path) -> None:
    # "it used all 1 turns without a final answer"
    (agents_dir / "brief.md").write_text(
        "---\nname: brief\ndescription: One go.\ntools: [textkit_count]\nlimits: {turns: 1}\n---\nBe brief.\n",
        encoding="utf-8")
    model = ScriptedModel([("textkit_count", {"stdin": "a", "words": True})])
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_brief", {"task": "Count."})
    assert structured(result)["stop_reason"] == "turn_limit"
    assert "it used its one turn without a final answer" in text_of(result)


async def test_the_depth_limit_stops_a_role_that_delegates_to_itself(make_settings: Any, tmp_path: Path) -> None:
    def delegate_until_told_no(params: types.CreateMessageRequestParams) -> Any:
        answers = tool_results_in(params)
        if answers:
            return "depth reached: " + result_text(answers[0])
        return [("agent_recurse", {"task": "Go one level deeper."})]

    model = ScriptedModel(delegate_until_told_no)
    async with served(make_settings(AUDIT)) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_recurse", {"task": "Start."})
    # Level 1 asks, level 2 asks, level 3 is refused; then level 2 and level 1 answer. Level 2,
    # the deepest, is not offered agent_* tools (offered them, it spent its turns on refusals);
    # a model calling one all the same is told it is not its to use.
    assert len(model.requests) == 4
    offered = [[tool.name for tool in request.tools or ()] for request in model.requests]
    assert "agent_recurse" in offered[0] and "agent_recurse" not in offered[1]
    innermost = result_text(tool_results_in(model.requests[2])[0])
    assert "The tool 'agent_recurse' is not available to this role" in innermost
    assert not result.is_error and structured(result)["turns"] == 2
    nested = [r for r in audit_records(tmp_path / "audit.jsonl") if r["tool"] == "agent_recurse"]
    assert [r["outcome"] for r in nested] == ["ok", "ok"]  # innermost first; the third never ran
    assert nested[0]["parent_request_id"] == nested[1]["request_id"]


async def test_a_client_that_refuses_to_sample_gets_a_clear_error(make_settings: Any) -> None:
    async def refuse(context: Any, params: types.CreateMessageRequestParams) -> types.ErrorData:
        return types.ErrorData(code=-1, message="the user declined")

    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=refuse, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert result.is_error
    assert "the user declined" in text_of(result)
    assert structured(result)["stop_reason"] == "sampling_failed"


async def test_a_clients_long_refusal_reaches_the_calling_model_cut(make_settings: Any) -> None:
    # A 5 MB error message from the client went whole to the calling model (and the log).
    async def refuse(context: Any, params: types.CreateMessageRequestParams) -> types.ErrorData:
        return types.ErrorData(code=-1, message="no " * 1_000_000)

    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=refuse, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert result.is_error and structured(result)["stop_reason"] == "sampling_failed"
    assert len(text_of(result)) < 2000 and "(cut: 3000000 characters)" in text_of(result)


async def test_the_time_limit_stops_a_model_that_does_not_answer(make_settings: Any, agents_dir: Path) -> None:
    (agents_dir / "hasty.md").write_text(
        "---\nname: hasty\ndescription: Has little time.\ntools: [textkit_count]\nlimits: {time_s: 0.2}\n---\n"
        "Be quick.\n", encoding="utf-8")
    never = anyio.Event()

    async def wait_forever() -> None:
        await never.wait()

    model = ScriptedModel("too late")
    model.before_reply = wait_forever
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_hasty", {"task": "Hurry."})
    assert result.is_error
    assert structured(result)["stop_reason"] == "time_limit"
    assert "ran out of its 0.2 s" in text_of(result)


@pytest.mark.parametrize(("paths", "expected"), [("[]", "fallback"), ('["sampling"]', "sampling"),
                                                 ('["sampling", "envelope"]', "sampling")])
async def test_the_configuration_chooses_among_the_paths_the_client_declared(
    make_settings: Any, paths: str, expected: str
) -> None:
    model = ScriptedModel("Done.")
    async with served(make_settings(f"[subagents]\npaths = {paths}\n")) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS,
                                  extensions=[advertise("toolbay/subagents", {})]) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert structured(result)["path"] == expected
    assert ("_subagent" in (result.meta or {})) is False
    assert len(model.requests) == (1 if expected == "sampling" else 0)
    if expected == "fallback":
        assert "[subagents] paths setting is empty" in text_of(result)


async def test_a_2026_client_with_sampling_gets_the_fallback_since_no_request_can_reach_it(
    make_settings: Any
) -> None:
    model = ScriptedModel("never")
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with Client(build_mcp_server(app, "memory"), mode="2026-07-28", sampling_callback=model,
                              sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
                prompts = await client.list_prompts()
    _never_sampled(model)
    assert structured(result)["path"] == "fallback"
    assert "cannot carry sampling requests" in text_of(result)
    assert "counter" in {prompt.name for prompt in prompts.prompts}


async def test_every_bundled_role_is_offered_the_tools_its_prompt_names(make_settings: Any) -> None:
    """Each tool a bundled role's prompt tells the model to use (`jsonkit_validate`, ...) is
    one the role is offered, and each of its patterns matches a bundled tool."""
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, extensions=[advertise("toolbay/subagents", {})]) as client:
                for name in ("json-reviewer", "text-cleanup", "help-checker"):
                    role = app.roles.roles[name]
                    arguments = {a.name: (a.choices or ("x",))[0] for a in role.arguments if a.required}
                    result = await client.call_tool(role.tool_name, {"task": "Check.", **arguments})
                    offered = {tool["name"] for tool in (result.meta or {})["_subagent"]["tools"]}
                    named = set(re.findall(r"`((?:jsonkit|textkit|hashsum)\w*)`", role.body))
                    assert named and named <= offered, (name, named - offered)
                    for pattern in role.tools:
                        assert any(fnmatchcase(tool, pattern) for tool in offered), (name, pattern)


def _reply(*content: Any, stop_reason: str = "endTurn") -> types.CreateMessageResultWithTools:
    return types.CreateMessageResultWithTools(role="assistant", content=list(content), model="scripted",
                                              stop_reason=stop_reason)


@pytest.mark.parametrize(("steps", "stop_reason", "said"), [
    ([_reply(types.ImageContent(type="image", data="aGk=", mime_type="image/png"))],
     "no_answer", "held no answer in text (only image content)"),
    ([_reply()], "no_answer", "held no answer in text (nothing)"),
    ([_reply(types.TextContent(type="text", text="  \n"))], "no_answer", "held no answer in text (only blank text"),
    ([_reply(types.TextContent(type="text", text="The cleaned text is: ```al"), stop_reason="maxTokens")],
     "max_tokens", "cut at the token limit"),
    # An earlier turn's words are no answer when the last reply holds none.
    ([_reply(types.TextContent(type="text", text="Let me count first."),
             types.ToolUseContent(type="tool_use", id="u1", name="textkit_count",
                                  input={"stdin": "a b", "words": True}), stop_reason="toolUse"),
      _reply()], "no_answer", "held no answer in text"),
], ids=["image only", "empty", "blank text", "cut at max tokens", "empty after an earlier turn's words"])
async def test_a_reply_that_is_no_answer_ends_as_an_error_not_as_an_answer(
    make_settings: Any, steps: list[Any], stop_reason: str, said: str,
) -> None:
    model = ScriptedModel(*steps)
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert result.is_error, text_of(result)
    assert structured(result)["stop_reason"] == stop_reason
    assert said in text_of(result)


async def test_one_reply_asking_for_many_tool_calls_runs_only_so_many_and_tells_the_model(make_settings: Any) -> None:
    from toolbay.subagents.loop import MAX_TOOL_USES_PER_TURN

    asked = MAX_TOOL_USES_PER_TURN + 4
    model = ScriptedModel([("textkit_count", {"stdin": "a", "words": True})] * asked, "Done.")
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert not result.is_error, text_of(result)
    calls = structured(result)["tool_calls"]
    assert len(calls) == asked
    assert [call.get("refusal") for call in calls].count("too_many_calls") == 4
    handed_back = tool_results_in(model.requests[1])
    assert all("Not run: at most" in result_text(block) for block in handed_back[MAX_TOOL_USES_PER_TURN:])
    assert not any("Not run" in result_text(block) for block in handed_back[:MAX_TOOL_USES_PER_TURN])


async def test_a_blank_task_is_refused_before_any_sampling(make_settings: Any) -> None:
    model = ScriptedModel("should not be asked")
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=model, sampling_capabilities=WITH_TOOLS) as client:
                result = await client.call_tool("agent_counter", {"task": "   ", "unit": "words"})
    _never_sampled(model)
    assert result.is_error and "The task is blank" in text_of(result)


async def test_an_agent_job_unfinished_at_a_crash_is_not_run_again_without_its_client(make_settings: Any) -> None:
    import time

    from toolbay.job_recovery import read_jobs_recovery
    from toolbay.jobs.store import JobRecord

    def unfinished(tool: str) -> JobRecord:
        return JobRecord(id="j1", owner="local", tool=tool, status="running", created_at=time.time(),
                         updated_at=time.time(), arguments={"task": "Count.", "unit": "words"})

    async with served(make_settings()) as app:
        recover = read_jobs_recovery(lambda: app.catalog.current)
        # A read-tier tool's job runs again; the agent's would run with no client to sample or
        # to hold its child session, and end "completed" saying no sub-agent was started.
        assert recover(unfinished("textkit_count")) is not None
        assert recover(unfinished("agent_counter")) is None


@pytest.mark.parametrize(("paths", "declares_subagents", "left_out"), [
    ('["envelope"]', False, "sampling"),
    ('["sampling"]', True, "envelope"),
])
async def test_a_fallback_the_configuration_chose_says_so_not_that_the_client_lacks_the_path(
    make_settings: Any, paths: str, declares_subagents: bool, left_out: str,
) -> None:
    extensions = [advertise("toolbay/subagents", {})] if declares_subagents else []
    capabilities = None if declares_subagents else WITH_TOOLS
    callback = None if declares_subagents else ScriptedModel("never")
    async with served(make_settings(f"[subagents]\npaths = {paths}\n")) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, sampling_callback=callback, sampling_capabilities=capabilities,
                                  extensions=extensions) as client:
                result = await client.call_tool("agent_counter", {"task": "Count.", "unit": "words"})
    assert structured(result)["path"] == "fallback"
    assert f"takes the {left_out} path, which this server's [subagents] paths setting" in text_of(result)


async def test_a_required_role_argument_given_empty_is_refused_by_the_arguments_check(make_settings: Any) -> None:
    """Its schema took "" and the tool refused it after the call began ("the argument 'unit' is
    required"): a refusal of the arguments, said as one, before the call (an outside check)."""
    async with served(make_settings()) as app, client_for(app) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        refused = await client.call_tool("agent_counter", {"task": "Count.", "unit": ""})
        blank_role_argument = await client.call_tool("agent_json_reviewer", {"task": "Review.", "path": ""})
    assert listed["agent_counter"].input_schema["properties"]["unit"]["enum"] == ["words", "lines"]
    assert listed["agent_json_reviewer"].input_schema["properties"]["path"]["minLength"] == 1
    assert refused.is_error and "expected one of" in text_of(refused)
    assert blank_role_argument.is_error
    assert "$.path: expected a non-empty string, got an empty one" in text_of(blank_role_argument)
