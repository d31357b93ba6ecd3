"""A quick yes for arguments that plainly fit a plain schema, before jsonschema is asked.

jsonschema's validator builds a new validator object for every sub-schema it descends into,
so checking even three flat arguments costs about 80 µs, as much as a small tool's whole run
in the sandbox. The schemas toolbay derives from help texts are nearly always plain: an
object of named options, each a string, number, integer, boolean or an array of those,
perhaps with a list of choices or bounds. For such a schema this module compiles a check of
a few dict lookups and ``isinstance`` calls.

The check can only say yes. When it says no, or the schema uses anything it does not know
(checked formats, patterns, composition, nested objects, ``$ref``), the caller asks jsonschema, which
also writes the sentences about what is wrong. So the check must never accept what jsonschema
would refuse; it may refuse what jsonschema would accept. ``tests/chain/test_plain_schemas.py``
holds it to that with generated schemas and values.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Mapping
from typing import Any

Check = Callable[[Any], bool]

# Keywords that do not constrain a value.
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly",
                          "$comment"})
_VALUE_KEYWORDS = frozenset({"type", "enum", "items", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                             "minItems", "maxItems", "minLength", "maxLength", "format"})
_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": operator.ge, "maximum": operator.le, "exclusiveMinimum": operator.gt, "exclusiveMaximum": operator.lt}
# Lengths count code points, as Python counts a str (and as jsonschema does).
_COUNTS: dict[str, tuple[Callable[[int, Any], bool], type[list[Any]] | type[str]]] = {
    "minItems": (operator.ge, list), "maxItems": (operator.le, list),
    "minLength": (operator.ge, str), "maxLength": (operator.le, str)}
_OBJECT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "unevaluatedProperties"})


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# JSON Schema 2020-12's types; an integer is any number with no fractional part (1.0 included).
_TYPES: dict[str, Check] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: (isinstance(value, int) and not isinstance(value, bool))
    or (isinstance(value, float) and value.is_integer()),
    "number": _is_number,
    "boolean": lambda value: isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
    "null": lambda value: value is None,
}


def compile_plain(schema: Any, checked_formats: Collection[str]) -> Check | None:
    """A check that accepts only arguments ``schema`` accepts, or None when ``schema`` is not an
    object schema of plain values (then jsonschema decides everything). ``checked_formats``:
    the formats jsonschema's format checker knows; any other ``format`` is only a note."""
    if not isinstance(schema, Mapping) or set(schema) - _ANNOTATIONS - _OBJECT_KEYWORDS:
        return None
    if schema.get("type", "object") != "object":
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    closed = False
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if keyword in schema:
            if schema[keyword] is False:
                closed = True
            elif schema[keyword] is not True and schema[keyword] != {}:
                return None
    checks: dict[str, Check] = {}
    for name, member in properties.items():
        check = _compile_value(member, checked_formats)
        if check is None:
            return None
        checks[name] = check
    needed = tuple(required)

    def accepts(arguments: Any) -> bool:
        if not isinstance(arguments, dict):
            return False
        for name in needed:
            if name not in arguments:
                return False
        for name, value in arguments.items():
            check = checks.get(name)
            if check is None:
                if closed:
                    return False
            elif not check(value):
                return False
        return True

    return accepts


def _compile_value(schema: Any, checked_formats: Collection[str]) -> Check | None:
    if schema is True or schema == {}:
        return lambda value: True
    if not isinstance(schema, Mapping) or set(schema) - _ANNOTATIONS - _VALUE_KEYWORDS:
        return None
    if "format" in schema and (not isinstance(schema["format"], str) or schema["format"] in checked_formats):
        return None
    checks: list[Check] = []
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        tests = [_TYPES.get(kind) if isinstance(kind, str) else None for kind in kinds]
        if not tests or any(test is None for test in tests):
            return None  # "object", or a type jsonschema would call the schema broken for
        known = [test for test in tests if test is not None]
        checks.append(known[0] if len(known) == 1 else lambda value: any(test(value) for test in known))
    if "enum" in schema:
        choices = schema["enum"]
        # Strings only: jsonschema's equality has rules of its own for numbers and booleans.
        if not isinstance(choices, list) or not all(isinstance(choice, str) for choice in choices):
            return None
        allowed = frozenset(choices)
        checks.append(lambda value: isinstance(value, str) and value in allowed)
    for keyword, holds in _BOUNDS.items():
        if keyword in schema:
            bound = _bound(schema[keyword], holds)
            if bound is None:
                return None
            checks.append(bound)
    for keyword, (fits, kind) in _COUNTS.items():
        if keyword in schema:
            count = _count(schema[keyword], fits, kind)
            if count is None:
                return None
            checks.append(count)
    if "items" in schema:
        item = _compile_value(schema["items"], checked_formats)
        if item is None:
            return None
        checks.append(lambda value: not isinstance(value, list) or all(item(element) for element in value))
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _bound(bound: Any, holds: Callable[[Any, Any], bool]) -> Check | None:
    """A bound on numbers (None: a bound this module does not understand)."""
    if not _is_number(bound):
        return None
    # Bounds apply to numbers only; other values pass them (their type is another keyword's).
    return lambda value: not _is_number(value) or holds(value, bound)


def _count(bound: Any, fits: Callable[[int, Any], bool], kind: type[list[Any]] | type[str]) -> Check | None:
    """A bound on the length of values of ``kind``; other values pass it (None: not understood)."""
    if not (isinstance(bound, int) and not isinstance(bound, bool)) or bound < 0:
        return None
    return lambda value: not isinstance(value, kind) or fits(len(value), bound)
