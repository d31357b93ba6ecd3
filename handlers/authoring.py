"""``create_tool`` and ``share_tool``: tools that write tools (opt-in: ``[python] authoring``).

``create_tool(name, source)`` writes a Python tool module into the caller's personal folder
(``[python] personal_dir``); ``share_tool(name)`` copies one of the caller's modules into the
shared folder (the first configured tool folder that is not the bundled one). Each needs its
own scope besides the tier's: ``tools:create`` and ``tools:share``. The module is then
described like any other (in a worker, never in the server) and the answer says which tools it
now serves, or why it was refused.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from toolbay.atomic_files import write_whole
from toolbay.auth.scopes import CREATE_SCOPE, SHARE_SCOPE
from toolbay.handlers.base import Handler
from toolbay.pytools.folders import personal_folder
from toolbay.words import CallContext, PermissionTier, ToolDefinition, ToolResult

MAX_SOURCE = 256 * 1024
_MODULE_NAME = re.compile(r"[a-z][a-z0-9_]{0,40}")
# Rescans the folders and says what the file at a path now serves, as the calling caller sees it:
# (tool names, what was refused or hidden, None when nothing was).
# (the tools a module serves, the names it offers that another file's tool hides, why any is not served)
Described = Callable[[str, CallContext], Awaitable[tuple[list[str], list[str], str | None]]]

_NAME_PROPERTY = {"type": "string", "description": "The module's name: lowercase letters, digits and '_'; "
                  "its tools must be named '<name>' or '<name>_<action>'."}


def _scopes(context: CallContext) -> frozenset[str]:
    """The caller's scopes, as the app hands them to built-ins (its principal, or the scopes alone)."""
    principal = context.extras.get("principal")
    scopes = getattr(principal, "scopes", None) if principal is not None else context.extras.get("scopes")
    return scopes if isinstance(scopes, frozenset) else frozenset()


def _checked_name(tool: str, scope: str, arguments: Mapping[str, Any], context: CallContext) -> str | ToolResult:
    """The module name asked for, or the error saying why the call may not go on."""
    if scope not in _scopes(context):
        return ToolResult.error(f"{tool} needs the {scope} scope, which this caller does not have ([chain.auth] "
                                "local_scopes for the stdio caller, anonymous_scopes for an HTTP caller without a "
                                "token, a token's own for a token's holder).")
    name = arguments.get("name")
    if not isinstance(name, str) or not _MODULE_NAME.fullmatch(name):
        return ToolResult.error("'name' must be lowercase letters, digits and '_', starting with a letter "
                                "(at most 41 characters).")
    return name


async def _report(described: Described, path: Path, verb: str, context: CallContext) -> ToolResult:
    tools, _, refusal = await described(str(path), context)
    if not tools:
        return ToolResult.error(f"{path.name} was {verb}, but it serves no tool: {refusal or 'no tools'}. "
                                "Fix the source and call this again.", path=str(path))
    return _serves(path, verb, tools, refusal)


def _serves(path: Path, verb: str, tools: list[str], refusal: str | None) -> ToolResult:
    """The answer for a module that serves ``tools``; what else it declared and why that is
    not served, when something is not."""
    text = f"{path.name} was {verb}; it serves: {', '.join(tools)}."
    if refusal:
        text += f" Not served: {refusal}."
    return ToolResult(text=text, structured={"path": str(path), "tools": tools, "not_served": refusal})


