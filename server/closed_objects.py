"""Which objects of an input schema refuse properties they do not name, said in the schema.

toolbay refuses arguments a tool's schema does not name, even where the schema forgot
``additionalProperties: false`` (``toolbay.chain.validate``), and a Python tool's schema is
served saying so (``toolbay.pytools.convention``): both walk the schema here, so that what a
client is shown and what is checked close the same objects. An object is closed when it
declares ``properties`` (or is the top level), unless it says itself what extra properties
may do (``additionalProperties``, ``patternProperties``, ``unevaluatedProperties``). The walk
goes through ``properties``, ``items`` and ``prefixItems``: compositions (``allOf``, ``$ref``)
are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

OPEN_KEYWORDS = ("additionalProperties", "patternProperties", "unevaluatedProperties")
# Keywords that may name an object's properties outside its own ``properties``: there, only
# ``unevaluatedProperties`` closes it rightly (``additionalProperties`` would refuse them).
COMPOSING = ("allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "dependentSchemas")


def composed(schema: Mapping[str, Any]) -> bool:
    return any(key in schema for key in COMPOSING)


def close_objects(schema: Mapping[str, Any], closing_keyword: Callable[[Mapping[str, Any]], str], *,
                  top: bool = True) -> dict[str, Any]:
    """A copy of ``schema`` in which every object it closes (see the module) has
    ``closing_keyword(object_schema)`` set to false."""
    closed = dict(schema)
    is_object = "properties" in closed or (top and closed.get("type") == "object")
    if is_object and not any(key in closed for key in OPEN_KEYWORDS):
        closed[closing_keyword(closed)] = False
    if isinstance(closed.get("properties"), Mapping):
        closed["properties"] = {key: _close_child(value, closing_keyword)
                                for key, value in closed["properties"].items()}
    if "items" in closed:
        closed["items"] = _close_child(closed["items"], closing_keyword)
    if isinstance(closed.get("prefixItems"), list):
        closed["prefixItems"] = [_close_child(value, closing_keyword) for value in closed["prefixItems"]]
    return closed


def _close_child(schema: Any, closing_keyword: Callable[[Mapping[str, Any]], str]) -> Any:
    return close_objects(schema, closing_keyword, top=False) if isinstance(schema, Mapping) else schema
