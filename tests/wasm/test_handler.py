"""WasmHandler: arguments to argv, the run to a result the model can read."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from toolbay.handlers.wasm import WasmHandler, _says_file_error, with_stdin_property
from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime
from toolbay.words import CallContext, PermissionTier, ToolDefinition

pytestmark = pytest.mark.anyio


def positional(arguments: Mapping[str, Any]) -> list[str]:
    """A stand-in for the help-text schema mapping: values in order, lists spread."""
    argv: list[str] = []
    for value in arguments.values():
        argv.extend(str(v) for v in (value if isinstance(value, list) else [value]))
    return argv


def refuse(arguments: Mapping[str, Any]) -> list[str]:
    raise ValueError("option --count needs a number")


def make(runtime: WasmRuntime, module: WasmModule, name: str, *, tier: PermissionTier | None = None,
         to_argv: Callable[[Mapping[str, Any]], list[str]] = positional, **settings: Any) -> WasmHandler:
    definition = ToolDefinition(name=name, description=name, input_schema=with_stdin_property({}), tier=tier)
    settings.setdefault("limits", SandboxLimits(timeout_s=2, stdout_limit_bytes=4096))
    return WasmHandler(definition, runtime, module, program_name=name, to_argv=to_argv, **settings)


async def call(handler: WasmHandler, arguments: Mapping[str, Any], context: CallContext | None = None):  # type: ignore[no-untyped-def]
    with anyio.fail_after(10):
        return await handler.handle(arguments, context or CallContext())


async def test_argv_is_the_program_then_the_subcommand_path_then_the_arguments(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    handler = make(runtime, program("args"), "args", subcommand_path=["text", "count"])
    result = await call(handler, {"a": "one", "b": ["two", "three"]})
    assert json.loads(result.text) == ["args", "text", "count", "one", "two", "three"]


async def test_the_programs_and_a_groups_options_go_where_each_is_read(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    # The schema of "tool db migrate", whose group "db" (and the program) have options of their own
    # that its help does not list: the program's before the path, the group's after its word.
    from toolbay.helptext import HelpRun, build_tool_schema, describe_tree

    helps = {
        (): b"Usage: tool [OPTIONS] COMMAND [ARGS]...\n\nOptions:\n  --verbose  Talk more.\n  --help  Show this.\n"
            b"\nCommands:\n  db  Works on the database.\n",
        ("db",): b"Usage: tool db [OPTIONS] COMMAND [ARGS]...\n\nOptions:\n  --url TEXT  The address.  [required]\n"
                 b"  --help  Show this.\n\nCommands:\n  migrate  Runs one migration.\n",
        ("db", "migrate"): b"Usage: tool db migrate [OPTIONS] NAME\n\nOptions:\n  --dry-run  Only say.\n"
                           b"  --help  Show this.\n",
    }
    [migrate] = describe_tree(lambda argv: HelpRun(helps[tuple(w for w in argv if w.isalpha())], b"", 0), "tool")
    schema = build_tool_schema(migrate.description)
    handler = make(runtime, program("args"), "args", subcommand_path=migrate.path, to_argv=schema.to_argv)
    result = await call(handler, {"url": "u", "verbose": True, "dry_run": True, "name": "n"})
    assert json.loads(result.text) == ["args", "--verbose", "db", "--url", "u", "migrate", "--dry-run", "n"]


async def test_the_stdin_argument_goes_to_standard_input_not_argv(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("echo"), "echo"), {"stdin": "piped text"})
    assert (result.text, result.is_error) == ("piped text", False)


async def test_a_non_string_stdin_is_a_tool_error(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("echo"), "echo"), {"stdin": 42})
    assert result.is_error and "stdin" in result.text


async def test_an_argument_the_mapping_refuses_is_a_tool_error(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("args"), "args", to_argv=refuse), {"count": "x"})
    assert result.is_error and "option --count needs a number" in result.text


async def test_a_json_object_on_stdout_is_also_structured_content(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("json"), "json"), {})
    assert result.structured == {"name": "toolbay", "count": 3, "tags": ["a", "b"]}
    assert json.loads(result.text) == result.structured


@pytest.mark.parametrize(("kind", "structured"), [("array", {"result": [1, 2, 3]}), ("scalar", {"result": 42}),
                                                  ("text", None)])
async def test_other_json_is_wrapped_and_non_json_is_text_only(runtime: WasmRuntime, program, kind: str,  # type: ignore[no-untyped-def]
                                                               structured: object) -> None:
    result = await call(make(runtime, program("json"), "json"), {"kind": kind})
    assert result.structured == structured and not result.is_error


async def test_a_non_zero_exit_is_an_error_naming_the_code_and_stderr(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("exitcode"), "exitcode"), {"code": 4, "message": "no such thing"})
    assert result.is_error
    assert "exit code 4" in result.text and "no such thing" in result.text
    assert result.meta["exit_code"] == 4 and result.structured is None


async def test_an_exit_code_above_125_is_a_failure_the_program_said_not_a_stop(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    # git exits 129 on a usage error; WASI passes 0 to 125 only, so wasmtime refuses the status:
    # "was stopped: exited with an invalid status" read as if something had killed it.
    result = await call(make(runtime, program("exitcode"), "exitcode"), {"code": 129, "message": "usage: ..."})
    assert result.is_error and "was stopped" not in result.text
    assert result.text.startswith("exitcode failed with an exit code above 125 (WASI passes 0 to 125 only).")
    assert "usage: ..." in result.text


async def test_a_trap_is_an_error_naming_the_reason(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("trap"), "trap"), {})
    assert result.is_error and "wasm trap: unreachable" in result.text
    assert result.meta["trap"] == "wasm trap: unreachable" and result.meta["exit_code"] is None


async def test_a_timeout_is_an_error_naming_the_limit(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    handler = make(runtime, program("spin"), "spin", limits=SandboxLimits(timeout_s=0.2))
    result = await call(handler, {})
    assert result.is_error and "timed out after 0.2 s" in result.text


async def test_truncation_is_said_in_the_text_and_the_meta(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    result = await call(make(runtime, program("flood"), "flood"), {"bytes": 100_000})
    assert not result.is_error
    assert result.meta["stdout_truncated"] is True
    assert "stdout truncated" in result.text and "4096 bytes" in result.text
    assert result.meta["duration_ms"] > 0


async def test_a_read_tool_reads_but_cannot_write_the_workspace(runtime: WasmRuntime, program,  # type: ignore[no-untyped-def]
                                                                workspace: Path) -> None:
    handler = make(runtime, program("files"), "files", tier=PermissionTier.READ, workspace=workspace)
    assert (await call(handler, {"c": "read", "p": "/workspace/notes.txt"})).text == "inside the workspace\n"
    refused = await call(handler, {"c": "write", "p": "/workspace/x", "t": "y"})
    # Said as the tier, not left as the guest's "Operation not permitted", which read as a bug.
    assert refused.is_error and "declares 'PermissionLevel: read', so it sees the workspace read-only" \
        in refused.text, refused.text
    assert "read-only" not in (await call(handler, {"c": "read", "p": "/workspace/none"})).text


@pytest.mark.parametrize("given", ["/workspace/outside.txt", "outside.txt", "/workspace/away/secret.txt",
                                   "away/secret.txt", "sub/../outside.txt", "/workspace/sub/../away/secret.txt",
                                   "inside/../outside.txt", "./outside.txt"])
async def test_a_link_out_of_the_workspace_is_said_to_be_one(runtime: WasmRuntime, program,  # type: ignore[no-untyped-def]
                                                             workspace: Path, tmp_path: Path, given: str) -> None:
    """A read-tier tool's note said it sees the workspace read-only: the caller looked for
    what was wrong with its permissions, not at the link."""
    away = tmp_path / "away"
    away.mkdir()
    (away / "secret.txt").write_text("not for the guest")
    (workspace / "outside.txt").symlink_to(away / "secret.txt")
    (workspace / "away").symlink_to(away)
    (workspace / "sub").mkdir()
    (workspace / "inside").symlink_to(workspace / "sub")  # a link that stays inside, then ".."
    handler = make(runtime, program("files"), "files", tier=PermissionTier.READ, workspace=workspace)
    refused = await call(handler, {"c": "read", "p": given})
    assert refused.is_error and "not for the guest" not in refused.text
    assert f"Note: {given} is, or passes through, a link in the workspace that leads out of it" in refused.text
    assert "read-only" not in refused.text and str(away) not in refused.text


async def test_an_undeclared_tool_sees_no_workspace_and_is_told_why(runtime: WasmRuntime, program,  # type: ignore[no-untyped-def]
                                                                    workspace: Path) -> None:
    """With a workspace given, the note said "this tool is given no workspace folder": the
    author looked for what was wrong with the server's, not at the tool's help."""
    handler = make(runtime, program("files"), "files", tier=None, workspace=workspace)
    refused = await call(handler, {"c": "read", "p": "/workspace/notes.txt"})
    assert refused.is_error and "help declares no 'PermissionLevel:'" in refused.text
    without = await call(make(runtime, program("files"), "files", tier=None), {"c": "read", "p": "notes.txt"})
    assert without.is_error and "this tool is given no workspace folder" in without.text


def files_tool(runtime: WasmRuntime, module: WasmModule, workspace: Path, **properties: Any) -> WasmHandler:
    """``files read VALUE``, reading the workspace; ``properties``: the one parameter's schema."""
    definition = ToolDefinition(name="files", description="files", tier=PermissionTier.READ,
                                input_schema=with_stdin_property({"type": "object", "properties": properties}))
    return WasmHandler(definition, runtime, module, program_name="files", workspace=workspace,
                       to_argv=lambda arguments: ["read", *positional(arguments)])


