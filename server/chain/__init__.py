"""The call chain: every ``tools/call`` passes the same stages on every transport.

    audit ─► authenticate ─► rate-limit ─► authorize ─► validate ─► approve ─► endpoint
    (wraps    who is          per caller,   may use      arguments    the human   dispatch
    the rest) calling         caller×tool,  this tool?   vs schema    (opt-in,    to the
                              global                                  by tier)    handler

Each stage is ``async (call, call_next) -> ToolResult`` (``toolbay.chain.call.Stage``), lives
in its own module, and receives the policy it applies in its constructor. A stage that
refuses raises a ``CallRefused`` subclass (``Unauthenticated``, ``RateLimited``,
``Forbidden``, ``UnknownTool``, ``InvalidArguments``, ``ApprovalDenied``); it never builds
MCP results. Each records its seconds in ``call.timings[name]``; the endpoint's go in
``call.timings["tool"]``. ``default_stages`` is the one place that lists the order.

Plugging it in (the serving layer)::

    chain_settings = ChainSettings.parse(settings.chain, settings.config_file)
    policies = ChainPolicies.from_settings(chain_settings, ask=ask_by_elicitation,
                                           base_dir=config_dir)
    check_bind_safety(settings.host, policies.authenticator.configured,
                      settings.http.allow_insecure)              # HTTP/SSE only
    chain = build_chain(default_stages(policies), dispatch)      # once, at start

    async def on_call_tool(ctx, params):
        call = ToolCall(name=params.name, arguments=params.arguments or {},
                        context=CallContext(request_id=str(ctx.request_id), ...),
                        transport=transport,                 # "stdio" | "http" | "sse"
                        handler=snapshot.get(params.name),   # None when unknown: the chain
                                                             # refuses it after authenticating
                        credential=bearer_credential(ctx.request),
                        session=ctx.session)
        try:
            result = await chain(call)
        except CallRefused as refusal:       # -> isError result; refusal.meta -> _meta
            ...                              # (RateLimited: meta["retry_after"])
        return to_mcp(result)

    async def on_list_tools(ctx, params):
        principal = await policies.authenticator.identify(
            transport, bearer_credential(ctx.request))        # Unauthenticated -> error
        shown = policies.authorizer.visible(principal, snapshot.definitions())
        ...

``dispatch`` is the endpoint (``CallNext``): it runs ``call.handler`` inline or as a job.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from time import perf_counter
from typing import TYPE_CHECKING

from toolbay.chain.approve import Approve, Approver
from toolbay.chain.audit import Audit, AuditLog
from toolbay.chain.authenticate import Authenticate, Authenticator
from toolbay.chain.authorize import Authorize, Authorizer, ScopeGrant
from toolbay.chain.call import CallNext, Stage, ToolCall
from toolbay.chain.policies import ChainPolicies
from toolbay.chain.ratelimit import MayFind, RateLimit, RateLimiter, RateLimits
from toolbay.chain.settings import ChainSettings
from toolbay.chain.validate import SchemaValidator, Validate
from toolbay.words import ToolResult

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer


def default_stages(policies: ChainPolicies, may_find: MayFind | None = None,
                   hidden: Callable[[], Collection[str]] | None = None) -> list[Stage]:
    """The stages in their order. Audit wraps the rest so it sees refusals too; rate-limit,
    approve and audit are left out when nothing is configured for them. ``may_find``: whether
    a caller may find a tool (search-first disclosure); one it may not is counted by the rate
    limits as a name no tool has. ``hidden``: the credentials' values, blotted out of what the
    audit log writes of a call."""
    stages: list[Stage] = []
    if policies.audit is not None:
        stages.append(Audit(policies.audit, hidden))
    stages.append(Authenticate(policies.authenticator))
    if policies.limiter is not None:
        stages.append(RateLimit(policies.limiter, may_find))
    stages.append(Authorize(policies.authorizer))
    stages.append(Validate(policies.validator))
    if policies.approver is not None and policies.approver.tiers:
        stages.append(Approve(policies.approver))
    return stages


def build_chain(stages: Sequence[Stage], endpoint: CallNext, *, tracer: Tracer | None = None) -> CallNext:
    """Folds the stages around the endpoint once; the first stage is the outermost.
    ``tracer``: a span per call, per stage and for the run (``toolbay.chain.traced``); None
    (tracing off) builds the chain without them, so it costs nothing."""
    call_next = _timed(endpoint)
    if tracer is None:
        for stage in reversed(stages):
            call_next = _link(stage, call_next)
        return call_next
    from toolbay.chain.traced import traced_call, traced_link, traced_run

    call_next = traced_run(call_next, tracer)
    for stage in reversed(stages):
        call_next = traced_link(stage, call_next, tracer)
    return traced_call(call_next, tracer)


def _link(stage: Stage, call_next: CallNext) -> CallNext:
    async def run(call: ToolCall) -> ToolResult:
        return await stage(call, call_next)

    return run


def _timed(endpoint: CallNext) -> CallNext:
    async def run(call: ToolCall) -> ToolResult:
        started = perf_counter()
        try:
            return await endpoint(call)
        finally:
            call.timings["tool"] = perf_counter() - started

    return run


__all__ = [
    "Approve", "Approver", "Audit", "AuditLog", "Authenticate", "Authenticator", "Authorize",
    "Authorizer", "ChainPolicies", "ChainSettings", "RateLimit", "RateLimiter", "RateLimits",
    "SchemaValidator", "ScopeGrant", "Validate", "build_chain", "default_stages",
]
