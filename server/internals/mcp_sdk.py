"""Reaching past the MCP SDK's public API (``mcp`` is pinned in pyproject).

- The session manager builds its streamable HTTP transports by the module-level name
  ``StreamableHTTPServerTransport``; there is no parameter for another class, and toolbay's
  per-request JSON answers need one (``toolbay.protocol.plain_json``). That subclass also
  overrides the transport's ``_handle_post_request``, the one point after the SDK's own checks
  of a POST (session, Host, Origin, Content-Type) where the HTTP quick lane can answer a call.
- The streamable HTTP and legacy SSE transports build their event streams by the module-level
  name ``EventSourceResponse``, with no parameter for another class: toolbay's keeps a POST's
  stream, and a legacy SSE connection's, until its answers are sent when the server is told to
  stop (``toolbay.internals.sse_starlette_uvicorn``).
- A per-message ``ServerSession`` has no public accessor for the connection it belongs to,
  which is what outlives the message and closes with the client (``toolbay.sessions``).
- ``ServerSession.send_request`` chooses the request's id itself and gives no way to learn
  it, and its courtesy cancel (when the awaiting task is cancelled) goes out on the stream of
  the client's request it relates to. When the client cancelled that request, its stream has
  closed and the cancel is dropped: the client's model went on sampling. The dispatcher takes
  an id of the caller's choosing (``request_id`` in its call options), so toolbay can cancel
  the request again on the connection's own channel (``send_request_with_id``).
- A streamable HTTP transport hands the client's messages to its session through its
  ``_read_stream_writer``, with no public way to add one of the server's choosing. A request
  answered with one JSON body has no stream whose closing tells the session that its client
  went away (an SSE answer's does), so its call ran on to its end; toolbay tells the session
  as the client would have, with ``notifications/cancelled`` (``tell_session_as_client``).
- The packages ``mcp`` and ``mcp.server`` import, as they load, everything their names offer:
  the client, its session group, the MCPServer framework with its resources and HTTP client.
  A server uses the low-level server and the types; the rest was about 0.08 s of processor
  time in every ``toolbay`` command that loads the SDK. ``defer_package_imports`` lets their
  submodules load without them and runs a package's own imports when a name only it defines
  is first asked for (``from mcp import Client``), so nothing that uses them changes. The
  standard library's ``importlib.util.LazyLoader`` does not do this: importing a submodule
  reads the package's ``__path__``, which runs the whole ``__init__`` (tried: ``import
  mcp.types`` loaded ``mcp.client``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the SDK itself loads with a server, not with the modules that keep sessions
    from mcp.server.session import ServerSession
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from pydantic import BaseModel
    from sse_starlette import EventSourceResponse

Result = TypeVar("Result", bound="BaseModel")

_EAGER_PACKAGES = ("mcp", "mcp.server")


def defer_package_imports() -> None:
    """From now on, ``mcp`` and ``mcp.server`` load as packages whose own imports run only when
    a name they define is asked for; their submodules (``mcp.types``, ``mcp.server.lowlevel``)
    load as ever. Nothing is imported now: a command that never loads the SDK still does not."""
    if not any(isinstance(finder, _DeferringFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _DeferringFinder())


class _DeferringFinder(importlib.abc.MetaPathFinder):
    """Finds the two packages as Python would, and hands them to ``_DeferredInit``."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in _EAGER_PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return None  # not the SDK this was written for: it imports as it always did
        spec.loader = _DeferredInit(spec.loader)
        return spec


class _DeferredInit(importlib.abc.Loader):
    """A package's loader that leaves its ``__init__`` to ``_finish_on_first_use``; anything
    else (resources, source) is the package's own loader's."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        _finish_on_first_use(module, self.loader)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


def _finish_on_first_use(package: ModuleType, loader: importlib.abc.Loader) -> None:
    """Gives ``package`` a module ``__getattr__`` (PEP 562) that runs its ``__init__`` the first
    time a name it lacks is asked for, then answers from what that defined. A submodule's name
    is left to the import system (``from mcp import types`` imports ``mcp.types``), which asks
    the package for it before importing it."""
    # Another thread asking meanwhile waits for the ``__init__`` to end: it must not find the
    # package half made. The package's own code asking (the same thread) finds it as it is.
    lock = threading.RLock()
    ran = False

    def __getattr__(name: str) -> Any:
        nonlocal ran
        with lock:
            if not ran:
                if name.startswith("__") and name != "__all__" or _is_submodule(package, name):
                    raise AttributeError(name)  # a probe (copy, inspect), or a submodule to import
                ran = True
                try:
                    loader.exec_module(package)
                finally:
                    if package.__dict__.get("__getattr__") is __getattr__:  # not one of its own
                        del package.__getattr__
        try:
            return package.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {package.__name__!r} has no attribute {name!r}") from None

    package.__getattr__ = __getattr__  # type: ignore[method-assign]


def _is_submodule(package: ModuleType, name: str) -> bool:
    return importlib.util.find_spec(f"{package.__name__}.{name}") is not None


def use_streamable_http_transport(transport_class: type[StreamableHTTPServerTransport]) -> None:
    """Makes the SDK's session manager build ``transport_class`` for new sessions (idempotent)."""
    import mcp.server.streamable_http_manager as sdk_manager

    sdk_manager.StreamableHTTPServerTransport = transport_class  # type: ignore[misc]


def use_event_source_response(response_class: type[EventSourceResponse]) -> None:
    """Makes the SDK's streamable HTTP and legacy SSE transports answer on ``response_class``
    streams (idempotent)."""
    import mcp.server.sse as sdk_sse
    import mcp.server.streamable_http as sdk_transport

    sdk_transport.EventSourceResponse = response_class  # type: ignore[misc]
    sdk_sse.EventSourceResponse = response_class  # type: ignore[misc]


async def tell_session_as_client(transport: StreamableHTTPServerTransport, message: Any) -> bool:
    """Hands ``message`` (a ``SessionMessage``) to ``transport``'s session as if its client had
    sent it; False where the transport is not connected (or the SDK no longer keeps the writer)."""
    writer = getattr(transport, "_read_stream_writer", None)
    if writer is None:
        return False
    await writer.send(message)
    return True


def connection_of(session: ServerSession) -> Any:
    """The connection behind a per-message session, or None when the SDK keeps none."""
    return getattr(session, "_connection", None)


def when_connection_closes(session: ServerSession, callback: Callable[..., object], *args: Any) -> bool:
    """Calls ``callback(*args)`` when the connection behind ``session`` closes (the SDK unwinds
    the connection's exit stack when its client goes away, on every transport). False when the
    SDK gives no way to tell; then nothing is arranged."""
    exit_stack = getattr(connection_of(session), "exit_stack", None)
    if exit_stack is None:
        return False
    exit_stack.callback(callback, *args)
    return True


async def send_request_with_id(session: ServerSession, request: Any, result_type: type[Result],
                               request_id: str, *, related: bool) -> Result:
    """``session.send_request(request, result_type)`` with the id ``request_id``; ``related``:
    on the stream of the client's request being handled (as ``related_request_id`` does),
    else on the connection's own channel."""
    channel = session._request_outbound if related else session._connection.outbound
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    result = await channel.send_raw_request(data["method"], data.get("params"), {"request_id": request_id})
    return result_type.model_validate(result, by_name=False)
