"""A module dropped, changed or removed is served at once (hot reload, refresh_tools); a
cancelled call kills its worker."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.pytools.conftest import call
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.catalog import Catalog, CatalogChange
from toolbay.config import Settings
from toolbay.handlers.python import PythonHandler
from toolbay.words import CallContext

pytestmark = pytest.mark.anyio

MODULE = '''
def get_tool_schemas():
    return [{{"name": "fresh_say", "description": "Say it.", "input_schema": {{"type": "object"}}}}]


def fresh_say():
    return "{word}"
'''


async def until(app: Toolbay, check: Callable[[Catalog], bool]) -> None:
    """Waits (on catalog swaps, not on time) until ``check`` holds for the current catalog."""
    changed = anyio.Event()

    def listener(catalog: Catalog, change: CatalogChange) -> None:
        changed.set()

    unsubscribe = app.catalog.subscribe(listener)
    try:
        with anyio.fail_after(60):
            while not check(app.catalog.current):
                await changed.wait()
                changed = anyio.Event()
    finally:
        unsubscribe()


async def test_a_module_dropped_changed_and_removed_is_followed_by_hot_reload(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    async with assemble(make_settings(), watch=True) as app:
        target = python_dir / "fresh.py"
        target.write_text(MODULE.format(word="first"), encoding="utf-8")
        await until(app, lambda catalog: "fresh_say" in catalog.tools)
        assert (await call(app, "fresh_say")).text == "first"

        first = app.catalog.current.get("fresh_say")
        target.write_text(MODULE.format(word="second"), encoding="utf-8")
        # Its listing is as it was, so no listener hears of it (clients are not told): the new
        # version is seen by the calls it answers.
        with anyio.fail_after(60):
            while app.catalog.current.get("fresh_say") is first:
                await anyio.sleep(0.02)
        assert (await call(app, "fresh_say")).text == "second"

        os.remove(target)
        await until(app, lambda catalog: "fresh_say" not in catalog.tools)


VERSIONED = '''
import os


def get_tool_schemas():
    return [{"name": "kept_say", "description": "Say which version runs.", "input_schema": {"type": "object"}},
            {"name": "kept_die", "description": "End this worker.", "input_schema": {"type": "object"}}]


def dispatch(name, args):
    if name == "kept_die":
        os._exit(1)
    return "version one"
'''


async def test_after_a_broken_save_even_a_new_worker_runs_the_version_described(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """The last good version keeps serving a broken file's tools, so its workers must run that
    version: a worker started after the save (here, after a crash) once imported the broken file."""
    async with assemble(make_settings(), watch=False) as app:
        target = python_dir / "kept.py"
        target.write_text(VERSIONED, encoding="utf-8")
        await call(app, "refresh_tools")
        assert (await call(app, "kept_say")).text == "version one"
        target.write_text("def get_tool_schemas(:\n", encoding="utf-8")  # a save mid-edit
        answer = await call(app, "refresh_tools")
        assert "kept_say" in app.catalog.current.tools, answer.text
        assert (await call(app, "kept_die")).is_error  # the warm worker ends
        assert (await call(app, "kept_say")).text == "version one"  # from a new worker


@pytest.mark.parametrize("now", [
    "def get_tool_schemas():\n    return []\n",  # no tools, on purpose
    "HELPER = 1\n",  # turned into a helper the other modules import
    "",  # emptied
])
async def test_a_module_that_declares_no_tool_any_more_loses_its_tools(
    make_settings: Callable[..., Settings], python_dir: Path, now: str,
) -> None:
    """Such a save was taken for a broken one: the old tools were kept, listed, found and run
    until the server restarted, which then served none."""
    async with assemble(make_settings(), watch=False) as app:
        target = python_dir / "kept.py"
        target.write_text(VERSIONED, encoding="utf-8")
        await call(app, "refresh_tools")
        assert "kept_say" in app.catalog.current.tools
        target.write_text(now, encoding="utf-8")
        answer = await call(app, "refresh_tools")
        assert "kept_say" in answer.structured["removed"], answer.text
        assert "kept_say" not in app.catalog.current.tools
        assert (await call(app, "kept_say")).is_error


async def test_a_module_put_back_after_a_broken_save_is_served_after_a_restart(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """refresh_tools while the file was broken described the file on disk under the hash of the
    version kept serving: put back as it was, that version was refused at the next start with
    the broken one's SyntaxError."""
    target = python_dir / "kept.py"
    good = VERSIONED + "# put back after a broken save\n"  # a version of this test's own
    settings = make_settings()
    async with assemble(settings, watch=False) as app:
        target.write_text(good, encoding="utf-8")
        await call(app, "refresh_tools")
        target.write_text("def get_tool_schemas(:\n", encoding="utf-8")  # a save mid-edit
        await app.rescan()  # the watcher sees it: refused, the good version kept
        await call(app, "refresh_tools")  # asked to try the broken file again
        target.write_text(good, encoding="utf-8")
        await app.rescan()
        assert (await call(app, "kept_say")).text == "version one"
    async with assemble(settings, watch=False) as restarted:
        assert (await call(restarted, "kept_say")).text == "version one", restarted.skipped_files


