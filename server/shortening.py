"""A caller's arguments, secrets hidden, cut to what a log line or a question to a person can hold.

The audit log writes every call's arguments, refused calls' included, with secret-looking text
hidden (``toolbay.redaction``: a dozen regular-expression passes) and the configured
credentials' values blotted out, on the event loop. On a call's whole arguments (up to the
4 MiB a request may carry) that held the loop for seconds, every other caller waiting, and
each refused call wrote megabytes to the log. So each string keeps its first
``TEXT_CHARACTERS``, each array and object its first ``ITEMS``, the whole its first
``TOTAL_CHARACTERS`` of text and ``NODES`` values; what is cut says how much there was.

Secrets are hidden with what follows the cut in view, never in the cut text alone: a cut
through a secret (half a token, the start of ``postgres://app:Zq7:wpX9@db``, a key whose
secret word is past the cut) would leave a part no pattern recognises (``_Walk.hidden``).
"""

from __future__ import annotations

import os
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
# How far past what is kept a string is read to hide secrets in it (a quoted AWS session token
# is about 400 characters long, and its closing quote tells it from other text).
CONTEXT = 1024
# Where a cut string may end: a secret is a run of other characters (ours: Zq7:wpX9).
# Any character not ASCII is one too: text in Japanese or Chinese has no spaces, and its long
# strings were written as nothing but their length.
_BETWEEN_WORDS = frozenset(" \n\t\"',;&")


class _Walk:
    def __init__(self, characters: int, forms: Sequence[str]) -> None:
        self.left = characters
        self.nodes = NODES
        self.forms = forms
        self.context = max([CONTEXT, *(len(form) for form in forms)])

    def _hide(self, text: str) -> str:
        return redact_text(blot(text, self.forms) if self.forms else text)

    def hidden(self, text: str, limit: int) -> str:
        """``text`` with secrets hidden, cut to ``limit`` characters (how long it was said after).

        A text cut is hidden twice: as far as it is kept, and with ``context`` more. What is
        kept is what both agree on from the start: all of it comes from before the cut (the
        first), and none of it is a secret that only the text past the cut shows to be one (the
        second: a URL's password before its ``@``, a credential cut in half). A run of
        characters the cut falls in is dropped whole, for a secret longer than the context."""
        if len(text) <= limit:
            return self._hide(text)
        return f"{self.start(text, limit)}... ({len(text)} characters)"

    def start(self, text: str, limit: int) -> str:
        """The start of ``text`` (longer than ``limit``) that is kept, secrets hidden (``hidden``)."""
        kept, seen = self._hide(text[:limit]), self._hide(text[:limit + self.context])
        agreed = os.path.commonprefix([kept, seen])
        end = len(agreed)
        while end > 0 and agreed[end - 1] not in _BETWEEN_WORDS and agreed[end - 1].isascii():
            end -= 1  # the run the cut fell in goes whole; secrets are runs of ASCII characters
        return agreed[:end]

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


def start_of(text: str, limit: int, credentials: Sequence[str] = ()) -> str:
    """``text`` with secrets hidden, whole if it has at most ``limit`` characters, else its start
    as a cut string keeps it (``_Walk.hidden``), without saying how long it was: for a value quoted
    in a message ("There is no tool named '...'"), or a name in a log line."""
    walk = _Walk(limit, credentials)
    return walk.hidden(text, limit) if len(text) <= limit else walk.start(text, limit)


def shown_arguments(value: Any, *, total: int = TOTAL_CHARACTERS, credentials: Sequence[str] = ()) -> Any:
    """A copy of ``value`` (JSON-like) with secret-looking text hidden (``[REDACTED]``, and the
    values of an object's keys that name a secret), ``credentials`` (their written forms,
    ``toolbay.blotting.written_forms``) blotted out, and cut as the module says, at most about
    ``total`` characters of text in all; deeper than ``MAX_DEPTH`` levels is ``TOO_DEEP``."""
    return _Walk(total, credentials).value(value, 0)
