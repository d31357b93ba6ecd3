"""PythonHandler: one tool of a Python tool module, run in the module's worker processes.

The module never runs in the server: the handler sends the call to a warm worker
(``toolbay.pytools.workers``) and turns its answer into a result: a string as text, any other
JSON value as text and ``structuredContent``, an exception as an error whose text is the
exception's message. A worker that dies, overruns its time or memory, or is cancelled is
replaced, and the call ends as an error that says which.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolbay.handlers.base import MODULE_REPLACED, Handler, structured_from_json
from toolbay.handlers.secrets import without_secrets
from toolbay.pytools.credentials import CredentialStore
from toolbay.pytools.workers import ModuleReplaced, WorkerFailed, WorkerPool
from toolbay.words import CallContext, ToolDefinition, ToolResult
from toolbay.workspace_links import LinkGuard, inside, links_removed

_NOT_FOUND = frozenset({"FileNotFoundError", "NotADirectoryError"})
_DENIED = frozenset({"PermissionError"})
NO_TIER_HINT = ("\n\nNote: this module declares no TOOL_TIER (read, write or exec), so it is given no workspace "
                "folder: its working directory is a private temporary folder, where relative paths are looked up.")
NO_WORKSPACE_HINT = ("\n\nNote: the server has no workspace folder, so this tool's working directory is a "
                     "private temporary folder, where relative paths are looked up.")
READ_ONLY_HINT = ("\n\nNote: this module declares TOOL_TIER = 'read', so it sees the workspace read-only; a "
                  "tool that writes files declares TOOL_TIER = 'write'.")


class PythonHandler(Handler):
    supports_cancellation = True
    sends_nothing_before_its_answer = True
    __slots__ = ("pool", "credentials", "env")

    def __init__(self, definition: ToolDefinition, pool: WorkerPool, *, credentials: CredentialStore | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(definition)
        self.pool = pool
        self.credentials = credentials or CredentialStore()
        # Environment variables granted to this tool (from the credential store).
        self.env = dict(env or {})

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        name = self.name
        handed_out = self.pool.secrets_handed_out
        handed_out.update(self.env.values())

        async def credential(cred: str, key: str, env_var: str | None) -> tuple[str | None, str]:
            value, problem = self.credentials.lookup(name, cred, key, env_var)
            if value is not None:
                handed_out.add(value)
            return value, problem

        arguments = whole_numbers(arguments, self.definition.input_schema)
        links = LinkGuard.taken([Path(folder) for folder in self.pool.spec.write])
        answer: dict[str, Any] | WorkerFailed
        async def waiting() -> None:
            # Said as the call's progress (job_status shows it): a job waiting for a worker read
            # as running, with nothing to tell why it did not move.
            pool = self.pool
            await context.report_progress(0, None, f"waiting for a worker of {pool.spec.module}: all "
                                                   f"{pool.max_workers} are busy ([python] workers_per_module)")

        try:
            answer = await self.pool.call(name, arguments, self.env, credential, caller=context.job_owner,
                                          waiting=waiting)
        except WorkerFailed as failed:
            answer = failed
        finally:
            # Cancelled too: a worker stopped half-way may have made links as well. A worker whose
            # files Landlock confines may make none in the workspace: nothing to look for.
            confined = bool(self.pool.last_confinement.get("files"))
            removed = await links.after() if links is not None and not confined else []
        if removed:
            result = links_removed(name, removed)
        elif isinstance(answer, ModuleReplaced):
            # Nothing ran: the app gives the call to the version now served, where it can.
            result = ToolResult.error(f"{name} failed: {answer.reason}.", **{MODULE_REPLACED: True})
        elif isinstance(answer, WorkerFailed):
            trap = {"trap": answer.trap} if answer.trap is not None else {}
            result = ToolResult.error(f"{name} failed: {answer.reason}.", worker="restarted", **trap)
        else:
            result = result_from_answer(name, answer, self.pool.spec.limits.output_limit)
            if result.is_error and (hint := self._file_hint(answer)):
                result.text += hint
                if hint in (NO_TIER_HINT, NO_WORKSPACE_HINT):
                    result.meta["workspace"] = None  # as a wasm tool's: it was given none
        return without_secrets(result, handed_out) if handed_out else result

    def _file_hint(self, answer: Mapping[str, Any]) -> str:
        """Why a file was not there or not writable, where the tool's tier says why: a module
        that declares no tier runs in a private temporary folder, and a read one sees the
        workspace read-only (said only of a file in the workspace: one outside it is refused to
        every tier, and the note would send its author to widen the tier for nothing). Looked
        like a missing file or a bug in the tool."""
        spec, error_type, path = self.pool.spec, str(answer.get("error_type", "")), answer.get("error_path")
        if error_type in _NOT_FOUND and spec.cwd is None:
            return NO_TIER_HINT if self.definition.tier is None else NO_WORKSPACE_HINT
        if error_type in _DENIED and spec.read and not spec.write and isinstance(path, str):
            # Only of a file: a refusal that names none (a socket: the network, which no tier
            # gives) was sent to widen the tier, which gives no network.
            real = os.path.realpath(path)
            if any(inside(real, os.path.realpath(folder)) for folder in spec.read):
                return READ_ONLY_HINT
        return ""

    def expects_quick_answer(self) -> bool:
        """A Python tool sends nothing before its answer (no progress, no questions), so HTTP can
        answer it with one JSON body; long-running modules are jobs, which the app rules out."""
        return True

    def proven_quick(self) -> bool:
        """Expected to answer without a stream, but a module's function may run as long as it likes."""
        return False

    async def close(self) -> None:
        await self.pool.close()

    async def renew(self) -> None:
        await self.pool.renew()


