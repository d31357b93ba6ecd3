"""Cancellation: a cancelled call's guest stops within a second, and others keep running."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.conftest import FIXTURE_WASM
from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime

LONG = SandboxLimits(timeout_s=30)


@pytest.mark.parametrize("argv", [
    ["spin"], ["sleeper", "3600"], ["slow", "--ms", "20000"], ["slow", "--busy", "--ms", "20000"],
], ids=["busy-loop", "host-sleep", "short-sleeps", "busy-work"])
def test_setting_the_cancel_flag_stops_the_guest_within_a_second(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], argv: list[str]) -> None:
    module = program(argv[0])  # compiled first: the timer times the run alone
    cancel = threading.Event()
    threading.Timer(0.1, cancel.set).start()
    result = runtime.run(module, RunRequest(argv=argv, limits=LONG), cancel)
    assert result.trap == "cancelled"
    # The run's own time (processor time plus time slept), which waits for a processor on a
    # busy machine do not inflate as they do the wall clock's.
    assert result.cpu_s + result.waited_s < 0.1 + 1.0


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
    guest_ended = anyio.Event()

    async def guest() -> None:
        await runtime.run_async(program("sleeper"), RunRequest(argv=["sleeper"], limits=LONG), cancel)
        guest_ended.set()

    with anyio.fail_after(60):  # a guard against a hang only
        async with anyio.create_task_group() as tg:
            tg.start_soon(guest)
            # Ten turns of the loop while the guest sleeps; a run that held the loop would let
            # these turns come only after the guest had ended (at its time limit).
            for _ in range(10):
                await anyio.sleep(0.01)
            assert not guest_ended.is_set()
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
    module = program("slow")  # compiled first: the clock times the runs alone

    async def one() -> None:
        results.append(await runtime.run_async(module, request))

    started = time.monotonic()
    with anyio.fail_after(60):  # a guard against a hang only
        async with anyio.create_task_group() as tg:
            for _ in range(runtime.max_workers):
                tg.start_soon(one)
    assert all(r.ok for r in results) and len(results) == runtime.max_workers
    # The guests overlapped: all of them ran in less time than their runs add up to, which
    # runs one after the other can never do, however slow the machine makes each of them.
    assert runtime.max_workers >= 2
    assert time.monotonic() - started < sum(r.duration_s for r in results)


# A stop that lands a millisecond into the run, many times: the run must never read as a success.
# The module is compiled before any timer starts, so the stop lands in the run itself.
STOP_AFTER_S = 0.001
ROUNDS = 200


def _outcomes(runs: Callable[[], RunResult | None]) -> Counter[tuple[int | None, str | None]]:
    seen: Counter[tuple[int | None, str | None]] = Counter()
    for _ in range(ROUNDS):
        result = runs()
        seen[(None, "void") if result is None else (result.exit_code, result.trap)] += 1
    return seen


@pytest.mark.parametrize("quick", [False, True], ids=["worker-path", "quick-path"])
def test_a_call_cancelled_a_millisecond_in_is_reported_cancelled_every_time(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], quick: bool) -> None:
    # The guest sleeps in the host: a cancel that lands as it enters or leaves the sleep used to
    # tell it its clock had fired, and it exited 0 before the next epoch check.
    module = program("sleeper")
    request = RunRequest(argv=["sleeper", "3600"], limits=LONG)

    def one() -> RunResult | None:
        cancel = threading.Event()
        timer = threading.Timer(STOP_AFTER_S, cancel.set)
        timer.start()
        try:
            if quick:
                return runtime.run_quick(module, request, budget_s=LONG.timeout_s, cancel=cancel)
            return runtime.run(module, request, cancel)
        finally:
            timer.join()

    assert _outcomes(one) == {(None, "cancelled"): ROUNDS}


@pytest.mark.parametrize("quick", [False, True], ids=["worker-path", "quick-path"])
def test_a_call_out_of_time_a_millisecond_in_is_reported_timed_out_every_time(
        runtime: WasmRuntime, program: Callable[[str], WasmModule], quick: bool) -> None:
    module = program("sleeper")
    request = RunRequest(argv=["sleeper", "3600"], limits=SandboxLimits(timeout_s=STOP_AFTER_S))

    def one() -> RunResult | None:
        if quick:
            return runtime.run_quick(module, request, budget_s=10.0)
        return runtime.run(module, request)

    assert _outcomes(one) == {(None, "timed out after 0.001 s"): ROUNDS}


def test_a_guest_that_ends_on_its_own_past_its_deadline_is_reported_timed_out(
        tmp_path: Path) -> None:
    # With epochs that never tick, no check can stop the busy guest: it works its 50 ms (by its
    # own clock) and exits 0, well past its 10 ms. That is still a timeout, not a success.
    runtime = WasmRuntime(tmp_path, epoch_tick_s=3600)
    try:
        module = runtime.load(FIXTURE_WASM / "slow.wasm")
        result = runtime.run(module, RunRequest(argv=["slow", "--busy", "--ms", "50"],
                                                limits=SandboxLimits(timeout_s=0.01)))
    finally:
        runtime.close()
    assert (result.exit_code, result.trap) == (None, "timed out after 0.01 s")
