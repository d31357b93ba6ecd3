"""What toolbay reaches into in uvicorn (``toolbay.internals.uvicorn_server``): a server whose
``serve()`` was cancelled is stopped at once. These fail when a uvicorn upgrade changes it; the
behaviour built on it (one app serving HTTP again) is tested in tests/protocol/test_http_transports.py."""

from __future__ import annotations

import socket
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn

from toolbay.internals.uvicorn_server import stop_at_once

pytestmark = pytest.mark.anyio


async def test_a_cancelled_server_is_stopped_at_once_its_request_cancelled_and_its_lifespan_ended() -> None:
    seen: list[str] = []
    request_began = anyio.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                seen.append(message["type"])
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        request_began.set()
        try:
            await anyio.sleep_forever()  # a request that never ends on its own
        except BaseException:
            seen.append("request cancelled")
            raise

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_config=None, timeout_graceful_shutdown=60))

    async def hanging_request() -> None:
        async with httpx2.AsyncClient() as client:
            await client.get(f"http://127.0.0.1:{port}/")

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(server.serve, [sock])
            group.start_soon(hanging_request)
            await request_began.wait()
            group.cancel_scope.cancel()  # as serving_http's block ending does
        assert server.started and not server.should_exit  # cancelled, not told to exit
        await stop_at_once(server, sock)
    assert seen == ["lifespan.startup", "request cancelled", "lifespan.shutdown"]
    assert all(not listener.is_serving() for listener in server.servers)


async def test_when_started_is_called_once_the_lifespan_has_been_entered() -> None:
    """toolbay says it serves only then (a stop sent on seeing it landed inside the startup)."""
    import socket as socket_module
    from contextlib import asynccontextmanager

    import anyio
    import uvicorn
    from starlette.applications import Starlette

    from toolbay.internals.uvicorn_server import when_started

    said: list[str] = []

    @asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202
        said.append("lifespan entered")
        yield

    sock = socket_module.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(Starlette(lifespan=lifespan), lifespan="on", log_config=None))
    when_started(server, lambda: said.append("started"))
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve, [sock])
        with anyio.fail_after(30):
            while said != ["lifespan entered", "started"]:
                await anyio.sleep(0.01)
        server.should_exit = True
    assert said == ["lifespan entered", "started"]


async def test_when_stopping_is_called_when_told_to_exit_before_open_requests_are_cut_off() -> None:
    """A request that ``stopping`` ends is answered: toolbay ends its job_waits so on SIGTERM."""
    from toolbay.internals.uvicorn_server import when_stopping

    told = anyio.Event()
    request_began = anyio.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        request_began.set()
        await told.wait()  # a long wait, ended when the server is told to stop
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ended early"})

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # A grace longer than the test's patience: the answer must come from ``stopping``.
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_config=None, timeout_graceful_shutdown=600))
    when_stopping(server, told.set)
    answered: list[str] = []

    async def waiting_request() -> None:
        async with httpx2.AsyncClient() as client:
            answered.append((await client.get(f"http://127.0.0.1:{port}/", timeout=60)).text)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(server.serve, [sock])
            while not server.started:
                await anyio.sleep(0.01)
            group.start_soon(waiting_request)
            await request_began.wait()
            server.should_exit = True  # as SIGTERM does
    assert answered == ["ended early"]
