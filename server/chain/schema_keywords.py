"""How arguments a hostile caller chooses are checked against a tool's JSON Schema: jsonschema's
validator, with a time limit, four keywords checked differently and one format bounded
(``toolbay.chain.validate`` builds its validator here).

- A time limit on the whole check (``within``): every keyword's check first looks at the
  deadline, so a check that would take long is stopped (``ArgumentsTooCostly``) instead of
  holding the server. A recursive ``anyOf`` (a filter expression: and/or/not of conditions)
  is checked again for every branch at every level: ten levels (300 bytes) took 34 s, each
  level three times the last.
- ``uniqueItems``: jsonschema compares items that do not sort (objects, mixed types) pair by
  pair, so 3,000 small objects (36 KB) took 11 s of the event loop and 20,000 more than six
  minutes, during which the server answered no one. Here each item becomes a hashable key
  that is equal exactly where JSON Schema calls two values equal (``1`` and ``1.0`` are, ``1``
  and ``true`` are not, objects whatever their keys' order), and a set finds a repeat in one
  pass.
- ``unevaluatedItems`` and ``unevaluatedProperties``: with sets
  (``toolbay.internals.jsonschema_evaluated``).
- ``multipleOf``: a whole number too large for a float (``10**400``) against a divisor that is
  a float (``0.01``) raised ``OverflowError`` inside jsonschema, which the caller was told was
  the server's internal error. Such a number is checked exactly, as a fraction of the
  divisor as JSON writes it (``0.01`` is 1/100); a smaller one as jsonschema checks it, in
  floating point.
- The ``regex`` format: Python compiles a caller's pattern without a time limit, in time
  growing with the square of a long alternation's common start (0.3 MB: 4.7 s), and 5,000
  nested groups raised ``RecursionError`` (an internal error): longer than
  ``REGEX_FORMAT_MAX`` is refused, and a pattern too deep for the parser is not one.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import time
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

from toolbay.internals.jsonschema_evaluated import unevaluated_items, unevaluated_properties

# Longer than this, a value of format "regex" is not compiled: a pattern a tool takes as an
# argument is a line, not a file (10,000 characters compile in a few hundredths of a second).
REGEX_FORMAT_MAX = 10_000

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("toolbay_check_deadline", default=None)


class ArgumentsTooCostly(Exception):
    """The check of the arguments did not end by its deadline (``within``)."""


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Every keyword checked inside starts before this thread has spent ``seconds`` more of CPU
    time, or the check raises ``ArgumentsTooCostly``. CPU time, not the clock's: on a busy
    machine a check waiting for the interpreter's lock or a core is not costly, and was refused
    as if it were (two tests of 1.2 s of work went red beside another test run)."""
    token = _deadline.set(time.thread_time() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


KeywordCheck = Callable[[Any, Any, Any, Any], Any]


def wrapped_for_time(keyword: KeywordCheck) -> KeywordCheck:
    """``keyword``, refused with ``ArgumentsTooCostly`` once the deadline of ``within`` has passed."""
    def check(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        deadline = _deadline.get()
        if deadline is not None and time.thread_time() > deadline:
            raise ArgumentsTooCostly
        return keyword(validator, value, instance, schema)

    return check


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


def _is_regex(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    if len(instance) > REGEX_FORMAT_MAX:
        raise re.error(f"longer than {REGEX_FORMAT_MAX} characters, which is not checked")
    try:
        re.compile(instance)
    except (RecursionError, OverflowError) as error:
        raise re.error(f"nested too deeply to compile ({type(error).__name__})") from None
    return True


ARGUMENT_FORMATS = FormatChecker(formats=())
ARGUMENT_FORMATS.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
ARGUMENT_FORMATS.checks("regex", raises=re.error)(_is_regex)

_KEYWORDS: dict[str, KeywordCheck] = {
    **Draft202012Validator.VALIDATORS,
    "uniqueItems": unique_items, "multipleOf": multiple_of,
    "unevaluatedItems": unevaluated_items, "unevaluatedProperties": unevaluated_properties,
}
ArgumentsValidator = validators.extend(Draft202012Validator,
                                       {name: wrapped_for_time(check) for name, check in _KEYWORDS.items()})
ArgumentsValidator.FORMAT_CHECKER = ARGUMENT_FORMATS