class CreateToolHandler(Handler):
    runs_inline = True
    needs_scope = CREATE_SCOPE

    def __init__(self, personal_dir: str | None, described: Described) -> None:
        super().__init__(ToolDefinition(
            name="create_tool", title="Create a Python tool",
            description=(
                "Write a Python tool module into your personal tool folder; only you see and call its tools. "
                "The module defines get_tool_schemas() returning [{'name', 'description', 'input_schema'}] and "
                "a function per tool name (or dispatch(name, args)). Answers with the tools it serves, or why "
                f"it was refused. Needs the {CREATE_SCOPE} scope."),
            input_schema={"type": "object", "properties": {
                "name": _NAME_PROPERTY,
                "source": {"type": "string", "description": "The module's Python source."}},
                "required": ["name", "source"], "additionalProperties": False},
            tier=PermissionTier.EXEC, source="builtin"))
        self.personal_dir = personal_dir
        self.described = described

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        name = _checked_name(self.name, CREATE_SCOPE, arguments, context)
        if isinstance(name, ToolResult):
            return name
        source = arguments.get("source")
        if not isinstance(source, str) or len(source.encode()) > MAX_SOURCE:
            return ToolResult.error(f"'source' must be Python source of at most {MAX_SOURCE} bytes.")
        folder = personal_folder(self.personal_dir, context.caller)
        if folder is None:
            return ToolResult.error("This server keeps no personal tool folder for you ([python] personal_dir).")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.py"
        try:
            previous: bytes | None = path.read_bytes()
        except FileNotFoundError:
            previous = None
        write_whole(path, source.encode())
        tools, _, refusal = await self.described(str(path), context)
        if tools:
            return _serves(path, "written", tools, refusal)
        # A source that serves no tool replaces nothing: the version that worked stays on disk
        # (the next start serves it, and share_tool shares it), and a new module is not left.
        if previous is None:
            path.unlink(missing_ok=True)
            await self.described(str(path), context)
            kept = "Nothing was written"
        else:
            write_whole(path, previous)
            kept_tools, _, _ = await self.described(str(path), context)
            kept = (f"{path.name} keeps its previous version"
                    + (f", which serves: {', '.join(kept_tools)}" if kept_tools else ""))
        return ToolResult.error(f"The source was refused: it serves no tool: {refusal or 'no tools'}. {kept}. "
                                "Fix the source and call this again.", path=str(path))


class ShareToolHandler(Handler):
    runs_inline = True
    needs_scope = SHARE_SCOPE

    def __init__(self, personal_dir: str | None, shared_dir: Path | None, described: Described) -> None:
        super().__init__(ToolDefinition(
            name="share_tool", title="Share a Python tool",
            description=("Copy one of your personal Python tool modules into the shared tool folder, so every "
                         f"caller may use its tools. Needs the {SHARE_SCOPE} scope."),
            input_schema={"type": "object", "properties": {"name": _NAME_PROPERTY},
                          "required": ["name"], "additionalProperties": False},
            tier=PermissionTier.EXEC, source="builtin"))
        self.personal_dir = personal_dir
        self.shared_dir = shared_dir
        self.described = described

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        name = _checked_name(self.name, SHARE_SCOPE, arguments, context)
        if isinstance(name, ToolResult):
            return name
        folder = personal_folder(self.personal_dir, context.caller)
        source = folder / f"{name}.py" if folder is not None else None
        if source is None or not source.is_file():
            return ToolResult.error(f"You have no personal module {name!r} to share: create it with create_tool.")
        if self.shared_dir is None:
            return ToolResult.error("This server has no shared tool folder to share into.")
        offered, hidden, refusal = await self.described(str(source), context)
        if not offered:
            return ToolResult.error(f"Your module {name!r} serves no tool ({refusal or 'no tools'}), so it was not "
                                    "shared: fix it with create_tool first.")
        if hidden:
            # Shared, its tool would take the name from the one every caller uses now (which file
            # keeps a name among shared ones is a matter of file names), or be hidden by it.
            return ToolResult.error(f"Your module {name!r} also offers {', '.join(hidden)}, a name another tool "
                                    "has already, so it was not shared: rename or remove those tools with "
                                    "create_tool first.")
        target = self.shared_dir / f"{name}.py"
        if target.exists():
            return ToolResult.error(f"A shared module {name!r} exists already; ask the operator to remove it first.")
        self.shared_dir.mkdir(parents=True, exist_ok=True)
        write_whole(target, source.read_bytes())
        return await _report(self.described, target, "shared", context)
