"""Role files as MCP prompts: ``prompts/list``, ``prompts/get`` and ``completion/complete``.

A role is a prompt of the same name, its arguments the role's arguments; ``prompts/get``
answers one user message, the role prompt with the arguments in place. A required argument
missing, or a value outside an argument's choices, is refused with a JSON-RPC
invalid-params error naming it. Completion offers an argument's choices that start with
what was typed (none for an argument without choices, or for resource templates, which
toolbay does not serve).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from toolbay.auth.http import bearer_credential
from toolbay.errors import echoed
from toolbay.protocol.listing import decode_cursor, encode_cursor
from toolbay.redaction import redact_text
from toolbay.subagents.roles import MissingArguments, Role

if TYPE_CHECKING:
    from toolbay.app import Toolbay
    from toolbay.words import Transport

MAX_COMPLETIONS = 100  # the most one completion answer may hold


def role_to_prompt(role: Role, *, local: bool = True, shown: Callable[[str], str] = redact_text) -> types.Prompt:
    """``local``: for the operator's own session, which is also told the role's file (a caller
    over HTTP is not told the server's paths); ``shown``: how its texts are shown (``Toolbay.shown_text``)."""
    # Its texts pass the audit log's rules, as its agent_ tool's do in tools/list: a secret in
    # a role's description is not shown by one list and hidden by the other.
    meta = {"toolbay/tool": role.tool_name, **({"toolbay/origin": role.path} if local else {})}
    return types.Prompt(
        name=role.name,
        title=role.name.replace("-", " ").replace("_", " ").capitalize(),
        description=shown(role.description),
        arguments=[types.PromptArgument(name=a.name, description=shown(a.description) or None,
                                        required=a.required)
                   for a in role.arguments],
        _meta=meta,
    )


def prompt_handlers(app: Toolbay, transport: Transport) -> dict[str, Any]:
    """The SDK server's ``on_list_prompts``, ``on_get_prompt`` and ``on_completion`` for ``app``.
    A caller is shown the roles whose agent tool it may see, as its tools/list shows them: a
    role's text (its instructions) was shown to callers whose scopes hid its tool."""

    async def roles_of(ctx: ServerRequestContext[Any]) -> tuple[dict[str, Role], bool]:
        principal = await app.principal_for(transport, bearer_credential(ctx.request))
        usable = {definition.name for definition in app.visible_definitions(principal)}
        roles = {name: role for name, role in app.roles.roles.items() if role.tool_name in usable}
        return roles, principal.kind == "local"

    async def on_list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        mine, local = await roles_of(ctx)
        roles = sorted(mine.values(), key=lambda role: role.name)
        start = decode_cursor(params.cursor if params else None)
        size = app.settings.http.page_size
        chunk = roles[start:start + size]
        end = start + len(chunk)
        shown = app.shown_text()
        return types.ListPromptsResult(prompts=[role_to_prompt(role, local=local, shown=shown) for role in chunk],
                                       next_cursor=encode_cursor(end) if end < len(roles) else None)

    async def on_get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        role = _role((await roles_of(ctx))[0], params.name)
        given = params.arguments or {}
        unknown = sorted(set(given) - {argument.name for argument in role.arguments})
        if unknown:
            # As the agent_ tool refuses them: a misspelt argument would be dropped silently.
            known = ", ".join(argument.name for argument in role.arguments) or "none"
            raise MCPError(code=types.INVALID_PARAMS, message=f"prompt {role.name!r} takes no argument "
                           f"{echoed(unknown[0])}; its arguments: {known}")
        shown = app.shown_text()
        try:
            text = role.render(given, shown)
        except MissingArguments as missing:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"prompt {role.name!r}: " + "; ".join(missing.problems)) from None
        return types.GetPromptResult(
            description=shown(role.description),
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
        )

    async def on_completion(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        values: list[str] = []
        if isinstance(params.ref, types.PromptReference):
            role = _role((await roles_of(ctx))[0], params.ref.name)
            values = role.complete(params.argument.name, params.argument.value)
        return types.CompleteResult(completion=types.Completion(
            values=values[:MAX_COMPLETIONS], total=len(values), has_more=len(values) > MAX_COMPLETIONS))

    return {"on_list_prompts": on_list_prompts, "on_get_prompt": on_get_prompt, "on_completion": on_completion}


def _role(roles: dict[str, Role], name: str) -> Role:
    role = roles.get(name)
    if role is None:
        known = ", ".join(sorted(roles)) or "none"
        raise MCPError(code=types.INVALID_PARAMS, message=f"unknown prompt {echoed(name)} (prompts: {known})")
    return role
