"""A caller's arguments, secrets hidden, cut to what a log line or a question to a person can hold.

The audit log writes every call's arguments, refused calls' included, with secret-looking text
hidden (``toolbay.redaction``: a dozen regular-expression passes) and the configured
credentials' values blotted out, on the event loop. On a call's whole arguments (up to the
4 MiB a request may carry) that held the loop for seconds, every other caller waiting, and
each refused call wrote megabytes to the log. So each string keeps its first
``TEXT_CHARACTERS``, each array and object its first ``ITEMS``, the whole its first
``TOTAL_CHARACTERS`` of text and ``NODES`` values; what is cut says how much there was.

Secrets are hidden before the cut, never after: a cut through a secret (half a token, the
start of ``postgres://app:Zq7:wpX9@db``, a key whose secret word is past the cut) would leave
a part no pattern recognises. Each string is hidden in a window that reaches ``CONTEXT``
characters (and the longest credential) past what is kept, so that what tells a secret apart
(a closing quote, the ``@`` after a URL's password) is still there; what lies past the window
is never kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolbay.blotting import MAX_DEPTH, TOO_DEEP, blot
from toolbay.redaction import REDACTED, is_secret_key, redact_text

TEXT_CHARACTERS = 2_000
TOTAL_CHARACTERS = 16_000
ITEMS = 100
KEY_CHARACTERS = 200
# Values looked at in all (a hundred items a level, nested, would be many more than are written).
NODES = 2_000
# How far past what is kept a string is read to hide secrets in it.
CONTEXT = 256


def cut_text(text: str, limit: int = TEXT_CHARACTERS, length: int | None = None) -> str:
    """``text`` whole if it has at most ``limit`` characters, else its start up to the last
    space before the limit (the whole start where it has none), then ``... (N characters)``,
    N being ``length`` (the text's before secrets were hidden in it) or its own."""
    if len(text) <= limit:
        return text
    kept = text[:limit]
    space = kept.rfind(" ")
    return f"{kept[:space] if space > limit // 2 else kept}... ({length or len(text)} characters)"


class _Walk:
    def __init__(self, characters: int, forms: Sequence[str]) -> None:
        self.left = characters
        self.nodes = NODES
        self.forms = forms
        self.context = max([CONTEXT, *(len(form) for form in forms)])

    def hidden(self, text: str, limit: int) -> str:
        """``text`` with secrets hidden, cut to ``limit`` characters (how long it was said after)."""
        window = text[:limit + self.context]
        if self.forms:
            window = blot(window, self.forms)
        window = redact_text(window)
        if len(window) > limit:
            return cut_text(window, limit, len(text))
        # Secrets hidden made it short enough: whole, if the window held all of it.
        return window if len(text) <= limit + self.context else f"{window}... ({len(text)} characters)"

    def text(self, text: str) -> str:
        limit = min(TEXT_CHARACTERS, max(self.left, 0))
        if limit == 0:
            return f"... ({len(text)} characters)" if text else text
        kept = self.hidden(text, limit)
        self.left -= len(kept)
        return kept

    def value(self, value: Any, depth: int) -> Any:
        self.nodes -= 1
        if self.nodes < 0:
            return "..."
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict | list | tuple) and depth >= MAX_DEPTH:
            return TOO_DEEP
        if isinstance(value, dict):
            shown: dict[Any, Any] = {}
            for key, item in list(value.items())[:ITEMS]:
                if isinstance(key, str):
                    # Whether it names a secret is read from the whole key, before it is cut.
                    secret = is_secret_key(key)
                    key = self.hidden(key, KEY_CHARACTERS)
                    shown[key] = REDACTED if secret else self.value(item, depth + 1)
                else:
                    shown[key] = self.value(item, depth + 1)
            if len(value) > ITEMS:
                shown["..."] = f"({len(value)} keys)"
            return shown
        if isinstance(value, list | tuple):
            items = [self.value(item, depth + 1) for item in value[:ITEMS]]
            if len(value) > ITEMS:
                items.append(f"... ({len(value)} items)")
            return items
        return value


def shown_arguments(value: Any, *, total: int = TOTAL_CHARACTERS, credentials: Sequence[str] = ()) -> Any:
    """A copy of ``value`` (JSON-like) with secret-looking text hidden (``[REDACTED]``, and the
    values of an object's keys that name a secret), ``credentials`` (their written forms,
    ``toolbay.blotting.written_forms``) blotted out, and cut as the module says, at most about
    ``total`` characters of text in all; deeper than ``MAX_DEPTH`` levels is ``TOO_DEEP``."""
    return _Walk(total, credentials).value(value, 0)
