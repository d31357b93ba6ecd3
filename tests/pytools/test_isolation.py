"""Module code runs in worker processes: whatever it does, the call ends as a tool error and the
server, and the next call, carry on."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.pytools.conftest import call
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import Settings, load_settings
from toolbay.pytools.workers import WorkerPool, WorkerSpec

pytestmark = pytest.mark.anyio


async def assert_still_serving(app: Toolbay) -> None:
    assert (await call(app, "greet", {"name": "again"})).text == "Hello, again!"
    assert (await call(app, "crashy_raise")).text.startswith("the upstream service said no")


@pytest.mark.parametrize(("tool", "words"), [
    ("crashy_segfault", "killed by SIGSEGV"),
    ("crashy_os_exit", "exited with status 7"),
    ("crashy_exit", "sys.exit(3)"),
    ("crashy_hog", "ran out of memory"),
])
async def test_a_misbehaving_tool_ends_as_a_clear_error_and_the_server_carries_on(
    pyapp: Toolbay, tool: str, words: str,
) -> None:
    result = await call(pyapp, tool)
    assert result.is_error, result.text
    assert words in result.text
    await assert_still_serving(pyapp)


async def test_a_tool_that_runs_on_for_ever_ends_at_its_time_limit_as_a_clear_error_and_the_server_carries_on(
    make_settings: Callable[..., Settings],
) -> None:
    # A call may run 3 s in all (past 1 s it goes on as a job): the stop and what it says are
    # asserted, not the length, which pyapp's 5 s only made the test wait for.
    settings = make_settings(sandbox={"timeout_s": 3, "memory_mb": 128, "output_limit_kb": 256},
                             jobs={"sync_budget_s": 1})
    async with assemble(settings, watch=False) as app:
        result = await call(app, "crashy_loop")
        assert result.is_error, result.text
        assert "time limit of 3 s" in result.text
        assert result.meta["trap"] == "timed out after 3 s"  # a runaway stopped, as a job records it (it was None)
        await assert_still_serving(app)


async def test_a_dead_worker_is_replaced_by_a_new_process(pyapp: Toolbay) -> None:
    first = (await call(pyapp, "crashy_pid")).structured
    assert (await call(pyapp, "crashy_os_exit")).is_error
    second = (await call(pyapp, "crashy_pid")).structured
    assert first is not None and second is not None
    assert first["result"] != second["result"]


async def test_a_warm_worker_serves_the_next_call(pyapp: Toolbay) -> None:
    first = (await call(pyapp, "crashy_pid")).structured
    second = (await call(pyapp, "crashy_pid")).structured
    assert first == second


async def test_printing_never_reaches_the_protocol_and_the_result_stays(pyapp: Toolbay) -> None:
    result = await call(pyapp, "crashy_print")
    assert not result.is_error
    assert result.text == "printed and returned"
    assert "this goes nowhere near the protocol" in result.meta["printed"]


async def test_a_flood_of_output_is_cut_at_the_output_limit_and_says_so(pyapp: Toolbay) -> None:
    result = await call(pyapp, "crashy_flood")
    assert not result.is_error
    assert len(result.text) < 300 * 1024
    assert result.text.endswith("[output truncated: only the first 262144 characters are shown]")
    assert result.meta["truncated"] is True


async def test_a_tool_that_prints_without_end_is_stopped_long_before_its_time_limit(pyapp: Toolbay) -> None:
    # It ran on to its time limit (15 minutes by default), its output dropped past the limit.
    result = await call(pyapp, "crashy_printflood")
    assert result.is_error and "went on writing to stdout far past its output limit (262144 characters kept" \
        in result.text, result.text[:300]
    # What it printed comes with how much was dropped, as for a tool that prints too much and ends
    # (the flood stopped said it in its error's words only).
    assert len(result.meta["printed"]) == 262144
    assert re.fullmatch(r"\d+ more characters printed were dropped", result.meta["printed_truncated"])
    await assert_still_serving(pyapp)


async def test_results_json_cannot_carry_are_answered_by_the_same_worker(pyapp: Toolbay) -> None:
    """Lone surrogates, NaN and a list nested 5000 deep: each once ended the worker (or, for NaN,
    answered with text that is not JSON)."""
    pid = (await call(pyapp, "crashy_pid")).structured
    odd = await call(pyapp, "crashy_surrogate")
    assert not odd.is_error and odd.structured == {"name": "a\ufffdb"} and odd.meta["printed"] == "printed \ufffd\n"
    raised = await call(pyapp, "crashy_surrogate_raise")
    assert raised.is_error and raised.text.startswith("bad \ufffd byte")
    nan = await call(pyapp, "crashy_nan")
    assert nan.is_error and "which is not JSON: Out of range float values are not JSON compliant" in nan.text
    deep = await call(pyapp, "crashy_deep")
    assert deep.is_error and "nested too deeply to be written as JSON" in deep.text
    assert (await call(pyapp, "crashy_pid")).structured == pid  # no worker was restarted


async def test_what_a_successful_tool_writes_to_stderr_comes_back_beside_its_result(pyapp: Toolbay) -> None:
    """It was dropped: a warning from Python's logging never reached the model or the log."""
    result = await call(pyapp, "crashy_warn")
    assert not result.is_error and result.text == "warned and done"
    assert result.meta["stderr"] == "WARNING:root:the cache is cold\nand a note on stderr\n"


