"""Serving over stdio, apart from the HTTP transports: a stdio server (Claude Code's) loads
none of toolbay's HTTP transports and guards, a third of a second of imports a first start
made beside describing its tools. (The SDK's low-level server loads Starlette and its own HTTP
transport whatever the transport; ``serve`` over stdio loads them without uvicorn, which they
would load: ``toolbay.internals.sse_starlette_uvicorn``.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolbay.protocol.quick_lane import stdio_server
from toolbay.protocol.stdio import stdio_streams

if TYPE_CHECKING:
    from toolbay.app import Toolbay


async def serve_stdio(app: Toolbay) -> None:
    server, lane = stdio_server(app, with_lane=app.settings.quick_lane)
    # The answer to the first listing written, a first start's compiled code may be cached
    # (``assemble(hold_background_work=True)``): until then it would take a core from that answer.
    async with stdio_streams(lane, on_listed=app.listing_answered) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
