"""Quick tools run on the calling thread; a tool that turns out slow is moved to workers
without the caller noticing anything but the right answer."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from toolbay.handlers.wasm import WasmHandler, with_stdin_property
from toolbay.wasm import Preopen, RunRequest, SandboxLimits, WasmModule, WasmRuntime
from toolbay.wasm.quick import FIRST_PROOF, QuickRunRecord
from toolbay.words import CallContext, PermissionTier, ToolDefinition

pytestmark = pytest.mark.anyio

Program = Callable[[str], WasmModule]


def flags(arguments: Mapping[str, Any]) -> list[str]:
    return [f"--{name}={value}" for name, value in arguments.items()]


def make(runtime: WasmRuntime, module: WasmModule, name: str, **settings: Any) -> WasmHandler:
    definition = ToolDefinition(name=name, description=name, input_schema=with_stdin_property({}),
                                tier=settings.pop("tier", None))
    settings.setdefault("limits", SandboxLimits(timeout_s=5, stdout_limit_bytes=4096))
    return WasmHandler(definition, runtime, module, program_name=name, to_argv=flags, **settings)


def test_a_tool_starts_trusted_and_two_slow_runs_in_a_row_send_it_to_workers_until_it_proves_quick_again(
) -> None:
    record = QuickRunRecord()  # ran_here / ran_on_worker(processor time, sleep)
    assert record.trusted
    record.ran_here(0.0005, 0.0004)
    assert record.trusted
    record.ran_here(0.004, 0.0)  # too much processor time for the loop: once may be the machine
    assert record.trusted
    record.ran_here(0.0005, 0.0004)
    record.ran_here(0.0001, 0.006)  # slept too long: once
    assert record.trusted
    record.ran_here(0.004, 0.0)  # twice in a row: the tool
    assert not record.trusted
    for _ in range(FIRST_PROOF - 1):
        record.ran_on_worker(0.0005, 0.0004)
    assert not record.trusted
    record.ran_on_worker(0.0005, 0.0004)
    assert record.trusted


def test_each_overrun_doubles_the_quick_runs_needed_and_a_slow_worker_run_starts_the_count_again() -> None:
    record = QuickRunRecord()
    record.overran()
    record.overran()
    for _ in range(2 * FIRST_PROOF - 1):
        record.ran_on_worker(0.0005, 0.0004)
    record.ran_on_worker(0.0001, 0.5)  # slept: held its thread for long
    for _ in range(2 * FIRST_PROOF - 1):
        record.ran_on_worker(0.0005, 0.0004)
    assert not record.trusted
    record.ran_on_worker(0.0005, 0.0004)
    assert record.trusted


async def test_a_quick_tool_is_answered_at_once_with_the_same_result_as_a_worker_run(
    runtime: WasmRuntime, program: Program
) -> None:
    handler = make(runtime, program("echo"), "echo")
    on_worker = await handler.handle({"stdin": "same either way"}, CallContext())
    at_once = handler.answer_at_once({"stdin": "same either way"}, CallContext())
    assert at_once is not None
    assert (at_once.text, at_once.is_error) == (on_worker.text, on_worker.is_error) == ("same either way", False)


async def test_a_tool_that_outlives_the_budget_is_void_then_answered_whole_on_a_worker(
    runtime: WasmRuntime, program: Program
) -> None:
    handler = make(runtime, program("slow"), "slow")
    await handler.handle({"ms": 0}, CallContext())  # loads the module; a quick run
    assert handler.answer_at_once({"ms": 0, "step": 1}, CallContext()) is not None
    # 300 ms of work: the run on the calling thread is stopped at its budget and is void ...
    assert handler.answer_at_once({"ms": 300, "step": 5}, CallContext()) is None
    # ... the tool is now run on workers, where the call gets its full answer.
    assert handler.answer_at_once({"ms": 0, "step": 1}, CallContext()) is None
    result = await handler.handle({"ms": 300, "step": 5}, CallContext())
    assert (result.text.strip(), result.is_error) == ("done", False)
    assert result.meta["duration_ms"] >= 300


async def test_a_tool_that_can_write_files_never_runs_on_the_calling_thread(
    runtime: WasmRuntime, program: Program, tmp_path: Path
) -> None:
    handler = make(runtime, program("echo"), "echo", tier=PermissionTier.WRITE, workspace=tmp_path)
    await handler.handle({"stdin": "x"}, CallContext())
    assert handler.answer_at_once({"stdin": "x"}, CallContext()) is None
    with pytest.raises(ValueError, match="must not run twice"):
        runtime.run_quick(program("echo"), RunRequest(argv=["echo"], preopens=[Preopen(tmp_path, "/w", True)]), 0.02)


async def test_a_runtime_with_no_quick_budget_always_uses_workers(tmp_path: Path) -> None:
    from tests.conftest import FIXTURE_WASM

    runtime = WasmRuntime(tmp_path / "cache", quick_budget_s=0)
    try:
        handler = make(runtime, runtime.load(FIXTURE_WASM / "echo.wasm"), "echo")
        assert handler.answer_at_once({"stdin": "x"}, CallContext()) is None
        assert (await handler.handle({"stdin": "x"}, CallContext())).text == "x"
    finally:
        runtime.close()


def test_a_quick_run_descheduled_midway_is_neither_void_nor_judged_slow(
    runtime: WasmRuntime, program: Program
) -> None:
    """The whole process is stopped (SIGSTOP, as a busy machine deschedules it) for 150 ms
    while quick runs go on one after another. The run caught by the stop takes long on the wall
    clock, far past the 20 ms budget, but uses no more processor time than its neighbours: it is
    not void, and it leaves a quick tool quick. (On a crowded virtual machine a run's processor
    time is itself inflated now and then, by time stolen from the machine, so an attempt where
    that happened to the caught run is tried again; judged by the wall clock, no attempt could
    ever pass.)"""
    echo = program("echo")
    request = RunRequest(argv=["echo"], stdin=b"still here", limits=SandboxLimits(timeout_s=5))
    runtime.run_quick(echo, request, 0.02)  # the first run pays for setting things up
    pause_s = 0.15
    seen = []
    for _attempt in range(20):
        stopper = subprocess.Popen(
            ["sh", "-c", f"sleep 0.05; kill -STOP {os.getpid()}; sleep {pause_s}; kill -CONT {os.getpid()}"])
        results = []
        while stopper.poll() is None:
            results.append(runtime.run_quick(echo, request, 0.02))
        # None: void (the stop landed inside that run and it was judged over budget), or the
        # machine stole enough time to put a run over it.
        for run in results:
            if run is not None and run.duration_s >= pause_s * 0.8:  # the stop landed inside this run
                assert run.stdout == b"still here"
                record = QuickRunRecord()
                record.ran_here(run.cpu_s, run.waited_s)
                if record.trusted:
                    return
                seen.append((run.cpu_s, run.waited_s, run.duration_s))
    pytest.fail(f"no run caught by the stop was judged quick in 20 attempts (cpu, slept, wall): {seen}")
