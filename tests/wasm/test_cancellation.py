"""Cancellation: a cancelled call's guest stops within a second, and others keep running."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import anyio
import pytest

from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime

LONG = SandboxLimits(timeout_s=30)


@pytest.mark.parametrize("argv", [
    ["spin"], ["sleeper", "3600"], ["slow", "--ms", "20000"], ["slow", "--busy", "--ms", "20000"],
], ids=["busy-loop", "host-sleep", "short-sleeps", "busy-work"])
def test_setting_the_cancel_flag_stops_the_guest_within_a_second(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], argv: list[str]) -> None:
    cancel = threading.Event()
    threading.Timer(0.1, cancel.set).start()
    result = runtime.run(program(argv[0]), RunRequest(argv=argv, limits=LONG), cancel)
    assert result.trap == "cancelled"
    assert result.duration_s < 0.1 + 1.0


def test_a_call_cancelled_before_it_starts_never_runs(runtime: WasmRuntime,
                                                      program: Callable[[str], WasmModule]) -> None:
    cancel = threading.Event()
    cancel.set()
    result = runtime.run(program("args"), RunRequest(argv=["args"]), cancel)
    assert result.trap == "cancelled" and result.stdout == b""


@pytest.mark.anyio
async def test_cancelling_the_awaiting_task_stops_the_guest_and_reraises(
        runtime: WasmRuntime, program: Callable[[str], WasmModule]) -> None:
    cancel = threading.Event()
    cancelled = False
    with anyio.fail_after(5):
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                async def stop_soon() -> None:
                    await anyio.sleep(0.1)
                    scope.cancel()
                tg.start_soon(stop_soon)
                try:
                    await runtime.run_async(program("spin"), RunRequest(argv=["spin"], limits=LONG), cancel)
                except anyio.get_cancelled_exc_class():
                    cancelled = True
                    raise
    assert cancelled and cancel.is_set()


@pytest.mark.anyio
async def test_the_event_loop_keeps_serving_while_guests_run(
        runtime: WasmRuntime, program: Callable[[str], WasmModule]) -> None:
    cancel = threading.Event()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(runtime.run_async, program("sleeper"), RunRequest(argv=["sleeper"], limits=LONG), cancel)
            ticks = 0
            started = time.monotonic()
            while time.monotonic() - started < 0.2:
                await anyio.sleep(0.01)
                ticks += 1
            assert ticks >= 10
            cancel.set()


@pytest.mark.anyio
async def test_other_calls_are_answered_while_a_hostile_call_runs(
        runtime: WasmRuntime, program: Callable[[str], WasmModule]) -> None:
    cancel = threading.Event()
    answers: list[RunResult] = []
    hostile = RunRequest(argv=["spin"], limits=SandboxLimits(timeout_s=20))
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(runtime.run_async, program("spin"), hostile, cancel)
            for i in range(10):
                answers.append(await runtime.run_async(program("args"), RunRequest(argv=["args", str(i)])))
            cancel.set()
    assert all(a.ok for a in answers)


@pytest.mark.anyio
async def test_calls_run_in_parallel_up_to_the_worker_limit(runtime: WasmRuntime,
                                                            program: Callable[[str], WasmModule]) -> None:
    request = RunRequest(argv=["slow", "--ms", "300", "--step", "5"])
    results: list[RunResult] = []

    async def one() -> None:
        results.append(await runtime.run_async(program("slow"), request))

    started = time.monotonic()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            for _ in range(runtime.max_workers):
                tg.start_soon(one)
    assert all(r.ok for r in results) and len(results) == runtime.max_workers
    # Sleeping guests overlap: far less than running them one after the other.
    assert time.monotonic() - started < 0.3 * runtime.max_workers + 0.25
