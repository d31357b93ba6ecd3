"""Text with given values blotted out, and JSON-like values walked string by string.

Shared by what hides a tool's credentials (in its results, and in what its worker writes to
the server's log) and what hides secret-looking text in metadata (``toolbay.redaction``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

# What a credential given to a tool is shown as.
CREDENTIAL_HIDDEN = "[credential redacted]"
# Shorter values would blot out ordinary words.
MIN_SECRET_LENGTH = 4


def written_forms(secrets: Iterable[str], *, as_json: bool = True) -> list[str]:
    """The texts to blot out for ``secrets``, longest first (so that a secret inside another is
    not blotted first): each as written and, with ``as_json``, as JSON writes it too (a result
    that is a JSON document escapes quotes, backslashes and, in ASCII, every other letter)."""
    forms = {secret for secret in secrets if len(secret) >= MIN_SECRET_LENGTH}
    if as_json:
        forms |= {form for secret in forms
                  for form in (json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1])}
    return sorted(forms, key=len, reverse=True)


def blot(text: str, forms: Iterable[str], shown_as: str = CREDENTIAL_HIDDEN) -> str:
    for form in forms:
        if form in text:
            text = text.replace(form, shown_as)
    return text


# How deep into arrays and objects a copy goes: what is deeper is written as ``TOO_DEEP``. A
# caller's arguments may nest as deep as a JSON parser lets them (the quick lane's took 990
# levels), and each level was two frames of Python's stack: past its limit the audit stage
# failed, after the tool had run, and the call went unrecorded.
MAX_DEPTH = 64
TOO_DEEP = f"[nested deeper than {MAX_DEPTH} levels]"


def map_strings(value: Any, function: Callable[[str], str], *, keys: bool = False, depth: int = 0) -> Any:
    """A copy of ``value`` (JSON-like) with ``function`` applied to every string in it, and to
    the keys of its objects with ``keys``; an array or object deeper than ``MAX_DEPTH`` levels
    is ``TOO_DEEP``."""
    if isinstance(value, str):
        return function(value)
    if isinstance(value, dict | list | tuple) and depth >= MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {(function(key) if keys and isinstance(key, str) else key):
                map_strings(item, function, keys=keys, depth=depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [map_strings(item, function, keys=keys, depth=depth + 1) for item in value]
    return value
