"""The call chain under load over real HTTP: a global rate limit holds, nothing is lost, and
what the chain costs per call against the same server with the chain off.

    python bench/bench_chain_http.py [--calls 10000] [--concurrency 100] [--limit 200/second]

Servers run as subprocesses of this script (uvicorn on 127.0.0.1, any free port) with one
built-in ``echo`` tool (a Python handler that returns its ``text``; read tier, run inline),
so that the figures are the chain's and the transport's, not a sandbox's. Clients speak raw
JSON-RPC over httpx2, streamable HTTP as the SDK's client does: ``initialize`` ->
``Mcp-Session-Id`` -> ``notifications/initialized`` -> ``tools/call``; one session per
concurrent worker.

1. Limit, once per ``--strategies``: the full chain (tokens-file token, the global limit,
   authorize, validate, audit to a file); ``--calls`` calls at ``--concurrency``. Reported:
   calls answered / sent (none lost), HTTP 5xx (must be 0), allowed vs refused, allowed /
   (limit x elapsed seconds), the audit file against the answers. Goals: the moving window
   never lets more than the limit through in any window (allowed <= its strict ceiling);
   the sliding-window counter keeps the average rate (within 5% of limit x elapsed). A moving
   window under bursty load lets through less than limit x elapsed: a slot freed while no
   call reaches the server stays free until the next one does.
2. Cost: ``--cost-calls`` calls against the chain on (limits too high to refuse) and off
   (no stages, no HTTP auth), in alternating rounds; the servers' CPU seconds per call
   (sessions are opened before the count starts).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import limits

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolbay.auth import new_token  # noqa: E402

PROTOCOL = "2025-06-18"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "Mcp-Protocol-Version": PROTOCOL}
READY = re.compile(r"^port (\d+)$")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# -- the server side (run as `bench_chain_http.py --serve on|off --config FILE`) ------------------

async def serve(config: Path, chain_on: bool) -> None:
    from collections.abc import Mapping

    from toolbay.assembly import assemble
    from toolbay.config import load_settings
    from toolbay.handlers.base import Handler
    from toolbay.logs import configure_logging
    from toolbay.protocol.transports import build_http_app, serve_http
    from toolbay.words import CallContext, PermissionTier, ToolDefinition, ToolResult

    settings = load_settings(config)
    configure_logging("warning", None)
    class Echo(Handler):
        runs_inline = True

        async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
            return ToolResult(text=str(arguments.get("text", "")))

    echo = Echo(ToolDefinition(
        name="echo", description="Returns its text.", tier=PermissionTier.READ,
        input_schema={"type": "object", "properties": {"text": {"type": "string"}},
                      "required": ["text"], "additionalProperties": False},
    ))
    async with assemble(settings, watch=False, builtins=[echo], stages=None if chain_on else []) as app:
        await serve_http(app, build_http_app(app), on_ready=lambda host, port: print(f"port {port}", flush=True))


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


@asynccontextmanager
async def server(folder: Path, chain: str) -> AsyncIterator[Server]:
    """``chain``: the raw TOML of [chain] tables, or "off"."""
    config = folder / f"toolbay-{abs(hash(chain))}.toml"
    config.write_text(f'extensions = ["{folder / "extensions"}"]\ndata_dir = "{folder / "data"}"\n'
                      + ("" if chain == "off" else chain))
    command = [sys.executable, __file__, "--serve", "off" if chain == "off" else "on", "--config", str(config)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert process.stdout is not None
        line = await anyio.to_thread.run_sync(process.stdout.readline)
        found = READY.match(line.strip())
        if not found:
            raise RuntimeError(f"the server did not start: {line!r}")
        yield Server(process, f"http://127.0.0.1:{found.group(1)}/mcp")
    finally:
        process.terminate()
        process.wait(timeout=15)


# -- the client side --------------------------------------------------------------------------

@dataclass
class Tally:
    sent: int = 0
    answered: int = 0
    allowed: int = 0
    refused: int = 0
    http_5xx: int = 0
    other_failures: list[str] = field(default_factory=list)
    first_sent: float = 0.0
    last_answered: float = 0.0
    server_cpu_at_start: float = 0.0


def rpc(method: str, params: dict[str, Any], ident: int | None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return json.dumps(message).encode()


def payload(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer, from a JSON body or the one SSE event it came in."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    answer: dict[str, Any] = response.json()
    return answer


async def open_session(http: httpx2.AsyncClient, url: str, headers: dict[str, str]) -> dict[str, str]:
    init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    response = await http.post(url, content=rpc("initialize", init, 0), headers=headers)
    response.raise_for_status()
    session = {**headers, "Mcp-Session-Id": response.headers["mcp-session-id"]}
    done = await http.post(url, content=rpc("notifications/initialized", {}, None), headers=session)
    done.raise_for_status()
    return session


async def load(url: str, token: str | None, calls: int, concurrency: int,
               server_cpu: Callable[[], float] | None = None) -> Tally:
    tally = Tally()
    headers = {**HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}
    arguments = {"name": "echo", "arguments": {"text": "x"}}
    pool = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(limits=pool, timeout=120) as http:
        sessions = [await open_session(http, url, headers) for _ in range(concurrency)]
        if server_cpu is not None:
            tally.server_cpu_at_start = server_cpu()
        tally.first_sent = time.perf_counter()

        async def worker(session: dict[str, str]) -> None:
            while tally.sent < calls:
                tally.sent += 1
                ident = tally.sent
                try:
                    response = await http.post(url, content=rpc("tools/call", arguments, ident), headers=session)
                except httpx2.HTTPError as exc:
                    tally.other_failures.append(repr(exc))
                    continue
                if response.status_code >= 500:
                    tally.http_5xx += 1
                    continue
                answer = payload(response)
                if answer.get("id") != ident or "result" not in answer:
                    tally.other_failures.append(str(answer)[:200])
                    continue
                tally.answered += 1
                tally.last_answered = time.perf_counter()
                refusal = (answer["result"].get("_meta") or {}).get("toolbay/refusal")
                if refusal is None:
                    tally.allowed += 1
                elif refusal["code"] == "rate_limited":
                    tally.refused += 1
                else:
                    tally.other_failures.append(str(refusal))

        async with anyio.create_task_group() as group:
            for session in sessions:
                group.start_soon(worker, session)
    return tally


# -- the report -------------------------------------------------------------------------------

def chain_toml(folder: Path, token_hash: str, everyone: str, audit: bool, strategy: str = "moving-window") -> str:
    (folder / "tokens.toml").write_text(
        f'[[tokens]]\nclient_id = "bench"\nsha256 = "{token_hash}"\nscopes = ["tools:exec"]\n')
    text = (f'[chain.auth]\ntokens_file = "{folder / "tokens.toml"}"\n'
            f'[chain.rate_limits]\nglobal = "{everyone}"\nstrategy = "{strategy}"\n')
    if audit:
        text += f'[chain.audit]\nfile = "{folder / "audit.jsonl"}"\n'
    return text


async def limit_phase(folder: Path, token: str, token_hash: str, args: argparse.Namespace, strategy: str) -> bool:
    item = limits.parse(args.limit)
    per_second = item.amount / item.get_expiry()
    audit = folder / "audit.jsonl"
    audit.unlink(missing_ok=True)
    async with server(folder, chain_toml(folder, token_hash, args.limit, audit=True, strategy=strategy)) as running:
        tally = await load(running.url, token, args.calls, args.concurrency)
    elapsed = tally.last_answered - tally.first_sent
    expected = per_second * elapsed
    # A moving window never lets more than `limit` through in any window: at most one full
    # window at once, then `limit` per window. The counter strategies only approximate that.
    ceiling = item.amount * (elapsed // item.get_expiry() + 1)
    outcomes = [json.loads(line)["outcome"] for line in audit.open()]
    audited_ok, audited_limited = outcomes.count("ok"), outcomes.count("refused:rate_limited")
    ratio = tally.allowed / expected
    accurate = abs(ratio - 1) <= 0.05
    strict = tally.allowed <= ceiling
    print(f"global limit {args.limit}, {strategy}: {args.calls:,} calls at concurrency {args.concurrency} "
          f"in {elapsed:.1f} s, offered {tally.sent / elapsed:.0f} calls/s = "
          f"{tally.sent / elapsed / per_second:.2f} x the limit")
    print(f"  answered / sent = {tally.answered:,} / {tally.sent:,} = {tally.answered / tally.sent:.4f}   "
          f"HTTP 5xx {tally.http_5xx}   other failures {len(tally.other_failures)}")
    print(f"  allowed {tally.allowed:,}   refused {tally.refused:,}   "
          f"allowed / sent = {tally.allowed / tally.sent:.3f}")
    print(f"  allowed / (limit x elapsed = {expected:,.0f}) = {ratio:.3f} ({'within' if accurate else 'OUTSIDE'} 5%)   "
          f"allowed / strict ceiling {ceiling:,.0f} = {tally.allowed / ceiling:.3f}")
    print(f"  audit lines / sent = {len(outcomes) / tally.sent:.4f}   audited ok / allowed = "
          f"{audited_ok / max(tally.allowed, 1):.4f}   audited rate_limited / refused = "
          f"{audited_limited / max(tally.refused, 1):.4f}")
    for failure in tally.other_failures[:5]:
        print("  failure:", failure)
    complete = (tally.answered == tally.sent == args.calls and tally.http_5xx == 0 and not tally.other_failures
                and (audited_ok, audited_limited) == (tally.allowed, tally.refused) and len(outcomes) == args.calls)
    # The moving window's promise is strictness; the counter's is the average rate.
    return complete and (strict if strategy == "moving-window" else accurate)


async def cost_phase(folder: Path, token: str, token_hash: str, args: argparse.Namespace) -> None:
    unlimited = chain_toml(folder, token_hash, "1000000/second", audit=False)
    per_round = args.cost_calls // args.rounds
    cpu = {"on": 0.0, "off": 0.0}
    wall = {"on": 0.0, "off": 0.0}
    for _ in range(args.rounds):
        for mode in ("on", "off"):
            async with server(folder, unlimited if mode == "on" else "off") as running:
                tally = await load(running.url, token if mode == "on" else None, per_round, args.concurrency,
                                   server_cpu=running.cpu_seconds)
                wall[mode] += tally.last_answered - tally.first_sent
                cpu[mode] += running.cpu_seconds() - tally.server_cpu_at_start
                assert tally.allowed == per_round, (mode, tally)
    calls = per_round * args.rounds
    on_ms, off_ms = cpu["on"] / calls * 1000, cpu["off"] / calls * 1000
    print(f"chain cost over HTTP, {calls:,} calls each at concurrency {args.concurrency}, {args.rounds} rounds")
    print(f"  server CPU per call: chain on {on_ms:.3f} ms, off {off_ms:.3f} ms, "
          f"chain {on_ms - off_ms:.3f} ms (on/off = {on_ms / off_ms:.3f})")
    print(f"  calls/s: chain on {calls / wall['on']:.0f}, off {calls / wall['off']:.0f} "
          f"(on/off = {wall['off'] / wall['on']:.3f})")


async def main(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="toolbay-bench-chain-http-"))
    try:
        (folder / "extensions").mkdir()
        token, token_hash = new_token()
        verdicts = [await limit_phase(folder, token, token_hash, args, strategy) for strategy in args.strategies]
        ok = all(verdicts)
        if args.cost_calls:
            await cost_phase(folder, token, token_hash, args)
        print("goals met" if ok else "GOALS NOT MET")
        return 0 if ok else 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--limit", default="200/second")
    parser.add_argument("--strategies", type=lambda text: text.split(","),
                        default=["moving-window", "sliding-window-counter"])
    parser.add_argument("--cost-calls", type=int, default=4_000, help="calls per mode for the cost phase (0: skip)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--serve", choices=["on", "off"], help=argparse.SUPPRESS)
    parser.add_argument("--config", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        anyio.run(serve, options.config, options.serve == "on")
    else:
        sys.exit(anyio.run(main, options))
