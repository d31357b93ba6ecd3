"""/metrics on the HTTP server, scraped as Prometheus would and read with its own text parser."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import FIXTURE_WASM
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.protocol.transports import serving_http

pytestmark = pytest.mark.anyio

SECRET_ARGUMENT = "do-not-leak-7f3a"


@pytest.fixture
async def served(extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> AsyncIterator[tuple[Toolbay, str]]:
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             transport="http", port=0,
                             chain={"rate_limits": {"per_caller_tool": "2/hour"}})
    async with assemble(settings, watch=False) as app, serving_http(app) as url:
        yield app, url


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


async def scrape(url: str) -> str:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.get(f"{url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


async def test_metrics_count_calls_by_tool_and_outcome_with_stage_times_and_no_arguments(
    served: tuple[Toolbay, str],
) -> None:
    app, url = served
    with anyio.fail_after(60):
        async with Client(f"{url}/mcp", mode="legacy") as client:
            listed = len((await client.list_tools()).tools)
            for _ in range(3):  # the third is over the 2/hour limit
                await client.call_tool("hashsum", {"text": SECRET_ARGUMENT})
            await client.call_tool("no_such_tool", {"text": SECRET_ARGUMENT})
            for number in range(20):  # names no tool serves: one series, not a series each
                await client.call_tool(f"made_up_{number}", {})
        text = await scrape(url)
    found = samples(text)
    assert SECRET_ARGUMENT not in text
    assert value(found, "toolbay_calls_total", tool="hashsum", outcome="ok") == 2
    assert value(found, "toolbay_calls_total", tool="hashsum", outcome="refused_rate_limited") == 1
    # Names no tool has share one count per caller: past the limit of 2, they are refused by it.
    assert value(found, "toolbay_calls_total", tool="(unknown)", outcome="refused_unknown_tool") == 2
    assert value(found, "toolbay_calls_total", tool="(unknown)", outcome="refused_rate_limited") == 19
    assert "no_such_tool" not in text and "made_up_" not in text
    assert value(found, "toolbay_rate_limit_refusals_total", reason="limit") == 20
    assert value(found, "toolbay_call_seconds_count") == 24
    assert value(found, "toolbay_stage_seconds_count", stage="authenticate") == 24
    assert value(found, "toolbay_stage_seconds_count", stage="ratelimit") == 24
    assert value(found, "toolbay_stage_seconds_count", stage="validate") == 2  # refused before: the limit, unknown
    assert value(found, "toolbay_stage_seconds_count", stage="tool") == 2
    assert value(found, "toolbay_catalog_tools") == len(app.catalog.current.definitions()) >= listed
    assert value(found, "toolbay_jobs", state="running") == 0


async def test_a_catalog_change_is_counted_as_a_reload(served: tuple[Toolbay, str], extensions_dir: Path) -> None:
    app, url = served
    before = samples(await scrape(url))
    shutil.copy(FIXTURE_WASM / "echo.wasm", extensions_dir / "echo.wasm")
    with anyio.fail_after(120):
        change = await app.rescan()
    assert change.added
    after = samples(await scrape(url))
    assert value(after, "toolbay_catalog_reloads_total") == value(before, "toolbay_catalog_reloads_total") + 1
    assert value(after, "toolbay_catalog_tools") == value(before, "toolbay_catalog_tools") + len(change.added)


async def test_metrics_can_be_turned_off(extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             transport="http", port=0, http={"metrics": False})
    async with assemble(settings, watch=False) as app, serving_http(app) as url, httpx2.AsyncClient() as http:
        response = await http.get(f"{url}/metrics")
    assert response.status_code == 404


async def test_without_authentication_metrics_refuse_a_foreign_host_or_origin_as_mcp_does(
    served: tuple[Toolbay, str],
) -> None:
    """On a loopback server without tokens, /metrics skipped the DNS-rebinding checks /mcp makes:
    a page that rebound its name to 127.0.0.1 read which tools its visitor had called."""
    _, url = served
    port = url.rsplit(":", 1)[1]
    async with httpx2.AsyncClient(timeout=30) as http:
        foreign_host = await http.get(f"{url}/metrics", headers={"Host": f"attacker.example:{port}"})
        foreign_origin = await http.get(f"{url}/metrics", headers={"Origin": f"http://attacker.example:{port}"})
        own = await http.get(f"{url}/metrics", headers={"Origin": f"http://localhost:{port}"})
    assert foreign_host.status_code == 421 and foreign_origin.status_code == 403
    assert own.status_code == 200 and "toolbay_calls_total" in own.text
