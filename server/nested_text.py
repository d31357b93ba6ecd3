"""A file's text parsed by a reader that recurses once a level of nesting (``tomllib``, ``json``).

Such a reader raises ``RecursionError`` past the interpreter's recursion limit: a configuration
or tokens file of a few hundred arrays one inside another (``x = [[[[...]]]]``) ended ``toolbay``
in a traceback, where every other malformed file is said in one line. ``parse_nested`` says it
as the malformed text it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

Parsed = TypeVar("Parsed")
Text = TypeVar("Text", str, bytes)


class NestedTooDeeply(ValueError):
    """The text nests deeper than its reader can follow; a ``ValueError``, as the readers' own errors are."""


def parse_nested(parse: Callable[[Text], Parsed], text: Text) -> Parsed:
    """``parse(text)``; ``NestedTooDeeply`` where the reader ran out of recursion."""
    try:
        return parse(text)
    except RecursionError:
        raise NestedTooDeeply("nested too deeply (more arrays or tables one inside another than any "
                              "configuration holds)") from None
