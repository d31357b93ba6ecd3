"""Streamable HTTP: a plain JSON answer for requests that can have nothing to stream.

The streamable HTTP transport answers a request POST either with an SSE stream, which can
carry progress notifications and the server's own requests (elicitation) before the answer,
or with one ``application/json`` body; the specification lets the server choose per request.
The SDK chooses once per server, and its SSE answer costs more than everything else in a
quick call put together (a response stream, three tasks, a ping timer, three socket writes).

So this module chooses per request. A request gets the JSON body when nothing can travel
before its answer: it carries no progress token, and it is ``initialize``, ``ping``,
``tools/list``, a read or listing of resources or prompts, a ``tasks/*`` request, or a ``tools/call`` of a tool
the app expects to answer at once without asking anyone (``Toolbay.answers_at_once``).
Everything else keeps the SSE stream. (A job's whole result is read with ``resources/read``:
as an SSE event, one past 1 MiB was refused by the SDK's client.)

How: an ASGI middleware reads the POST body (small ones only), decides, and marks the task
handling the request in a context variable; the SDK's transport reads
``is_json_response_enabled`` while it handles that request, and a subclass makes that
attribute consult the mark. The mark holds for that task alone: tasks started while the
request is handled inherit the variable (the session's own tasks, when the request opens a
session) but must go on treating messages the SDK's usual way.
The SDK's session manager builds its transports by a module-level name, which is pointed at
the subclass (``install``, through ``toolbay.internals.mcp_sdk``).

The same mark carries the parsed body of a ``tools/call`` to the quick lane
(``toolbay.protocol.http_lane``), which the subclass asks first, after the SDK's own checks.
The body read here also tells a body that is no JSON-RPC message, whose answer is then said
in JSON-RPC's words (``toolbay.protocol.parse_errors``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as types
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.shared.message import SessionMessage
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from pydantic_core import from_json
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolbay.auth.http import header_of, verified_principal
from toolbay.internals.mcp_sdk import tell_session_as_client, use_streamable_http_transport
from toolbay.protocol.caller_sessions import session_ended
from toolbay.protocol.parse_errors import (
    NO_SESSION,
    SERVER_FULL,
    bad_request_id,
    content_type_refusal,
    failed_answer,
    failed_answer_body,
    id_before_nesting,
    long_integer_refusal,
    params_refusal,
    read_json,
    refusal_for,
    refused,
    request_id_in,
    request_id_of,
    rewriting_refusal,
    surrogate_refusal,
    unsupported_version,
    without_session_on_refusal,
)
from toolbay.protocol.request_body import MAX_BUFFERED_BODY, MAX_REQUEST_BODY, declared_past, read_small_body, replay

if TYPE_CHECKING:
    from toolbay.protocol.http_lane import HttpQuickLane
    from toolbay.words import Principal

# The tasks/* requests too: nothing is sent before their answers (tasks/result waits for the
# task's end, then answers), and a task's result sent as an SSE event past 1 MiB was refused
# by the SDK's client, though the same result answered a tools/call in JSON.
_ALWAYS_PLAIN = frozenset({"initialize", "ping", "tools/list", "resources/read", "resources/list",
                           "resources/templates/list", "prompts/list", "prompts/get",
                           "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})


@dataclass(frozen=True, slots=True)
class _Mark:
    """What the middleware found out about the request that ``task`` handles."""

    task: asyncio.Task[Any] | None
    plain: bool  # answer with one JSON body, not an SSE stream
    message: Any = None  # the parsed body, when the quick lane may take it
    lane: HttpQuickLane | None = None
    call_id: types.RequestId | None = None  # a tools/call answered in one JSON body: its id


_mark: contextvars.ContextVar[_Mark | None] = contextvars.ContextVar("toolbay_plain_json_mark", default=None)


def _marked() -> _Mark | None:
    """The mark of the request the current task handles (not one inherited by a task it started)."""
    mark = _mark.get()
    return mark if mark is not None and mark.task is asyncio.current_task() else None


class PerRequestJsonTransport(StreamableHTTPServerTransport):
    """The SDK's transport, answering with JSON when this request was found to need no stream,
    and letting the quick lane answer the calls it takes (``toolbay.protocol.http_lane``). Its
    end is told to the per-caller session caps (``toolbay.protocol.caller_sessions``).

    A session that hears nothing after its opening request ends after ``OPENING_GRACE_S``, not
    after the whole idle time (``[http] session_idle_s``, 30 minutes): a client that went away
    before reading the answer to its initialize never learnt the session's id, and the session
    held a place in its caller's share (and the server's) all that time. A client that got the
    answer sends ``notifications/initialized`` at once."""

    OPENING_GRACE_S = 60.0
    _requests_begun = 0

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._requests_begun += 1
        opening = self._requests_begun == 1
        await super().handle_request(scope, receive, send)
        idle = self.idle_scope
        if opening and self._requests_begun == 1 and idle is not None and not idle.cancel_called:
            idle.deadline = min(idle.deadline, anyio.current_time() + self.OPENING_GRACE_S)

    async def terminate(self) -> None:
        session_ended(self.mcp_session_id)
        await super().terminate()

    @property
    def is_json_response_enabled(self) -> bool:
        if self._json_always:
            return True
        mark = _marked()
        return mark is not None and mark.plain

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        self._json_always = value

    async def _handle_post_request(self, scope: Scope, request: Request, receive: Receive, send: Send) -> None:
        # Reached once the SDK has checked the session, its owner, Host, Origin, Content-Type and
        # the protocol version's route; see toolbay.internals.mcp_sdk.
        mark = _marked()
        # A tools/call answered in one JSON body has no stream whose closing tells that its client
        # went away (an SSE answer's does): the call ran on to its end, and on as a job. Its
        # connection's end now cancels it, in the lane or in the SDK.
        call_id = mark.call_id if mark is not None else None
        if mark is not None and mark.lane is not None:
            lane, message = mark.lane, mark.message
            if call_id is None:
                response = await lane.answer(self.mcp_session_id, request, message)
            else:
                response, gone = await _unless_the_client_goes(
                    request, receive, partial(lane.answer, self.mcp_session_id, request, message))
                if gone:
                    return  # cancelled with the task that ran it; nobody is there to answer
            if response is not None:
                await response(scope, receive, send)
                return
        if header_of(scope, b"mcp-session-id") is None and self.mcp_session_id is not None:
            # Opening a session (a stateless server opens none: its every request comes without one).
            send = _refused_opening_as_http_error(send)
        if call_id is None:
            await super()._handle_post_request(scope, request, receive, send)
            return

        async def cancel_in_the_session() -> None:  # as the client would: the SDK then answers and ends it
            await tell_session_as_client(self, SessionMessage(types.JSONRPCNotification(
                jsonrpc="2.0", method="notifications/cancelled",
                params={"requestId": call_id, "reason": "the client disconnected"})))

        await _unless_the_client_goes(request, receive, partial(super()._handle_post_request, scope, request, receive,
                                                                send), cancel_in_the_session)


async def _unless_the_client_goes(request: Request, receive: Receive, work: Callable[[], Awaitable[Any]],
                                  on_gone: Callable[[], Awaitable[None]] | None = None) -> tuple[Any, bool]:
    """``work()``'s result, and whether the client went away first (``receive`` said so): then
    ``on_gone()`` is awaited, or, without it, ``work`` is cancelled (it runs in this task)."""
    await request.body()  # read whole (the request keeps it for the SDK): what comes next is the end
    result, gone = None, False
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            if on_gone is None:
                group.cancel_scope.cancel()
            else:
                await on_gone()

        group.start_soon(watch)
        try:
            result = await work()
        finally:
            group.cancel_scope.cancel()
    return result, gone


def _refused_opening_as_http_error(send: Send) -> Send:
    """``send`` for the request that opens a session (an ``initialize``): answered with a
    JSON-RPC error (invalid parameters), its status is 400, not 200. The SDK keeps a session
    whose opening answer is no HTTP error: an ``initialize`` it refused opened a session all
    the same, which counted towards its caller's share until it idled out (30 minutes)."""
    held: Message | None = None

    async def sending(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start" and held is None and message["status"] == 200 \
                and dict(message.get("headers", [])).get(b"content-type", b"").startswith(b"application/json"):
            held = message  # the status waits for the body, which says whether it is an error
            return
        if held is not None and message["type"] == "http.response.body":
            start, held = held, None
            if _is_error(message.get("body", b"")) and not message.get("more_body", False):
                start = {**start, "status": 400}
            await send(start)
        await send(message)

    return sending


def _is_error(body: bytes) -> bool:
    try:
        answer = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(answer, dict) and "error" in answer and "result" not in answer


def install() -> None:
    """Makes the SDK's session manager build ``PerRequestJsonTransport`` (idempotent)."""
    use_streamable_http_transport(PerRequestJsonTransport)


class PlainJsonForQuickRequests:
    """ASGI middleware for the streamable HTTP endpoint; see the module docstring.

    ``needs_no_stream(tool_name)`` says whether a call of that tool sends nothing before its
    answer (``Toolbay.needs_no_stream``), ``proven_quick`` whether it ends at once
    (``Toolbay.proven_quick``). ``lane``, when given, may answer such calls itself
    (those it expects at once: ``Toolbay.answers_at_once``, which it asks). ``on_listed`` is
    told after each ``tools/list`` has been answered (``Toolbay.listing_answered``).
    """

    def __init__(self, app: ASGIApp, needs_no_stream: Callable[[str, Principal | None], bool], path: str = "/mcp",
                 lane: HttpQuickLane | None = None, stateless: bool = False,
                 proven_quick: Callable[[str, Principal | None], bool] = lambda name, principal: False,
                 on_listed: Callable[[], None] = lambda: None) -> None:
        self.app = app
        self.on_listed = on_listed
        self.needs_no_stream = needs_no_stream
        self.proven_quick = proven_quick
        self.path = path
        self.lane = lane
        self.stateless = stateless

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        session_id = header_of(scope, b"mcp-session-id")
        if scope["method"] != "POST":
            # A GET or DELETE without a session is refused (400), with a new session id that names
            # nothing (the next request with it is answered 404): not sent. At the server's cap the
            # SDK answered it 503, before seeing that it could not open a session anyway.
            if session_id is None:
                send = rewriting_refusal(NO_SESSION, without_session_on_refusal(send), replacing=503)
            # toolbay keeps no event store (its SSE events carry no ids to resume from): a GET
            # resuming from one (Last-Event-ID) was answered 500 by the SDK, which then replays
            # nothing and starts no response. It opens the stream as any GET does.
            scope = {**scope, "headers": [(name, value) for name, value in scope["headers"]
                                          if name.lower() != b"last-event-id"]}
            await self.app(scope, receive, send)
            return
        if declared_past(scope, MAX_REQUEST_BODY):
            # Refused as the SDK refuses it, before a byte is read: read here first, a body declared
            # at a gigabyte waited for its time limit, and "Expect: 100-continue" was told to send it.
            await Response("Request body too large", status_code=413)(scope, receive, send)
            return
        content_type = header_of(scope, b"content-type")
        if (wrong_type := content_type_refusal(content_type)) is not None:
            _, body = await read_small_body(receive)  # for the request's id
            await refused(wrong_type, request_id_in(body))(scope, receive, send)  # the SDK's first check
            return
        scope = _with_plain_json_content_type(scope, content_type)
        # Up to the most the SDK takes (it reads the whole body too): a call sending a large
        # document is as likely to be answered with one, which must come as JSON to be read.
        messages, body = await read_small_body(receive, MAX_REQUEST_BODY)
        if body is not None and len(body) > MAX_BUFFERED_BODY:
            message = await anyio.to_thread.run_sync(_parsed, body)  # megabytes: off the event loop
        else:
            message = _parsed(body) if body is not None else None
        if body is not None and (message is None or "method" not in message) \
                and (failed := _failed_answer_in(body)) is not None:
            # The client's answer to a request of the server's that is no valid response: the SDK
            # refused it (400, pydantic's report) and the request it answers waited to its time
            # limit. Handed on as the error it is, that request fails now (the SDK answers 202).
            body = failed_answer_body(failed)
            messages, message = [{"type": "http.request", "body": body}], _parsed(body)
        # A body that is no JSON-RPC message: the SDK's own 400 for it is said in JSON-RPC's words.
        refusal = refusal_for(body, message) if body is not None else None
        refused_id: types.RequestId | None = None  # a refused body's id, where one can be read
        if refusal is not None and body is not None:
            if (said := _said_under_its_id(body)) is not None:
                refused_id, refusal = said  # the SDK's 400 named no id
            elif refusal.code == types.PARSE_ERROR:
                refused_id = id_before_nesting(body)  # no JSON the SDK's reader takes: nested too deeply, say
        if refusal is not None:
            send = rewriting_refusal(refusal, send, request_id=refused_id)
        elif (bad_params := params_refusal(message)) is not None:
            send = rewriting_refusal(bad_params[1], send, request_id=bad_params[0])  # the SDK's 400: pydantic's report
        elif (bad_id := bad_request_id(message)) is not None:
            # Taken for a notification: accepted (202) in a session or by a stateless server, and
            # refused without one as a notification outside any session would be ("Missing session ID").
            accepted = session_id is not None or self.stateless
            send = rewriting_refusal(bad_id, send, replacing=202 if accepted else 400)
        elif (version := header_of(scope, b"mcp-protocol-version")) is not None \
                and version not in KNOWN_PROTOCOL_VERSIONS:  # an empty one too
            send = rewriting_refusal(unsupported_version(version), send)  # the SDK's 400 named _meta
        if session_id is None:
            send = without_session_on_refusal(send)
            # At the server's cap the SDK answers 503 before reading the request: only an
            # initialize would have opened a session; anything else is told what it is told below it.
            if refusal is not None:
                send = rewriting_refusal(refusal, send, replacing=503, request_id=refused_id)
            elif message is not None and message.get("method") != "initialize":
                send = rewriting_refusal(NO_SESSION, send, replacing=503, request_id=request_id_of(message))
            else:
                send = rewriting_refusal(SERVER_FULL, send, replacing=503, request_id=request_id_of(message),
                                         status=503)
        # Without a session only an initialize is answered (a stateless server has none at all):
        # plainly, even one too large to be read here, so that one refused opens no session.
        # Who calls, read once: a call's tool is looked for as its caller sees the name (a personal
        # tool of theirs too, [python] personal_dir).
        is_call = message is not None and message.get("method") == "tools/call"
        caller = verified_principal(Request(scope)) if is_call else None
        plain = self._needs_no_stream(message, caller) or (not self.stateless and session_id is None)
        lane = self.lane
        if lane is not None and message is not None and "id" not in message:
            lane.notified(session_id, message)
        # A plain request is a quick tools/call or one of _ALWAYS_PLAIN; the lane may take the former.
        take = plain and lane is not None and is_call
        # A call that may run a while is watched for its client going (not one proven quick: the
        # watch costs more than such a call's answer).
        call_id = request_id_of(message) if plain and is_call and not self.proven_quick(_name_of(message), caller) \
            else None
        if take and lane is not None and lane.stateless:
            if call_id is None:
                answer = await lane.answer_stateless(Request(scope), message)
            else:  # a replica's lane runs the call here: it ends with its client, as a session's does
                answer, gone = await _unless_the_client_goes(
                    Request(scope, replay(messages, receive)), receive,
                    partial(lane.answer_stateless, Request(scope), message))
                if gone:
                    return
            if answer is not None:
                await answer(scope, receive, send)
                return
        token = _mark.set(_Mark(asyncio.current_task(), plain, message if take else None, lane if take else None,
                                call_id))
        try:
            await self.app(scope, replay(messages, receive), send)
        finally:
            _mark.reset(token)
        if message is not None and message.get("method") == "tools/list":
            self.on_listed()  # the answer sent: a first start's compiled code may be cached now

    def _needs_no_stream(self, message: dict[str, Any] | None, caller: Principal | None) -> bool:
        if message is None or "id" not in message:
            return False  # unparsable, a batch, or a notification (answered 202 either way)
        method = message.get("method")
        if method == "initialize":
            # Nothing travels before its answer, progress token or not; and an initialize refused
            # in an SSE stream (status 200, sent before the answer) opened a session all the same.
            return True
        if method in _ALWAYS_PLAIN:
            # No progress travels before these answers, progress token or not (a client may send
            # one with every request: the SDK's does with a progress callback, and a task's result
            # past 1 MiB then came as an SSE event its client refused).
            return True
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            return False
        if method == "tools/call" and "task" not in params:
            return self.needs_no_stream(_name_of(message), caller)
        return False


def _with_plain_json_content_type(scope: Scope, content_type: str | None) -> Scope:
    """``scope`` with its JSON Content-Type in the spelling the SDK's transport takes (exactly
    ``application/json``; it refused ``APPLICATION/JSON``, which media types allow, with 415)."""
    if content_type is None or content_type.startswith("application/json"):
        return scope
    _, semicolon, parameters = content_type.partition(";")
    spelled = f"application/json{semicolon}{parameters}".encode("latin-1")
    headers = [(name, spelled if name.lower() == b"content-type" else value) for name, value in scope["headers"]]
    return {**scope, "headers": headers}


def _said_under_its_id(body: bytes) -> tuple[types.RequestId | None, types.ErrorData] | None:
    """``long_integer_refusal`` or ``surrogate_refusal`` for a body ``_parsed`` did not take."""
    try:
        parsed = read_json(body)
    except (ValueError, RecursionError):
        return None
    return long_integer_refusal(parsed) or surrogate_refusal(body, parsed)


def _failed_answer_in(body: bytes) -> types.JSONRPCError | None:
    try:
        return failed_answer(body, read_json(body))
    except (ValueError, RecursionError):
        return None


def _name_of(message: dict[str, Any] | None) -> str:
    """The tool a tools/call names ("" where it names none)."""
    params = message.get("params") if message is not None else None
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else ""


def _parsed(body: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None (the SDK's parser answers what is not one)."""
    try:
        # The SDK's own parser (pydantic's): what it refuses goes to the SDK to be answered, as it
        # would be without the lane. Python's took arrays nested 990 levels deep (pydantic's stops
        # at about 200), and a lone "\ud800", which no UTF-8 can hold.
        message = from_json(body)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


# An escaped UTF-16 surrogate: only then may a string hold half a pair.
