"""Role files as MCP prompts, seen by the SDK's real client: list, get, complete, the
list_changed a new role file brings, and a broken role file listed with its reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from typer.testing import CliRunner

from tests.agents.conftest import WAIT_S, client_for, served, text_of
from tests.conftest import BUNDLED_EXTENSIONS, REPO_ROOT
from tests.reload.conftest import ListChanged, RescanSpy
from toolbay.cli import app as cli_app

pytestmark = pytest.mark.anyio

BROKEN = "---\nname: broken\ndescription: [not closed\n---\nbody\n"


async def test_roles_are_listed_as_prompts_with_their_arguments(make_settings: Any) -> None:
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app) as client:
                capabilities = client.server_capabilities
                listed = await client.list_prompts()
    assert capabilities.prompts is not None and capabilities.prompts.list_changed is True
    assert capabilities.completions is not None
    prompts = {prompt.name: prompt for prompt in listed.prompts}
    assert set(prompts) == {"counter", "help-checker", "json-reviewer", "recurse", "text-cleanup"}
    reviewer = prompts["json-reviewer"]
    assert reviewer.description and reviewer.description.startswith("Reviews a JSON")
    assert [(a.name, a.required) for a in reviewer.arguments or []] == [("path", True), ("strictness", False)]
    assert (reviewer.meta or {})["toolbay/tool"] == "agent_json_reviewer"


async def test_get_fills_the_arguments_and_refuses_a_missing_required_one(make_settings: Any) -> None:
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app) as client:
                got = await client.get_prompt("json-reviewer", {"path": "app/conf.json", "strictness": "strict"})
                with pytest.raises(MCPError) as missing:
                    await client.get_prompt("json-reviewer", {"strictness": "strict"})
                with pytest.raises(MCPError) as outside:
                    await client.get_prompt("json-reviewer", {"path": "a.json", "strictness": "furious"})
                with pytest.raises(MCPError) as unknown:
                    await client.get_prompt("no-such-role")
                with pytest.raises(MCPError) as misspelt:  # was dropped silently
                    await client.get_prompt("json-reviewer", {"path": "a.json", "strictnes": "strict"})
    [message] = got.messages
    assert message.role == "user"
    text = message.content.text  # type: ignore[union-attr]
    assert "You review `app/conf.json`.\nStrictness asked for: strict (" in text and "{{" not in text
    assert missing.value.error.code == types.INVALID_PARAMS
    assert "'path' is required" in missing.value.error.message
    assert outside.value.error.code == types.INVALID_PARAMS and "lenient, strict" in outside.value.error.message
    assert unknown.value.error.code == types.INVALID_PARAMS and "json-reviewer" in unknown.value.error.message
    assert misspelt.value.error.code == types.INVALID_PARAMS
    assert misspelt.value.error.message == ("prompt 'json-reviewer' takes no argument 'strictnes'; its arguments: "
                                            "path, strictness")


async def test_completion_offers_an_arguments_choices(make_settings: Any) -> None:
    async with served(make_settings()) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app) as client:
                reference = types.PromptReference(type="ref/prompt", name="text-cleanup")
                style = await client.complete(reference, {"name": "style", "value": "t"})
                every = await client.complete(reference, {"name": "style", "value": ""})
                free = await client.complete(reference, {"name": "fixes", "value": "a"})
    assert style.completion.values == ["tidy", "title-case"]
    assert every.completion.values == ["tidy", "sorted-unique", "lowercase", "title-case"]
    assert free.completion.values == []


async def test_a_new_role_file_is_announced_a_broken_edit_keeps_the_last_good_one_and_deleting_removes_it(
    make_settings: Any, agents_dir: Path
) -> None:
    changed = ListChanged(types.PromptListChangedNotification)
    # A role read after greeter: greeter's kept version came after it, and the unchanged prompt
    # list was told as changed.
    (agents_dir / "zeta.md").write_text("---\nname: zeta\ndescription: Last.\n---\nBe last.\n", encoding="utf-8")
    async with served(make_settings(), watch=True) as app:
        with anyio.fail_after(WAIT_S):
            async with client_for(app, message_handler=changed) as client:
                seen = changed.count
                (agents_dir / "greeter.md").write_text(
                    "---\nname: greeter\ndescription: Greets.\n---\nSay hello.\n", encoding="utf-8")
                await changed.after(seen)
                names = {prompt.name for prompt in (await client.list_prompts()).prompts}
                tools = {tool.name for tool in (await client.list_tools()).tools}
                rescans = RescanSpy(app)
                started = rescans.started
                before_broken = changed.count
                (agents_dir / "greeter.md").write_text(BROKEN, encoding="utf-8")
                await rescans.one_started_after(started)
                kept = await client.get_prompt("greeter")  # after any notification the rescan sent
                told_of_the_broken_save = changed.count - before_broken
                [skipped] = [s for s in app.skipped_files if s.path.endswith("greeter.md")]
                seen = changed.count
                (agents_dir / "greeter.md").unlink()
                await changed.after(seen)
                after = {prompt.name for prompt in (await client.list_prompts()).prompts}
                tools_after = {tool.name for tool in (await client.list_tools()).tools}
    assert "greeter" in names and "agent_greeter" in tools
    assert kept.messages[0].content.text == "Say hello."  # type: ignore[union-attr]
    assert told_of_the_broken_save == 0
    assert "not valid YAML" in skipped.reason and "previous version is still served" in skipped.reason
    assert "greeter" not in after and "agent_greeter" not in tools_after
    assert not [s for s in app.skipped_files if s.path.endswith("greeter.md")]


async def test_a_role_file_named_in_bytes_that_are_not_utf8_is_refused_unread_and_the_watch_holds(
    make_settings: Any, agents_dir: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Each rescan read the file, the folder watch (watchfiles) gave up on that access, and the
    watch begun again after the next rescan gave up again: twice a second for as long as the
    server ran, each time with a rescan of every folder."""
    with open(os.fsencode(agents_dir) + b"/r\xe9vision.md", "w") as handle:
        handle.write("---\nname: revision\ndescription: Revises.\n---\nRevise.\n")
    changed = ListChanged(types.PromptListChangedNotification)
    with caplog.at_level("DEBUG", logger="toolbay.watcher"):
        async with served(make_settings(), watch=True) as app:
            with anyio.fail_after(WAIT_S):
                async with client_for(app, message_handler=changed) as client:
                    for name in ("first", "second"):  # the second is heard after the first's rescan read the folder
                        seen = changed.count
                        (agents_dir / f"{name}.md").write_text(
                            f"---\nname: {name}\ndescription: New.\n---\nGo.\n", encoding="utf-8")
                        await changed.after(seen)
                    names = {prompt.name for prompt in (await client.list_prompts()).prompts}
                [skipped] = [s for s in app.skipped_files if "vision.md" in s.path]
    assert {"first", "second"} <= names and "revision" not in names
    assert "its path is not valid UTF-8" in skipped.reason
    assert not [said for said in _watcher_said(caplog) if "watching the folders failed" in said]


