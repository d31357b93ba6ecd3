"""The protocol's own job requests during an outage of the shared job store: a server error a
client may retry, with when, over the real client."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from tests.cluster.servers import RedisServer
from tests.conftest import BUNDLED_EXTENSIONS
from tests.jobs_e2e.conftest import http_client, http_server, settings_for

pytestmark = pytest.mark.anyio


async def test_resources_and_tasks_about_jobs_answer_a_store_outage_as_a_server_error_to_retry(
        tmp_path: Path, own_redis: RedisServer) -> None:
    """They were answered with code 0, no JSON-RPC code (an outside probe), and over plain JSON
    with HTTP 400: a client could not tell a passing outage from a mistake of its own."""
    config = tmp_path / "toolbay.toml"
    config.write_text(f"extensions = [{str(BUNDLED_EXTENSIONS)!r}]\ndata_dir = {str(tmp_path / 'data')!r}\n"
                      f"[cluster]\nredis = {own_redis.url!r}\n", encoding="utf-8")
    async with http_server(settings_for(config)) as (url, _), http_client(url) as client:
        await client.list_resources()
        own_redis.stop()
        for asking in (client.list_resources,
                       lambda: client.read_resource("toolbay://jobs/job_0123456789abcdef/result")):
            with pytest.raises(MCPError) as refused:
                await asking()
            assert refused.value.error.code == -32603
            assert "cannot reach its shared job store" in refused.value.error.message
            assert refused.value.error.data["code"] == "jobs_unavailable"
            assert refused.value.error.data["retry_after"] > 0
