"""Two JSON Schema keywords checked differently from jsonschema's own, for arguments a hostile
caller chooses (``toolbay.chain.validate`` builds its validator with them).

- ``uniqueItems``: jsonschema compares items that do not sort (objects, mixed types) pair by
  pair, so 3,000 small objects (36 KB) took 11 s of the event loop and 20,000 more than six
  minutes, during which the server answered no one. Here each item becomes a hashable key
  that is equal exactly where JSON Schema calls two values equal (``1`` and ``1.0`` are, ``1``
  and ``true`` are not, objects whatever their keys' order), and a set finds a repeat in one
  pass.
- ``multipleOf``: a whole number too large for a float (``10**400``) against a divisor that is
  a float (``0.01``) raised ``OverflowError`` inside jsonschema, which the caller was told was
  the server's internal error. Such a number is checked exactly, as a fraction of the
  divisor as JSON writes it (``0.01`` is 1/100).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators


def _equality_key(value: Any) -> Any:
    """A hashable stand-in for a JSON value, equal to another's exactly where the values are
    equal as JSON Schema compares them."""
    if isinstance(value, bool):  # before numbers: True == 1 in Python, not in JSON Schema
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)  # 1 == 1.0, and they hash alike
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    if isinstance(value, Mapping):
        return ("object", frozenset((key, _equality_key(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("array", tuple(_equality_key(item) for item in value))
    return ("other", id(value))  # not JSON: equal only to itself


def unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for item in instance:
        key = _equality_key(item)
        if key in seen:
            yield ValidationError("has non-unique elements")
            return
        seen.add(key)


def multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """As jsonschema's (float arithmetic first, as it does) but for the overflow, and with a
    message that does not spell the number out (``describe`` says what was expected)."""
    if not validator.is_type(instance, "number"):
        return
    if isinstance(divisor, float):
        try:
            quotient = instance / divisor
            failed = int(quotient) != quotient
        except OverflowError:
            failed = (Fraction(instance) / Fraction(str(divisor))).denominator != 1
    else:
        failed = bool(instance % divisor)
    if failed:
        yield ValidationError(f"is not a multiple of {divisor}")


ArgumentsValidator = validators.extend(Draft202012Validator, {"uniqueItems": unique_items, "multipleOf": multiple_of})
