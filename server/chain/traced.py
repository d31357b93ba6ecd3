"""The chain's links with OpenTelemetry spans, used only when tracing is on.

One span per call, ``toolbay.call``, with a child per stage (``authenticate``, ``ratelimit``,
``authorize``, ``validate``, ``approve``...) and one for the run behind them,
``toolbay.run``::

    tools/call hashsum            (the MCP SDK's span of the request, when the provider is global)
    └─ toolbay.call               gen_ai.tool.name, toolbay.transport, toolbay.outcome, toolbay.job_id
       ├─ authenticate            toolbay.outcome = passed | refused_<code>
       ├─ ratelimit
       ├─ authorize
       ├─ validate
       └─ toolbay.run             the handler, inline or until the call is answered as a job

A stage's span lasts from the stage's start until it hands the call on (or refuses it), so
the stages are siblings and their times add up, as in ``call.timings``. Attributes are the
tool's name, the transport, fixed outcome words, refusal codes, a job id and an exception's
class: never arguments, results, callers, tokens or messages (a refusal's message may quote
an argument, an exception's may quote anything), so an exception is never recorded on a span.
"""

from __future__ import annotations

import anyio
from opentelemetry.trace import Span, Status, StatusCode, Tracer, use_span

from toolbay.chain.call import CallNext, Stage, ToolCall
from toolbay.errors import CallRefused
from toolbay.outcomes import outcome_of
from toolbay.words import ToolResult

CALL_SPAN = "toolbay.call"
RUN_SPAN = "toolbay.run"
TOOL = "gen_ai.tool.name"
OUTCOME = "toolbay.outcome"


def _failed(span: Span, exc: BaseException) -> None:
    """Records how ``exc`` ended the span's part: a refusal's code, a cancel, or a crash's class."""
    if isinstance(exc, CallRefused):
        span.set_attribute(OUTCOME, f"refused_{exc.code}")
    elif isinstance(exc, anyio.get_cancelled_exc_class()):
        span.set_attribute(OUTCOME, "cancelled")
    else:
        span.set_attribute(OUTCOME, "crash")
        span.set_attribute("error.type", type(exc).__qualname__)
    span.set_status(Status(StatusCode.ERROR))


def _ended(span: Span, result: ToolResult) -> None:
    outcome = outcome_of(result)
    span.set_attribute(OUTCOME, outcome)
    job_id = result.meta.get("job_id")
    if outcome == "job" and isinstance(job_id, str):  # made here; the job tools' job_id is an argument
        span.set_attribute("toolbay.job_id", job_id)
    if result.is_error:
        span.set_status(Status(StatusCode.ERROR))


async def _recorded(span: Span, step: CallNext, call: ToolCall) -> ToolResult:
    try:
        result = await step(call)
    except BaseException as exc:
        _failed(span, exc)
        raise
    _ended(span, result)
    return result


def traced_call(chain: CallNext, tracer: Tracer) -> CallNext:
    """The whole chain in the call's span, made current so that everything under it (the
    stages, the run, a sub-agent's own calls) is its child."""

    async def run(call: ToolCall) -> ToolResult:
        span = tracer.start_span(CALL_SPAN, attributes={TOOL: call.name, "toolbay.transport": call.transport,
                                                        "gen_ai.operation.name": "execute_tool"})
        with use_span(span, end_on_exit=True, record_exception=False, set_status_on_exception=False):
            return await _recorded(span, chain, call)

    return run


def traced_link(stage: Stage, call_next: CallNext, tracer: Tracer) -> CallNext:
    """``stage`` in a span that ends when it hands the call on."""
    name = str(getattr(stage, "name", type(stage).__name__.lower()))

    async def run(call: ToolCall) -> ToolResult:
        span = tracer.start_span(name)
        open_ = True

        async def hand_on(call: ToolCall) -> ToolResult:
            nonlocal open_
            span.set_attribute(OUTCOME, "passed")
            span.end()
            open_ = False
            return await call_next(call)

        try:
            return await stage(call, hand_on)
        except BaseException as exc:
            if open_:
                _failed(span, exc)
            raise
        finally:
            if open_:
                span.end()

    return run


def traced_run(endpoint: CallNext, tracer: Tracer) -> CallNext:
    """The run behind the stages (the handler, inline or until it is answered as a job)."""

    async def run(call: ToolCall) -> ToolResult:
        attributes = {TOOL: call.name}
        if call.handler is not None:
            attributes["toolbay.handler"] = type(call.handler).__name__
        with tracer.start_as_current_span(RUN_SPAN, attributes=attributes, record_exception=False,
                                          set_status_on_exception=False) as span:
            return await _recorded(span, endpoint, call)

    return run
