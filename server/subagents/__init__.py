"""Role files served as MCP prompts and as ``agent_*`` tools that delegate to a sub-agent.

- ``roles``: parse and render role files (engine level: shared words only).
- ``decide``: the one decision of the delegation path (envelope, sampling, fallback).
- ``loop``: the sub-agent loop through MCP sampling, against a small host interface.
- ``library``: the roles served now, reloaded with the catalog (catalog level).

The handler is ``toolbay.handlers.agents.AgentHandler``; the protocol side (prompts, completion,
the host that samples and runs tool calls through the chain) is in ``toolbay.protocol``.
(The package is not called ``agents``: that is the folder of bundled role files, which an
installed package carries under that name, as it carries ``extensions``.)
"""
