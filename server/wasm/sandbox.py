"""Deny by default: what a tool of a given tier may see of the host."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from toolbay.wasm.types import Preopen
from toolbay.words import PermissionTier

WORKSPACE_GUEST_PATH = "/workspace"
# The same folder again as the guest's working directory, so relative paths in arguments
# work in any tool: wasi-libc (C, and Rust's std through it) resolves a relative path
# through a preopen named "."; Go's runtime joins it to $PWD, then finds the preopen.
_WORKING_DIRECTORY = "."


def sandbox_for(
    tier: PermissionTier | None,
    workspace: Path | None,
    env_allow: Sequence[str],
    host_env: Mapping[str, str],
) -> tuple[tuple[Preopen, ...], dict[str, str]]:
    """The preopened folders and environment for a tool of ``tier``.

    ``read`` sees the workspace read-only at ``/workspace``; ``write`` and ``exec`` read-write;
    a tool that declared no tier sees no file at all. A tool that sees the workspace has it as
    its working directory too (``PWD=/workspace``). The environment holds only allow-listed
    names that the host has set (and that ``PWD``).
    """
    preopens: tuple[Preopen, ...] = ()
    env = {name: host_env[name] for name in env_allow if name in host_env}
    if tier is not None and workspace is not None:
        host, writable = workspace.resolve(), tier is not PermissionTier.READ
        preopens = (Preopen(host, WORKSPACE_GUEST_PATH, writable), Preopen(host, _WORKING_DIRECTORY, writable))
        env["PWD"] = WORKSPACE_GUEST_PATH
    return preopens, env
