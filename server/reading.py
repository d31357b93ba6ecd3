"""How a text's characters are read as words, for search and for what must stay unfindable by it.

Search's tokenizer (``toolbay.search.tokens``) and the credential blot (``toolbay.redaction``)
must read a word alike: a value the blot does not see as itself is one a search still finds.
"""

from __future__ import annotations

import re

# Characters that are there without being seen (Unicode's format characters: zero-width space,
# the joiner, the soft hyphen, the byte order mark, bidirectional marks): copied text and
# models' output carry them inside words, and "we\u200bather" was two words that found nothing.
# Not the zero-width non-joiner (U+200C), which Persian writes between a word and its suffix
# ("فایل‌ها", files): it parts them, so "فایل" finds it.
INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b\u200d-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
                       "\ufeff\ufff9-\ufffb]")

# Latin letters that no decomposition takes to plain ones (a stroke, a ligature): "Łódź" is "lodz".
PLAIN_LATIN_LETTERS = str.maketrans({"ł": "l", "ø": "o", "œ": "oe", "æ": "ae", "đ": "d", "ð": "d", "þ": "th",
                                     "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"})
