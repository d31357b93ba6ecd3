"""Names made of a file's or a command's own words, in the letters a tool name may have.

An MCP tool name is ASCII letters, digits, '_' and '-'. A file named ``ünï.py`` or
``Ærø.wasm`` was served as ``n`` and ``r``: every letter with a mark was cut out, leaving
names nobody would recognise. Letters are folded to their plain forms first (``uni``,
``AEro``), as a reader would spell them without the marks; what has no plain form (CJK,
Cyrillic) is still left out, and the caller says what to use when nothing is left.
"""

from __future__ import annotations

import re
import unicodedata

# Letters that Unicode gives no decomposition to ASCII, spelt as their languages do.
_SPELT_OUT = str.maketrans({"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
                            "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ł": "l", "Ł": "L",
                            "ı": "i", "ħ": "h", "Ħ": "H"})
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def folded_to_ascii(text: str) -> str:
    """``text`` with accented and ligature letters in their plain ASCII forms; any other
    character kept as it is (the caller replaces what a name may not have)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPELT_OUT))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def name_safe(text: str) -> str:
    """``text`` folded to ASCII, each run of characters a tool name may not have made one '_'."""
    return _NOT_NAME.sub("_", folded_to_ascii(text))
