"""What ``tools/list`` shows of a wasm tool, as stored beside its description in the cache.

A warm start reads these listings and builds neither descriptions nor schemas. A cached
listing is used only when the code that made it is this code: a change to the schema
builder, to this module or to the wasm handler's schema makes every tool's listing be
derived again from its cached description (no guest runs).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolbay.description_cache import CachedCommand
from toolbay.handlers import wasm as wasm_handlers
from toolbay.handlers.wasm import with_stdin_property
from toolbay.helptext import HelpDescription, build_tool_schema
from toolbay.helptext import schema as schema_module
from toolbay.words import PermissionTier

_LISTING_CODE = (schema_module.__file__, __file__, wasm_handlers.__file__)
LISTING_BUILDER = hashlib.sha256(b"".join(Path(source).read_bytes() for source in _LISTING_CODE)).hexdigest()[:16]


def _title(tool_name: str) -> str:
    return tool_name.replace("_", " ").replace("-", " ")


def _model_description(about: str, long: str, name: str | None, path: Sequence[str]) -> str:
    """What the model reads: the about line, the long description, and how files are seen."""
    parts = [about or f"Runs {name or 'the program'} {' '.join(path)}".strip()]
    if long and long != about:
        parts.append(long)
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def listing_of(description: HelpDescription, tool_name: str, path: tuple[str, ...]) -> dict[str, Any]:
    """What ``tools/list`` shows of a tool, stored beside its description in the cache so that
    a warm start builds neither the description nor its schema (settings apply at load)."""
    tier = PermissionTier.parse(description.permission_level)
    return {
        "builder": LISTING_BUILDER,
        "title": _title(tool_name),
        "text": _model_description(description.about, description.description, description.name, path),
        "input_schema": with_stdin_property(build_tool_schema(description).input_schema),
        "tier": None if tier is None else tier.value,
        "keywords": tuple(description.keywords),
        "version": description.version,
        "background": description.background,
    }


def is_stale(listing: Mapping[str, Any] | None) -> bool:
    return listing is None or listing.get("builder") != LISTING_BUILDER


def relisted(command: CachedCommand) -> CachedCommand:
    listing = listing_of(HelpDescription.from_dict(command.description), command.tool_name, command.path)
    return CachedCommand(command.tool_name, command.path, command.description, listing)
