"""A quick yes for input schemas that are plainly valid JSON Schema 2020-12, before jsonschema.

A Python tool's input schema is checked against the meta-schema when its module is described
(``toolbay.pytools.describe``). jsonschema's import and its check of the meta-schema cost a
first start on the bundled tools about a tenth of a second of the server's own processor
time, in the thread every import and every describing shares; and nearly every tool's schema
is plain: an object of named properties, each a string, number, integer, boolean or array of
those, with descriptions, defaults, choices and bounds.

This check can only say yes. It knows a few keywords, each with the kind of value the
meta-schema asks of it; a schema with any other keyword (``pattern``, whose text must be a
regular expression; ``$ref``; composition; a keyword of its author's own, which the
meta-schema would take) is left to jsonschema, and so is any value this module does not
understand. ``tests/pytools/test_plain_meta_schema.py`` holds it to never saying yes where
jsonschema's check of the meta-schema says no.
"""

from __future__ import annotations

import math
from typing import Any

_TYPE_NAMES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_STRINGS = frozenset({"title", "description", "$comment", "format", "contentMediaType", "contentEncoding"})
_BOOLEANS = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_COUNTS = frozenset({"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"})
_ANY_VALUE = frozenset({"default", "const"})
_SUBSCHEMAS = frozenset({"items", "additionalProperties", "unevaluatedProperties"})


def plainly_valid(schema: Any) -> bool:
    """True only where ``schema`` is valid by JSON Schema 2020-12's meta-schema: every keyword in
    it, at every depth, is one this module knows, with a value of the kind the meta-schema
    asks. False says nothing: jsonschema must decide."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return False
        for keyword, value in node.items():
            if keyword in _STRINGS:
                ok = isinstance(value, str)
            elif keyword in _BOOLEANS:
                ok = isinstance(value, bool)
            elif keyword in _NUMBERS:
                ok = _is_number(value)
            elif keyword in _COUNTS:
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            elif keyword in _ANY_VALUE:
                ok = True
            elif keyword in _SUBSCHEMAS:
                pending.append(value)
                ok = True
            elif keyword == "type":
                ok = _type_names(value)
            elif keyword == "properties":
                ok = isinstance(value, dict)
                if ok:
                    pending.extend(value.values())
            elif keyword == "required":
                ok = _unique_strings(value)
            elif keyword in ("enum", "examples"):
                ok = isinstance(value, list)
            elif keyword == "multipleOf":
                ok = _is_number(value) and value > 0
            else:
                ok = False
            if not ok:
                return False
    return True


def _is_number(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)  # NaN and the infinities are no JSON numbers
    return isinstance(value, int) and not isinstance(value, bool)


def _type_names(value: Any) -> bool:
    """One of the seven type names, or a list of them, at least one, none twice."""
    if isinstance(value, str):
        return value in _TYPE_NAMES
    return isinstance(value, list) and bool(value) and all(isinstance(name, str) and name in _TYPE_NAMES
                                                           for name in value) and len(set(value)) == len(value)


def _unique_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value) and len(set(value)) == len(value)
