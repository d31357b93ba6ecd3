"""Reaching past jsonschema's public API: schema patterns searched with a time limit.

jsonschema searches ``pattern`` and ``patternProperties`` (and the property names that
``additionalProperties`` and ``unevaluatedProperties`` leave to them) with ``re.search``, which
can backtrack without bound while holding Python's lock: ``^(a|aa)+$`` against forty "a"s and a
"!" would outlive the server. The pattern is a tool author's and the text a caller's, so one
careless pattern (common e-mail and domain patterns are such) let any caller stop the server.

jsonschema has no hook for how a pattern is searched: a keyword can be replaced through
``jsonschema.validators.extend``, but not the property-name searches of its ``_utils``. So the
``re`` those two modules use is swapped for ``BoundedSearch``: the same search made with the
``regex`` module (``re``'s syntax), which stops at a deadline and lets go of Python's lock while
it searches. ``within(seconds)`` sets one deadline for every search made inside it; a search
made outside one has ``DEFAULT_LIMIT_S`` of its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import jsonschema._keywords
import jsonschema._utils
import regex

DEFAULT_LIMIT_S = 1.0

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("toolbay_pattern_deadline", default=None)


class PatternTooSlow(Exception):
    """A search of ``pattern`` did not end by its deadline."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"searching the pattern {pattern!r} took too long")
        self.pattern = pattern


class BoundedSearch:
    """Stands for the ``re`` module in jsonschema's keyword modules: ``search`` has a deadline,
    everything else is ``re``'s own."""

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    @staticmethod
    def search(pattern: str, string: str, flags: int = 0) -> Any:
        deadline = _deadline.get()
        limit = DEFAULT_LIMIT_S if deadline is None else deadline - time.monotonic()
        if limit <= 0:
            raise PatternTooSlow(pattern)
        try:
            return regex.search(pattern, string, flags, timeout=limit, concurrent=True)
        except TimeoutError:
            raise PatternTooSlow(pattern) from None
        except regex.error:
            # Written for ``re`` and refused by ``regex`` (they differ in corners): searched
            # as jsonschema would, which a schema check has already let through.
            return re.search(pattern, string, flags)


_PATCHED: tuple[ModuleType, ...] = (jsonschema._keywords, jsonschema._utils)


def install() -> None:
    """Makes jsonschema search patterns with ``BoundedSearch`` (idempotent)."""
    for module in _PATCHED:
        if not isinstance(getattr(module, "re", None), BoundedSearch):
            module.re = BoundedSearch()  # type: ignore[attr-defined]


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Every pattern search made inside ends within ``seconds`` of entering, all of them together,
    or raises ``PatternTooSlow``."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)