def whole_numbers(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``1.0`` as ``1`` where the schema asks for an integer: JSON Schema counts 1.0 an integer,
    and clients write it (Python's json does), but ``range(1.0)`` or ``relativedelta(months=1.0)``
    in the tool would refuse it with a TypeError the model cannot act on."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return arguments
    changed: dict[str, Any] | None = None
    for key, value in arguments.items():
        declared = properties.get(key)
        if not isinstance(declared, Mapping):
            continue
        whole = _whole(value, declared)
        if whole is not value:
            changed = changed if changed is not None else dict(arguments)
            changed[key] = whole
    return changed if changed is not None else arguments


def _whole(value: Any, schema: Mapping[str, Any]) -> Any:
    kinds = schema.get("type")
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds or ())
    if isinstance(value, float) and "integer" in kinds and "number" not in kinds and value.is_integer():
        return int(value)
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        converted = [_whole(item, items) for item in value]
        return converted if any(a is not b for a, b in zip(converted, value, strict=True)) else value
    return value


def _say_dropped(answer: Mapping[str, Any], meta: dict[str, Any]) -> None:
    """How much of what the tool printed and wrote to stderr was dropped past its limit, beside
    the part kept (``meta``'s ``printed`` and ``stderr``), as for the result itself."""
    if "printed" in meta and answer.get("printed_dropped"):
        meta["printed_truncated"] = f"{answer['printed_dropped']} more characters printed were dropped"
    if answer.get("stderr") and answer.get("stderr_dropped"):
        meta["stderr_truncated"] = f"{answer['stderr_dropped']} more characters written to stderr were dropped"


def result_from_answer(tool: str, answer: Mapping[str, Any], output_limit: int) -> ToolResult:
    meta: dict[str, Any] = {}
    printed = answer.get("printed")
    if not answer.get("ok"):
        text = str(answer.get("error") or f"{tool} failed")
        where = answer.get("where")
        if answer.get("error_type"):
            meta["error_type"] = answer["error_type"]
        if where:
            meta["where"] = where
        stderr = answer.get("stderr")
        if stderr:
            text += f"\n\nstderr:\n{stderr}"
        if printed:  # what it printed before failing: often what tells why
            meta["printed"] = printed
        _say_dropped(answer, meta)
        return ToolResult(text=text, is_error=True, meta=meta)
    text = str(answer.get("text", ""))
    if answer.get("not_utf8"):  # as a wasm tool's output that is not UTF-8 is said to be
        text += "\n[the result is bytes that are not UTF-8 text: the bytes that are not show as \ufffd]"
        meta["not_utf8"] = True
    if answer.get("truncated"):
        whole = f" of its {answer['cut_json']} characters of JSON" if answer.get("cut_json") else ""
        text += f"\n[output truncated: only the first {output_limit} characters{whole} are shown]"
        meta["truncated"] = True
    if printed and "json" in answer or printed and answer.get("text") != printed:
        meta["printed"] = printed
    if answer.get("stderr"):
        # What the tool wrote to sys.stderr beside its result reaches the model too, apart from
        # the result itself, as a wasm tool's stderr does.
        meta["stderr"] = str(answer["stderr"])
    _say_dropped(answer, meta)
    structured = None
    if answer.get("json"):  # a JSON result, which ``text`` holds written out
        structured, omitted = structured_from_json(text)
        if omitted:
            meta["structured_omitted"] = omitted
    return ToolResult(text=text, structured=structured, meta=meta)
