"""What a Python tool's worker is really confined by, in words for ``toolbay list``.

The words come from what a worker reported after confining itself (``guest/worker.py``), never
from what was asked for: a kernel without Landlock, or a server without the right to make a
network namespace, is said so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def confinement_words(enforced: Mapping[str, Any] | None, *, asked: bool, workspace: str, network: bool) -> str:
    """One line: ``workspace`` is "none", "read-only" or "read-write"."""
    if not asked:
        return "not confined (python.confine is off): only the time, memory and output limits apply"
    if not enforced:
        return "unknown until its first run"
    parts = []
    if enforced.get("files"):
        parts.append(f"files: Landlock (Python's own files read-only, workspace {workspace}, a private temp folder)")
    else:
        why = enforced.get("landlock_error") or "Landlock is not available in this kernel"
        parts.append(f"files: NOT confined ({why})")
    if network:
        parts.append("network: allowed by python.network_allow")
    elif enforced.get("netns"):
        parts.append("network: none (own network namespace)")
    elif enforced.get("tcp"):
        parts.append("network: TCP blocked by Landlock, UDP NOT blocked")
    else:
        parts.append("network: NOT blocked")
    if enforced.get("metadata"):
        changes = ("owners or attributes (modes and times allowed)" if workspace == "read-write"
                   else "owners, attributes, modes or times")
        sockets = "" if network else "; UNIX sockets: refused"
        parts.append(f"changing files' {changes}: refused{sockets}; io_uring, new namespaces: refused (seccomp)")
    else:
        why = enforced.get("seccomp_error") or "no seccomp filter for this architecture"
        parts.append(f"files' owners, modes and times, UNIX sockets: NOT confined ({why})")
    if enforced.get("capabilities"):
        parts.append("capabilities: none but passing files' own modes (within Landlock's grant)")
    elif "capabilities_error" in enforced:
        parts.append(f"capabilities: NOT dropped ({enforced['capabilities_error']})")
    parts.append("memory: limited" if enforced.get("memory") else "memory: NOT limited")
    return "; ".join(parts)


def is_confined(enforced: Mapping[str, Any] | None, *, network: bool) -> bool:
    """Files and network both held by the kernel."""
    if not enforced:
        return False
    return bool(enforced.get("files")) and (network or bool(enforced.get("netns")))
