"""No leaks: replaced or removed modules are freed once nothing runs them, and closed sessions
are forgotten."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.reload.conftest import GREET_V1, GREET_V2, WAIT_S, drop
from toolbay.app import Toolbay
from toolbay.protocol.mcp_server import build_mcp_server
from toolbay.wasm import WasmModule

pytestmark = pytest.mark.anyio


async def _released(app: Toolbay, ref: weakref.ref[WasmModule]) -> bool:
    """Whether the module is freed once nothing runs it. The background optimiser holds a module
    while it compiles it with Cranelift (at low priority, so for long on a busy machine); that
    ends in an event the test waits for first. Anything holding it after that is a leak."""
    assert await anyio.to_thread.run_sync(app.keeper.runtime.wait_optimised, 90), "still optimising"
    gc.collect()
    return ref() is None


async def _module_of(app: Toolbay, name: str) -> WasmModule:
    handler = app.catalog.current.get(name)
    assert handler is not None
    async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        result = await client.call_tool(name, {})
    assert result.is_error is False
    module = handler._module
    assert isinstance(module, WasmModule)
    return module


async def test_a_replaced_module_is_released_and_the_new_one_kept(reload_settings: object, reload_dir: Path) -> None:
    from toolbay.assembly import assemble

    async with assemble(reload_settings, watch=False) as app:  # type: ignore[arg-type]
        with anyio.fail_after(WAIT_S):
            drop(GREET_V1, reload_dir, "greet.wasm")
            await app.rescan()
            old = weakref.ref(await _module_of(app, "greet"))
            old_sha = old().sha256  # type: ignore[union-attr]
            assert old_sha in app.keeper.runtime.loaded

            drop(GREET_V2, reload_dir, "greet.wasm")
            change = await app.rescan()
            new = await _module_of(app, "greet")
        assert change.changed == ("greet",)
        assert await _released(app, old)
        assert app.keeper.runtime.loaded == {new.sha256}

        (reload_dir / "greet.wasm").unlink()
        await app.rescan()
        new_ref = weakref.ref(new)
        del new
        assert await _released(app, new_ref)
        assert app.keeper.runtime.loaded == frozenset()


async def test_a_running_call_keeps_its_module_until_it_ends(reload_settings: object, reload_dir: Path) -> None:
    from toolbay.assembly import assemble

    async with assemble(reload_settings, watch=False) as app:  # type: ignore[arg-type]
        drop(GREET_V1, reload_dir, "greet.wasm")
        await app.rescan()
        started = anyio.Event()
        running: list[weakref.ref[WasmModule]] = []
        run_async = app.keeper.runtime.run_async

        async def spy(module, request, cancel=None):  # type: ignore[no-untyped-def]
            running.append(weakref.ref(module))
            started.set()
            return await run_async(module, request, cancel)

        app.keeper.runtime.run_async = spy  # type: ignore[method-assign]
        outcome: dict[str, object] = {}
        with anyio.fail_after(WAIT_S):
            async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:

                async def long_call() -> None:
                    outcome["result"] = await client.call_tool("greet", {"name": "long", "ms": 400})

                async with anyio.create_task_group() as group:
                    group.start_soon(long_call)
                    await started.wait()
                    (reload_dir / "greet.wasm").unlink()
                    await app.rescan()
                    gc.collect()
                    held_while_running = running[0]() is not None
                    loaded_while_running = app.keeper.runtime.loaded
        gc.collect()
        assert held_while_running
        assert loaded_while_running == frozenset()  # no longer shared, though still running
        assert running[0]() is None
        assert outcome["result"].is_error is False  # type: ignore[attr-defined]
        assert app.keeper.runtime.loaded == frozenset()


async def test_a_closed_session_is_forgotten(reload_app: Toolbay) -> None:
    before = len(reload_app.sessions)
    with anyio.fail_after(WAIT_S):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy") as client:
            await client.list_tools()
            during = len(reload_app.sessions)
    # The in-memory client runs the server inside its own task group, so the connection has
    # been unwound once the client has exited.
    assert during == before + 1
    assert len(reload_app.sessions) == before
    assert await reload_app.sessions.tools_changed() == 0
