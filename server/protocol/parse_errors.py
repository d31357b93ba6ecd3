"""Lines and bodies that are not JSON-RPC messages get JSON-RPC's own answer, with no traceback.

The SDK's stdio session drops what it cannot parse without a word, its SSE endpoint logs a
traceback and answers plain text, and its streamable HTTP endpoint answers -32602 with
pydantic's whole validation report (every member of its message union, with links). JSON-RPC
asks for a parse error (-32700) when the text is not JSON (nesting deeper than the parser takes
included) and an invalid request (-32600) when it is JSON of another shape, both with a null
id, as none could be read. A string holding a lone UTF-16 surrogate (``"\\ud83d"``, what
JavaScript's ``JSON.stringify`` writes for a text cut inside an emoji) is JSON to Python's
reader but not to the SDK's: that parse error is said as what it is, under the request's own id
(``surrogate_refusal``), or its client would wait for an answer until its own timeout; so is an
integer longer than either reader takes (``long_integer_refusal``). A client's answer to a
request of the server's that is no valid response fails that request (``failed_answer``). A batch
(an array) is refused in so many words: this protocol's versions since 2025-06-18 have none.
``stdio`` uses ``error_for``; the SSE POST endpoint is wrapped in ``AnswerUnparsableMessages``;
on the streamable HTTP endpoint, ``toolbay.protocol.plain_json`` (which reads the body anyway)
uses ``refusal_for`` and ``rewriting_refusal``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from typing import Any

import mcp.types as types
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolbay.auth.http import header_of
from toolbay.deep_json import read_outside_json
from toolbay.protocol.request_body import MAX_REQUEST_BODY, declared_past, read_small_body, replay

logger = logging.getLogger(__name__)


def error_for(exc: ValidationError) -> types.ErrorData:
    """The JSON-RPC error for a message the SDK's adapter refused."""
    errors = exc.errors()
    if errors and errors[0]["type"] == "json_invalid":
        reason = str(errors[0]["msg"]).removeprefix("Invalid JSON: ")
        return types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {reason}")
    if errors and isinstance(errors[0].get("input"), list) and len(errors[0]["loc"]) <= 1:  # the message itself
        return types.ErrorData(code=types.INVALID_REQUEST,
                               message="Invalid request: a batch (JSON array); send one JSON-RPC message at a time")
    return types.ErrorData(code=types.INVALID_REQUEST, message="Invalid request: not a JSON-RPC 2.0 message")


# A JSON escape of a UTF-16 surrogate (high or low): only these can make a lone one.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_refusal(body: bytes, parsed: Any) -> tuple[types.RequestId | None, types.ErrorData] | None:
    """The id and parse error for a message (``body``, read by Python's JSON reader as
    ``parsed``) one of whose strings holds a lone UTF-16 surrogate; None for any other."""
    if not isinstance(parsed, dict) or not SURROGATE_ESCAPE.search(body):
        return None
    found = _LONE_SURROGATE.search(json.dumps(parsed, ensure_ascii=False))  # a pair is one character by now
    if found is None:
        return None
    return request_id_of(parsed), types.ErrorData(
        code=types.PARSE_ERROR,
        message=f"Parse error: a string holds a lone UTF-16 surrogate (\\u{ord(found.group()):04x}), which is no "
                "Unicode character (a text cut inside an emoji or other character?): send whole characters")


# The longest integer JSON may hold for the SDK's reader (pydantic's) and Python's alike: the
# digits CPython converts to an int (``sys.get_int_max_str_digits``' default).
MAX_INTEGER_DIGITS = 4300


class _LongInteger(str):
    """An integer of a message longer than ``MAX_INTEGER_DIGITS``, kept as its text."""


def read_json(body: bytes | str) -> Any:
    """``body`` read by Python's JSON reader, with an integer too long for it kept as its text
    (``long_integer_refusal``): refused outright, such a message's id could not be read and its
    sender was answered under a null id, and waited for its own answer until it gave up."""
    return read_outside_json(body, parse_int=_integer)


def _integer(digits: str) -> int | str:
    return _LongInteger(digits) if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS else int(digits)


def long_integer_refusal(parsed: Any) -> tuple[types.RequestId | None, types.ErrorData] | None:
    """The id and parse error for a message (read by ``read_json`` as ``parsed``) holding an
    integer longer than the server reads; None for any other."""
    pending = [parsed]
    while pending:
        value = pending.pop()
        if isinstance(value, _LongInteger):
            request_id = request_id_of(parsed)
            return None if isinstance(request_id, _LongInteger) else request_id, types.ErrorData(
                code=types.PARSE_ERROR,
                message=f"Parse error: an integer of {len(value.lstrip('-'))} digits, longer than the "
                        f"{MAX_INTEGER_DIGITS} this server reads: send so long a number as a string")
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return None


