"""Running a module: arguments in, output out, exit codes, traps, limits."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.wasm.conftest import FAST
from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime

Run = Callable[..., RunResult]


def test_the_guest_receives_argv_exactly_with_its_name_first(run: Run) -> None:
    tricky = ["plain", "two words", 'quote"s', "--flag=value", "-", "", "ünïcode ✓", "$(rm -rf /)", "; ls"]
    result = run("args", *tricky)
    assert result.ok
    assert json.loads(result.stdout) == ["args", *tricky]


def test_stdin_is_passed_from_memory(run: Run) -> None:
    assert run("echo", stdin=b"hello from stdin\n").stdout == b"hello from stdin\n"


def test_stdin_reads_end_of_file_when_none_is_given(run: Run) -> None:
    result = run("echo")
    assert result.ok and result.stdout == b""


def test_a_normal_return_is_exit_code_zero(run: Run) -> None:
    result = run("exitcode", "0")
    assert (result.exit_code, result.trap, result.ok) == (0, None, True)


def test_proc_exit_zero_is_exit_code_zero(run: Run) -> None:
    result = run("exitcode", "0", "exit")
    assert (result.exit_code, result.trap, result.ok) == (0, None, True)


def test_a_non_zero_exit_code_is_reported_with_stderr(run: Run) -> None:
    result = run("exitcode", "3", "something went wrong")
    assert (result.exit_code, result.trap, result.ok) == (3, None, False)
    assert result.stderr == b"something went wrong\n"


def test_an_exit_status_wasi_cannot_express_is_a_trap(run: Run) -> None:
    result = run("exitcode", "200")
    assert result.exit_code is None
    assert result.trap == "exited with an invalid status (outside 0..125)"


def test_an_unreachable_instruction_is_a_trap_and_keeps_earlier_output(run: Run) -> None:
    result = run("trap")
    assert result.trap == "wasm trap: unreachable"
    assert result.stdout == b"about to trap\n"
    assert not result.ok


def test_endless_recursion_is_a_stack_overflow(run: Run) -> None:
    assert run("recurse").trap == "stack overflow"


def test_stdout_beyond_its_limit_is_dropped_and_marked_truncated(run: Run) -> None:
    limits = SandboxLimits(stdout_limit_bytes=1000, stderr_limit_bytes=10)
    result = run("flood", "50000", limits=limits)
    assert result.ok
    assert len(result.stdout) == 1000 and result.stdout_truncated
    assert len(result.stderr) == 10 and result.stderr_truncated


def test_output_within_its_limit_is_not_marked_truncated(run: Run) -> None:
    result = run("flood", "1000", limits=SandboxLimits(stdout_limit_bytes=1000, stderr_limit_bytes=1000))
    assert len(result.stdout) == 1000 and not result.stdout_truncated and not result.stderr_truncated


def test_a_memory_bomb_stops_at_the_memory_limit(run: Run) -> None:
    result = run("membomb", limits=SandboxLimits(memory_mb=32, timeout_s=5))
    assert result.trap == "memory limit of 32 MiB reached"


def test_a_runaway_loop_stops_at_the_time_limit(run: Run) -> None:
    result = run("spin", limits=SandboxLimits(timeout_s=0.3))
    assert result.trap == "timed out after 0.3 s"
    # Not before the limit on the wall clock; soon after it in the run's own time (processor
    # time plus time slept), which waits for a processor on a busy machine do not inflate.
    assert result.duration_s >= 0.3
    assert result.cpu_s + result.waited_s < 0.8


def test_a_guest_sleeping_in_the_host_stops_at_the_time_limit(run: Run) -> None:
    result = run("sleeper", "3600", limits=SandboxLimits(timeout_s=0.3))
    assert result.trap == "timed out after 0.3 s"
    assert result.cpu_s + result.waited_s < 0.8


def test_short_sleeps_work_and_finish_in_time(run: Run) -> None:
    result = run("slow", "--ms", "50", "--step", "5", "finished")
    assert result.ok and result.stdout == b"finished\n"
    assert result.duration_s >= 0.05


def test_fuel_limits_the_work_a_guest_may_do(run: Run) -> None:
    # The setting named: the model and the operator learn what to raise (found by an outside probe).
    assert run("spin", limits=SandboxLimits(fuel=100_000)).trap == "out of fuel: it used the 100,000 units of " \
        "[sandbox] fuel"


def test_enough_fuel_lets_a_tool_finish(run: Run) -> None:
    assert run("args", "x", limits=SandboxLimits(fuel=50_000_000)).ok


def test_the_environment_is_empty_unless_given(run: Run) -> None:
    assert run("env").stdout == b""
    assert run("env", env={"LANG": "C.UTF-8"}).stdout == b"LANG=C.UTF-8\n"


def test_a_module_runs_many_times_from_one_compilation(
    runtime: WasmRuntime, program: Callable[[str], WasmModule]
) -> None:
    module = program("args")
    results = [runtime.run(module, RunRequest(argv=["args", str(i)], limits=FAST)) for i in range(20)]
    assert [json.loads(r.stdout)[1] for r in results] == [str(i) for i in range(20)]


def test_a_bundled_c_tool_hashes_standard_input(runtime: WasmRuntime, bundled: Callable[[str], WasmModule]) -> None:
    result = runtime.run(bundled("hashsum"), RunRequest(argv=["hashsum", "-a", "sha256"], stdin=b"abc"))
    assert result.ok
    assert result.stdout.strip() == b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_bundled_tool_rejects_bad_usage_with_exit_code_two(runtime: WasmRuntime,
                                                             bundled: Callable[[str], WasmModule]) -> None:
    result = runtime.run(bundled("hashsum"), RunRequest(argv=["hashsum", "--algorithm=nope"], stdin=b""))
    assert result.exit_code == 2 and result.stderr


def test_a_bundled_rust_tool_runs_a_subcommand(runtime: WasmRuntime, bundled: Callable[[str], WasmModule]) -> None:
    result = runtime.run(bundled("textkit"), RunRequest(argv=["textkit", "case", "--help"]))
    assert result.ok and b"Usage" in result.stdout
