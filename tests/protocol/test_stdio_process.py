"""The process boundary: `python -m server serve` over stdio, driven by the SDK's client,
as Claude Code starts it from `.mcp.json`."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO_ROOT, as_if_run_before, patient_start
from tests.protocol.hostile_messages import HOSTILE_MESSAGES

pytestmark = pytest.mark.anyio


def _server_params(extensions: Path, data_dir: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", str(data_dir), *extra],
        cwd=str(REPO_ROOT),
        env=patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)}),
    )


async def test_a_stdio_client_lists_and_calls_the_bundled_tools(extensions_dir: Path, shared_data_dir: Path) -> None:
    with anyio.fail_after(300):  # a cold start describes the bundled tools first
        async with Client(_server_params(extensions_dir, shared_data_dir), mode="legacy") as client:
            tools = await client.list_tools()
            result = await client.call_tool("hashsum", {"text": "hello", "algorithm": "md5"})
            # A document nested past the client's parser (200 levels) comes as text alone:
            # sent as structured content too, the client refused the answer and waited for ever.
            deep_text = "[" * 199 + "]" * 199
            deep = await client.call_tool("jsonkit_fmt", {"stdin": deep_text, "compact": True})
            shallow = await client.call_tool("jsonkit_fmt", {"stdin": '{"a": [1]}', "compact": True})
    assert "hashsum" in {tool.name for tool in tools.tools}
    assert result.is_error is False
    assert hashlib.md5(b"hello").hexdigest() in result.content[0].text
    assert deep.is_error is False and deep.content[0].text.strip() == deep_text
    assert deep.structured_content is None and "nested too deeply" in deep.meta["toolbay/structured_omitted"]
    assert shallow.structured_content == {"a": [1]}


async def test_the_mcp_json_at_the_root_starts_toolbay_over_stdio(shared_data_dir: Path) -> None:
    default_data_dir = Path(os.environ["XDG_DATA_HOME"]) / "toolbay"
    if not default_data_dir.exists():  # another test of this process may have served from it
        as_if_run_before(default_data_dir, shared_data_dir)
    config = json.loads((REPO_ROOT / ".mcp.json").read_text())
    entry = config["mcpServers"]["toolbay"]
    params = StdioServerParameters(
        command=sys.executable if entry["command"].startswith("python") else entry["command"],
        args=entry["args"],
        cwd=str(REPO_ROOT),
        env=patient_start({**os.environ, **entry.get("env", {})}),
    )
    # uv may first make the checkout's environment: patient, as a client's first start is.
    with anyio.fail_after(600):
        async with Client(params, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            counted = await client.call_tool("textkit_count", {"lines": True, "file": ["README.md"]})
    assert {"hashsum", "textkit_count"} <= names
    # With no --data-dir, the server keeps its data under $XDG_DATA_HOME/toolbay: during tests
    # the session's temporary home (tests/conftest.py), never the user's.
    data_dir = Path(os.environ["XDG_DATA_HOME"]) / "toolbay"
    assert Path(os.environ["HOME"]).name.startswith("toolbay-tests-home-")
    assert data_dir.is_relative_to(os.environ["HOME"]) and any((data_dir / "modules").iterdir())
    # The project folder is the workspace, so read tools see the project's files.
    readme_lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert counted.is_error is False
    assert counted.content[0].text.split()[0] == str(readme_lines)


async def test_a_client_that_closes_its_input_and_reads_no_answers_lets_the_server_end_cleanly(
    extensions_dir: Path, shared_data_dir: Path, tmp_path: Path
) -> None:
    """Several megabytes of answers are never read: the server drops them, says so, exits 0."""
    requests = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    requests += [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(1, 200)]
    log = tmp_path / "stderr.txt"
    params = _server_params(extensions_dir, shared_data_dir)
    with log.open("wb") as stderr:
        async with await anyio.open_process([params.command, *params.args], cwd=params.cwd, env=params.env,
                                            stderr=stderr) as process:
            assert process.stdin is not None
            await process.stdin.send(b"".join(json.dumps(request).encode() + b"\n" for request in requests))
            await process.stdin.aclose()
            with anyio.fail_after(90):
                returncode = await process.wait()
    said = log.read_text(encoding="utf-8")
    assert returncode == 0, said
    assert "the client did not read its last answers: dropped" in said
    assert "Traceback" not in said




async def test_deep_nesting_and_lone_surrogates_get_json_rpc_errors_on_stdio_and_the_session_goes_on(
    extensions_dir: Path, shared_data_dir: Path, tmp_path: Path
) -> None:
    lines = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        *HOSTILE_MESSAGES.values(),
        # NaN is no JSON, but the protocol's parser takes it; it passed "minimum: 0" and then
        # failed inside job_wait as an internal error.
        '{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "job_wait", '
        '"arguments": {"job_id": "j-1", "timeout_s": NaN}}}',
        json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"})]
    params = _server_params(extensions_dir, shared_data_dir)
    with anyio.fail_after(90):
        done = await anyio.run_process([params.command, *params.args], cwd=params.cwd, env=params.env,
                                       input="\n".join(lines).encode() + b"\n", check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [answer["error"] for answer in answers if "error" in answer]
    assert [error["code"] for error in errors] == [-32700] * len(HOSTILE_MESSAGES), answers
    assert "recursion limit exceeded" in errors[0]["message"]
    # The lone surrogate's request is answered under its own id, saying what is wrong.
    [lone] = [answer for answer in answers if "lone UTF-16 surrogate" in answer.get("error", {}).get("message", "")]
    assert lone["id"] == 12 and "\\ud800" in lone["error"]["message"]
    [long] = [answer for answer in answers if "an integer of 5000 digits" in answer.get("error", {}).get("message", "")]
    assert long["id"] == 15
    # Nested deeper than either reader takes, after its id: answered under it, where its sender
    # waited for an answer to its id (a re-check).
    deep = [answer["id"] for answer in answers
            if "recursion limit exceeded" in answer.get("error", {}).get("message", "")]
    assert sorted(deep, key=str) == sorted([None, 11, 14], key=str), answers
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in answers
    [nan] = [answer["result"] for answer in answers if answer.get("id") == 13]
    assert nan["isError"] and "$.timeout_s: NaN is not a JSON number" in nan["content"][0]["text"]
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr


async def test_the_server_starts_on_a_damaged_job_database_and_keeps_it_aside(
    extensions_dir: Path, tmp_path: Path, shared_data_dir: Path
) -> None:
    data_dir = as_if_run_before(tmp_path / "data", shared_data_dir)
    (data_dir / "jobs.sqlite3").write_bytes(b"this is not an SQLite database" * 100)
    params = _server_params(extensions_dir, data_dir)
    with anyio.fail_after(120):
        async with Client(params, mode="legacy") as client:
            result = await client.call_tool("hashsum", {"text": "abc"})
    assert result.is_error is False
    [kept] = [p for p in data_dir.iterdir() if p.name.startswith("jobs.sqlite3.damaged-")]
    assert kept.read_bytes() == b"this is not an SQLite database" * 100


def _declared_versions() -> dict[str, str]:
    """Each bundled program's version as its source declares it (not as toolbay reads it)."""
    sources = REPO_ROOT / "tools-src"
    cargo = (sources / "textkit" / "Cargo.toml").read_text()
    go = (sources / "jsonkit" / "main.go").read_text()
    c = (sources / "hashsum" / "main.c").read_text()
    return {
        "textkit": re.search(r'^version = "([^"]+)"', cargo, re.MULTILINE).group(1),  # type: ignore[union-attr]
        "jsonkit": re.search(r'\bversion\s+= "([^"]+)"', go).group(1),  # type: ignore[union-attr]
        "hashsum": re.search(r'#define VERSION "([^"]+)"', c).group(1),  # type: ignore[union-attr]
    }


async def test_each_listed_tool_carries_its_programs_version_in_meta(extensions_dir: Path,
                                                                     shared_data_dir: Path) -> None:
    with anyio.fail_after(300):  # a cold start describes the bundled tools first
        async with Client(_server_params(extensions_dir, shared_data_dir), mode="legacy") as client:
            tools = (await client.list_tools()).tools
    declared = _declared_versions()
    versions = {tool.name: (tool.meta or {}).get("toolbay/version") for tool in tools
                if tool.name.split("_")[0] in declared}
    # Every subcommand tool of a program carries the root's version (jsonkit_get, textkit_count...).
    assert {name.split("_")[0] for name in versions} == set(declared)
    assert all(version == declared[name.split("_")[0]] for name, version in versions.items()), versions
