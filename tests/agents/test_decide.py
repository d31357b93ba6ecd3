"""The delegation decision, over every combination of what a client declares, what the
configuration allows and whether the role offers tools."""

from __future__ import annotations

import itertools

import mcp_types as types
import pytest

from toolbay.protocol.subagents import abilities_of
from toolbay.subagents.decide import ClientAbilities, choose_path

FLAGS = list(itertools.product([False, True], repeat=4))
PREFERENCES = [(), ("envelope",), ("sampling",), ("envelope", "sampling"), ("sampling", "envelope")]


def _can(path: str, abilities: ClientAbilities, offers_tools: bool) -> bool:
    """What each path needs from the client, written out from the MCP rules, not the code."""
    if path == "envelope":
        return abilities.subagents
    if path == "sampling":
        tools_ok = abilities.sampling_tools or not offers_tools
        return abilities.sampling and abilities.back_channel and tools_ok
    return False


@pytest.mark.parametrize("preference", PREFERENCES)
@pytest.mark.parametrize("offers_tools", [False, True])
def test_every_combination_takes_the_first_allowed_path_the_client_declared_else_the_fallback(
    preference: tuple[str, ...], offers_tools: bool
) -> None:
    for subagents, sampling, sampling_tools, back_channel in FLAGS:
        abilities = ClientAbilities(subagents, sampling, sampling_tools, back_channel)
        path = choose_path(abilities, preference, offers_tools=offers_tools)
        expected = next((p for p in preference if _can(p, abilities, offers_tools)), "fallback")
        assert path == expected, (abilities, preference, offers_tools)
        if path == "envelope":
            assert subagents  # never an envelope for a client that did not ask for one
        if path == "sampling":
            assert sampling and back_channel and (sampling_tools or not offers_tools)


@pytest.mark.parametrize(("abilities", "expected"), [
    (ClientAbilities(), "fallback"),
    (ClientAbilities(subagents=True), "envelope"),
    (ClientAbilities(subagents=True, sampling=True, sampling_tools=True, back_channel=True), "envelope"),
    (ClientAbilities(sampling=True, sampling_tools=True, back_channel=True), "sampling"),
    (ClientAbilities(sampling=True, back_channel=True), "fallback"),  # the role needs tools
    (ClientAbilities(sampling=True, sampling_tools=True), "fallback"),  # no channel to ask on
])
def test_the_default_preference_for_a_role_with_tools(abilities: ClientAbilities, expected: str) -> None:
    assert choose_path(abilities, ("envelope", "sampling"), offers_tools=True) == expected


def test_unknown_paths_in_the_preference_are_ignored() -> None:
    everything = ClientAbilities(True, True, True, True)
    assert choose_path(everything, ("fallback", "carrier-pigeon", "sampling"), offers_tools=True) == "sampling"


class _Session:
    def __init__(self, capabilities: types.ClientCapabilities | None, version: str = "2025-11-25") -> None:
        self.client_capabilities = capabilities
        self.protocol_version = version
        self.can_send_request = True


@pytest.mark.parametrize(("capabilities", "version", "expected"), [
    (None, "2025-11-25", ClientAbilities()),
    (types.ClientCapabilities(), "2025-11-25", ClientAbilities(back_channel=True)),
    (types.ClientCapabilities(experimental={"toolbay/subagents": {"version": 1}}), "2025-11-25",
     ClientAbilities(subagents=True, back_channel=True)),
    (types.ClientCapabilities(extensions={"toolbay/subagents": {}}), "2025-11-25",
     ClientAbilities(subagents=True, back_channel=True)),
    (types.ClientCapabilities(experimental={"other/thing": {}}), "2025-11-25", ClientAbilities(back_channel=True)),
    (types.ClientCapabilities(sampling=types.SamplingCapability()), "2025-06-18",
     ClientAbilities(sampling=True, back_channel=True)),
    (types.ClientCapabilities(sampling=types.SamplingCapability(tools=types.SamplingToolsCapability())),
     "2025-11-25", ClientAbilities(sampling=True, sampling_tools=True, back_channel=True)),
    (types.ClientCapabilities(sampling=types.SamplingCapability(tools=types.SamplingToolsCapability())),
     "2026-07-28", ClientAbilities(sampling=True, sampling_tools=True, back_channel=False)),
])
def test_abilities_are_read_from_the_declared_capabilities(
    capabilities: types.ClientCapabilities | None, version: str, expected: ClientAbilities
) -> None:
    assert abilities_of(_Session(capabilities, version)) == expected


def test_a_call_without_a_session_has_no_abilities() -> None:
    assert abilities_of(None) == ClientAbilities()