async def test_a_key_error_says_it_is_one(pyapp: Toolbay) -> None:
    """Its message alone is the key: the model read "'region'" and nothing else."""
    result = await call(pyapp, "crashy_lookup")
    assert result.is_error and result.text.startswith("KeyError: 'region'")
    assert result.meta["error_type"] == "KeyError"


async def test_an_exception_group_says_what_each_of_its_exceptions_was(pyapp: Toolbay) -> None:
    """Its message alone was "unhandled errors in a TaskGroup (3 sub-exceptions)": what went wrong
    was in none of the answer."""
    result = await call(pyapp, "crashy_group")
    assert result.is_error and result.text.startswith(
        "unhandled errors in a TaskGroup (3 sub-exceptions): ValueError: the date is not ISO 8601; "
        "KeyError: 'region'; retries (1 sub-exception): TimeoutError: the mirror did not answer")
    assert result.meta["error_type"] == "ExceptionGroup"
    deep = await call(pyapp, "crashy_deep_group")
    assert deep.is_error and deep.text.startswith(
        "level 9 (5 sub-exceptions): level 8 (5 sub-exceptions): level 7 (5 sub-exceptions): ")
    assert "TimeoutError; ..." in deep.text and "TimeoutError: TimeoutError" not in deep.text
    assert len(deep.text) < 1000


async def test_a_module_that_writes_into_the_workers_channel_gets_a_clear_error_and_a_new_worker(
        pyapp: Toolbay) -> None:
    """Junk written to every descriptor reaches the frames the server reads: that was an
    internal error with a JSONDecodeError traceback."""
    pid = (await call(pyapp, "crashy_pid")).structured
    scribbled = await call(pyapp, "crashy_scribble")
    assert scribbled.is_error
    assert "the module wrote to the worker's own channel to the server" in scribbled.text
    assert "internal error" not in scribbled.text
    after = await call(pyapp, "crashy_pid")
    assert not after.is_error and after.structured != pid  # the garbled worker was not reused


async def test_an_answer_a_module_forges_on_the_workers_channel_never_answers_a_call(pyapp: Toolbay) -> None:
    """A well-formed frame written where the worker answers was taken as the call's answer, and
    the worker's real answer as the next call's: every later answer of that worker came one
    call late (over HTTP, to other callers), and nothing was logged."""
    pid = (await call(pyapp, "crashy_pid")).structured
    forged = await call(pyapp, "crashy_forge")
    assert forged.is_error and "forged" not in forged.text
    assert "the module wrote to the worker's own channel to the server" in forged.text
    greeted = await call(pyapp, "greet", {"name": "next caller"})
    assert not greeted.is_error and greeted.text == "Hello, next caller!"
    after = await call(pyapp, "crashy_pid")
    assert not after.is_error and after.structured != pid  # the forging worker was not reused
    again = await call(pyapp, "crashy_pid")
    assert again.structured == after.structured  # and the new one answers each call with its own