@pytest.mark.parametrize("schema", [
    {"input": {"type": "string"}},                                                  # clap's <INPUT>
    # <INPUT> renamed because an option took "input", and <OUTPUT> because of "--output <FMT>"
    {"input_arg": {"type": "array", "items": {"type": "string"}, "description": "Inputs"}},
    {"output_arg": {"type": "string", "description": "Where results go"}},
    {"config": {"type": "string", "description": "configuration file to read first"}},  # --config=CONFIG
    {"sources": {"type": "array", "items": {"type": "string"}, "description": "the folders to read"}},
    # a name that is most often text's, said to be a path or a file (Go's present -content; a re-check)
    {"content": {"type": "string", "description": "base path for presentation content"}},
    {"body": {"type": "string", "description": "read the request body from this file"}},
    {"pattern": {"type": "string", "description": "file of patterns, one a line"}},
    # an alias of a file option, said by its name (a re-check)
    {"out": {"type": "string", "description": "same as --output-file"}},
])
async def test_a_host_path_reaches_the_file_whenever_the_parameter_names_a_place(  # type: ignore[no-untyped-def]
        runtime: WasmRuntime, program, workspace: Path, schema: dict[str, Any]) -> None:
    """Only ``format: path`` (a FILE, PATH or DIR value name) was mapped: the host path of a
    workspace file given for '<INPUT>' or '--config=CONFIG' was passed as it was."""
    (name, _), = schema.items()
    value: Any = str(workspace / "notes.txt")
    result = await call(files_tool(runtime, program("files"), workspace, **schema),
                        {name: [value] if schema[name]["type"] == "array" else value})
    assert (result.text, result.is_error) == ("inside the workspace\n", False)