# How the ids of the requests toolbay sends clients begin (``toolbay.protocol.subagents``).
SERVER_REQUEST_ID_PREFIX = "toolbay-"


def failed_answer(body: bytes | str, parsed: Any) -> types.JSONRPCError | None:
    """For an answer of the client's (an id, a ``result`` or an ``error``, no method; ``body``
    as sent, ``parsed`` as ``read_json`` reads it) that the SDK refuses as no JSON-RPC response
    (a result that is no object, an error whose code is no integer, a lone surrogate in a
    string): an error response under its id, which the transport hands the session in its
    place, for the request it answers to fail at once. Dropped (stdio) or refused (HTTP, SSE),
    that request (a sampling request of an agent tool) waited to its time limit, minutes. None
    for anything else, a valid answer included. (A response is never answered: JSON-RPC.)"""
    if not isinstance(parsed, dict) or "method" in parsed:
        return None
    answer_id = request_id_of(parsed)
    if answer_id is None or isinstance(answer_id, _LongInteger):
        return None
    # With neither a result nor an error it is an answer only under an id of the server's own
    # requests (a client's request without its method is answered as one, under its id).
    if not ("result" in parsed or "error" in parsed) \
            and not (isinstance(answer_id, str) and answer_id.startswith(SERVER_REQUEST_ID_PREFIX)):
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(body, by_name=False)
    except ValidationError:
        pass
    else:
        return None
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    if (bad := long_integer_refusal(parsed) or surrogate_refusal(raw, parsed)) is not None:
        reason = bad[1].message.removeprefix("Parse error: ")
    elif not ("result" in parsed or "error" in parsed):
        reason = "it holds neither a result nor an error"
    else:
        what, allowed = ("result", "an object") if "result" in parsed else \
            ("error", "an object with an integer code and a message")
        reason = f"its {what} is not what JSON-RPC allows: {allowed}"
    return error_message(types.ErrorData(
        code=types.INVALID_REQUEST,
        message=f"the client's answer to this request is no valid JSON-RPC response ({reason})"), answer_id)


def failed_answer_body(failed: types.JSONRPCError) -> bytes:
    """``failed`` as the body of a message the SDK reads (the HTTP transports hand it on so)."""
    return failed.model_dump_json(by_alias=True, exclude_unset=True).encode()


def error_message(error: types.ErrorData, request_id: types.RequestId | None = None) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def params_refusal(parsed: Any) -> tuple[types.RequestId | None, types.ErrorData] | None:
    """The id and error for a request whose ``params`` is no object (``[1]``, ``"x"``), which
    MCP's requests never take: it failed the SDK's parse of the whole message, and was
    answered as if it were a batch (stdio) or with pydantic's report and a null id (HTTP)."""
    if not isinstance(parsed, dict) or parsed.get("jsonrpc") != "2.0" or not isinstance(parsed.get("method"), str):
        return None
    params = parsed.get("params")
    if params is None or isinstance(params, dict):
        return None
    request_id = request_id_of(parsed)
    kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(params), "a number")
    method = parsed["method"][:100]
    return request_id, types.ErrorData(code=types.INVALID_PARAMS,
                                       message=f"Invalid {method} parameters: params must be an object, not {kind}")