async def test_a_frame_written_after_the_calls_answer_keeps_the_worker_from_another_call(
        pyapp: Toolbay, caplog: pytest.LogCaptureFixture) -> None:
    """Written by a thread the call left behind, once its answer had gone, the frame waited in
    the channel and answered the next call."""
    caplog.set_level(logging.WARNING, logger="toolbay.pytools.workers")
    first = await call(pyapp, "crashy_pid")
    late = await call(pyapp, "crashy_forge_late")
    assert not late.is_error and late.text == "the late forger's own result"
    pool = pyapp.catalog.current.get("crashy_pid").pool  # type: ignore[union-attr]
    with anyio.fail_after(30):  # until its thread has written
        while not any(worker.said_more() for worker in pool._idle):
            await anyio.sleep(0.02)
    after = await call(pyapp, "crashy_pid")
    assert not after.is_error and after.structured != first.structured
    assert any("cannot take another call" in record.getMessage() and "wrote more than its answer"
               in record.getMessage() for record in caplog.records)


async def test_a_module_that_closes_the_descriptors_it_inherited_keeps_its_worker(pyapp: Toolbay) -> None:
    """os.closerange(3, 256) closed the worker's channels: its next read failed with a traceback
    in the log, and the worker had to be replaced."""
    pid = (await call(pyapp, "crashy_pid")).structured
    closed = await call(pyapp, "crashy_closerange")
    assert not closed.is_error and closed.text == "closed"
    after = await call(pyapp, "crashy_pid")
    assert not after.is_error and after.structured == pid


async def test_an_alarm_a_call_leaves_set_does_not_go_off_in_a_later_call(pyapp: Toolbay) -> None:
    """signal.alarm(30) in one call, never cancelled, went off in whatever call the worker was
    running 30 s later, as that call's TimeoutError."""
    pid = (await call(pyapp, "crashy_pid")).structured
    assert (await call(pyapp, "crashy_alarm")).text == "alarm set"
    timer = await call(pyapp, "crashy_timer")
    assert not timer.is_error and timer.text == "(0.0, 0.0)"
    assert (await call(pyapp, "crashy_pid")).structured == pid


