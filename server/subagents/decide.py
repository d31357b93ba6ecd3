"""Which way an ``agent_*`` call hands its role and task on: the one decision.

- ``envelope``: the client runs child sessions itself. It says so by declaring the
  capability ``toolbay/subagents`` (under ``capabilities.experimental``, or under
  ``capabilities.extensions``); the tool result then carries the role prompt, the task,
  the allowed tools and the limits in ``_meta._subagent``, and toolbay calls no model.
- ``sampling``: the client offers MCP sampling (``capabilities.sampling``, with ``tools`` when
  the role has tools to offer) and a channel to send it requests: toolbay runs the loop
  through ``sampling/createMessage``.
- ``fallback``: neither; the calling model is handed the role prompt and the task to act
  in role itself.

The configuration (``[subagents] paths``) says which of the first two toolbay may use and
in which order; a path is taken only when the client declared it can receive it, so an
envelope never reaches a client that did not ask for one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

SUBAGENTS_CAPABILITY = "toolbay/subagents"

DelegationPath = Literal["envelope", "sampling", "fallback"]


@dataclass(frozen=True, slots=True)
class ClientAbilities:
    """What the client declared it can do, as far as delegation cares."""

    # Declared the toolbay/subagents capability: it runs child sessions from an envelope.
    subagents: bool = False
    # Declared sampling, and sampling with tools (2025-11-25).
    sampling: bool = False
    sampling_tools: bool = False
    # The connection can carry a request from server to client (not on 2026-07-28, where
    # sampling needs the input-required round trip toolbay does not drive).
    back_channel: bool = False


NO_ABILITIES = ClientAbilities()


def choose_path(abilities: ClientAbilities, preference: Sequence[str], *, offers_tools: bool) -> DelegationPath:
    """The path for one call.

    Args:
        abilities: what the client declared.
        preference: the paths the configuration allows, most preferred first
            (``"envelope"``, ``"sampling"``); anything else is ignored.
        offers_tools: the role has at least one tool to offer the sub-agent, so sampling
            needs the client's sampling-with-tools capability.
    """
    for path in preference:
        if path == "envelope" and abilities.subagents:
            return "envelope"
        if (path == "sampling" and abilities.sampling and abilities.back_channel
                and (abilities.sampling_tools or not offers_tools)):
            return "sampling"
    return "fallback"
