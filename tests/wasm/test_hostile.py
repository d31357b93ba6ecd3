"""Hostile programs end as clear tool errors within their limit, and the runtime keeps serving."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from toolbay.handlers.wasm import WasmHandler
from toolbay.wasm import SandboxLimits, WasmModule, WasmRuntime
from toolbay.words import CallContext, PermissionTier, ToolDefinition, ToolResult

pytestmark = pytest.mark.anyio

LIMITS = SandboxLimits(timeout_s=1.0, memory_mb=32, stdout_limit_bytes=16 * 1024, stderr_limit_bytes=1024)

HOSTILE: dict[str, tuple[list[str], str | tuple[str, ...]]] = {
    "runaway loop": (["spin"], "timed out after 1 s"),
    "host sleep": (["sleeper", "3600"], "timed out after 1 s"),
    "memory bomb": (["membomb"], "memory limit of 32 MiB reached"),
    # Stopped for its flood (tested alone below with a time limit it cannot reach), or by the
    # clock on a machine too slow to write that much in a second.
    "output flood": (["flood"], ("far past its output limit", "timed out after 1 s")),
    "trap": (["trap"], "wasm trap: unreachable"),
    "stack overflow": (["recurse"], "stack overflow"),
    "help that never ends": (["helpforever", "--help"], ("far past its output limit", "timed out after 1 s")),
}


def handler_for(runtime: WasmRuntime, module: WasmModule, argv: list[str], workspace: Path) -> WasmHandler:
    definition = ToolDefinition(name=argv[0], description="hostile", input_schema={}, tier=PermissionTier.WRITE)
    return WasmHandler(definition, runtime, module, program_name=argv[0], to_argv=lambda _: argv[1:],
                       limits=LIMITS, workspace=workspace)


@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_a_hostile_call_ends_as_a_clear_error_at_its_limit(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], workspace: Path, case: str) -> None:
    """The reason names the limit that stopped it; a sandbox that let it run on would end
    past the guard (or never: ``sleeper`` asks for an hour). How soon past the limit a stop
    comes is a figure of bench/bench_hostile.py, not of this test."""
    argv, reason = HOSTILE[case]
    handler = handler_for(runtime, program(argv[0]), argv, workspace)
    with anyio.fail_after(LIMITS.timeout_s + 10):
        result = await handler.handle({}, CallContext())
    reasons = (reason,) if isinstance(reason, str) else reason
    assert result.is_error and any(said in result.text for said in reasons), result.text[:300]
    assert len(result.text) < LIMITS.stdout_limit_bytes + LIMITS.stderr_limit_bytes + 1024


async def test_a_guest_that_floods_its_output_is_stopped_long_before_its_time_limit(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], workspace: Path) -> None:
    """A flood was kept to the output limit and dropped beyond it, but the guest ran on to its
    time limit, 15 minutes of a core by default. A tool that writes somewhat more than the limit
    still finishes (tests/wasm/test_handler.py)."""
    limits = SandboxLimits(timeout_s=600, memory_mb=32, stdout_limit_bytes=16 * 1024, stderr_limit_bytes=1024)
    definition = ToolDefinition(name="flood", description="hostile", input_schema={}, tier=PermissionTier.WRITE)
    handler = WasmHandler(definition, runtime, program("flood"), program_name="flood", to_argv=lambda _: [],
                          limits=limits, workspace=workspace)
    with anyio.fail_after(120):
        result = await handler.handle({}, CallContext())
    # The fixture floods both streams; whichever passes its mark first is named, with what was kept.
    said = ("it went on writing to stdout far past its output limit (16 KiB kept, ",
            "it went on writing to stderr far past its output limit (1 KiB kept, ")
    assert result.is_error and any(words in result.text for words in said), result.text[:300]
    assert "timed out" not in result.text


async def test_every_other_call_is_answered_while_all_hostile_calls_run(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], workspace: Path) -> None:
    hostile = [handler_for(runtime, program(argv[0]), argv, workspace) for argv, _ in HOSTILE.values()]
    friendly = handler_for(runtime, program("args"), ["args", "still", "here"], workspace)
    hostile_results: list[ToolResult] = []
    friendly_results: list[ToolResult] = []

    async def run_hostile(handler: WasmHandler) -> None:
        hostile_results.append(await handler.handle({}, CallContext()))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            for handler in hostile:
                tg.start_soon(run_hostile, handler)
            for _ in range(5):
                friendly_results.append(await friendly.handle({}, CallContext()))
    assert all(r.is_error for r in hostile_results) and len(hostile_results) == len(hostile)
    assert all(not r.is_error and "still" in r.text for r in friendly_results)


@pytest.mark.parametrize("path", ["/workspace/../secret.txt", "/etc/shadow", "../secret.txt", "/proc/self/maps"])
async def test_file_system_snooping_finds_nothing_outside_the_workspace(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], workspace: Path, path: str) -> None:
    handler = handler_for(runtime, program("files"), ["files", "read", path], workspace)
    result = await handler.handle({}, CallContext())
    assert result.is_error and "outside the workspace" not in result.text


@pytest.mark.parametrize("argument", ["; cat /etc/passwd", "$(id)", "`id`", "a\nb", "--help", "../../etc/passwd"])
async def test_argument_injection_reaches_the_program_as_one_plain_argument(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], workspace: Path, argument: str) -> None:
    definition = ToolDefinition(name="args", description="", input_schema={})
    handler = WasmHandler(definition, runtime, program("args"), program_name="args",
                          to_argv=lambda a: [a["value"]], limits=LIMITS)
    result = await handler.handle({"value": argument}, CallContext())
    assert result.structured == {"result": ["args", argument]}