@pytest.mark.parametrize("schema", [
    {"pattern": {"type": "string", "description": "what to find"}},
    # jsonkit get's: the word "path" here is the value's own name, not its kind
    {"path": {"type": "string", "description": "PATH is a sequence of object keys separated by dots"}},
    # jsonkit keys' --path: a path, by its words, into a document, not to a file
    {"path": {"type": "string", "description": "path of the object to list, as in 'jsonkit get'"}},
    # hashsum's --text: "file" is another option's name here (an outside check: the text
    # "/home/ann/ws/notes" was hashed as "/workspace/notes")
    {"text": {"type": "string", "description": "hash TEXT. --text and --file cannot be used together."}},
    # text that speaks of files (a second re-check: mapped again by b6224a12)
    {"text": {"type": "string", "description": "the text to write into the file"}},
    {"message": {"type": "string", "description": "commit message, read from a file with -F"}},
    {"pattern": {"type": "string", "description": "pattern to search for in each file"}},
    {"message": {"type": "string", "description": "Same as --message-file, but the text given inline"}},
])
async def test_text_that_names_no_place_is_passed_as_given(runtime: WasmRuntime, program,  # type: ignore[no-untyped-def]
                                                           workspace: Path, schema: dict[str, Any]) -> None:
    (name, _), = schema.items()
    handler = files_tool(runtime, program("files"), workspace, **schema)
    result = await call(handler, {name: str(workspace / "notes.txt")})
    assert result.is_error and f"cannot open {workspace / 'notes.txt'}" in result.text
    assert "give '/workspace/notes.txt', or the path relative to the workspace" in result.text