class AnswerUnparsableMessages:
    """ASGI wrapper for the SSE POST endpoint: a body that is not a JSON-RPC message is answered
    400 with the JSON-RPC error here, before the SDK logs a traceback for it; so is one whose
    Content-Type is not JSON, as on the streamable HTTP endpoint (the SDK said so in plain text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        if declared_past(scope, MAX_REQUEST_BODY):  # as on /mcp (plain_json)
            await Response("Request body too large", status_code=413)(scope, receive, send)
            return
        messages, body = await read_small_body(receive)
        if (wrong_type := content_type_refusal(header_of(scope, b"content-type"))) is not None:
            await refused(wrong_type, request_id_in(body))(scope, receive, send)
            return
        if body is not None:
            error: types.ErrorData | None = None
            try:
                message = types.jsonrpc_message_adapter.validate_json(body, by_name=False)
            except ValidationError as exc:
                error = error_for(exc)
                # Text the SDK's reader does not take (nested too deeply, say): under its id, if
                # that comes first; JSON of another shape than a message's has none to answer.
                request_id = id_before_nesting(body) if error.code == types.PARSE_ERROR else None
                with contextlib.suppress(ValueError, RecursionError):
                    parsed = read_json(body)
                    if (failed := failed_answer(body, parsed)) is not None:
                        # The request it answers fails now (the SDK answers 202, as to any response).
                        answer = failed_answer_body(failed)
                        await self.app(scope, replay([{"type": "http.request", "body": answer}], receive), send)
                        return
                    if (bad := long_integer_refusal(parsed) or params_refusal(parsed)
                            or surrogate_refusal(body, parsed)) is not None:
                        request_id, error = bad
            else:
                error, request_id = id_refusal(message, body), None
            if error is not None:
                await refused(error, request_id)(scope, receive, send)
                return
        await self.app(scope, replay(messages, receive), send)


def id_refusal(message: types.JSONRPCMessage, raw: bytes) -> types.ErrorData | None:
    """``bad_request_id`` for a message the SDK's adapter took (as a notification, when it had
    an id of the wrong kind); ``raw`` is read again only then."""
    if not isinstance(message, types.JSONRPCNotification) or b'"id"' not in raw:
        return None
    try:
        return bad_request_id(read_outside_json(raw))
    except (ValueError, RecursionError):
        return None


def refused(error: types.ErrorData, request_id: types.RequestId | None = None) -> JSONResponse:
    """The 400 answer to a body that is no JSON-RPC message the server can answer (under the id
    of the request it was meant to be, when that could be read)."""
    logger.info("refused a request: %s", error.message)
    return JSONResponse(error_message(error, request_id).model_dump(by_alias=True, exclude_unset=True),
                        status_code=400)


# JSON's names of what Python reads it as, where they differ and are told to a client.
_JSON_KINDS = {"dict": "object", "list": "array"}


def bad_request_id(parsed: Any) -> types.ErrorData | None:
    """The error for a request whose id is neither a string nor an integer (an object, null,
    1.5, true), or None. The SDK reads such a message as a notification, which nothing answers:
    its sender would wait for ever."""
    if not isinstance(parsed, dict) or not isinstance(parsed.get("method"), str) or "id" not in parsed:
        return None
    request_id = parsed["id"]
    if _is_request_id(request_id):
        return None
    kind = "null" if request_id is None else _JSON_KINDS.get(type(request_id).__name__, type(request_id).__name__)
    return types.ErrorData(code=types.INVALID_REQUEST,
                           message=f"Invalid request: a request's id must be a string or an integer, not {kind}")


def unsupported_version(version: str) -> types.ErrorData:
    """The error for a request whose MCP-Protocol-Version header names no version the SDK
    knows (it answered that the request's _meta lacked the 2026-07-28 era's fields)."""
    return types.ErrorData(code=types.INVALID_REQUEST,
                           message=f"Unsupported MCP-Protocol-Version {_shortened(version)!r}: this server speaks "
                                   f"{', '.join(KNOWN_PROTOCOL_VERSIONS)}")


# The SDK's answer (503) to a session opened past ``[http] max_sessions`` said "Too many open sessions"
# with an internal error's code and a null id, and no way out.
SERVER_FULL = types.ErrorData(code=types.INTERNAL_ERROR, message=(
    "Too many open sessions on this server ([http] max_sessions): try again once one has ended "
    "(DELETE with its mcp-session-id) or idled out"))


# The SDK's answer to a request without a session that is no initialize.
NO_SESSION = types.ErrorData(code=types.INVALID_REQUEST, message="Bad Request: Missing session ID")


def is_json(content_type: str | None) -> bool:
    """The media type is ``application/json``, in any case, with or without parameters."""
    return content_type is not None and content_type.split(";")[0].strip().lower() == "application/json"


def content_type_refusal(content_type: str | None) -> types.ErrorData | None:
    """The error for a POST whose Content-Type is not JSON, or None. The SDK's transport
    security answered it in plain text ("Invalid Content-Type header"), naming neither what it
    wants nor what it got; and its transport took ``application/jsonx`` for JSON, then refused
    ``APPLICATION/JSON`` (415)."""
    if is_json(content_type):
        return None
    got = "none" if content_type is None else repr(_shortened(content_type))
    return types.ErrorData(code=types.INVALID_REQUEST,
                           message=f"Invalid request: the Content-Type header must be application/json, not {got}")


def refusal_for(body: bytes, parsed: Any) -> types.ErrorData | None:
    """The error for a body that is no JSON-RPC message (``parsed``: the body as JSON already
    read, or None), or None for one that looks like a message: an object with ``"jsonrpc":
    "2.0"`` and a method, a result or an error, which the SDK validates itself (answering a bad
    field of a request by its id)."""
    if (isinstance(parsed, dict) and parsed.get("jsonrpc") == "2.0"
            and (isinstance(parsed.get("method"), str) or "result" in parsed or "error" in parsed)):
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(body, by_name=False)
    except ValidationError as exc:
        return error_for(exc)
    return None


def rewriting_refusal(error: types.ErrorData, send: Send, replacing: int = 400,
                      request_id: types.RequestId | None = None, status: int = 400) -> Send:
    """``send``, with the SDK's answer of status ``replacing`` to a body that is no message (its
    400; its 202 to a request with an id of the wrong kind, taken for a notification) replaced
    by an answer of ``status`` saying ``error``. The SDK's own earlier checks (Host and Origin,
    Accept, Content-Type, size) answer otherwise and are passed on as they are."""
    replaced = False

    async def sending(message: Message) -> None:
        nonlocal replaced
        if message["type"] == "http.response.start" and message["status"] == replacing:
            replaced = True
            logger.info("refused a request: %s", error.message)
            body = json.dumps(error_message(error, request_id).model_dump(by_alias=True, exclude_unset=True),
                              separators=(",", ":")).encode()
            headers = [(name, value) for name, value in message.get("headers", []) if name.lower() != b"content-length"]
            await send({**message, "status": status,
                        "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
        elif not replaced:
            await send(message)

    return sending


def without_session_on_refusal(send: Send) -> Send:
    """``send`` for a request that opens no session yet: a refusal (status 400 or more) goes
    without the ``mcp-session-id`` the SDK gave it. The SDK discards that session as soon as its
    opening request is refused, so a client that kept the id was answered 404 on its next request."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] >= 400:
            headers = [(name, value) for name, value in message.get("headers", []) if name.lower() != b"mcp-session-id"]
            message = {**message, "headers": headers}
        await send(message)

    return sending