async def test_a_watch_given_up_on_a_name_not_utf8_says_why_once_and_goes_on(
    make_settings: Any, agents_dir: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """watchfiles gives up on any change to such a file, in a task group: the warning said
    "unhandled errors in a TaskGroup (1 sub-exception)", not why."""
    changed = ListChanged(types.PromptListChangedNotification)
    with caplog.at_level("WARNING", logger="toolbay.watcher"):
        async with served(make_settings(), watch=True) as app:
            with anyio.fail_after(WAIT_S):
                async with client_for(app, message_handler=changed) as client:
                    await client.list_prompts()
                    with open(os.fsencode(agents_dir) + b"/r\xe9vision.md", "w") as handle:
                        handle.write("---\nname: revision\ndescription: Revises.\n---\nRevise.\n")
                    seen = changed.count
                    (agents_dir / "later.md").write_text("---\nname: later\ndescription: New.\n---\nGo.\n",
                                                         encoding="utf-8")
                    await changed.after(seen)
                    while not _watcher_said(caplog):  # before or after the later file's rescan
                        await anyio.sleep(0.01)
    [warned] = _watcher_said(caplog)
    assert "watching the folders failed" in warned and "Unable to decode path" in warned, warned


def _watcher_said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "toolbay.watcher"]


def test_toolbay_list_shows_a_broken_role_file_with_its_reason(
    tmp_path: Path, shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "roles"
    folder.mkdir()
    (folder / "broken.md").write_text(BROKEN, encoding="utf-8")
    (folder / "fine.md").write_text("---\nname: fine\ndescription: Fine.\n---\nBe fine.\n", encoding="utf-8")
    monkeypatch.setenv("TOOLBAY_AGENTS", json.dumps([str(folder)]))
    result = CliRunner().invoke(cli_app, ["list", "--json", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    assert [(Path(s["path"]).name, "not valid YAML" in s["reason"]) for s in listing["skipped"]] == [
        ("broken.md", True)]
    fine = next(tool for tool in listing["tools"] if tool["name"] == "agent_fine")
    assert fine["source"] == "agent" and fine["parameters"] == ["task"]
    table = CliRunner().invoke(cli_app, ["list", "--data-dir", str(shared_data_dir)], env={"COLUMNS": "400"})
    assert "skipped files" in table.stdout
    assert f"{folder / 'broken.md'} │ front matter is not valid YAML" in table.stdout


def test_over_stdio_a_client_declaring_the_experimental_capability_gets_the_raw_envelope(
    agents_dir: Path, shared_data_dir: Path
) -> None:
    """The capability as a client other than the SDK's declares it: under ``experimental``,
    on the wire, and the envelope read back as ``_meta._subagent``."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "clientInfo": {"name": "child-session-runner", "version": "1"},
            "capabilities": {"experimental": {"toolbay/subagents": {"version": 1}}}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "agent_text_cleanup", "arguments": {"task": "Tidy this.", "style": "lowercase"}}},
    ]
    env = {**os.environ, "TOOLBAY_AGENTS": json.dumps([str(agents_dir)])}
    process = subprocess.run(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(BUNDLED_EXTENSIONS),
         "--data-dir", str(shared_data_dir)],
        input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True, text=True, cwd=REPO_ROOT,
        env=env, timeout=120,
    )
    answers = {m.get("id"): m for m in map(json.loads, process.stdout.splitlines())}
    assert 2 in answers, process.stderr[-3000:]
    result = answers[2]["result"]
    envelope = result["_meta"]["_subagent"]
    assert envelope["role"] == "text-cleanup" and envelope["task"] == "Tidy this."
    assert "Style lowercase" in envelope["prompt"]
    assert {tool["name"] for tool in envelope["tools"]} >= {"textkit_replace", "textkit_sort", "textkit_case"}
    assert all("inputSchema" in tool for tool in envelope["tools"])
    assert result["_meta"]["toolbay/delegation"] == "envelope"
    assert "text-cleanup" in text_of(types.CallToolResult.model_validate(result))


def test_toolbay_call_of_an_agent_tool_prints_the_role_to_act_in(shared_data_dir: Path) -> None:
    arguments = json.dumps({"task": "Review it.", "path": "conf.json"})
    result = CliRunner().invoke(cli_app, ["call", "agent_json_reviewer", "--args", arguments,
                                          "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("No sub-agent was started (no MCP client is connected)")
    assert "You review `conf.json`" in result.stdout and "jsonkit_validate, jsonkit_fmt" in result.stdout
