"""The roles served now: read from the agent folders, as prompts and as ``agent_*`` tools.

The app reloads the library on every rescan (start, hot reload, ``refresh_tools``); a role
file that cannot be served is listed with its reason among the skipped files, like a tool
file. ``reload`` tells whether anything changed, so clients hear of new prompts only then.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from handlers.agents import AgentHandler, DelegationPolicy
from server.agents.roles import Role, RoleFolders, read_roles
from server.catalog import SkippedFile

logger = logging.getLogger(__name__)


class RoleLibrary:
    def __init__(self, folders: Iterable[Path], policy: DelegationPolicy) -> None:
        self.folders = list(folders)
        self.policy = policy
        self._found = RoleFolders()
        self.roles: Mapping[str, Role] = MappingProxyType({})
        self.handlers: tuple[AgentHandler, ...] = ()
        self.skipped: tuple[SkippedFile, ...] = ()

    def reload(self) -> bool:
        """Reads the folders again (blocking: run it on a worker thread). True when the roles
        or the refused files changed; a role whose file is unchanged keeps its handler."""
        found = read_roles(self.folders)
        if found == self._found:
            return False
        kept = {handler.role: handler for handler in self.handlers}
        self.handlers = tuple(kept.get(role) or AgentHandler(role, self.policy) for role in found.roles)
        self.roles = MappingProxyType({role.name: role for role in found.roles})
        self.skipped = tuple(SkippedFile(error.path, error.reason) for error in found.refused)
        for error in found.refused:
            if error not in self._found.refused:
                logger.warning("skipping role file %s: %s", error.path, error.reason)
        self._found = found
        return True
