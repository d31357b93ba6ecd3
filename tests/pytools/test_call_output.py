"""What a Python tool writes reaches the call that wrote it, and no other: not a later call (over
HTTP that may be another caller's), not the next call's working directory, not a credential in
the server's log."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.pytools.conftest import call
from toolbay.assembly import assemble
from toolbay.config import Settings

pytestmark = pytest.mark.anyio

# Inside the module: how long it waits for the other side of a hand-off (never reached when
# the server does what it should; bounds a failing test instead of hanging it).
CHATTY = '''
import asyncio, logging, os, sys, threading

# The usual pattern: a handler made at import, which keeps the sys.stderr it sees now.
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
_go, _done = threading.Event(), threading.Event()
_task_done = threading.Event()
_task_go = False
TOOL_TIER = "read"


def get_tool_schemas():
    names = ["start", "other", "task", "other_async", "warn", "fail", "chdir", "where", "raw"]
    return [{"name": f"chatty_{name}", "description": name,
             "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}}} for name in names]


def chatty_start(word="x"):
    def later():
        _go.wait(20)
        print(f"late print {word}")
        sys.stderr.write(f"late stderr {word}\\n")
        _done.set()
    threading.Thread(target=later, daemon=True).start()
    return "started"


def chatty_other(word="x"):
    _go.set()
    _done.wait(20)  # the earlier call's thread writes while this call runs
    return "other"


async def chatty_task(word="x"):
    async def later():
        while not _task_go:
            await asyncio.sleep(0.01)
        print(f"task print {word}")
        _task_done.set()
    asyncio.get_running_loop().create_task(later())  # runs on when the loop runs: in a later call
    return "task started"


async def chatty_other_async(word="x"):
    global _task_go
    _task_go = True
    for _ in range(2000):
        if _task_done.is_set():
            break
        await asyncio.sleep(0.01)
    return "other async"


def chatty_warn(word="x"):
    logging.warning("careful with %s", word)
    return "warned"


def chatty_fail(word="x"):
    print("about to fail: the input was odd")
    raise ValueError("it failed")


def chatty_chdir(word="x"):
    os.chdir("/")
    return os.getcwd()


def chatty_where(word="x"):
    return os.getcwd()


def chatty_raw(word="x"):
    from toolbay_tools import get_credential
    os.write(2, ("raw key " + get_credential("weather") + "\\n").encode())
    return "raw ok"
'''
SECRET = "sk-test-raw-0123456789abcdef"


def write_one_tool(folder: Path, name: str, body: str, prelude: str = "") -> None:
    """A module ``name``.py serving the one tool ``name``, whose function has ``body`` (indented
    lines), after ``prelude`` (imports and what runs at import)."""
    (folder / f"{name}.py").write_text(
        f"{prelude}\n\ndef get_tool_schemas():\n    return [{{'name': {name!r}, 'description': 'd', "
        f"'input_schema': {{'type': 'object'}}}}]\n\n\ndef {name}():\n{body}", encoding="utf-8")


@pytest.fixture
def settings(python_dir: Path, make_settings: Callable[..., Settings]) -> Settings:
    (python_dir / "chatty.py").write_text(CHATTY, encoding="utf-8")
    return make_settings(credentials={"weather": {"tools": ["chatty_*"], "api_key": SECRET}})


async def test_what_an_earlier_calls_thread_or_task_writes_is_not_a_later_calls_output(settings: Settings) -> None:
    async with assemble(settings, watch=False) as app:
        assert (await call(app, "chatty_start", {"word": "ALICE-TOKEN"})).text == "started"
        other = await call(app, "chatty_other")
        assert (await call(app, "chatty_task", {"word": "ALICE-TASK"})).text == "task started"
        other_async = await call(app, "chatty_other_async")
    assert other.text == "other" and other_async.text == "other async"
    for result in (other, other_async):
        assert "ALICE" not in repr((result.text, result.meta)), result


async def test_a_logging_handler_made_at_import_writes_beside_every_calls_result(settings: Settings) -> None:
    async with assemble(settings, watch=False) as app:
        results = [await call(app, "chatty_warn", {"word": word}) for word in ("one", "two", "three")]
    assert [result.meta.get("stderr") for result in results] == [
        "WARNING careful with one\n", "WARNING careful with two\n", "WARNING careful with three\n"]


async def test_what_a_failing_tool_printed_comes_back_with_its_error(settings: Settings) -> None:
    async with assemble(settings, watch=False) as app:
        result = await call(app, "chatty_fail")
    assert result.is_error and result.text.startswith("it failed")
    assert result.meta["printed"] == "about to fail: the input was odd\n"


async def test_a_call_that_changes_directory_does_not_move_the_next_one(settings: Settings, workspace: Path) -> None:
    async with assemble(settings, watch=False) as app:
        before = await call(app, "chatty_where")
        assert (await call(app, "chatty_chdir")).text == "/"
        after = await call(app, "chatty_where")
    assert before.text == after.text == str(workspace)


async def test_a_credential_written_to_the_raw_stderr_is_logged_blotted_out(
        settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolbay.pytools.stderr")
    async with assemble(settings, watch=False) as app:
        result = await call(app, "chatty_raw")
        assert result.text == "raw ok"
        # The worker's stderr is read on a thread of its own: wait for the line to be logged.
        with anyio.fail_after(60):
            while not any("raw key" in record.getMessage() for record in caplog.records):
                await anyio.sleep(0.02)
    logged = [record.getMessage() for record in caplog.records if "raw key" in record.getMessage()]
    assert logged == ["chatty (output): raw key [credential redacted]"]
    assert SECRET not in caplog.text


async def test_what_works_on_a_real_stream_keeps_working(python_dir: Path, settings: Settings) -> None:
    # faulthandler asks sys.stderr for a file descriptor; some libraries write bytes to .buffer.
    write_one_tool(python_dir, "streamy", (
        "    sys.stdout.buffer.write(b'bytes in call\\n')\n    print('text in call')\n"
        "    return sys.stderr.fileno()\n"),
        prelude="import faulthandler, sys\nfaulthandler.enable()\nsys.stdout.buffer.write(b'bytes at import\\n')")
    async with assemble(settings, watch=False) as app:
        result = await call(app, "streamy")
    assert not result.is_error, result.text
    assert result.text == "2" and result.meta["printed"] == "text in call\n"


LEAKY = '''
import _thread, os, sys, threading, time

TOOL_TIER = "read"  # its calls start in the workspace
_go, _done = threading.Event(), threading.Event()


def get_tool_schemas():
    names = ["raw", "timer", "victim", "wander", "where_now", "bytes", "badret", "binary", "utf8"]
    return [{"name": f"leaky_{name}", "description": name, "input_schema": {"type": "object", "properties": {
        "go": {"type": "string"}, "moved": {"type": "string"}}}} for name in names]


def leaky_raw():
    def run():  # a thread threading does not list
        _go.wait(20)
        print("SECRET-of-caller-A raw")
        _done.set()
    _thread.start_new_thread(run, ())
    return "raw started"


def leaky_timer():
    state = {"ticks": 0}
    def tick():  # each tick a new thread, started by the one before, during the later call
        state["ticks"] += 1
        if _go.is_set() and state["ticks"] > 1:
            print("SECRET-of-caller-A timer")
            _done.set()
            return
        threading.Timer(0.05, tick).start()
    tick()
    return "timer started"


def leaky_victim():
    _go.set()
    _done.wait(20)
    _done.clear()
    return "victim"


def leaky_wander(go="", moved=""):
    def later():  # moves once the test says so (a file in the workspace), between two calls
        while not os.path.exists(go):
            time.sleep(0.01)
        os.chdir("/")
        print("the thread moved to", os.getcwd())  # after its call: to the server's log
    threading.Thread(target=later, daemon=True).start()
    return "wandering"


def leaky_where_now():
    return os.getcwd()


def leaky_bytes():
    sys.stdout.write(b"raw bytes")
    return "never"


def leaky_badret():
    print("printed before a result that is no JSON")
    return {1, 2}


def leaky_binary():
    return b"\\x00\\xffabc"


def leaky_utf8():
    return "caf\\u00e9 \\ufffd".encode()
'''


async def test_threads_that_an_earlier_calls_threads_start_later_still_write_as_that_call(
        python_dir: Path, settings: Settings) -> None:
    (python_dir / "leaky.py").write_text(LEAKY, encoding="utf-8")
    async with assemble(settings, watch=False) as app:
        results = []
        for starter in ("leaky_raw", "leaky_timer"):
            await call(app, starter)
            results.append(await call(app, "leaky_victim"))
    for result in results:
        assert result.text == "victim" and "SECRET" not in repr((result.text, result.meta)), result


async def test_a_thread_that_moves_directory_between_calls_does_not_move_the_next_call(
        python_dir: Path, settings: Settings, workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolbay.pytools.stderr")
    (python_dir / "leaky.py").write_text(LEAKY, encoding="utf-8")
    go = workspace / "go"
    async with assemble(settings, watch=False) as app:
        await call(app, "leaky_wander", {"go": str(go)})
        go.touch()  # the earlier call's thread moves now, while no call runs
        with anyio.fail_after(60):
            while "the thread moved to /" not in caplog.text:
                await anyio.sleep(0.01)
        where = await call(app, "leaky_where_now")
    assert where.text == str(workspace)


async def test_bytes_written_as_text_and_a_result_that_is_no_json_are_errors_that_keep_what_was_printed(
        python_dir: Path, settings: Settings) -> None:
    (python_dir / "leaky.py").write_text(LEAKY, encoding="utf-8")
    async with assemble(settings, watch=False) as app:
        wrote_bytes = await call(app, "leaky_bytes")
        bad = await call(app, "leaky_badret")
        again = await call(app, "leaky_bytes")  # the same worker, still serving
    assert wrote_bytes.is_error and wrote_bytes.text.startswith("write() argument must be str, not bytes")
    assert wrote_bytes.meta["where"].startswith("leaky.py:")
    assert bad.is_error and "which is not JSON" in bad.text
    assert bad.meta["printed"] == "printed before a result that is no JSON\n"
    assert again.text == wrote_bytes.text


async def test_a_credential_asked_for_at_import_is_refused_in_words(python_dir: Path, settings: Settings) -> None:
    (python_dir / "early.py").write_text(
        "from toolbay_tools import get_credential\nKEY = get_credential('weather')\n\n"
        "def get_tool_schemas():\n    return [{'name': 'early', 'description': 'd', "
        "'input_schema': {'type': 'object'}}]\n\ndef early():\n    return 'x'\n", encoding="utf-8")
    async with assemble(settings, watch=False) as app:
        reasons = {Path(skipped.path).name: skipped.reason for skipped in app.skipped_files}
    assert "get_credential works only while a tool is being called" in reasons["early.py"]


async def test_a_helper_named_like_a_package_the_worker_needs_does_not_hide_the_modules_beside_it(
        python_dir: Path, make_settings: Callable[..., Settings], tmp_path: Path) -> None:
    (python_dir / "jsonschema.py").write_text("def validate(instance, schema):\n    return True\n", encoding="utf-8")
    # A data folder of its own: the modules are described afresh, with the helper beside them.
    async with assemble(make_settings(data_dir=tmp_path / "data"), watch=False) as app:
        greeted = await call(app, "greet", {"name": "Ada"})
    assert greeted.text == "Hello, Ada!"


async def test_a_credential_sent_as_an_argument_is_blotted_out_of_the_audit_log(
        python_dir: Path, make_settings: Callable[..., Settings], tmp_path: Path) -> None:
    """The log said the caller's arguments as they came (an outside probe): a key pasted into
    a call was kept there for whoever reads the log."""
    (python_dir / "chatty.py").write_text(CHATTY, encoding="utf-8")
    audit = tmp_path / "audit.jsonl"
    plain = "Tuesday7Lighthouse"  # no secret by its looks: only the configuration says it is one
    settings = make_settings(credentials={"weather": {"tools": ["chatty_*"], "api_key": plain}},
                             chain={"audit": {"file": str(audit)}})
    async with assemble(settings, watch=False) as app:
        await call(app, "chatty_start", {"word": f"it is {plain}"})
    line = json.loads(audit.read_text(encoding="utf-8").splitlines()[-1])
    assert line["arguments"] == {"word": "it is [credential redacted]"}


async def test_a_credential_read_from_the_servers_environment_is_blotted_out_of_the_audit_log_too(
        python_dir: Path, make_settings: Callable[..., Settings], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the configuration's and the credentials file's values were known to the log (a re-check)."""
    (python_dir / "chatty.py").write_text(CHATTY, encoding="utf-8")
    audit = tmp_path / "audit.jsonl"
    monkeypatch.setenv("WEATHER_API_KEY", "Harbour9Lantern")
    settings = make_settings(credentials={"weather": {"tools": ["chatty_*"]}}, chain={"audit": {"file": str(audit)}})
    async with assemble(settings, watch=False) as app:
        await call(app, "chatty_start", {"word": "Harbour9Lantern"})
    assert json.loads(audit.read_text(encoding="utf-8").splitlines()[-1])["arguments"] == {
        "word": "[credential redacted]"}


