"""How a text's characters are read as words, for search and for what must stay unfindable by it.

Search's tokenizer (``toolbay.search.tokens``) and the credential blot (``toolbay.redaction``)
must read a word alike: a value the blot does not see as itself is one a search still finds.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from toolbay.kept_patterns import compiled

# Characters that are there without being seen (Unicode's format characters: zero-width space,
# the joiner, the soft hyphen, the byte order mark, bidirectional marks; the grapheme joiner,
# variation selectors (Mongolian's too), tag characters, the format controls of Arabic, Syriac,
# shorthand, musical and hieroglyphic text, and the fillers and vowels that show nothing:
# Hangul's, Khmer's U+17B4-5): copied text and models' output carry them inside words, and
# "we\u200bather" was two words that found nothing. Not the zero-width non-joiner (U+200C),
# which Persian writes between a word and its suffix ("فایل‌ها", files): it parts them, so
# "فایل" finds it.
INVISIBLE = compiled("[\u00ad\u034f\u0600-\u0605\u061c\u070f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b"
                       "\u200d-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
                       "\ufff9-\ufffb\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                       "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]")

# Latin letters that no decomposition takes to plain ones (a stroke, a ligature): "Łódź" is "lodz".
PLAIN_LATIN_LETTERS = str.maketrans({"ł": "l", "ø": "o", "œ": "oe", "æ": "ae", "đ": "d", "ð": "d", "þ": "th",
                                     "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"})


# Where a name's words meet: as search splits identifiers (toolbay.search.tokens).
_WORD_PARTS = compiled(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


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


# What a key may be split by and still be read whole: the invisible characters; the zero-width
# non-joiner, which search reads as a break (Persian writes it inside words) but a model reading
# "sk_live_A1b2\u200cC3d4..." sees one key; and the Braille blank, which shows as a gap.
_SHOWS_NOTHING = compiled(f"{INVISIBLE.pattern[:-1]}\u200c\u2800]")
# Where the characters that may change how a key reads are is worked out once, on the first text
# beyond ASCII (the scan of Unicode takes some 35 ms, which a server only ever handed ASCII never
# pays), in the first two planes: beyond them none folds to ASCII, nor is a mark but a tag's.
_PLANES_SCANNED = 0x20000


@functools.cache
def _key_changers() -> re.Pattern[str]:
    """A character that reads as ASCII (``_ascii_form``), or a run of those that show nothing or are
    marks set on the character before them (an accent apart: "\u0301")."""
    letters, signs, marks = _unicode_scanned()
    folded = character_class(sorted([*letters, *signs]))
    return re.compile(f"([{folded}])|(?:{_SHOWS_NOTHING.pattern}|[{marks}])+")


@functools.cache
def _unicode_scanned() -> tuple[list[int], list[int], str]:
    """The characters whose ASCII form (``_ascii_form``) is a letter or digit, those whose form is
    a sign, and the class of the marks set on the character before them."""
    codes = range(0x80, _PLANES_SCANNED)
    letters: list[int] = []
    signs: list[int] = []
    for code in codes:
        if not unicodedata.is_normalized("NFKC", chr(code)) and (form := _ascii_form(chr(code))):
            (letters if form.isalnum() else signs).append(code)
    marks = character_class(code for code in codes
                            if unicodedata.category(chr(code)) in ("Mn", "Me") and not _SHOWS_NOTHING.match(chr(code)))
    return letters, signs, marks


@functools.cache
def _key_makers() -> re.Pattern[str]:
    """Where reading a text as a key reads can make a key of it: a character whose ASCII form is a
    letter or digit ("ｓ", "𝐀"), a sign whose form is ASCII beside an ASCII character ("sk－proj"),
    or what shows nothing or marks set between two ASCII characters. Without any of them the
    view could only differ in signs among other scripts' words (Chinese prose's full-width
    commas and colons), which make no key: such a text is not read again (it cost three times
    its redaction)."""
    letters, signs, marks = _unicode_scanned()
    sign = f"[{character_class(signs)}]"
    apart = f"(?:{_SHOWS_NOTHING.pattern}|[{marks}])+"
    near = f"(?:[!-~]|{sign})"  # beside a mark as ASCII is (``read_as_a_key`` reads the sign after it so)
    return re.compile(f"[{character_class(letters)}]|[!-~]{sign}|{sign}[!-~]|{near}{apart}{near}")


def character_class(codes: Iterable[int]) -> str:
    """The inside of a regular expression's character class of ``codes`` (ascending), as runs
    ("a-z"): ``re`` tries a class of single characters beyond the first plane one by one, which
    made each character of a text cost some microseconds."""
    ranges: list[str] = []
    start = previous = -2
    for code in codes:
        if code != previous + 1:
            if start >= 0:
                ranges.append(_class_range(start, previous))
            start = code
        previous = code
    if start >= 0:
        ranges.append(_class_range(start, previous))
    return "".join(ranges)


def _class_range(start: int, end: int) -> str:
    return re.escape(chr(start)) if start == end else f"{re.escape(chr(start))}-{re.escape(chr(end))}"


def _ascii_form(char: str) -> str:
    """What ``char`` is a form of in ASCII as a key is written in it: the full-width forms
    (U+FF01-U+FF5E, "ｓｋ－ｐｒｏｊ－"), and the letters and digits that NFKC takes to ASCII ones
    (mathematical bold "𝐀", a superscript "²"); "" for any other. Not punctuation beyond the
    full-width forms ("…" as "...", U+037E as ";"): it would move the rules that read it."""
    form = unicodedata.normalize("NFKC", char)
    if form == char or not (form.isascii() and form.isprintable()) or " " in form:
        return ""
    return form if "\uff01" <= char <= "\uff5e" or form.isalnum() else ""


def read_as_a_key(text: str) -> tuple[str, list[int]] | None:
    """``text`` as a key in it reads (to a model, and to search, which folds width and accents and
    takes out what shows nothing): each character that is a form of ASCII as that, and a run of
    characters that show nothing or of marks taken out where it stands inside ASCII (as the view
    has it), with for each character of that view the index of the one of ``text`` it came from;
    None where the view is ``text``. Only inside ASCII: Persian's non-joiners, an emoji's variation
    selector and the accents of other scripts' words stay as written."""
    if text.isascii() or not _key_makers().search(text):
        return None
    pieces: list[str] = []
    origin: list[int] = []
    kept = 0
    for found in _key_changers().finditer(text):
        start, end = found.span()
        if found.group(1) is not None:
            replacement = _ascii_form(found.group(1))
        else:
            before = pieces[-1][-1:] if kept == start and pieces and pieces[-1] else text[start - 1:start]
            after = text[end:end + 1]
            after = _ascii_form(after) or after
            if not ("!" <= before <= "~" and "!" <= after[:1] <= "~"):
                continue
            replacement = ""
        pieces += [text[kept:start], replacement]
        origin += [*range(kept, start), *[start] * len(replacement)]
        kept = end
    if not pieces:
        return None
    pieces.append(text[kept:])
    origin += range(kept, len(text))
    return "".join(pieces), origin
