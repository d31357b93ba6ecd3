"""A file's text parsed by a reader from Python's library (``tomllib``, ``json``), whose limits
are not said as its malformed texts are.

Such a reader recurses once a level of nesting and raises ``RecursionError`` past the
interpreter's recursion limit: a configuration or tokens file of a few hundred arrays one inside
another (``x = [[[[...]]]]``) ended ``toolbay`` in a traceback. And Python refuses to read an
integer of more than 4,300 digits (``sys.set_int_max_str_digits``) with a ``ValueError`` that
``tomllib`` lets through, another traceback, and which ``json``'s callers said in Python's
words. ``parse_within_limits`` says both as ``UnreadableText``, a ``ValueError`` as the readers' own are.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

Parsed = TypeVar("Parsed")
Text = TypeVar("Text", str, bytes)


class UnreadableText(ValueError):
    """The text is past what its reader can take (nested too deeply, a number too long)."""


def parse_within_limits(parse: Callable[[Text], Parsed], text: Text) -> Parsed:
    """``parse(text)``; ``UnreadableText`` where the reader ran out of recursion or refused an
    integer's length. The reader's own errors (``TOMLDecodeError``, ``JSONDecodeError``) pass."""
    try:
        return parse(text)
    except RecursionError:
        raise UnreadableText("nested too deeply (more arrays or tables one inside another than any "
                             "configuration holds)") from None
    except ValueError as exc:
        if "integer string conversion" not in str(exc):  # Python's words for its limit on digits
            raise
        raise UnreadableText(f"a number longer than {sys.get_int_max_str_digits():,} digits") from None