def request_id_in(body: bytes | None) -> types.RequestId | None:
    """The id of the request ``body`` holds, when it is a JSON object with an id of a right kind."""
    try:
        request_id = request_id_of(read_json(body) if body is not None else None)
        return None if isinstance(request_id, _LongInteger) else request_id
    except (ValueError, RecursionError):
        return None


def request_id_of(parsed: Any) -> types.RequestId | None:
    """The id of a request already read as JSON, when it has one of a right kind."""
    request_id = parsed.get("id") if isinstance(parsed, dict) else None
    return request_id if _is_request_id(request_id) else None


# A request's id where it comes before anything nested, as clients write it ({"jsonrpc": "2.0",
# "id": 5, "method": ..., "params": {...}}): read without reading the rest, which may be nested
# deeper than either JSON reader takes; such a request was answered under a null id, and its
# sender waited for its own. Only in a message's first 64 KiB, and only after plain members.
_STRING = rb'"(?:[^"\\\x00-\x1f]|\\.)*"'
_PLAIN_MEMBERS_THEN_ID = (rb"(?:\s*" + _STRING + rb"\s*:\s*(?:" + _STRING
                          + rb"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)\s*,)*?"
                          rb'\s*"id"\s*:\s*(' + _STRING + rb"|-?\d{1,18})\s*[,}]")
_ID_BEFORE_NESTING = re.compile(rb"\s*\{" + _PLAIN_MEMBERS_THEN_ID)
# An "id" given again further on: JSON readers keep the last.
_ID_AGAIN = re.compile(_PLAIN_MEMBERS_THEN_ID)


def id_before_nesting(text: bytes | str) -> types.RequestId | None:
    """The id of the request ``text`` holds, read as far as it and no further (see above), or None."""
    head = (text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)[:65536]
    found = _ID_BEFORE_NESTING.match(head)
    if found is None:
        return None
    while head[found.end() - 1:found.end()] == b"," and (again := _ID_AGAIN.match(head, found.end())) is not None:
        found = again
    try:
        request_id = json.loads(found.group(1))
    except ValueError:
        return None
    return request_id if _is_request_id(request_id) else None


def _shortened(header: str) -> str:
    """A header's value as said back: at most its first 40 characters."""
    return header if len(header) <= 40 else header[:40] + "..."


def _is_request_id(value: Any) -> bool:
    """A string or an integer (not a boolean, which Python counts as one): JSON-RPC's ids."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
