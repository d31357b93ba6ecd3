"""Hot reload seen by the SDK's own client in process: add, replace, delete, a broken upload,
``refresh_tools``, and 2026-07-28 ``subscriptions/listen``."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.disclosure.conftest import NOUNS, VERBS, python_module
from tests.reload.conftest import (
    GREET_V1,
    GREET_V2,
    HASHSUM,
    JUNK,
    TEXTKIT,
    WAIT_S,
    ListChanged,
    RescanSpy,
    drop,
    text_of,
)
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import Settings
from toolbay.protocol.mcp_server import build_mcp_server
from toolbay.wasm import WasmRuntime

pytestmark = pytest.mark.anyio


async def _names(client: Client) -> set[str]:
    names: set[str] = set()
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor)
        names.update(tool.name for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return names


async def test_a_dropped_bundled_tool_is_announced_and_callable(reload_app: Toolbay, reload_dir: Path) -> None:
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            assert "hashsum" not in await _names(client)
            seen = changed.count
            drop(HASHSUM, reload_dir)
            drop(TEXTKIT, reload_dir)
            await changed.after(seen)
            names = await _names(client)
            if "textkit_count" not in names:  # the two files may land in two batches
                await changed.after(seen + 1)
                names = await _names(client)
            result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "md5"})
            count = await client.call_tool("textkit_count", {"stdin": "one two\nthree\n"})
    assert {"hashsum", "textkit_count", "textkit_grep"} <= names
    assert "900150983cd24fb0d6963f7d28e17f72" in text_of(result)
    assert text_of(count).split() == ["2", "3", "14", "14"]


async def test_a_replaced_tool_serves_its_new_version_while_a_running_call_ends_on_the_old(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    changed = ListChanged()
    runs_started = anyio.Event()
    may_run = anyio.Event()  # the old call's run is held until the new version is in place
    runtime: WasmRuntime = reload_app.keeper.runtime
    run_async = runtime.run_async

    async def spy(module: Any, request: Any, cancel: Any = None) -> Any:
        if not runs_started.is_set():  # the first run is the old call's
            runs_started.set()
            await may_run.wait()
        return await run_async(module, request, cancel)

    runtime.run_async = spy  # type: ignore[method-assign]
    old_result: dict[str, Any] = {}

    async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
        seen = changed.count
        drop(GREET_V1, reload_dir, "greet.wasm")
        await changed.after(seen)
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "shout" not in tools["greet"].input_schema["properties"]

        async def slow_old_call() -> None:
            # Longer than the quick budget, so the call goes to a worker (through the spy).
            old_result["value"] = await client.call_tool("greet", {"name": "old", "ms": 100})

        with anyio.fail_after(WAIT_S):
            async with anyio.create_task_group() as group:
                group.start_soon(slow_old_call)
                await runs_started.wait()
                seen = changed.count
                drop(GREET_V2, reload_dir, "greet.wasm")
                await changed.after(seen)
                swapped_while_running = "value" not in old_result
                new = await client.call_tool("greet", {"name": "new", "shout": True})
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                may_run.set()
    assert swapped_while_running
    assert text_of(new).strip() == "GOOD DAY, NEW (GREET V2)"
    assert "shout" in tools["greet"].input_schema["properties"]
    assert old_result["value"].is_error is False
    assert text_of(old_result["value"]).strip() == "hello, old (greet v1)"


async def test_a_deleted_tool_is_gone(reload_app: Toolbay, reload_dir: Path) -> None:
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            seen = changed.count
            target = drop(GREET_V1, reload_dir, "greet.wasm")
            await changed.after(seen)
            assert "greet" in await _names(client)
            seen = changed.count
            target.unlink()
            await changed.after(seen)
            names = await _names(client)
            result = await client.call_tool("greet", {})
    assert "greet" not in names
    assert result.is_error is True
    assert "no tool named 'greet'" in text_of(result)


@contextlib.contextmanager
def _rescans_held_back(app: Toolbay) -> Iterator[None]:
    """Inside, the keeper's rescans wait (the watcher's, once a file is removed): the moment
    before the watcher takes a removed file out lasts until the block is left."""
    may_rescan = anyio.Event()
    rescan = app.keeper.rescan

    async def held_back(**kwargs: Any) -> Any:
        await may_rescan.wait()
        return await rescan(**kwargs)

    app.keeper.rescan = held_back  # type: ignore[method-assign]
    try:
        yield
    finally:
        may_rescan.set()


async def _greet_and_hashsum_served(client: Client, changed: ListChanged, folder: Path) -> tuple[Path, Path]:
    """Drops hashsum and greet into ``folder`` and waits until ``client`` lists both; their paths."""
    seen = changed.count
    kept = drop(HASHSUM, folder)
    target = drop(GREET_V1, folder, "greet.wasm")
    while not {"greet", "hashsum"} <= await _names(client):
        await changed.after(seen)
        seen = changed.count
    return kept, target


async def test_a_deleted_tool_is_neither_run_nor_found_before_the_watcher_takes_it_out(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    """The watcher lets a folder's changes settle before it rescans; in that moment the removed
    tool was still run by a call and returned by search_tools (an outside check deleted a tool
    and called it at once). Here the rescan is held back, so the moment lasts."""
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            kept, target = await _greet_and_hashsum_served(client, changed, reload_dir)
            with _rescans_held_back(reload_app):
                target.unlink()
                called = await client.call_tool("greet", {"name": "x"})
                found = await client.call_tool("search_tools", {"query": "greet"})
                still = await client.call_tool("hashsum", {"stdin": "x"})
    assert called.is_error is True
    assert "no tool named 'greet'" in text_of(called)
    assert "greet." not in text_of(called)  # not offered as the closest name to itself (a re-check)
    assert found.structured_content == {"results": [], "no_match": True}  # hashsum's words are not greet's
    assert still.is_error is False and kept.exists()


async def test_a_deleted_tool_is_not_listed_before_the_watcher_takes_it_out(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    """A client that listed in that moment was shown the removed file's tools (for about 0.3 s,
    an outside check), and then failed to call them. Here the rescan is held back."""
    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            _, target = await _greet_and_hashsum_served(client, changed, reload_dir)
            with _rescans_held_back(reload_app):
                target.unlink()
                after_removal = await _names(client)
                target.write_bytes(GREET_V1.read_bytes())  # put back: listed again, as it is still served
                put_back = await _names(client)
    assert "hashsum" in after_removal and "greet" not in after_removal
    assert {"greet", "hashsum"} <= put_back


ZEBRA = '''
def get_tool_schemas():
    return [{"name": "zebra_go", "description": "Go.", "inputSchema": {"type": "object"}},
            {"name": "zebra_stop", "description": "Stop.", "inputSchema": {"type": "object"}}]


def zebra_go():
    return "going"


def zebra_stop():
    return "stopped"
'''


async def test_the_tools_of_a_file_just_removed_are_not_offered_as_closest_names(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    """Called at once after zebra.py was removed, zebra_go was answered "The closest names:
    zebra_stop", a tool as gone as itself (a second re-check)."""
    target = reload_dir / "zebra.py"
    target.write_text(ZEBRA, encoding="utf-8")
    await reload_app.rescan()
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy") as client:
            assert (await client.call_tool("zebra_stop", {})).is_error is False
            with _rescans_held_back(reload_app):
                target.unlink()
                called = await client.call_tool("zebra_go", {})
    assert called.is_error is True and "no tool named 'zebra_go'" in text_of(called)
    assert "zebra_stop" not in text_of(called)