async def test_a_host_path_outside_the_workspace_is_said_to_be_outside(runtime: WasmRuntime, program,  # type: ignore[no-untyped-def]
                                                                       workspace: Path) -> None:
    handler = files_tool(runtime, program("files"), workspace, file={"type": "string", "format": "path"})
    outside = str(workspace.parent / "secret.txt")
    result = await call(handler, {"file": outside})
    assert result.is_error and "outside the workspace" not in result.text.split("Note:")[0]
    assert f"this tool sees only the workspace folder, at /workspace; {outside} is outside it" in result.text
    climbing = await call(handler, {"file": "data/../../secret.txt"})  # relative, and out of it too
    assert climbing.is_error and "data/../../secret.txt is outside it" in climbing.text
    # The guest's own path, climbing out of it: its note said the tool "sees the workspace
    # read-only; a tool that writes files declares 'PermissionLevel: write'" (an outside check).
    guest_climbing = await call(handler, {"file": "/workspace/../secret.txt"})
    assert guest_climbing.is_error and "/workspace/../secret.txt is outside it" in guest_climbing.text
    assert "read-only" not in guest_climbing.text
    host_climbing = await call(handler, {"file": f"{workspace}/../secret.txt"})  # was said as "/workspace/../"
    assert host_climbing.is_error and f"{workspace}/../secret.txt is outside it" in host_climbing.text
    assert "read-only" not in host_climbing.text


