"""What of a tool definition is searched, field by field.

A tool is found by its name (split into words), its description, its ``Keywords:``, and
its parameters: their names, descriptions, titles and enumerated values, nested ones
included. Parameters tell a lot: a tool that "gets a forecast" with a ``zip_code``
parameter answers "weather for 94103" better than one with a ``city``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Any

from toolbay.closed_objects import local_target
from toolbay.search.tokens import tokenize
from toolbay.words import ToolDefinition, bounded_description


class Field(enum.IntEnum):
    """The indexed parts of a tool; the value is the position in a per-field tuple."""

    NAME = 0
    DESCRIPTION = 1
    KEYWORDS = 2
    PARAMETER_NAMES = 3
    PARAMETER_TEXT = 4


FIELDS = tuple(Field)
# Command-line names shorten words a request spells out ("format JSON" for jsonkit_fmt): the name
# field gets them in full too. Only shortenings that mean one thing in a program's name.
SPELLED_OUT: dict[str, tuple[str, ...]] = {
    "fmt": ("format",), "ls": ("list",), "rm": ("remove", "delete"), "mv": ("move", "rename"), "cp": ("copy",),
    "cfg": ("config", "configuration"), "conf": ("config", "configuration"), "dir": ("directory", "folder"),
    "env": ("environment",), "exec": ("execute", "run"), "msg": ("message",), "pwd": ("password",),
    "repo": ("repository",), "img": ("image",), "doc": ("document",), "calc": ("calculate",),
    "stats": ("statistics",), "del": ("delete",), "gen": ("generate",), "conv": ("convert",),
    "tz": ("timezone",), "num": ("number",), "cnt": ("count",), "info": ("information",),
}
# Schemas nest; a deeper walk finds nothing a model would search for.
_MAX_DEPTH = 6


def field_terms(definition: ToolDefinition) -> tuple[list[str], ...]:
    """The terms of each field of ``definition``, indexed by ``Field``."""
    names: list[str] = []
    texts: list[str] = []
    for name, text in parameter_texts(definition.input_schema):
        names.append(name)
        texts.append(text)
    name_terms = tokenize(definition.name)
    return (
        name_terms + [word for term in name_terms for word in SPELLED_OUT.get(term, ())]
        + (tokenize(definition.title) if definition.title else []),
        tokenize(definition.description),
        tokenize(" ".join(definition.keywords)),
        tokenize(" ".join(names)),
        tokenize(" ".join(texts)),
    )


def parameter_texts(schema: Any) -> Iterator[tuple[str, str]]:
    """(name, text) of every parameter under ``schema``, nested ones included."""
    return _parameters(schema, 0, schema, set())


# Where a schema's parts stand for one value together: pydantic writes an optional model as
# ``anyOf`` with null, a union as ``anyOf`` or ``oneOf``, a model's parent as ``allOf``.
_PARTS = ("anyOf", "oneOf", "allOf")


def _parameters(schema: Any, depth: int, root: Any, followed: set[str]) -> Iterator[tuple[str, str]]:
    """(name, text) of every property under ``schema``, depth first: in ``properties`` and
    ``items``, in the parts of ``anyOf``, ``oneOf`` and ``allOf``, and where a ``$ref`` into
    ``root`` points (each place once: pydantic's models name themselves, and each other, there)."""
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, prop in properties.items():
            yield str(name), _describe(prop, root)
            yield from _parameters(prop, depth + 1, root, followed)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _parameters(items, depth + 1, root, followed)
    for key in _PARTS:
        parts = schema.get(key)
        if isinstance(parts, list):
            for part in parts:
                yield from _parameters(part, depth + 1, root, followed)
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference not in followed:
        followed.add(reference)
        yield from _parameters(_referred(reference, root), depth + 1, root, followed)


def _referred(reference: str, root: Any) -> Any:
    """What a ``$ref`` within the schema (``#/$defs/Address``) points at; None for another
    document's or a pointer that leads nowhere."""
    return local_target(root, reference) if isinstance(root, Mapping) else None


def _describe(prop: Any, root: Any = None) -> str:
    """A property's title, description and enumerated values, and those of what it is written
    as: the model its ``$ref`` names, or the parts of its ``anyOf`` (an optional model's)."""
    if not isinstance(prop, Mapping):
        return ""
    parts = _own_text(prop)
    written_as = [prop, *(part for key in _PARTS if isinstance(prop.get(key), list) for part in prop[key])]
    for schema in written_as:
        if schema is not prop:
            parts.extend(_own_text(schema))
        reference = schema.get("$ref") if isinstance(schema, Mapping) else None
        if isinstance(reference, str):
            parts.extend(_own_text(_referred(reference, root)))
    return " ".join(parts)


def _own_text(schema: Any) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    parts = [value for key in ("title", "description") if isinstance(value := schema.get(key), str)]
    enum_values = schema.get("enum")
    if isinstance(enum_values, list):
        parts.extend(value for value in enum_values if isinstance(value, str))
    return parts


def definition_from_mcp(tool: Mapping[str, Any]) -> ToolDefinition:
    """A definition from an MCP tool object (``{"name", "description", "inputSchema"}``)."""
    name = tool.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a tool needs a non-empty string 'name'")
    description = tool.get("description")
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise ValueError(f"tool {name!r}: 'description' must be a string")
    # Cut as the server cuts a tool's own (a word past the cut was found here and not there).
    description, _ = bounded_description(description)
    given = [key for key in ("inputSchema", "input_schema") if key in tool]
    schema = tool[given[0]] if given else None
    if schema is None:
        # Left out or null: no arguments, as a null description is none and a function-calling
        # definition's null parameters are none. Refused, one such line among 20,000 stopped the
        # whole run with nothing printed.
        schema = {"type": "object"}
    if not isinstance(schema, Mapping):
        raise ValueError(f"tool {name!r}: 'inputSchema' must be an object")
    title = tool.get("title") if isinstance(tool.get("title"), str) else None
    # toolbay lists a tool's ``Keywords:`` in its _meta; other servers' tools have none there.
    meta = tool.get("_meta")
    keywords = meta.get("toolbay/keywords") if isinstance(meta, Mapping) else None
    keywords = tuple(k for k in keywords if isinstance(k, str)) if isinstance(keywords, list) else ()
    return ToolDefinition(name=name, description=description, input_schema=schema, title=title, keywords=keywords,
                          source="catalog", origin="catalog")
