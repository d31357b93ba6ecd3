"""Deny by default: what a tool of a given tier may see of the host."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from toolbay.wasm.types import Preopen
from toolbay.words import PermissionTier

WORKSPACE_GUEST_PATH = "/workspace"


def sandbox_for(
    tier: PermissionTier | None,
    workspace: Path | None,
    env_allow: Sequence[str],
    host_env: Mapping[str, str],
) -> tuple[tuple[Preopen, ...], dict[str, str]]:
    """The preopened folders and environment for a tool of ``tier``.

    ``read`` sees the workspace read-only at ``/workspace``; ``write`` and ``exec`` read-write;
    a tool that declared no tier sees no file at all. The environment holds only allow-listed
    names that the host has set.
    """
    preopens: tuple[Preopen, ...] = ()
    if tier is not None and workspace is not None:
        preopens = (Preopen(workspace.resolve(), WORKSPACE_GUEST_PATH, writable=tier is not PermissionTier.READ),)
    env = {name: host_env[name] for name in env_allow if name in host_env}
    return preopens, env