async def test_only_allow_listed_environment_reaches_the_tool(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    handler = make(runtime, program("env"), "env", env_allow=["LANG"],
                   host_env={"LANG": "C.UTF-8", "SECRET_TOKEN": "x"})
    assert (await call(handler, {})).text == "LANG=C.UTF-8\n"


async def test_the_context_cancel_flag_stops_the_call(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    handler = make(runtime, program("spin"), "spin", limits=SandboxLimits(timeout_s=30))
    context = CallContext()
    async with anyio.create_task_group() as tg:
        async def cancel_soon() -> None:
            await anyio.sleep(0.1)
            context.cancelled.set()
        tg.start_soon(cancel_soon)
        result = await call(handler, {}, context)
    assert result.is_error and "cancelled" in result.text


async def test_a_bundled_tool_through_the_handler(runtime: WasmRuntime, bundled) -> None:  # type: ignore[no-untyped-def]
    handler = make(runtime, bundled("hashsum"), "hashsum", to_argv=lambda a: ["--text", a["text"], "-a", "md5"])
    result = await call(handler, {"text": "abc"})
    assert result.text.strip() == "900150983cd24fb0d6963f7d28e17f72"


def test_with_stdin_property_adds_an_optional_string_and_keeps_the_rest() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    extended = with_stdin_property(schema)
    assert extended["properties"]["stdin"] == {
        "type": "string", "description": "Text passed to the program on standard input"}
    assert extended["required"] == ["n"] and "stdin" not in schema["properties"]


async def test_a_successful_run_keeps_its_stderr_apart_from_its_exact_output(runtime: WasmRuntime, program) -> None:  # type: ignore[no-untyped-def]
    from toolbay.protocol.results import tool_result_to_mcp

    result = await call(make(runtime, program("flood"), "flood"), {"bytes": 6})
    assert not result.is_error
    assert result.text == "y\ny\ny\n"  # stdout exactly as printed
    answer = tool_result_to_mcp(result)
    assert [block.text for block in answer.content] == ["y\ny\ny\n", "stderr:\ny\ny\ny\n"]
async def test_a_write_tool_cannot_leave_a_link_out_of_the_workspace(  # type: ignore[no-untyped-def]
    runtime: WasmRuntime, program, tmp_path: Path
) -> None:
    """wasmtime refuses absolute link targets but makes relative ones that climb out; such a
    link is removed after the run and the call fails saying so. Links inside, or older, stay."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("mine", encoding="utf-8")
    (workspace / "old").symlink_to("../../somewhere")  # a person's own, from before
    made = os.lstat(workspace / "old").st_ctime
    probe = tmp_path / "probe"
    with anyio.fail_after(10):  # until the file clock has moved on, so "old" is older than the run
        while probe.write_text("tick", encoding="utf-8") and os.stat(probe).st_ctime < made + 0.2:
            await anyio.sleep(0.01)
    handler = make(runtime, program("symlinker"), "symlinker", tier=PermissionTier.WRITE, workspace=workspace)
    escaping = await call(handler, {"target": "../../../etc/passwd", "path": "/workspace/escape"})
    inside = await call(handler, {"target": "notes.txt", "path": "/workspace/inside"})
    absolute = await call(handler, {"target": "/etc/passwd", "path": "/workspace/absolute"})
    assert escaping.is_error and "escape -> ../../../etc/passwd" in escaping.text
    assert "symbolic links leading out of the workspace" in escaping.text
    assert not (workspace / "escape").is_symlink()
    assert inside.is_error is False and (workspace / "inside").read_text(encoding="utf-8") == "mine"
    assert absolute.is_error and not (workspace / "absolute").exists()  # refused by wasmtime itself
    assert (workspace / "old").is_symlink()


def test_a_successful_run_that_wrote_only_to_stderr_answers_it_as_stderr_not_as_its_output() -> None:
    """A program that logs on stderr and prints nothing (it wrote a file, say) had its log lines
    answered as its output, unlabelled: the model could not tell them from a result."""
    from toolbay.handlers.wasm import tool_result_from_run
    from toolbay.protocol.results import tool_result_to_mcp
    from toolbay.wasm.types import RunResult

    run = RunResult(exit_code=0, stdout=b"", stderr=b'{"warning": "deprecated input"}\n', stdout_truncated=False,
                    stderr_truncated=False, trap=None, duration_s=0.01)
    result = tool_result_from_run("jerr", run, SandboxLimits())
    assert (result.text, result.is_error, result.structured) == ("", False, None)
    assert [block.text for block in tool_result_to_mcp(result).content] == [
        'stderr:\n{"warning": "deprecated input"}\n']


@pytest.mark.parametrize(("argv", "stdin", "stderr", "about_files"), [
    (["files", "read", "data.txt"], None, b"files: data.txt: No such file or directory\n", True),
    # The caller's words echoed back: an argument (also as --key=VALUE) or a line of its input.
    (["jsonkit", "get", "no such file"], None, b'jsonkit: key "no such file" does not exist\n', False),
    (["jsonkit", "get", "--path=no such file"], None, b'jsonkit: key "no such file" does not exist\n', False),
    (["lint"], b"ok\ncannot open the door\n", b"lint: line 2: cannot open the door: unknown verb\n", False),
    # A file named in the caller's words that the guest then says it could not open.
    (["cat", "cannot open"], None, b"cat: cannot open: No such file or directory\n", True),
])
def test_only_the_guests_own_words_about_a_file_earn_the_hint_about_files(
        argv: list[str], stdin: bytes | None, stderr: bytes, about_files: bool) -> None:
    result = RunResult(exit_code=1, stdout=b"", stderr=stderr, stdout_truncated=False, stderr_truncated=False,
                       trap=None, duration_s=0.01)
    assert _says_file_error(result, RunRequest(argv=argv, stdin=stdin)) is about_files


def test_with_the_root_folder_as_workspace_a_link_anywhere_leads_inside_it(tmp_path: Path) -> None:
    """With ``--workspace /``, every link under it was taken to lead out ("//" begins no real path): after
    each run of a tool that may write, any link another program made on the machine meanwhile (a lock
    link, a package manager's) was removed, and a confined Python tool's refusals lost their note.
    The whole walk of ``/`` is not run here: the rule it applies to each link is."""
    from toolbay.workspace_links import inside

    (tmp_path / "lock").symlink_to("../elsewhere/target")
    assert inside(os.path.realpath(tmp_path / "lock"), "/")
    assert inside("/", "/") and inside("/srv/data", "/srv") and not inside("/srv2/data", "/srv")


def test_with_the_root_folder_as_workspace_no_walk_looks_for_links_leading_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing leads out of ``/``, yet after each run of a tool that may write, the whole machine was listed
    (/proc and /sys too): a write that took a millisecond ran on as a job for minutes (an outside check)."""
    import time

    from toolbay import workspace_links

    def listed(folder: object) -> None:
        raise AssertionError(f"{folder} was listed")

    monkeypatch.setattr(workspace_links.os, "scandir", listed)
    assert workspace_links.remove_escaping_links(Path("/"), time.time()) == []
