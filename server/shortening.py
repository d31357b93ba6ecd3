"""A caller's arguments cut to what a log line or a question to a person can hold.

The audit log writes every call's arguments, refused calls' included, and hides secret-looking
text in them first (``toolbay.redaction``), a dozen regular-expression passes on the event loop.
On a call's whole arguments (up to the 4 MiB a request may carry) that held the loop for
seconds, every other caller waiting, and each refused call wrote megabytes to the log. So each
string keeps its first ``TEXT_CHARACTERS``, each array and object its first ``ITEMS``, and the
whole its first ``TOTAL_CHARACTERS`` of text; what is cut says how much there was.

A string is cut where a word ends, never inside one: half a token, or the start of a password
after its name (``password: hun``), might no longer look like a secret, and would be written.
"""

from __future__ import annotations

from typing import Any

from toolbay.blotting import MAX_DEPTH, TOO_DEEP

TEXT_CHARACTERS = 2_000
TOTAL_CHARACTERS = 16_000
ITEMS = 100
KEY_CHARACTERS = 200
# Characters of which a token, a key or a password's word is made: a cut moves back past them.
_WORD_CHARACTERS = frozenset("_-+/=.~%!@#$^&*?")


def cut_text(text: str, limit: int = TEXT_CHARACTERS) -> str:
    """``text`` whole if it has at most ``limit`` characters, else its start up to the end of
    the last word that fits, then ``... (N characters)``."""
    if len(text) <= limit:
        return text
    end = limit
    while end > 0 and (text[end].isalnum() or text[end] in _WORD_CHARACTERS):
        end -= 1  # text[end] is within the word the limit falls in: it goes, whole
    return f"{text[:end]}... ({len(text)} characters)"


class _Budget:
    def __init__(self, characters: int) -> None:
        self.left = characters

    def text(self, text: str) -> str:
        kept = cut_text(text, min(TEXT_CHARACTERS, max(self.left, 0)))
        self.left -= len(kept)
        return kept

    def value(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict | list | tuple) and depth >= MAX_DEPTH:
            return TOO_DEEP
        if isinstance(value, dict):
            # A key is cut alone, not from the budget: keys stay apart when the text is spent.
            shown = {cut_text(key, KEY_CHARACTERS) if isinstance(key, str) else key: self.value(item, depth + 1)
                     for key, item in list(value.items())[:ITEMS]}
            if len(value) > ITEMS:
                shown["..."] = f"({len(value)} keys)"
            return shown
        if isinstance(value, list | tuple):
            items = [self.value(item, depth + 1) for item in value[:ITEMS]]
            if len(value) > ITEMS:
                items.append(f"... ({len(value)} items)")
            return items
        return value


def shortened(value: Any, total: int = TOTAL_CHARACTERS) -> Any:
    """A copy of ``value`` (JSON-like) with its strings, arrays and objects cut as the module
    says, at most about ``total`` characters of text in all; deeper than ``MAX_DEPTH`` levels
    is ``TOO_DEEP``."""
    return _Budget(total).value(value, 0)
