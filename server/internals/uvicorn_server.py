"""Reaching past uvicorn's documented API (``uvicorn.Server``, 0.54): stopping a server at once,
and hearing when it has started.

uvicorn stops when told to exit (``should_exit``, or a signal), giving open requests
``timeout_graceful_shutdown`` to finish. A ``serve()`` that is *cancelled* instead (the block of
``serving_http`` ended, the caller's task group was cancelled) skips shutdown altogether: its
listener stays registered with the event loop after the socket is closed, the request tasks
and the lifespan (the SDK's session manager) are left running. uvicorn has no public "stop
now"; this does what its ``shutdown`` does, on the attributes it works on (``servers``,
``server_state.connections`` and ``.tasks``, ``lifespan``), which carry no leading underscore
but no documentation either. ``tests/internals/test_uvicorn_server.py`` fails if they change.

uvicorn says nothing when its startup (the lifespan: the SDK's session manager) is done and it
accepts requests; ``serve`` awaits its ``startup`` method, so ``when_started`` wraps that method
of one server. Nor does it say when it was told to stop (a signal) before it gives open requests
their grace; it then awaits its ``shutdown`` method, which ``when_stopping`` wraps.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import uvicorn


def when_started(server: uvicorn.Server, started: Callable[[], None]) -> None:
    """Calls ``started`` once ``server`` has started (its lifespan entered, its sockets
    listening), not when its startup failed or it was told to exit meanwhile."""
    startup = server.startup

    async def startup_then_say(*args: Any, **kwargs: Any) -> None:
        await startup(*args, **kwargs)
        if server.started and not server.should_exit:
            started()

    server.startup = startup_then_say  # type: ignore[method-assign]


def when_stopping(server: uvicorn.Server, stopping: Callable[[], None]) -> None:
    """Calls ``stopping`` once ``server`` was told to exit, before it closes its listener and
    gives open requests ``timeout_graceful_shutdown`` to finish: a request that ``stopping``
    ends (a long wait) is still answered."""
    shutdown = server.shutdown

    async def say_then_shut_down(*args: Any, **kwargs: Any) -> None:
        stopping()
        await shutdown(*args, **kwargs)

    server.shutdown = say_then_shut_down  # type: ignore[method-assign]


async def stop_at_once(server: uvicorn.Server, sock: socket.socket) -> None:
    """Closes the listener and every connection, cancels the requests still running and ends
    the lifespan: uvicorn's ``shutdown`` without its grace (whoever served is gone) or its
    tenth of a second of sleep. For a started server whose ``serve()`` was cancelled; the
    caller bounds it."""
    for listener in server.servers:
        listener.close()
    sock.close()
    for connection in list(server.server_state.connections):
        connection.shutdown()
    for task in list(server.server_state.tasks):
        task.cancel()
    await server.lifespan.shutdown()
