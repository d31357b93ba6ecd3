"""How a text's characters are read as words, for search and for what must stay unfindable by it.

Search's tokenizer (``toolbay.search.tokens``) and the credential blot (``toolbay.redaction``)
must read a word alike: a value the blot does not see as itself is one a search still finds.
"""

from __future__ import annotations

import re

# Characters that are there without being seen (Unicode's format characters: zero-width space,
# the joiner, the soft hyphen, the byte order mark, bidirectional marks; the grapheme joiner,
# variation selectors (Mongolian's too), tag characters, the format controls of Arabic, Syriac,
# shorthand, musical and hieroglyphic text, and the fillers and vowels that show nothing:
# Hangul's, Khmer's U+17B4-5): copied text and models' output carry them inside words, and
# "we\u200bather" was two words that found nothing. Not the zero-width non-joiner (U+200C),
# which Persian writes between a word and its suffix ("فایل‌ها", files): it parts them, so
# "فایل" finds it.
INVISIBLE = re.compile("[\u00ad\u034f\u0600-\u0605\u061c\u070f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b"
                       "\u200d-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
                       "\ufff9-\ufffb\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                       "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]")

# Latin letters that no decomposition takes to plain ones (a stroke, a ligature): "Łódź" is "lodz".
PLAIN_LATIN_LETTERS = str.maketrans({"ł": "l", "ø": "o", "œ": "oe", "æ": "ae", "đ": "d", "ð": "d", "þ": "th",
                                     "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"})


# Where a name's words meet: as search splits identifiers (toolbay.search.tokens).
_WORD_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def looks_random(word: str) -> bool:
    """Whether a word of a request is a key, an id or a hash rather than words: long, and less
    than half of it in parts that read as words (three letters or more, a vowel among them, in
    one case after the first). Split where its case and digits change, "Ll3fZJZ207qc18Re" was
    letters and pairs each some tool's, and a request of such a token alone was answered with
    tools it shares "f" or "re" with (an outside check). Asked of requests only: a tool's own
    name stays split, so that "k8sGetPod" is found by "get pod". Of 400 random keys of 16
    letters and digits, 37 read as words; "convertMp3ToWav2" reads as a key (its exact name
    still finds its tool first)."""
    if len(word) < _RANDOM_LEAST or not word.isascii() or not word.isalnum():
        return False
    parts = _WORD_PARTS.findall(word)
    worded = sum(len(part) for part in parts if len(part) >= 3 and part.isalpha() and (
        part[1:].islower() or (part.isupper() and len(part) <= 5)) and any(c in "aeiouyAEIOUY" for c in part))
    return worded < len(word) / 2


# The shortest word of a request that ``looks_random`` may read as a key.
_RANDOM_LEAST = 12
