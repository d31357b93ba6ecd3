"""Every place toolbay can be extended, with a sentence each (read this before adding one).

- **Handler kinds** (``toolbay.handlers.base.Handler``): a definition plus ``handle``; a new
  kind of tool (wasm, built-in, Python module, agent) is a subclass. Its optional
  ``answer_at_once`` computes a quick result on the calling thread (the wasm handler's quick
  path); ``expects_quick_answer`` lets HTTP skip setting up a stream for it.
- **Chain stages** (``toolbay.chain.call.Stage``): ``async (call, call_next) -> ToolResult``;
  ``Toolbay(stages=...)`` takes the list, folded once by ``toolbay.chain.build_chain``.
- **Policies** behind the stages (``toolbay.chain.ChainPolicies``): the authenticator and its
  token verifiers (``mcp.server.auth.provider.TokenVerifier``), the authorizer's scopes, the
  limiter's storage, the approver's ``Ask`` (how a person is asked: MCP elicitation by
  default, ``toolbay.protocol.elicitation``), the audit log.
- **Job stores** (``toolbay.jobs.store.JobStore``): where jobs and their results live
  (SQLite by default; ``toolbay.cluster.jobs.RedisJobStore`` under ``[cluster] redis``, a
  ``shared`` store whose replicas hand each other cancels, ends and dead replicas' jobs).
- **Catalog change listeners** (``toolbay.catalog_keeper.ChangeListener``): called after a
  rescan that changed the catalog (the session registry tells every connected client), or,
  as ``role_listeners``, the role files served (the prompt list).
- **Call metrics** (``toolbay.metrics.ServerMetrics``, ``Toolbay(metrics=...)``): told of every
  finished call with its stage timings; served at ``/metrics``.
- **Server hooks** (``ServerHook`` below): called with each SDK server the transports build,
  to add request handlers or middleware to it (MCP Tasks is one).
- **Disclosure** (``Disclosing`` below): what of the tools a caller may use one session's
  ``tools/list`` shows, and what a delegated session (``agent_*``) is offered (search-first
  disclosure, ``toolbay.protocol.disclosure``).
- **Owner resolution** (``toolbay.app.Toolbay.owner_id_for``): who owns a job or task made
  by a request, from the transport and the identity HTTP already verified.
- **Result conversion** (``toolbay.protocol.results.tool_result_to_mcp``): the one place a
  ``ToolResult`` becomes an MCP answer; ``toolbay.outcomes`` the one place errors become
  ``ToolResult``s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from toolbay.words import Principal, ToolDefinition, Transport

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

# Called once for every SDK server a transport builds, before it serves.
ServerHook: TypeAlias = "Callable[[Server[Any], Transport], None]"



class Disclosing(Protocol):
    async def ready_to_list(self, visible: list[ToolDefinition]) -> None:
        """Works out off the event loop what listing ``visible`` needs first, when much of it is
        new (a server's first listing, a changed module of many tools)."""
        ...

    def listed(self, principal: Principal, visible: list[ToolDefinition], session: Any) -> list[ToolDefinition]:
        """What ``session``'s ``tools/list`` shows of ``visible``, the tools ``principal`` may use."""
        ...

    def offered(self, principal: Principal, usable: list[ToolDefinition], session: Any) -> list[ToolDefinition]:
        """What of ``usable`` (tools ``principal`` may use) a session delegated from ``session``
        is offered: no more than the caller could find itself, shown as its listing shows them."""
        ...

    def may_find(self, principal: Principal, definition: ToolDefinition) -> bool:
        """Whether ``principal`` may find the tool (by search, or in a listing), its right to use
        it aside: a catalog folder's tool only when its allowlist names the folder."""
        ...

    def gives_way(self, principal: Principal) -> Callable[[ToolDefinition], bool]:
        """Whether ``principal``'s own tool gives way to a core or shared tool of its name
        (see ``Catalog``): where it may find that tool."""
        ...

    def leans_on_search(self) -> bool:
        """Whether callers must search to find tools: catalog folders, or listings that show
        only some tools."""
        ...
