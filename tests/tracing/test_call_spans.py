"""Spans of real calls through the assembled server and the SDK's in-process client, recorded
by OpenTelemetry's own in-memory exporter: one span per call with a child per chain stage and
one for the run, and no argument value in any of them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio

SECRET = "argument-value-7f3a9c"  # must never reach a span
STAGES = ["authenticate", "ratelimit", "authorize", "validate", "approve"]
CHAIN = {"rate_limits": {"per_caller": "1000/minute"},
         # Every tier asks for approval; the in-process client cannot be asked, so it is allowed.
         "approval": {"tiers": ["read", "write", "exec"], "when_unsupported": "allow"}}


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    recorded = InMemorySpanExporter()
    yield recorded
    recorded.shutdown()


@pytest.fixture
async def traced(extensions_dir: Path, shared_data_dir: Path, workspace: Path,
                 exporter: InMemorySpanExporter) -> AsyncIterator[Toolbay]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))  # exported as each span ends
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             chain=CHAIN, background_tools=["textkit_count"])
    async with assemble(settings, watch=False, tracer_provider=provider) as app:
        yield app
    provider.shutdown()


async def call(app: Toolbay, name: str, arguments: dict[str, Any]) -> Any:
    with anyio.fail_after(60):
        async with Client(build_mcp_server(app, "memory"), mode="legacy") as client:
            return await client.call_tool(name, arguments)


def tree(spans: tuple[ReadableSpan, ...]) -> tuple[ReadableSpan, list[ReadableSpan]]:
    """The one call span and its children, in the order they started."""
    roots = [s for s in spans if s.name == "toolbay.call"]
    assert len(roots) == 1, [s.name for s in spans]
    root = roots[0]
    assert root.context is not None
    children = sorted((s for s in spans if s.parent is not None and s.parent.span_id == root.context.span_id),
                      key=lambda s: s.start_time or 0)
    assert all(s.context is not None and s.context.trace_id == root.context.trace_id for s in spans)
    return root, children


def everything_recorded(spans: tuple[ReadableSpan, ...]) -> str:
    """Every name, attribute, status, event and link of the spans, as one text."""
    return json.dumps([json.loads(span.to_json()) for span in spans])


async def test_a_call_is_one_span_with_a_child_per_stage_and_one_for_the_run(
        traced: Toolbay, exporter: InMemorySpanExporter) -> None:
    result = await call(traced, "hashsum", {"text": SECRET})
    assert not result.is_error
    spans = exporter.get_finished_spans()
    root, children = tree(spans)
    assert [s.name for s in children] == [*STAGES, "toolbay.run"]
    assert root.attributes is not None
    assert root.attributes["gen_ai.tool.name"] == "hashsum" and root.attributes["toolbay.outcome"] == "ok"
    assert root.attributes["toolbay.transport"] == "memory"
    assert all(s.attributes is not None and s.attributes["toolbay.outcome"] == "passed" for s in children[:-1])
    run = children[-1]
    assert run.attributes is not None and run.attributes["toolbay.outcome"] == "ok"
    # The stages hand on in turn: each ends before the next starts, and all inside the call.
    ends = [(s.start_time or 0, s.end_time or 0) for s in children]
    assert all(end <= next_start for (_, end), (next_start, _) in zip(ends, ends[1:], strict=False))
    assert (root.start_time or 0) <= ends[0][0] and ends[-1][1] <= (root.end_time or 0)
    assert SECRET not in everything_recorded(spans)


async def test_a_refused_call_ends_at_the_stage_that_refused_it_and_quotes_no_argument(
        traced: Toolbay, exporter: InMemorySpanExporter) -> None:
    result = await call(traced, "job_list", {"status": SECRET})  # not one of the statuses
    assert result.is_error and SECRET in result.content[0].text  # the caller is told what was wrong...
    spans = exporter.get_finished_spans()
    root, children = tree(spans)
    assert [s.name for s in children] == ["authenticate", "ratelimit", "authorize", "validate"]
    refused = children[-1]
    assert refused.attributes is not None and refused.attributes["toolbay.outcome"] == "refused_invalid_arguments"
    assert not refused.status.is_ok and root.attributes is not None
    assert root.attributes["toolbay.outcome"] == "refused_invalid_arguments"
    assert SECRET not in everything_recorded(spans)  # ...the traces are not


async def test_a_call_that_goes_on_as_a_job_names_the_job_on_its_span(
        traced: Toolbay, exporter: InMemorySpanExporter) -> None:
    with anyio.fail_after(60):
        async with Client(build_mcp_server(traced, "memory"), mode="legacy") as client:
            started = await client.call_tool("textkit_count", {"stdin": SECRET, "words": True})  # declared background
    spans = exporter.get_finished_spans()
    root, _children = tree(spans)
    assert root.attributes is not None and SECRET not in everything_recorded(spans)
    assert not started.is_error and started.structured_content is not None, started.content
    job_id = started.structured_content["job_id"]
    assert root.attributes["toolbay.outcome"] == "job" and root.attributes["toolbay.job_id"] == job_id
