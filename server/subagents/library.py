"""The roles served now: read from the agent folders, as prompts and as ``agent_*`` tools.

The catalog keeper reloads the library on every rescan (start, hot reload, ``refresh_tools``); a role
file that cannot be served is listed with its reason among the skipped files, like a tool
file, and one that was served keeps its last good version. ``reload`` tells whether the roles
changed, so clients hear of new prompts only then.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from toolbay.catalog import SkippedFile
from toolbay.config import Settings
from toolbay.defaults import distinct_folders
from toolbay.file_names import shown
from toolbay.handlers.agents import AgentHandler, DelegationPolicy
from toolbay.subagents.roles import Role, read_roles

logger = logging.getLogger(__name__)


class RoleLibrary:
    def __init__(self, folders: Iterable[Path], policy: DelegationPolicy) -> None:
        self.folders = list(folders)
        self.policy = policy
        self.roles: Mapping[str, Role] = MappingProxyType({})
        self.handlers: tuple[AgentHandler, ...] = ()
        self.skipped: tuple[SkippedFile, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> RoleLibrary:
        limits = settings.subagents
        return cls(settings.agents, DelegationPolicy(
            paths=tuple(limits.paths), max_depth=limits.max_depth, max_turns=limits.max_turns,
            time_s=limits.time_s, max_tokens=limits.max_tokens, run_limit_s=settings.run_limit_s))

    def reload(self) -> bool:
        """Reads the folders again (blocking: run it on a worker thread). True when the roles
        served changed; the refused files are brought up to date either way. As for tools, a
        role file that was served and is now refused keeps its last good version (the reason
        is listed all the same); a role whose file is unchanged keeps its handler."""
        found = read_roles(distinct_folders(self.folders))  # each once, as its names lead now
        served = {role.path: role for role in self.roles.values()}
        roles = list(found.roles)
        names = {role.name for role in roles}
        # The tool names too: foo_bar kept beside a new foo-bar would put two prompts behind the
        # one agent_foo_bar, which runs one of them (and a restart serves foo-bar alone).
        tools = {role.tool_name for role in roles}
        skipped: list[SkippedFile] = []
        for refused in found.refused:
            previous = served.get(refused.path)
            if previous is None or refused.lost_its_name:
                continue
            # A file that claimed the name of a role served from another file, refused for it,
            # must not take it over when that file is saved broken: the broken file keeps its
            # last good version, and with it its name (a file that was not serving the role took
            # the role and its prompt over at a broken save).
            for newcomer in [role for role in roles if role.path != previous.path and (
                    role.name == previous.name or role.tool_name == previous.tool_name)
                    and served.get(role.path) != role]:
                roles.remove(newcomer)
                names.discard(newcomer.name)
                tools.discard(newcomer.tool_name)
                skipped.append(SkippedFile(newcomer.path, f"the role name {previous.name!r} is already taken by "
                                                          f"{previous.path} (its last good version)"))
        for refused in found.refused:
            reason = refused.reason
            previous = served.get(refused.path)
            if previous is not None and previous.name not in names and previous.tool_name not in tools:
                roles.append(previous)
                names.add(previous.name)
                tools.add(previous.tool_name)
                reason += "; its previous version is still served"
            skipped.append(SkippedFile(refused.path, reason))
        # By name, not in order: a role kept from its previous version comes after the others,
        # and a broken save of its file, which changes nothing served, was told as a change.
        roles_changed = {role.name: role for role in roles} != dict(self.roles)
        if not roles_changed and tuple(skipped) == self.skipped:
            return False
        for item in skipped:
            if item not in self.skipped:
                logger.warning("skipping role file %s: %s", shown(item.path), item.reason)
        kept = {handler.role: handler for handler in self.handlers}
        self.handlers = tuple(kept.get(role) or AgentHandler(role, self.policy) for role in roles)
        self.roles = MappingProxyType({role.name: role for role in roles})
        self.skipped = tuple(skipped)
        return roles_changed
