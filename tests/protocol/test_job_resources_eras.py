"""A job's result reads as a resource in both protocol eras (2026-07-28 results carry a
``resultType``, earlier ones do not): the SDK's own client, in process, against a background tool."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client

from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_finished_job_is_listed_and_read_as_a_resource(
        extensions_dir: Path, shared_data_dir: Path, workspace: Path, mode: str) -> None:
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             background_tools=["hashsum"])
    with anyio.fail_after(60):
        async with assemble(settings) as app, Client(build_mcp_server(app, "memory"), mode=mode) as client:
            started = await client.call_tool("hashsum", {"text": "abc"})
            assert started.structured_content is not None
            job_id = started.structured_content["job_id"]
            await client.call_tool("job_wait", {"job_id": job_id, "timeout_s": 50})
            uri = f"toolbay://jobs/{job_id}/result"
            listed = await client.list_resources()
            templates = await client.list_resource_templates()
            whole = await client.read_resource(uri)
    assert uri in [str(resource.uri) for resource in listed.resources]
    assert [t.uri_template for t in templates.resource_templates] == ["toolbay://jobs/{job_id}/result"]
    texts = [c.text for c in whole.contents if isinstance(c, types.TextResourceContents)]
    assert texts and texts[0].startswith("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