async def test_a_broken_replacement_keeps_the_old_tools_and_logs_why(
    reload_app: Toolbay, reload_dir: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    changed = ListChanged()
    rescans = RescanSpy(reload_app)
    caplog.set_level(logging.WARNING)
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            seen = changed.count
            drop(GREET_V1, reload_dir, "greet.wasm")
            await changed.after(seen)
            started = rescans.started
            drop(JUNK, reload_dir, "greet.wasm")
            change = await rescans.one_started_after(started)
            names = await _names(client)
            result = await client.call_tool("greet", {"name": "still"})
    assert change.empty
    assert "greet" in names
    assert text_of(result).strip() == "hello, still (greet v1)"
    kept = [r.getMessage() for r in caplog.records if "keeping the previous version of greet.wasm" in r.getMessage()]
    assert kept and "not a WebAssembly file" in kept[0], [r.getMessage() for r in caplog.records]
    assert [s.path for s in reload_app.skipped_files] == [str(reload_dir / "greet.wasm")]


async def test_a_tool_kept_from_a_broken_replacement_runs_even_if_never_loaded_before(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    # Described from the description cache, so its module was never compiled in this app: the
    # first call must load the described version (by hash), not the junk now at the path.
    rescans = RescanSpy(reload_app)
    drop(GREET_V1, reload_dir, "greet.wasm")
    await rescans.one_started_after(0)
    async with assemble(reload_app.settings, watch=False) as fresh:
        handler = fresh.catalog.current.get("greet")
        assert handler is not None and not fresh.keeper.runtime.loaded
        drop(JUNK, reload_dir, "greet.wasm")
        with anyio.fail_after(WAIT_S):
            change = await fresh.rescan()
            async with Client(build_mcp_server(fresh, "memory"), mode="legacy") as client:
                result = await client.call_tool("greet", {"name": "cached"})
    assert change.empty
    assert text_of(result).strip() == "hello, cached (greet v1)"


async def test_refresh_tools_reports_what_changed(reload_settings: Any, reload_dir: Path) -> None:

    async with assemble(reload_settings, watch=False) as app:
        with anyio.fail_after(WAIT_S):
            async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:
                drop(GREET_V1, reload_dir, "greet.wasm")
                drop(HASHSUM, reload_dir)
                added = await client.call_tool("refresh_tools", {})
                drop(GREET_V2, reload_dir, "greet.wasm")
                (reload_dir / "hashsum.wasm").unlink()
                replaced = await client.call_tool("refresh_tools", {})
                nothing = await client.call_tool("refresh_tools", {})
                called = await client.call_tool("greet", {})
    assert added.structured_content == {"added": ["greet", "hashsum"], "removed": [], "changed": []}
    assert text_of(added) == "Tools added: greet, hashsum."
    assert replaced.structured_content == {"added": [], "removed": ["hashsum"], "changed": ["greet"]}
    assert text_of(nothing) == "No change: the tools are up to date."
    assert text_of(called).strip() == "good day, world (greet v2)"


async def test_refresh_tools_tells_the_local_caller_which_files_could_not_be_described_and_why(
        reload_settings: Any, reload_dir: Path) -> None:
    """It answered "No change: the tools are up to date." beside a broken replacement and a file
    that is no tool, which a tool author in their editor learnt only from the log (found by an
    outside probe)."""
    async with assemble(reload_settings, watch=False) as app:
        with anyio.fail_after(WAIT_S):
            async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:
                drop(GREET_V1, reload_dir, "greet.wasm")
                assert text_of(await client.call_tool("refresh_tools", {})) == "Tools added: greet."
                drop(JUNK, reload_dir, "greet.wasm")  # a broken version: the last good one stays
                drop(JUNK, reload_dir, "notes.wasm")
                answer = await client.call_tool("refresh_tools", {})
    text = text_of(answer)
    assert text.startswith("No change: the tools are up to date. Files that could not be described: "), text
    assert "greet.wasm: " in text and "notes.wasm: " in text
    assert answer.structured_content is not None
    problems = dict(line.split(": ", 1) for line in answer.structured_content["not_described"])
    assert sorted(problems) == ["greet.wasm", "notes.wasm"]
    assert problems["greet.wasm"].endswith("(its last good version is served meanwhile)")
    assert not problems["notes.wasm"].endswith("meanwhile)")


async def test_a_2026_client_hears_of_changes_through_subscriptions_listen(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="2026-07-28") as client:
            async with client.listen(tools_list_changed=True) as subscription:
                drop(GREET_V1, reload_dir, "greet.wasm")
                event = await subscription.__anext__()
            names = await _names(client)
            result = await client.call_tool("greet", {"name": "modern"})
    assert type(event).__name__ == "ToolsListChanged"
    assert "greet" in names
    assert text_of(result).strip() == "hello, modern (greet v1)"


async def test_a_rejected_replacement_is_not_described_again_until_it_changes(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    described: list[str] = []
    describe_files = reload_app.keeper.discovery.describe_files

    async def spy(paths: Any, *args: Any, **kwargs: Any) -> Any:
        described.extend(Path(p).name for p in paths)
        return await describe_files(paths, *args, **kwargs)

    reload_app.keeper.discovery.describe_files = spy  # type: ignore[method-assign]
    drop(GREET_V1, reload_dir, "greet.wasm")
    with anyio.fail_after(WAIT_S):
        await reload_app.rescan()
        drop(JUNK, reload_dir, "greet.wasm")
        await reload_app.rescan()
        described.clear()
        await reload_app.rescan()
    assert described == []
    assert "greet" in reload_app.catalog.current.names()


async def test_a_tool_folder_deleted_and_made_again_is_watched_again(reload_app: Toolbay, reload_dir: Path) -> None:
    import shutil

    changed = ListChanged()
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            seen = changed.count
            drop(HASHSUM, reload_dir)
            await changed.after(seen)
            seen = changed.count
            shutil.rmtree(reload_dir)
            await changed.after(seen)
            assert "hashsum" not in await _names(client)
            seen = changed.count
            reload_dir.mkdir()
            drop(HASHSUM, reload_dir)
            await changed.after(seen)
            names = await _names(client)
            if "hashsum" not in names:  # the folder and the file may be seen in two rescans
                await changed.after(seen + 1)
                names = await _names(client)
            result = await client.call_tool("hashsum", {"text": "abc", "algorithm": "md5"})
    assert "hashsum" in names
    assert "900150983cd24fb0d6963f7d28e17f72" in text_of(result)


async def test_a_file_described_again_keeps_its_place_in_discovery_order(tmp_path: Path) -> None:
    from toolbay.config import load_settings

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    drop(GREET_V1, first, "greet.wasm")
    drop(GREET_V1, second, "greet.wasm")
    settings = load_settings(None, extensions=[first, second], data_dir=tmp_path / "data")
    with anyio.fail_after(WAIT_S):
        async with CatalogKeeper.open(settings) as app:
            drop(GREET_V2, first, "greet.wasm")  # only the first folder's copy is described again
            await app.rescan()
            greet = app.catalog.current.get("greet")
    assert greet is not None
    assert greet.definition.origin == f"wasm:{first / 'greet.wasm'}"
    assert "shout" in greet.definition.input_schema["properties"]


async def test_a_file_dropped_before_the_watch_is_in_place_is_taken_in(reload_settings: Any, reload_dir: Path) -> None:
    """The watcher says it has started at once, before the OS watch is in place (that takes an
    idle tick): a file that lands in between makes no event, and is taken in all the same."""
    from types import SimpleNamespace

    from toolbay.watcher import ExtensionWatcher

    with anyio.fail_after(WAIT_S):
        async with CatalogKeeper.open(reload_settings) as keeper, anyio.create_task_group() as group:
            assert "hashsum" not in keeper.catalog.current.names()
            rescans = RescanSpy(SimpleNamespace(keeper=keeper))  # type: ignore[arg-type]
            drop(HASHSUM, reload_dir)  # after the start's scan, before any watch
            await group.start(ExtensionWatcher(keeper).run)
            change = await rescans.one_started_after(0)
            group.cancel_scope.cancel()
    assert "hashsum" in change.added


async def test_a_file_skipped_before_is_said_skipped_again_when_dropped_in(
    reload_app: Toolbay, reload_dir: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Its description comes from the cache (the same file seen before), which said nothing: a
    tool author who dropped an empty .wasm in again found no line in the log, where the first
    time said why (an outside check)."""
    caplog.set_level(logging.WARNING)
    target = reload_dir / "broken.wasm"

    async def until_skipped(skipped: bool) -> None:
        while (str(target) in [s.path for s in reload_app.skipped_files]) != skipped:
            await reload_app.rescan()

    with anyio.fail_after(WAIT_S):
        drop(JUNK, reload_dir, target.name)
        await until_skipped(True)
        target.unlink()
        await until_skipped(False)
        drop(JUNK, reload_dir, target.name)
        await until_skipped(True)
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"skipping {target}:")]
    assert len(said) == 2 and all("not a WebAssembly file" in line for line in said), said


async def test_a_changed_modules_tools_are_compared_with_their_last_version_off_the_event_loop(
        reload_settings: Settings, reload_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rescan compares every tool of a changed file with its last version, its schemas written
    out, to say what changed: done on the event loop, a module of 10,000 tools held every other
    request (/healthz too) 0.8 s at each edit, one of a 60 MB schema 1.75 s (outside checks)."""
    import threading

    from toolbay.catalog import Catalog

    compared_on_the_loop: list[bool] = []
    compare = Catalog.diff

    def recorded(self: Catalog, newer: Catalog) -> Any:
        compared_on_the_loop.append(threading.current_thread() is threading.main_thread())
        return compare(self, newer)

    module = reload_dir / "many.py"
    module.write_text(python_module("many", nouns=NOUNS[:5]), encoding="utf-8")
    async with assemble(reload_settings, watch=False) as app:
        monkeypatch.setattr(Catalog, "diff", recorded)
        module.write_text(python_module("many", nouns=NOUNS[:6]), encoding="utf-8")
        change = await app.rescan()
    assert len(change.added) == len(VERBS)  # a noun more: a tool more for each verb
    assert compared_on_the_loop == [False]


async def test_a_rescan_cancelled_as_it_ends_serves_what_it_found_or_nothing_new(
        reload_settings: Settings, reload_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rescan cancelled late (a client cancelling its ``refresh_tools`` call) once it had taken
    the folder's new state as read but before serving it: the tools of a removed module stayed
    listed until another file changed (the next rescan served the removal, and never released
    the module)."""
    import threading

    from toolbay import catalog_keeper

    module = reload_dir / "many.py"
    module.write_text(python_module("many", nouns=NOUNS[:2]), encoding="utf-8")
    listing_private = catalog_keeper._private_modules_now
    entered, go_on = threading.Event(), threading.Event()

    def held(folders: list[Path]) -> Any:
        entered.set()
        go_on.wait(30)
        return listing_private(folders)

    async with assemble(reload_settings, watch=False) as app:
        assert any(name.startswith("many") for name in app.catalog.current.tools)
        module.unlink()
        monkeypatch.setattr(catalog_keeper, "_private_modules_now", held)
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(app.rescan)
                await anyio.to_thread.run_sync(entered.wait, 30)
                scope.cancel()  # arrives while the rescan waits on its worker thread
                go_on.set()
        monkeypatch.setattr(catalog_keeper, "_private_modules_now", listing_private)
        served = set(app.catalog.current.tools)
        later = await app.rescan()
    assert not any(name.startswith("many") for name in served), sorted(served)
    assert later.empty  # the removal was served by the cancelled rescan, not left to this one


async def test_a_watching_server_stops_without_waiting_for_its_watchs_idle_tick(
        reload_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopping waited for the OS watch's thread, which looked for a stop only at its next idle
    tick: 0.2 s of every stop of every server (Ctrl-C, a deploy's SIGTERM). Here the idle tick
    is two minutes, longer than the deadline."""
    import threading

    import toolbay.watcher

    watching = threading.Event()  # the watch's thread has looked at its stop: it waits in the OS watch

    class Asked(threading.Event):
        def is_set(self) -> bool:
            watching.set()
            return super().is_set()

    class SlowTicking(toolbay.watcher.ExtensionWatcher):
        def __init__(self, keeper: CatalogKeeper) -> None:
            super().__init__(keeper)
            self.idle_tick_ms = 120_000
            self._stopping = Asked()

    monkeypatch.setattr(toolbay.watcher, "ExtensionWatcher", SlowTicking)
    with anyio.fail_after(WAIT_S):
        async with assemble(reload_settings):
            assert await anyio.to_thread.run_sync(watching.wait, WAIT_S)
