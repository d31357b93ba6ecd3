"""The call chain's own cost per call: every stage around a trivial endpoint, against the
endpoint called directly, in the same run (goal: under 0.2 ms at the median).

    python bench/bench_chain.py [--calls 20000] [--traced]

Chains measured: the four checking stages (authenticate with a tokens-file token,
rate-limit with per-caller, per-caller×tool and global limits high enough never to
refuse, authorize, validate); the same plus the audit log to a file; and the four stages
with a JWT (HS256) instead. Calls alternate between the bare endpoint and each chain in
small batches, so both see the same machine state.

``--traced`` adds the four stages three more ways: folded as ``build_chain`` folded them before
traces existed (its own copy of that loop, the reference), built by ``build_chain`` with traces
off (``tracer=None``, what a server without ``[telemetry] traces`` runs), and with traces on
(OpenTelemetry's SDK, spans batched to an exporter that drops them).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import jwt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolbay.auth import hash_token  # noqa: E402
from toolbay.chain import ChainPolicies, ChainSettings, build_chain, default_stages  # noqa: E402
from toolbay.chain.call import CallNext, ToolCall  # noqa: E402
from toolbay.handlers.base import Handler  # noqa: E402
from toolbay.words import CallContext, PermissionTier, ToolDefinition, ToolResult  # noqa: E402

SECRET = "bench-secret-bench-secret-bench-secret"
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
          "required": ["text"]}


class Trivial(Handler):
    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        return ToolResult(text="ok")


async def endpoint(call: ToolCall) -> ToolResult:
    assert call.handler is not None
    return await call.handler.handle(call.arguments, call.context)


def settings(folder: Path, *, audit: bool, use_jwt: bool) -> ChainSettings:
    (folder / "tokens.toml").write_text(
        f'[[tokens]]\nclient_id = "bench"\nsha256 = "{hash_token("tb_bench")}"\nscopes = ["tools:read"]\n')
    auth: dict[str, Any] = {"jwt": {"key": SECRET, "audience": "bench"}} if use_jwt else {"tokens_file": "tokens.toml"}
    data: dict[str, Any] = {
        "auth": auth,
        "rate_limits": {"per_caller": "1000000/second", "per_caller_tool": "1000000/second",
                        "global": "1000000/second"},
    }
    if audit:
        data["audit"] = {"file": "audit.jsonl"}
    return ChainSettings.parse(data)


def folded_as_before(stages: list[Any], end: CallNext) -> CallNext:
    """The chain as build_chain made it before traces: the reference for "off costs nothing"."""

    async def timed(call: ToolCall) -> ToolResult:
        started = time.perf_counter()
        try:
            return await end(call)
        finally:
            call.timings["tool"] = time.perf_counter() - started

    def link(stage: Any, after: CallNext) -> CallNext:
        async def run(call: ToolCall) -> ToolResult:
            return await stage(call, after)

        return run

    call_next: CallNext = timed
    for stage in reversed(stages):
        call_next = link(stage, call_next)
    return call_next


def traced_chains(folder: Path) -> dict[str, CallNext]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropped()))
    stages = default_stages(ChainPolicies.from_settings(settings(folder, audit=False, use_jwt=False), base_dir=folder))
    return {"4 stages, folded as before": folded_as_before(stages, endpoint),
            "4 stages, traces off": build_chain(stages, endpoint, tracer=None),
            "4 stages, traces on": build_chain(stages, endpoint, tracer=provider.get_tracer("bench"))}


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(calls: int, chains: dict[str, CallNext], handler: Handler, token: dict[str, str]) -> None:
    timings: dict[str, list[float]] = {"direct": [], **{name: [] for name in chains}}
    runners: dict[str, CallNext] = {"direct": endpoint, **chains}
    batch = 100
    for _ in range(calls // batch):
        for name, run in runners.items():
            samples = timings[name]
            credential = token.get(name)
            for _ in range(batch):
                call = ToolCall(name="echo", arguments={"text": "hello", "count": 2}, context=CallContext(),
                                transport="http", handler=handler, credential=credential)
                started = time.perf_counter_ns()
                await run(call)
                samples.append((time.perf_counter_ns() - started) / 1e6)
    base_median, base_p95 = statistics.median(timings["direct"]), percentile(timings["direct"], 0.95)
    print(f"{'':28} {'median ms':>10} {'p95 ms':>10} {'overhead ms (median)':>21} {'ratio':>7}")
    print(f"{'endpoint alone':28} {base_median:10.4f} {base_p95:10.4f}")
    for name in chains:
        median, p95 = statistics.median(timings[name]), percentile(timings[name], 0.95)
        verdict = "ok" if median - base_median < 0.2 else "OVER GOAL"
        print(f"{name:28} {median:10.4f} {p95:10.4f} {median - base_median:21.4f} "
              f"{median / base_median:6.1f}x  {verdict}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="calls per variant (default 20000)")
    parser.add_argument("--traced", action="store_true", help="also: before traces, traces off, traces on")
    arguments = parser.parse_args()
    calls = arguments.calls
    handler = Trivial(ToolDefinition(name="echo", description="", input_schema=SCHEMA, tier=PermissionTier.READ))
    jwt_token = jwt.encode({"sub": "bench", "aud": "bench", "exp": int(time.time()) + 3600, "scope": "tools:read"},
                           SECRET, algorithm="HS256")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        chains = {}
        for name, audit, use_jwt in (("4 stages, tokens file", False, False), ("4 stages + audit file", True, False),
                                     ("4 stages, JWT HS256", False, True)):
            policies = ChainPolicies.from_settings(settings(folder, audit=audit, use_jwt=use_jwt), base_dir=folder)
            chains[name] = build_chain(default_stages(policies), endpoint)
        if arguments.traced:
            chains.update(traced_chains(folder))
        tokens = {name: (jwt_token if "JWT" in name else "tb_bench") for name in chains}
        print(f"{calls} calls per variant, Python {sys.version.split()[0]}")
        await measure(calls, chains, handler, tokens)


if __name__ == "__main__":
    anyio.run(main)