async def test_credentials_are_blotted_out_however_json_writes_them(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    (python_dir / "cred.py").write_text(
        "from toolbay_tools import get_credential\n\n"
        "def get_tool_schemas():\n    return [{'name': 'cred_show', 'description': 'd', 'input_schema': "
        "{'type': 'object', 'properties': {'key': {'type': 'string'}}}}]\n\n"
        "def cred_show(key):\n    value = get_credential('odd', key=key)\n    print('the key is', value)\n"
        "    return {'value': value}\n", encoding="utf-8")
    odd = {"unicode": "sëcret-ключ-9876", "quoted": 'q"uo\\te-5555'}
    settings = make_settings(credentials={"odd": {"tools": ["cred_*"], **odd}})
    async with assemble(settings, watch=False) as app:
        results = {key: await call(app, "cred_show", {"key": key}) for key in odd}
    for key, result in results.items():
        shown = repr((result.text, result.structured, result.meta))
        assert odd[key] not in shown and json.dumps(odd[key])[1:-1] not in shown, shown
        assert result.structured == {"value": "[credential redacted]"}
        assert result.meta["printed"] == "the key is [credential redacted]\n"


async def test_printing_past_the_output_limit_beside_a_result_says_what_was_dropped(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    write_one_tool(python_dir, "loud", "    print('x' * 300_000)\n    sys.stderr.write('e' * 70_000)\n"
                   "    return {'done': True}\n", prelude="import sys")
    settings = make_settings(sandbox={"output_limit_kb": 256})
    async with assemble(settings, watch=False) as app:
        result = await call(app, "loud")
    assert result.structured == {"done": True}
    assert len(result.meta["printed"]) == 256 * 1024
    assert result.meta["printed_truncated"] == f"{300_001 - 256 * 1024} more characters printed were dropped"
    # stderr is kept to 64 KiB: cut there, it was cut without a word (an outside probe)
    assert len(result.meta["stderr"]) == 64 * 1024
    assert result.meta["stderr_truncated"] == f"{70_000 - 64 * 1024} more characters written to stderr were dropped"


async def test_what_a_forked_child_prints_reaches_the_servers_log(
        python_dir: Path, settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolbay.pytools.stderr")
    write_one_tool(python_dir, "forky", (
        "    child = multiprocessing.get_context('fork').Process(target=print, args=('from the child',))\n"
        "    child.start()\n    child.join()\n    return child.exitcode\n"), prelude="import multiprocessing")
    async with assemble(settings, watch=False) as app:
        result = await call(app, "forky")
        with anyio.fail_after(60):
            while "from the child" not in caplog.text:
                await anyio.sleep(0.02)
    assert result.text == "0"


async def test_a_tool_that_forks_and_returns_in_both_processes_leaves_every_later_answer_to_its_own_call(
        python_dir: Path, settings: Settings) -> None:
    """The child of a bare os.fork() went on serving the worker's wire: each later call got the
    call before it's answer (over HTTP another caller's), and a fork at import did the same."""
    write_one_tool(python_dir, "forks", "    return 'parent' if os.fork() else 'child'\n", prelude="import os")
    write_one_tool(python_dir, "echo", "    return 'echo'\n",
                   prelude="import os\nos.fork()  # at import: both processes go on to describe the module")
    async with assemble(settings, watch=False) as app:
        assert (await call(app, "echo")).text == "echo"
        assert (await call(app, "forks")).text == "parent"
        answers = [await call(app, "echo") for _ in range(3)]
        assert [answer.text for answer in answers] == ["echo"] * 3, answers
        for _ in range(3):
            assert (await call(app, "forks")).text == "parent"


async def test_an_exception_whose_message_cannot_be_made_into_text_is_a_tool_error_and_the_worker_stays(
        python_dir: Path, settings: Settings) -> None:
    """Its __str__ raised inside the worker's own error handling: the worker died, and the call
    said only that the worker exited."""
    write_one_tool(python_dir, "badstr", "    raise Odd()\n",
                   prelude="class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no words')\n")
    async with assemble(settings, watch=False) as app:
        first = await call(app, "badstr")
        second = await call(app, "badstr")
    assert first.is_error and first.text.endswith("Odd (its message could not be made into text)"), first.text
    assert second.is_error and "worker" not in second.meta, second.meta  # the same worker: nothing restarted


async def test_a_result_of_bytes_that_are_not_utf8_says_so(python_dir: Path, settings: Settings) -> None:
    """A bytes result was decoded with U+FFFD for what is not UTF-8, silently: the model took the
    replacement characters for what the tool returned (a wasm tool's output says it)."""
    (python_dir / "leaky.py").write_text(LEAKY, encoding="utf-8")
    async with assemble(settings, watch=False) as app:
        binary = await call(app, "leaky_binary")
        text = await call(app, "leaky_utf8")
    assert not binary.is_error and binary.text.startswith("\x00\ufffdabc\n[the result is bytes that are not UTF-8")
    assert binary.meta["not_utf8"] is True
    assert (text.text, "not_utf8" in text.meta) == ("caf\u00e9 \ufffd", False)  # U+FFFD itself, as UTF-8


async def test_a_json_result_past_the_output_limit_is_cut_as_a_text_result_is(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    # A list of rows past the limit failed the whole call ("... characters of JSON, over the
    # limit"), a job's too, after all its work; a string that long was cut with a note.
    write_one_tool(python_dir, "rows", "    return [{'n': n, 'text': 'x' * 90} for n in range(5000)]\n")
    async with assemble(make_settings(sandbox={"output_limit_kb": 256}), watch=False) as app:
        result = await call(app, "rows")
    whole = len(json.dumps([{"n": n, "text": "x" * 90} for n in range(5000)], ensure_ascii=False))
    assert not result.is_error and result.structured is None and result.meta["truncated"] is True
    assert result.text.startswith('[{"n": 0, "text": "xxx')
    assert result.text.endswith(f"\n[output truncated: only the first {256 * 1024} characters of its {whole} "
                                "characters of JSON are shown]")


async def test_a_recursion_past_the_workers_stack_is_said_to_be_one(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    """With sys.setrecursionlimit raised, a runaway recursion ended as "error return without
    exception set", which names no cause (an outside check)."""
    write_one_tool(python_dir, "deep", "    sys.setrecursionlimit(10**6)\n\n    def down(n):\n"
                   "        return down(n + 1)\n\n    return down(0)\n", prelude="import sys")
    # A tool's own error raised deep in a recursion that ends is said as it is (a re-check).
    write_one_tool(python_dir, "leaf", "    sys.setrecursionlimit(20_000)\n\n    def down(n):\n"
                   "        if n == 6_000:\n            raise ValueError('leaf record 17 is malformed')\n"
                   "        return down(n + 1)\n\n    return down(0)\n", prelude="import sys")
    async with assemble(make_settings(), watch=False) as app:
        result = await call(app, "deep")
        leaf = await call(app, "leaf")
    assert result.is_error and "nested calls: a recursion deeper than the worker's stack allows" in result.text, result
    assert leaf.is_error and leaf.text == "leaf record 17 is malformed", leaf.text


async def test_threads_past_the_workers_limits_and_a_memory_error_of_the_tools_own_are_said_as_what_they_are(
        python_dir: Path, settings: Settings) -> None:
    """Forty threads under the default memory limit said "can't start new thread" and nothing
    of why; a MemoryError the tool raised itself was said to be the worker's limit reached
    (an outside check)."""
    write_one_tool(python_dir, "threads", (
        "    started = [threading.Thread(target=time.sleep, args=(5,), daemon=True) for _ in range(400)]\n"
        "    for thread in started:\n        thread.start()\n"), prelude="import threading, time")
    write_one_tool(python_dir, "cache", "    raise MemoryError('the cache is full')\n")
    async with assemble(settings, watch=False) as app:
        threads = await call(app, "threads")
        cache = await call(app, "cache")
    assert threads.is_error and "can't start new thread (the worker's limits:" in threads.text, threads.text
    assert cache.is_error and cache.text.endswith("MemoryError: the cache is full"), cache.text