async def test_refresh_tools_serves_a_new_module_without_a_watcher(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    async with assemble(make_settings(), watch=False) as app:
        (python_dir / "fresh.py").write_text(MODULE.format(word="refreshed"), encoding="utf-8")
        answer = await call(app, "refresh_tools")
        assert "fresh_say" in answer.structured["added"]
        assert (await call(app, "fresh_say")).text == "refreshed"


FLAKY = '''
import os

if os.path.exists(os.path.join(os.path.dirname(__file__), "state", "FAIL")):
    raise ImportError("the service it needs is not up yet")


def get_tool_schemas():
    return [{"name": "flaky_x", "description": "x", "input_schema": {"type": "object"}}]


def flaky_x():
    return "up"
'''


async def test_refresh_tools_tries_again_a_module_whose_import_failed_though_it_is_unchanged(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    # Outside the module's folder (a change in it tries the import again: see below).
    (python_dir / "state").mkdir()
    (python_dir / "state" / "FAIL").touch()
    (python_dir / "flaky.py").write_text(FLAKY, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        assert app.catalog.current.get("flaky_x") is None
        assert any("the service it needs is not up yet" in skipped.reason for skipped in app.skipped_files)
        (python_dir / "state" / "FAIL").unlink()
        await app.rescan()  # what a watcher does: the file and its folder have not changed, the failure stands
        assert app.catalog.current.get("flaky_x") is None
        answer = await call(app, "refresh_tools")
        assert "flaky_x" in answer.structured["added"]
        assert (await call(app, "flaky_x")).text == "up"


NEEDS_HELPER = '''
import needed_helper


def get_tool_schemas():
    return [{"name": "needs_value", "description": "v", "input_schema": {"type": "object"}}]


def needs_value():
    return needed_helper.VALUE
'''


async def test_a_module_whose_import_failed_for_a_helper_not_there_yet_is_served_once_it_comes(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """Dropped before its helper, the module's failure was kept for its version: the helper's
    coming was taken in by no rescan and no restart, and the same module failed so in another
    folder too, where its helper was (an outside check)."""
    settings = make_settings()
    (python_dir / "needs.py").write_text(NEEDS_HELPER, encoding="utf-8")
    async with assemble(settings, watch=False) as app:
        assert app.catalog.current.get("needs_value") is None
        assert any("needed_helper" in skipped.reason for skipped in app.skipped_files)
        (python_dir / "needed_helper.py").write_text("VALUE = 'here'\n", encoding="utf-8")
        await app.rescan()  # what the watcher does when the helper is dropped in
        assert (await call(app, "needs_value")).text == "here"
    (python_dir / "needed_helper.py").unlink()
    async with assemble(settings, watch=False) as restarted:  # failed again, and so remembered
        assert restarted.catalog.current.get("needs_value") is None
    (python_dir / "needed_helper.py").write_text("VALUE = 'back'\n", encoding="utf-8")
    async with assemble(settings, watch=False) as restarted:
        assert (await call(restarted, "needs_value")).text == "back", restarted.skipped_files


USES_HELPER = '''
import helperlib


def get_tool_schemas():
    return [{"name": "uses_value", "description": "v", "input_schema": {"type": "object"}}]


def uses_value():
    return helperlib.VALUE
'''


async def test_a_changed_helper_module_reaches_the_warm_workers_of_the_modules_beside_it(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    (python_dir / "helperlib.py").write_text("VALUE = 'helper v1'\n", encoding="utf-8")
    (python_dir / "uses.py").write_text(USES_HELPER, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        assert (await call(app, "uses_value")).text == "helper v1"  # a warm worker imported v1
        (python_dir / "helperlib.py").write_text("VALUE = 'helper v2'\n", encoding="utf-8")
        await app.rescan()  # what the watcher does on the change
        assert (await call(app, "uses_value")).text == "helper v2"
        os.remove(python_dir / "helperlib.py")
        await app.rescan()
        gone = await call(app, "uses_value")
    assert gone.is_error and "helperlib" in gone.text


USES_A_PRIVATE_HELPER_IN_CALLS = '''
def get_tool_schemas():
    return [{"name": "late_value", "description": "v", "input_schema": {"type": "object"}}]


def late_value():
    import _late  # only inside a call: the module was not described with it
    return _late.VALUE
'''


async def test_a_changed_private_module_imported_only_in_calls_reaches_the_warm_workers(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """The README: helpers, `_*.py` included, give the folder's modules fresh workers. One imported
    only inside a call was answered from the warm worker's old import (an outside check)."""
    (python_dir / "_late.py").write_text("VALUE = 'late v1'\n", encoding="utf-8")
    (python_dir / "late.py").write_text(USES_A_PRIVATE_HELPER_IN_CALLS, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        assert (await call(app, "late_value")).text == "late v1"  # a warm worker imported v1
        (python_dir / "_late.py").write_text("VALUE = 'late v2, longer'\n", encoding="utf-8")
        await app.rescan()  # what the watcher does on the change
        assert (await call(app, "late_value")).text == "late v2, longer"


SCHEMA_FROM_A_HELPER = '''
from _schemas import GREET


def get_tool_schemas():
    return [{"name": "hello", "description": "h", "input_schema": GREET}]


def hello(**arguments):
    return arguments
'''


def greet_schema(*names: str) -> str:
    properties = {name: {"type": "string"} for name in names}
    return f"GREET = {{'type': 'object', 'properties': {properties!r}}}\n"


def properties_served(catalog: Catalog) -> set[str]:
    tool = catalog.get("hello")
    return set() if tool is None else set(tool.definition.input_schema.get("properties", {}))


async def test_a_schema_built_from_a_helper_follows_the_helper_while_serving_and_after_a_restart(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    # The helper's name starts with "_", so it is no tool file; the module itself never changes.
    helper = python_dir / "_schemas.py"
    helper.write_text(greet_schema("name"), encoding="utf-8")
    (python_dir / "hello.py").write_text(SCHEMA_FROM_A_HELPER, encoding="utf-8")
    settings = make_settings()
    async with assemble(settings, watch=True) as app:
        assert properties_served(app.catalog.current) == {"name"}
        helper.write_text(greet_schema("name", "mood"), encoding="utf-8")
        await until(app, lambda catalog: properties_served(catalog) == {"name", "mood"})
        # Written again at once, the same size: a hash remembered by the file's stat must not hide it.
        helper.write_text(greet_schema("name", "moot"), encoding="utf-8")
        await until(app, lambda catalog: properties_served(catalog) == {"name", "moot"})
        helper.write_text(greet_schema("name", "mood"), encoding="utf-8")
        await until(app, lambda catalog: properties_served(catalog) == {"name", "mood"})
        called = await call(app, "hello", {"name": "Ada", "mood": "glad"})
    assert called.structured == {"name": "Ada", "mood": "glad"}
    helper.write_text(greet_schema("name", "mood", "volume"), encoding="utf-8")
    # The same data folder: its cached description was built with the helper's last version.
    async with assemble(settings, watch=False) as app:
        assert properties_served(app.catalog.current) == {"name", "mood", "volume"}


SCHEMA_FROM_FILES = '''
import json, os
from schemas import extra  # a package in a subfolder

HERE = os.path.dirname(os.path.abspath(__file__))


def get_tool_schemas():
    with open(os.path.join(HERE, "spec.json"), encoding="utf-8") as spec:
        properties = {name: {"type": "string"} for name in [*json.load(spec), *extra.NAMES]}
    return [{"name": "hello", "description": "h", "input_schema": {"type": "object", "properties": properties}}]


def hello(**arguments):
    return arguments
'''


async def test_a_schema_built_from_a_data_file_or_a_package_beside_the_module_follows_them(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """Only the modules a module imported from its folder were its helpers: a schema read from
    a spec.json beside it stayed stale after a change, a restart and refresh_tools alike (its
    cached description was kept), and a package in a subfolder was not watched (an outside probe)."""
    spec, package = python_dir / "spec.json", python_dir / "schemas"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "extra.py").write_text("NAMES = ['volume']\n", encoding="utf-8")
    spec.write_text('["city"]', encoding="utf-8")
    (python_dir / "hello.py").write_text(SCHEMA_FROM_FILES, encoding="utf-8")
    settings = make_settings()
    async with assemble(settings, watch=True) as app:
        assert properties_served(app.catalog.current) == {"city", "volume"}
        spec.write_text('["zip"]', encoding="utf-8")
        await until(app, lambda catalog: properties_served(catalog) == {"zip", "volume"})
        (package / "extra.py").write_text("NAMES = ['tone']\n", encoding="utf-8")
        await until(app, lambda catalog: properties_served(catalog) == {"zip", "tone"})
        called = await call(app, "hello", {"zip": "75001", "tone": "low"})
    assert called.structured == {"zip": "75001", "tone": "low"}
    spec.write_text('["zip", "street"]', encoding="utf-8")
    # The same data folder: its cached description was built with the file's last version.
    async with assemble(settings, watch=False) as app:
        assert properties_served(app.catalog.current) == {"zip", "street", "tone"}


HANGS_AT_IMPORT = '''
import os, time

# Imported until the test lets it go: a module whose import takes its time limit.
while not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "go.flag")):
    time.sleep(0.02)
TOOL = {"name": "hangs", "description": "h", "input_schema": {"type": "object"}}
get_tool_schemas = lambda: [TOOL]  # noqa: E731
hangs = lambda: "at last"  # noqa: E731
'''


async def test_a_module_whose_import_hangs_holds_back_no_other_file_dropped_beside_it(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """Hot reload described the files of a change one rescan at a time: a module hanging at
    import (to its limit, 10 s by default) held back every file dropped after it (an outside
    probe: 9.7 and 10.4 s)."""
    settings = make_settings(python={"describe_timeout_s": 300})
    async with assemble(settings, watch=True) as app:
        (python_dir / "hangs.py").write_text(HANGS_AT_IMPORT, encoding="utf-8")
        await anyio.sleep(0)
        (python_dir / "quick.py").write_text(
            "def get_tool_schemas():\n    return [{'name': 'quick', 'description': 'q', "
            "'input_schema': {'type': 'object'}}]\n\n\ndef quick():\n    return 'quick'\n", encoding="utf-8")
        await until(app, lambda catalog: catalog.get("quick") is not None)
        # A file dropped while the module is still being imported: not described again, not waited for.
        (python_dir / "quick2.py").write_text(
            (python_dir / "quick.py").read_text(encoding="utf-8").replace("quick", "quick2"), encoding="utf-8")
        await until(app, lambda catalog: catalog.get("quick2") is not None)
        assert app.catalog.current.get("hangs") is None
        (python_dir / "go.flag").write_text("", encoding="utf-8")
        await until(app, lambda catalog: catalog.get("hangs") is not None)
        assert (await call(app, "hangs")).text == "at last"
        assert (await call(app, "quick")).text == "quick"


async def test_of_two_modules_dropped_together_the_one_imported_first_is_served_before_the_other_ends(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """Files of one change described after its first second were taken in once all were: a
    module imported in 3 s was served with one that took 12 s, at 12 s (an outside check)."""
    settings = make_settings(python={"describe_timeout_s": 300})
    async with assemble(settings, watch=False) as app:
        # Sources of this test's own: a description another test cached would come at once.
        hangs = HANGS_AT_IMPORT + "# dropped with waits.py\n"
        (python_dir / "hangs.py").write_text(hangs, encoding="utf-8")
        (python_dir / "waits.py").write_text(hangs.replace("go.flag", "first.flag").replace(
            '"hangs"', '"waits"').replace("hangs =", "waits ="), encoding="utf-8")
        # One change, as the watcher takes it in: both still being described when it ends.
        await app.keeper.rescan(slow_files_later=True)
        assert app.keeper.still_describing == sorted(str(python_dir / name) for name in ("hangs.py", "waits.py"))
        (python_dir / "first.flag").write_text("", encoding="utf-8")
        await until(app, lambda catalog: catalog.get("waits") is not None)
        assert app.catalog.current.get("hangs") is None
        (python_dir / "go.flag").write_text("", encoding="utf-8")
        await until(app, lambda catalog: catalog.get("hangs") is not None)


async def test_refresh_tools_answers_while_a_modules_import_hangs_and_the_module_is_announced_when_done(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """refresh_tools waited for every file it described: a module hanging at import held the
    call to its limit ([python] describe_timeout_s, up to ten minutes). It waits as long as a
    client's start is given ([discovery] start_wait_s), says what is still being described, and
    the module is announced when it is done, as after a start."""
    settings = make_settings(python={"describe_timeout_s": 300}, discovery={"start_wait_s": 2})
    async with assemble(settings, watch=False) as app:
        # Another text than the hot-reload test's, whose description the shared cache may hold.
        (python_dir / "hangs.py").write_text(HANGS_AT_IMPORT + "# refreshed\n", encoding="utf-8")
        (python_dir / "quick.py").write_text(
            "def get_tool_schemas():\n    return [{'name': 'quick', 'description': 'q', "
            "'input_schema': {'type': 'object'}}]\n\n\ndef quick():\n    return 'quick'\n", encoding="utf-8")
        with anyio.fail_after(60):  # a guard only: without the change the call waits on the import for ever
            answer = await call(app, "refresh_tools")
        # (The fixture's other modules may be named too, if the machine is slow to describe them.)
        assert "hangs.py" in answer.structured["still_describing"]
        # A file described beside it in time is served, not named as still being described.
        assert not ("quick" in answer.structured["added"] and "quick.py" in answer.structured["still_describing"])
        assert "Still being described: " in answer.text and "hangs.py" in answer.text
        assert app.catalog.current.get("hangs") is None
        again = await call(app, "refresh_tools")
        assert "hangs.py" in again.structured["still_describing"]
        (python_dir / "go.flag").write_text("", encoding="utf-8")
        await until(app, lambda catalog: catalog.get("hangs") is not None)
        assert (await call(app, "hangs")).text == "at last"
        assert "hangs.py" not in (await call(app, "refresh_tools")).structured.get("still_describing", [])


# Fails to import while FAIL is there, then hangs at import until go.flag is.
FAILS_THEN_HANGS = '''
import os

if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "FAIL")):
    raise ImportError("the service it needs is not up yet")
''' + HANGS_AT_IMPORT


async def test_a_skipped_module_refresh_tools_tries_again_is_served_when_its_slow_import_ends(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """The file is unchanged, so the rescan after its late describing kept the skipped outcome
    the survey found and dropped the good one: the module stayed skipped until the file changed."""
    (python_dir / "FAIL").touch()
    (python_dir / "hangs.py").write_text(FAILS_THEN_HANGS, encoding="utf-8")
    settings = make_settings(python={"describe_timeout_s": 300}, discovery={"start_wait_s": 0.5})
    async with assemble(settings, watch=False) as app:
        assert any("not up yet" in skipped.reason for skipped in app.skipped_files)
        (python_dir / "FAIL").unlink()
        with anyio.fail_after(60):
            answer = await call(app, "refresh_tools")
        assert "hangs.py" in answer.structured["still_describing"]
        # Its last verdict is said as that: it was said as if it had just failed again (an
        # outside check, with a module that hangs to its limit, which it always still is).
        [verdict] = [line for line in answer.structured["not_described"] if line.startswith("hangs.py: ")]
        assert "not up yet" in verdict and verdict.endswith("(so it was the last time; it is being described again)")
        (python_dir / "go.flag").write_text("", encoding="utf-8")
        await until(app, lambda catalog: catalog.get("hangs") is not None)
        assert (await call(app, "hangs")).text == "at last"
        assert not any(skipped.path.endswith("hangs.py") for skipped in app.skipped_files)


async def test_cancelling_a_job_kills_its_worker_and_the_module_serves_again(pyapp: Toolbay) -> None:
    started = await call(pyapp, "slow_nap", {"seconds": 600}, follow_jobs=False)
    job_id = started.structured["job_id"]
    handler = pyapp.catalog.current.get("slow_nap")
    assert isinstance(handler, PythonHandler)
    with anyio.fail_after(60):
        while not handler.pool._busy or not handler.pool.pids():
            await anyio.sleep(0.02)  # polls the pool: busy once started and given the call
    [pid] = handler.pool.pids()
    cancelled = await call(pyapp, "job_cancel", {"job_id": job_id, "reason": "no time"})
    # job_cancel answers with the job's own ending (the jobs' texts say the one next step).
    assert f"Job {job_id} (slow_nap) was cancelled" in cancelled.text
    with anyio.fail_after(30):
        while os.path.exists(f"/proc/{pid}") and _state(pid) != "Z":
            await anyio.sleep(0.02)
    assert (await call(pyapp, "slow_nap", {"seconds": 0}, follow_jobs=False)).structured is not None


async def test_a_worker_that_ended_while_idle_does_not_fail_the_next_call(pyapp: Toolbay) -> None:
    # Killed while idle (the OOM killer, a kill, a timer an earlier call left behind): the next
    # call of any of its module's tools failed, "the worker process was killed by SIGKILL",
    # though it never ran; over HTTP, another caller's call.
    assert (await call(pyapp, "greet", {"name": "Ada"})).text == "Hello, Ada!"
    handler = pyapp.catalog.current.get("greet")
    assert isinstance(handler, PythonHandler)
    [pid] = handler.pool.pids()
    os.kill(pid, signal.SIGKILL)
    with anyio.fail_after(30):
        while _state(pid) not in ("Z", "gone"):
            await anyio.sleep(0.02)  # ended: a zombie until reaped
    again = await call(pyapp, "greet", {"name": "Bo"})
    assert (again.is_error, again.text) == (False, "Hello, Bo!")
    assert handler.pool.pids() != [pid]


async def test_a_warm_worker_idle_past_its_time_is_stopped_and_the_next_call_starts_one(
        make_settings: Callable[..., Settings]) -> None:
    # Workers were never stopped: sixty modules called once each kept sixty processes (800 MiB).
    async with assemble(make_settings(python={"worker_idle_s": 0.5}), watch=False) as app:
        assert (await call(app, "greet", {"name": "Ada"})).text == "Hello, Ada!"
        handler = app.catalog.current.get("greet")
        assert isinstance(handler, PythonHandler)
        [pid] = handler.pool.pids()
        with anyio.fail_after(30):
            while handler.pool.pids() or _state(pid) != "gone":
                await anyio.sleep(0.05)  # stopped once idle half a second, and reaped
        assert (await call(app, "greet", {"name": "Bo"})).text == "Hello, Bo!"
        assert handler.pool.started == 2


SAYER = '''
def get_tool_schemas():
    return [{{"name": "{name}_say", "description": "Say it.", "input_schema": {{"type": "object"}}}}]


def {name}_say():
    return "{name}"
'''


async def test_past_the_servers_cap_on_idle_workers_the_one_idle_longest_is_stopped_whatever_its_module(
        make_settings: Callable[..., Settings], tmp_path: Path) -> None:
    # worker_idle_s alone let a folder of a hundred modules, each called once, hold 101 processes
    # (1.6 GB) for five minutes.
    folder = tmp_path / "sayers"
    folder.mkdir()
    names = ["alpha", "beta", "gamma"]
    for name in names:
        (folder / f"{name}.py").write_text(SAYER.format(name=name), encoding="utf-8")
    settings = make_settings(extensions=[folder], python={"worker_idle_s": 0, "max_idle_workers": 2})
    async with assemble(settings, watch=False) as app:
        pools = {}
        for name in names:
            assert (await call(app, f"{name}_say")).text == name
            handler = app.catalog.current.get(f"{name}_say")
            assert isinstance(handler, PythonHandler)
            pools[name] = handler.pool
        [first_pid] = pools["alpha"].pids() or [None]
        assert first_pid is None  # stopped when gamma's worker went idle: the third
        assert len(pools["beta"].pids()) == len(pools["gamma"].pids()) == 1
        # Called again, alpha starts a worker, and beta's, now idle longest, is stopped.
        [beta_pid] = pools["beta"].pids()
        assert (await call(app, "alpha_say")).text == "alpha"
        assert pools["alpha"].started == 2
        assert pools["beta"].pids() == []
        with anyio.fail_after(30):
            while _state(beta_pid) != "gone":
                await anyio.sleep(0.05)  # killed and reaped
        assert (await call(app, "gamma_say")).text == "gamma"
        assert pools["gamma"].started == 1  # kept: it was not the oldest


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0]
    except OSError:
        return "gone"


def test_the_text_a_worker_runs_is_the_files_only_while_it_has_the_hash_described(tmp_path: Path) -> None:
    import hashlib

    from toolbay.discovery import source_of

    module = tmp_path / "bom.py"
    module.write_bytes(b"\xef\xbb\xbfX = 1\n")  # saved by an editor that writes a byte-order mark
    sha = hashlib.sha256(module.read_bytes()).hexdigest()
    assert source_of(str(module), sha) == "X = 1\n"
    compile(source_of(str(module), sha) or "", str(module), "exec")  # runnable as it is
    module.write_bytes(b"X = 2\n")
    assert source_of(str(module), sha) is None  # changed since: the file is imported as it is
    module.write_bytes(b"X = '\xe9'\n")  # Latin-1, not UTF-8
    assert source_of(str(module), hashlib.sha256(module.read_bytes()).hexdigest()) is None


HELD = '''
import os, time


def get_tool_schemas():
    return [{{"name": "held_say", "description": "Say it.", "input_schema": {{"type": "object"}}}}]


def held_say():
    while "{word}" == "first" and not os.path.exists({release!r}):  # holds its one worker until told
        time.sleep(0.02)
    return "{word}"
'''


async def test_a_call_waiting_for_a_worker_when_its_module_is_saved_again_is_answered_by_the_new_version(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    # Saved while callers called it (an editor's write then rename), the module's old workers
    # were let go and every call waiting for one failed: "the module was replaced or removed".
    # Nothing of those calls had run: the version now served answers them.
    release = python_dir / "release.flag"  # in the module's folder, which its worker may read
    target = python_dir / "held.py"
    target.write_text(HELD.format(word="first", release=str(release)), encoding="utf-8")
    settings = make_settings(python={"workers_per_module": 1})
    settings.jobs.sync_budget_s = 600  # answered inline, not as jobs
    async with assemble(settings, watch=False) as app:
        old = app.catalog.current.get("held_say")
        assert isinstance(old, PythonHandler)
        answers: dict[str, str] = {}

        async def ask(label: str) -> None:
            answers[label] = (await call(app, "held_say")).text

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(ask, "holding")
                while old.pool.started == 0:  # its one worker is the first call's
                    await anyio.sleep(0.02)
                group.start_soon(ask, "waiting")
                while old.pool.waiting == 0:
                    await anyio.sleep(0.02)
                target.write_text(HELD.format(word="second", release=str(release)), encoding="utf-8")
                await app.rescan()
                assert app.catalog.current.get("held_say") is not old
                release.touch()
    assert answers == {"holding": "first", "waiting": "second"}


async def test_a_call_waiting_for_a_busy_modules_worker_says_so_as_its_progress(
    make_settings: Callable[..., Settings], python_dir: Path,
) -> None:
    """A job waiting for one of its module's workers read as running, with nothing to tell why
    it did not move (an outside check: a 3 s call shown running from 2 s before it began)."""
    release = python_dir / "release.flag"
    (python_dir / "held.py").write_text(HELD.format(word="first", release=str(release)), encoding="utf-8")
    async with assemble(make_settings(python={"workers_per_module": 1}), watch=False) as app:
        held = app.catalog.current.get("held_say")
        assert isinstance(held, PythonHandler)
        said: list[str | None] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            said.append(message)

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(held.handle, {}, CallContext())
                while held.pool.started == 0:  # its one worker is the first call's
                    await anyio.sleep(0.02)
                group.start_soon(held.handle, {}, CallContext(report_progress=progress))
                while held.pool.waiting == 0:
                    await anyio.sleep(0.02)
                release.touch()
    assert said == ["waiting for a worker of held: all 1 are busy ([python] workers_per_module)"]