async def test_what_a_worker_writes_to_its_file_descriptors_is_logged_under_its_module_and_bounded(
        pyapp: Toolbay, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    """200 KB written to fd 2 went straight into the server's own stderr (a stdio client's log)."""
    from toolbay.pytools.stderr_log import LIMIT_BYTES

    caplog.set_level(logging.INFO, logger="toolbay.pytools.stderr")
    result = await call(pyapp, "crashy_noisy")
    assert not result.is_error and result.text == "noisy and done"
    with anyio.fail_after(30):  # the note comes when the worker's pipe ends: end it
        await pyapp.catalog.current.get("crashy_noisy").pool.close()  # type: ignore[union-attr]
        while not any("they were dropped" in r.getMessage() for r in caplog.records):
            await anyio.sleep(0.01)
    lines = [r.getMessage() for r in caplog.records if r.name == "toolbay.pytools.stderr"]
    assert all(line.startswith("crashy (output): ") or line.startswith("crashy: its worker wrote") for line in lines)
    logged = [line for line in lines if "noise yy" in line]
    assert len(logged) > 0 and sum(len(line) for line in logged) <= LIMIT_BYTES + 100 * len("crashy (output): ")
    assert "noise yy" not in capfd.readouterr().err


THREADS = '''
import threading


def get_tool_schemas():
    return [{"name": "threads_start", "description": "d",
             "input_schema": {"type": "object", "properties": {"count": {"type": "integer"}}}}]


def threads_start(count):
    release = threading.Event()
    started = []
    try:
        for _ in range(count):
            thread = threading.Thread(target=release.wait, args=(30,))
            thread.start()
            started.append(thread)
    finally:
        release.set()
        for thread in started:
            thread.join()
    return len(started)
'''


async def test_a_tool_may_start_a_pool_of_sixteen_threads_under_the_default_memory_limit(
        python_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    # The limit is on address space, and glibc reserved 64 MiB of it for each thread's malloc arena:
    # ThreadPoolExecutor(16) failed with "can't start new thread" at the 8th.
    (python_dir / "threads.py").write_text(THREADS, encoding="utf-8")
    settings = load_settings(None, extensions=[python_dir], data_dir=shared_data_dir, workspace=workspace)
    assert settings.sandbox.memory_mb == 256
    async with assemble(settings, watch=False) as app:
        result = await call(app, "threads_start", {"count": 16})
    assert not result.is_error, result.text
    assert result.text == "16"


FORKS = '''
import os
import signal
import time

if os.fork() == 0:  # as it is imported: a process that holds the worker's pipes open
    time.sleep(120)
    os._exit(0)


def get_tool_schemas():
    return [{"name": "forks_child", "description": "d", "input_schema": {"type": "object"}},
            {"name": "forks_crash", "description": "d", "input_schema": {"type": "object"}},
            {"name": "forks_exit", "description": "d", "input_schema": {"type": "object"}}]


def forks_child():
    if os.fork() == 0:
        time.sleep(120)
        os._exit(0)
    return "forked"


def forks_crash():
    os.kill(os.getpid(), signal.SIGSEGV)


def forks_exit():
    if os.fork() == 0:  # the child keeps the worker's pipes open, and the worker then ends
        time.sleep(120)
        os._exit(0)
    os._exit(3)
'''


async def test_a_worker_that_ends_while_a_process_it_started_holds_its_pipes_is_seen_to_end(
        python_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    # Its end was read only as the end of its pipes, which the forked child kept open: the module
    # was described as "took over 10 s" to import, and a crash after a fork waited out the time
    # limit (then said to be the reason).
    (python_dir / "forks.py").write_text(FORKS, encoding="utf-8")
    settings = load_settings(None, extensions=[python_dir], data_dir=shared_data_dir, workspace=workspace)
    with anyio.fail_after(60):
        async with assemble(settings, watch=False) as app:
            assert (await call(app, "forks_child")).text == "forked"
            crashed = await call(app, "forks_crash")
            again = await call(app, "forks_child")
            # A worker that forks during the call, then exits: the call waited out its time limit
            # (15 minutes by default, here 60 s), then said it had timed out.
            exited = await call(app, "forks_exit")
    assert crashed.is_error and "killed by SIGSEGV" in crashed.text, crashed.text
    assert again.text == "forked"
    assert exited.is_error and "exited with status 3" in exited.text, exited.text


FLOODS = '''
import os
import threading


def get_tool_schemas():
    return [{"name": "floods_now", "description": "d", "input_schema": {"type": "object"}},
            {"name": "floods_later", "description": "d", "input_schema": {"type": "object"}},
            {"name": "floods_pid", "description": "d", "input_schema": {"type": "object"}}]


def floods_now():
    while True:
        os.write(1, b"z" * 65536)


def floods_later():
    def flood():
        while True:
            os.write(2, b"z" * 65536)

    threading.Thread(target=flood, daemon=True).start()
    return "returned"


def floods_pid():
    return os.getpid()
'''


async def test_a_tool_flooding_fd_1_or_2_itself_is_stopped_during_its_call_and_after_it(
        python_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    """print() floods were stopped; os.write(1, ...) went on until the time limit (15 minutes of
    a core, the server's, reading and dropping it), and a thread flooding after its call returned
    went on until the worker's retirement."""
    (python_dir / "floods.py").write_text(FLOODS, encoding="utf-8")
    settings = load_settings(None, extensions=[python_dir], data_dir=shared_data_dir, workspace=workspace,
                             python={"workers_per_module": 1})
    with anyio.fail_after(120):
        async with assemble(settings, watch=False) as app:
            flooded = await call(app, "floods_now")
            pid = int((await call(app, "floods_pid")).text)
            later = await call(app, "floods_later")
            while _running(pid):  # stopped without another call: waited for, as the flood goes on
                await anyio.sleep(0.05)
            after = await call(app, "floods_pid")
    assert flooded.is_error and "went on writing to its standard output or error" in flooded.text, flooded.text
    assert later.text == "returned" and not after.is_error and int(after.text) != pid


async def no_credentials(name: str, key: str, env_var: str | None) -> tuple[str | None, str]:
    """A pool's credential lookup for modules that ask for none."""
    return None, "none here"


async def test_a_worker_the_server_has_stopped_is_not_handed_the_next_call(tmp_path: Path) -> None:
    """A worker killed for a flood shows as ended to nobody until its last thread has gone (the
    flooding one): under load, the next call was handed to it in that moment and failed with "the
    tool went on writing to its standard output or error", the flood of the call before. The
    moment is held here by marking the idle worker as the log's thread does before it kills."""
    module = tmp_path / "pids.py"
    module.write_text(
        "import os\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'pids_now', 'description': 'd', 'input_schema': {'type': 'object'}}]\n\n\n"
        "def pids_now():\n    return os.getpid()\n", encoding="utf-8")
    pool = WorkerPool(WorkerSpec(path=str(module), module="pids", confine=False), max_workers=1)

    try:
        with anyio.fail_after(60):
            first = await pool.call("pids_now", {}, {}, no_credentials)
            (stopping,) = pool._idle
            assert stopping._stderr is not None
            stopping._stderr.flooded = True
            second = await pool.call("pids_now", {}, {}, no_credentials)
    finally:
        await pool.close()
    assert not second.get("is_error") and second.get("text") != first.get("text"), (first, second)
    assert pool.started == 2


async def test_a_worker_the_server_stopped_during_a_call_is_not_handed_to_the_call_waiting_for_it(
        tmp_path: Path) -> None:
    """The same, for a call already waiting for the module's one worker: it was handed the worker
    as the call before ended, and failed with the flood of that call (a re-check)."""
    module = tmp_path / "gated.py"
    module.write_text(
        "import os, time\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'gated', 'description': 'd', 'input_schema': {'type': 'object'}}]\n\n\n"
        "def gated(folder=None):\n"
        "    while folder and not os.path.exists(os.path.join(folder, 'open')):\n        time.sleep(0.005)\n"
        "    return os.getpid()\n", encoding="utf-8")
    pool = WorkerPool(WorkerSpec(path=str(module), module="gated", confine=False), max_workers=1)

    answers: dict[str, dict[str, Any]] = {}

    async def run(who: str, arguments: dict[str, Any]) -> None:
        answers[who] = await pool.call("gated", arguments, {}, no_credentials, caller=who)

    try:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(run, "first", {"folder": str(tmp_path)})
                while not pool._busy:
                    await anyio.sleep(0.005)
                group.start_soon(run, "waiting", {})
                while not pool._waiting:
                    await anyio.sleep(0.005)
                (busy,) = pool._busy
                assert busy._stderr is not None
                busy._stderr.flooded = True  # as the log's thread marks it as it kills a flood
                (tmp_path / "open").touch()
    finally:
        await pool.close()
    assert not answers["waiting"].get("is_error") and answers["waiting"]["text"] != answers["first"]["text"], answers


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:  # ended, not yet reaped: a zombie
        return stat.read().rpartition(")")[2].split()[0] != "Z"


async def test_a_result_whose_json_would_not_fit_in_the_workers_memory_says_so(
        python_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    # A megabyte string a thousand times: a small value whose JSON is a gigabyte. Writing it ran
    # out of memory, and the call ended "the worker process exited with status 1".
    (python_dir / "huge.py").write_text(
        'def get_tool_schemas():\n'
        '    return [{"name": "huge", "description": "d", "input_schema": {"type": "object"}}]\n'
        '\n\ndef huge():\n    text = "x" * 1_000_000\n    return [text] * 1000\n', encoding="utf-8")
    settings = load_settings(None, extensions=[python_dir], data_dir=shared_data_dir, workspace=workspace)
    async with assemble(settings, watch=False) as app:
        result = await call(app, "huge")
    assert result.is_error and "too large to be written as JSON within the worker's memory limit" in result.text, \
        result.text


async def test_authoring_turned_on_without_what_it_needs_says_so_at_start(
        python_dir: Path, shared_data_dir: Path, workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    # [python] authoring = true alone changed nothing a user could see, and nothing said why.
    settings = load_settings(None, extensions=[python_dir], data_dir=shared_data_dir, workspace=workspace,
                             python={"authoring": True})
    with caplog.at_level(logging.WARNING, logger="toolbay.assembly"):
        async with assemble(settings, watch=False):
            pass
    said = " ".join(record.getMessage() for record in caplog.records if record.name == "toolbay.assembly")
    assert "[python] personal_dir names none" in said
    assert "the scopes tools:create and tools:share in [chain.auth] local_scopes" in said


async def test_a_stdio_caller_refused_an_authoring_tool_is_told_where_its_scopes_come_from(
        python_dir: Path, tmp_path: Path, shared_data_dir: Path, workspace: Path) -> None:
    # "which your token does not carry", to the stdio caller, which has no token.
    settings = load_settings(None, extensions=[python_dir], data_dir=shared_data_dir, workspace=workspace,
                             python={"authoring": True, "personal_dir": str(tmp_path / "personal" / "{caller}")})
    async with assemble(settings, watch=False) as app:
        refused = await call(app, "create_tool", {"name": "mine", "source": "x = 1\n"})
    assert refused.is_error and "needs the tools:create scope, which this caller does not have ([chain.auth] " \
        "local_scopes for the stdio caller, anonymous_scopes for an HTTP caller without a token" in refused.text, \
        refused.text


# A module whose tool forks a child that outlives the worker, then ends the worker (see
# tests/pytools/test_stdio_process.py).
FORK_THEN_EXIT = '''
import os
import time

TOOL_TIER = "read"


def get_tool_schemas():
    return [{"name": name, "description": name, "input_schema": {"type": "object"}}
            for name in ("fc_crash", "fc_fork_crash")]


def dispatch(name, args):
    if name == "fc_fork_crash" and os.fork() == 0:
        time.sleep(120)
        os._exit(0)
    os._exit(1)
'''


async def test_a_file_linked_from_outside_its_folder_that_fails_to_import_is_not_shown_in_its_error(
    make_settings: Any, python_dir: Path, tmp_path: Path,
) -> None:
    """The server reads a module's text for its worker, which may not read the file itself: a
    link to /etc/passwd said its first line in the SyntaxError (to the caller of refresh_tools,
    and in the log), and a file of NAME=value lines its values in a NameError."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (outside / "release").write_text("NAME=bookworm\n", encoding="utf-8")
    (python_dir / "pw.py").symlink_to(outside / "passwd")
    (python_dir / "rel.py").symlink_to(outside / "release")
    (python_dir / "own.py").write_text("def get_tool_schemas(:\n", encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        answer = (await call(app, "refresh_tools")).text
        reasons = {Path(skipped.path).name: skipped.reason for skipped in app.skipped_files}
    assert "root:x" not in answer and "bookworm" not in answer
    assert reasons["pw.py"].endswith("SyntaxError at line 1 (the file is linked from outside its folder: its text "
                                     "is not shown)")
    assert reasons["rel.py"].endswith("NameError at line 1 (the file is linked from outside its folder: its text "
                                      "is not shown)")
    assert reasons["own.py"].endswith("SyntaxError: invalid syntax at line 1: def get_tool_schemas(:")  # its own
