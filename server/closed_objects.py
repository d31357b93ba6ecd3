"""Which objects of an input schema refuse properties they do not name, said in the schema.

toolbay refuses arguments a tool's schema does not name, even where the schema forgot
``additionalProperties: false`` (``toolbay.chain.validate``), and a Python tool's schema is
served saying so (``toolbay.pytools.convention``): both walk the schema here, so that what a
client is shown and what is checked close the same objects.

An object is closed where its value is described: the top level, and each schema that
describes a value inside another (``properties``, ``items``, ``prefixItems``,
``additionalProperties``, ``patternProperties``), when it lists ``properties``, or, through
``$ref``, ``allOf``, ``anyOf``, ``oneOf`` or ``if``, takes them from schemas that may describe
an object. Unless it says itself what extra properties may do (``additionalProperties``,
``patternProperties``, ``unevaluatedProperties``). Where properties come through a composition,
only ``unevaluatedProperties`` closes it rightly: it sees the properties its parts named, where
``additionalProperties`` would refuse them. The parts themselves (the members of ``allOf``,
``anyOf``, ``oneOf``, ``then``, ``else``, ``dependentSchemas``, and the ``$defs`` a ``$ref``
reaches) are never closed, as they describe the same value as their whole (closed, an ``allOf``
member would refuse its siblings' properties), but the values inside them are. ``not``,
``contains`` and ``if``'s own test are left as they are: closing them would change what they
accept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

OPEN_KEYWORDS = ("additionalProperties", "patternProperties", "unevaluatedProperties")
# Keywords that may name an object's properties outside its own ``properties``: there, only
# ``unevaluatedProperties`` closes it rightly (``additionalProperties`` would refuse them).
COMPOSING = ("allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "dependentSchemas")
# Parts of a schema that describe the same value as it: walked, not closed themselves.
_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONES = ("then", "else")
_SAME_VALUE_MAPS = ("dependentSchemas", "$defs", "definitions")
# Parts that describe the values inside it: closed as any value's schema.
_INNER_ONES = ("items", "additionalProperties")
_INNER_MAPS = ("properties", "patternProperties")
# Keywords whose values are data, not schemas: they may hold anything, "$ref" and "$anchor" keys too.
DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
# How far a $ref is followed to tell whether it may describe an object (a cycle stops there).
_REFERENCE_HOPS = 16


def composed(schema: Mapping[str, Any]) -> bool:
    return any(key in schema for key in COMPOSING)


def close_objects(schema: Mapping[str, Any], closing_keyword: Callable[[Mapping[str, Any]], str]) -> dict[str, Any]:
    """A copy of ``schema`` in which every object it closes (see the module) has
    ``closing_keyword(object_schema)`` set to false."""
    return _Closing(schema, closing_keyword).closed(schema, top=True)


def required_beyond_properties(schema: Mapping[str, Any]) -> str | None:
    """Where an object closed with ``additionalProperties`` (no composition) requires a
    property its ``properties`` do not list, said as "'b' at $.a", or None: no call can give
    such an object, as toolbay refuses what a schema does not name."""
    found: list[str] = []

    def note(part: Mapping[str, Any], path: str) -> None:
        required, named = part.get("required"), part.get("properties")
        if found or composed(part) or not isinstance(required, list) or not isinstance(named, Mapping | None):
            return
        missing = [key for key in required if isinstance(key, str) and key not in (named or {})]
        if missing:
            found.append(f"{missing[0]!r} at {path}")

    _Closing(schema, lambda _: "additionalProperties", on_closed=note).closed(schema, top=True)
    return found[0] if found else None


class _Closing:
    def __init__(self, root: Mapping[str, Any], closing_keyword: Callable[[Mapping[str, Any]], str],
                 on_closed: Callable[[Mapping[str, Any], str], None] | None = None) -> None:
        self.root = root
        self.closing_keyword = closing_keyword
        self.on_closed = on_closed
        # What each reference leads to, worked out once: followed afresh at every use, a schema of
        # six lines ("A": anyOf [$ref A] * 8) took minutes, holding every file's describing.
        self._references: dict[str, bool] = {}

    def closed(self, schema: Mapping[str, Any], *, top: bool = False, itself: bool = True,
               path: str = "$") -> dict[str, Any]:
        closed = dict(schema)
        if itself and not any(key in closed for key in OPEN_KEYWORDS) and self._closes(closed, top):
            closed[self.closing_keyword(closed)] = False
            if self.on_closed is not None:
                self.on_closed(schema, path)
        for key in _INNER_ONES:
            if isinstance(closed.get(key), Mapping):
                closed[key] = self.closed(closed[key], path=f"{path}.{key}")
        for key in _INNER_MAPS:
            if isinstance(closed.get(key), Mapping):
                closed[key] = {name: self.closed(value, path=f"{path}.{name}") if isinstance(value, Mapping) else value
                               for name, value in closed[key].items()}
        if isinstance(closed.get("prefixItems"), list):
            closed["prefixItems"] = [self.closed(value, path=f"{path}[{index}]") if isinstance(value, Mapping)
                                     else value for index, value in enumerate(closed["prefixItems"])]
        for key in _SAME_VALUE_LISTS:
            if isinstance(closed.get(key), list):
                closed[key] = [self.closed(value, itself=False, path=path) if isinstance(value, Mapping) else value
                               for value in closed[key]]
        for key in _SAME_VALUE_ONES:
            if isinstance(closed.get(key), Mapping):
                closed[key] = self.closed(closed[key], itself=False, path=path)
        for key in _SAME_VALUE_MAPS:
            if isinstance(closed.get(key), Mapping):
                closed[key] = {name: self.closed(value, itself=False, path=f"$.{key}.{name}")
                               if isinstance(value, Mapping) else value for name, value in closed[key].items()}
        return closed

    def _closes(self, schema: Mapping[str, Any], top: bool) -> bool:
        if "properties" in schema or (top and schema.get("type") == "object"):
            return True
        return not top and composed(schema) and self._may_be_an_object(schema, _REFERENCE_HOPS)

    def _may_be_an_object(self, schema: Mapping[str, Any], hops: int) -> bool:
        """Whether ``schema`` describes objects with named properties, itself or through its
        compositions (a union of strings and numbers is not closed: it would only say noise)."""
        if "properties" in schema:
            return True
        kinds = schema.get("type")
        if kinds is not None and "object" not in (kinds if isinstance(kinds, list) else [kinds]):
            return False
        parts: list[Any] = [part for key in _SAME_VALUE_LISTS if isinstance(schema.get(key), list)
                            for part in schema[key]]
        parts += [schema.get(key) for key in (*_SAME_VALUE_ONES, "if")]
        if "$dynamicRef" in schema:
            return True  # not followed: taken to be one
        reference = schema.get("$ref")
        if isinstance(reference, str) and hops > 0 and self._leads_to_an_object(reference, hops - 1):
            return True
        return any(isinstance(part, Mapping) and self._may_be_an_object(part, hops - 1) for part in parts)

    def _leads_to_an_object(self, reference: str, hops: int) -> bool:
        if reference not in self._references:
            self._references[reference] = False  # while it is worked out: a reference back to it adds nothing
            target = local_target(self.root, reference)
            self._references[reference] = isinstance(target, Mapping) and self._may_be_an_object(target, hops)
        return self._references[reference]


def local_target(root: Mapping[str, Any], reference: str) -> Any:
    """The schema a local reference ("#", "#/$defs/point", an anchor's "#point") points at in
    ``root``, or None."""
    if not reference.startswith("#"):
        return None
    if reference[1:] and not reference.startswith("#/"):
        return _anchored(root, reference[1:])
    node: Any = root
    for token in reference[1:].lstrip("/").split("/") if reference != "#" else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            node = node.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _anchored(root: Mapping[str, Any], anchor: str) -> Mapping[str, Any] | None:
    """The subschema of ``root`` that names itself ``anchor`` (``"$anchor": "point"``), or None."""
    pending: list[Any] = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, Mapping):
            if node.get("$anchor") == anchor:
                return node
            pending.extend(value for key, value in node.items() if key not in DATA_KEYWORDS)
        elif isinstance(node, list):
            pending.extend(node)
    return None
