"""Role files as MCP prompts: ``prompts/list``, ``prompts/get`` and ``completion/complete``.

A role is a prompt of the same name, its arguments the role's arguments; ``prompts/get``
answers one user message, the role prompt with the arguments in place. A required argument
missing, or a value outside an argument's choices, is refused with a JSON-RPC
invalid-params error naming it. Completion offers an argument's choices that start with
what was typed (none for an argument without choices, or for resource templates, which
toolbay does not serve).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from toolbay.protocol.listing import decode_cursor, encode_cursor
from toolbay.redaction import redact_text
from toolbay.subagents.roles import MissingArguments, Role

if TYPE_CHECKING:
    from toolbay.app import Toolbay

MAX_COMPLETIONS = 100  # the most one completion answer may hold


def role_to_prompt(role: Role) -> types.Prompt:
    # Its texts pass the audit log's rules, as its agent_ tool's do in tools/list: a secret in
    # a role's description is not shown by one list and hidden by the other.
    return types.Prompt(
        name=role.name,
        title=role.name.replace("-", " ").replace("_", " ").capitalize(),
        description=redact_text(role.description),
        arguments=[types.PromptArgument(name=a.name, description=redact_text(a.description) or None,
                                        required=a.required)
                   for a in role.arguments],
        _meta={"toolbay/tool": role.tool_name, "toolbay/origin": role.path},
    )


def prompt_handlers(app: Toolbay) -> dict[str, Any]:
    """The SDK server's ``on_list_prompts``, ``on_get_prompt`` and ``on_completion`` for ``app``."""

    async def on_list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        roles = sorted(app.roles.roles.values(), key=lambda role: role.name)
        start = decode_cursor(params.cursor if params else None)
        size = app.settings.http.page_size
        chunk = roles[start:start + size]
        end = start + len(chunk)
        return types.ListPromptsResult(prompts=[role_to_prompt(role) for role in chunk],
                                       next_cursor=encode_cursor(end) if end < len(roles) else None)

    async def on_get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        role = _role(app, params.name)
        given = params.arguments or {}
        unknown = sorted(set(given) - {argument.name for argument in role.arguments})
        if unknown:
            # As the agent_ tool refuses them: a misspelt argument would be dropped silently.
            known = ", ".join(argument.name for argument in role.arguments) or "none"
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"prompt {role.name!r} takes no argument {unknown[0]!r}; its arguments: {known}")
        try:
            text = role.render(given)
        except MissingArguments as missing:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"prompt {role.name!r}: " + "; ".join(missing.problems)) from None
        return types.GetPromptResult(
            description=redact_text(role.description),
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
        )

    async def on_completion(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        values: list[str] = []
        if isinstance(params.ref, types.PromptReference):
            values = _role(app, params.ref.name).complete(params.argument.name, params.argument.value)
        return types.CompleteResult(completion=types.Completion(
            values=values[:MAX_COMPLETIONS], total=len(values), has_more=len(values) > MAX_COMPLETIONS))

    return {"on_list_prompts": on_list_prompts, "on_get_prompt": on_get_prompt, "on_completion": on_completion}


def _role(app: Toolbay, name: str) -> Role:
    role = app.roles.roles.get(name)
    if role is None:
        known = ", ".join(sorted(app.roles.roles)) or "none"
        raise MCPError(code=types.INVALID_PARAMS, message=f"unknown prompt {name!r} (prompts: {known})")
    return role
