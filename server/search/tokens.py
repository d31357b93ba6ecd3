"""Text into search terms, the same way for tools and for queries.

Latin-script words are split where a program's name would join them (``jsonkit_fmt``,
``blockSize``, ``HTTPServer2`` → ``jsonkit fmt``, ``block size``, ``http server 2``; a short
word and its number stay one: ``mp3``, ``3pm``),
lowercased, stripped of a short English stop list, and plurals made singular ("nurses"
meets "nurse", "queries" meets "query"). Only plurals: a full stemmer (Snowball English)
measured worse on the tuning queries (nDCG@10 -1.4), because merging "formatting" with
"format" or "organization" with "organize" joins tools that differ. Stems serve only a word
of a request that no tool has, to find its relatives (``stems``, ``SearchIndex``).

Letters with accents are read without them where that leaves a Latin word ("météo" meets
"meteo", "Größe" meets "grosse"); other scripts keep theirs (Russian "й" is not "и").

Han, Kana and Hangul are written without spaces between words, and so are Thai, Lao, Khmer
and Burmese, so a whitespace tokenizer would see a whole sentence as one word and match
nothing. Each run of them becomes its overlapping character pairs (a lone character stays
itself): no dictionary or model to download, and a two-character word, the most common
length in Chinese and Japanese, is always one term.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from toolbay.control_chars import TERMINAL_CODES
from toolbay.kept_patterns import compiled
from toolbay.reading import INVISIBLE, PLAIN_LATIN_LETTERS, character_class, looks_random, read_as_a_key

# Han (with extensions and compatibility forms), Hiragana, Katakana (full and half width),
# Hangul syllables and jamo.
# Then Thai, Lao, Myanmar and Khmer, whose vowel and tone marks (inside these blocks) stay in
# the run rather than ending a word.
_CJK = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
)
# Pictographs (emoji, dingbats, the technical and miscellaneous symbols): each one a term of its
# own ("🎉" finds a tool described with it). Not the skin-tone modifiers (U+1F3FB-U+1F3FF), which
# only change the one before them; variation selectors and joiners are no word characters anyway.
_PICTOGRAPHS = "\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001f3fa\U0001f400-\U0001faff"
# A word of ASCII text: ``[^\W_]`` there is a letter or a digit (no CJK nor pictograph in it).
_ASCII_WORD = compiled(r"[A-Za-z0-9]+")
# Arabic's and Hebrew's vowel signs and cantillation (U+0590-U+08FF): written or left out as the
# writer likes ("تَرْجَمَة" is "ترجمة"), so a word is read without them.
_OPTIONAL_MARKS = compiled(r"[\u0590-\u08ff]")
_PICTOGRAPH = compiled(rf"[{_PICTOGRAPHS}]")
# Where an identifier's words meet: before an upper-case letter that starts a lower-case
# word, after a run of capitals, and between letters and digits (but see ``split_identifier``).
# Two capitals and a small letter before a number are one word ("IPv6" in "getIPv6Address"; cut
# as camelCase, it was "I" and "Pv6", and the stop word "i" went).
_IDENTIFIER_PARTS = compiled(r"[A-Z]{2}[a-z](?=[0-9])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# A word of at most this many letters and a number beside it are one name (mp3, 3pm, ipv6).
# Measured on bench_search_quality's tuning queries: Seal-Tools nDCG@10 92.46 -> 92.62,
# MetaTool 54.38 -> 54.47.
_GLUED_LETTERS = 3
# A short word and its number as a whole word, in any case ("IPv6", "Mp3"): one term.
_SHORT_WORD_THEN_DIGITS = compiled(rf"[A-Za-z]{{1,{_GLUED_LETTERS}}}[0-9]+")

STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do", "does", "for",
    "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on",
    "or", "our", "please", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these",
    "this", "those", "to", "was", "we", "what", "when", "where", "which", "who", "will", "with", "would",
    "you", "your",
})


def singular(word: str) -> str:
    """The English singular of a plural noun, by its ending alone (S-stemmer, Harman 1991)."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith(("us", "ss")):
        return word
    return word[:-1]


def split_identifier(word: str) -> list[str]:
    """The words of one identifier-like run, lowercased: ``getHTTPResponse2`` → get, http, response, 2.
    A short word or an acronym and the number beside it stay one term (``mp3``, ``md5``,
    ``3pm``, ``HTTP2``, ``PM2``): split, "3pm" was the terms "3" and "pm", and found an
    air-quality tool for PM2.5 before the calendar. A short word so is one term in mixed case too
    (``IPv6`` is ``ipv6`` as ``ipv6`` and ``IPV6`` are: camelCase made it "I" and "Pv6", and the
    stop word "i" went). A word with letters beyond ASCII (``Größe``, ``файл``) is kept whole:
    its case marks no joins."""
    if not word.isascii():
        return [word.lower()]
    if _SHORT_WORD_THEN_DIGITS.fullmatch(word):
        return [word.lower()]
    parts = _IDENTIFIER_PARTS.findall(word)
    if not parts:
        return [word.lower()]
    terms = [parts[0]]
    for part in parts[1:]:
        if _names_one_thing(terms[-1], part):
            terms[-1] += part
        else:
            terms.append(part)
    return [term.lower() for term in terms]




def _names_one_thing(before: str, after: str) -> bool:
    """Whether two adjacent parts of an identifier, one letters and one digits, are one name."""
    letters, digits = (before, after) if after.isdigit() else (after, before)
    return digits.isdigit() and letters.isalpha() and (len(letters) <= _GLUED_LETTERS or letters.isupper())


def cjk_terms(run: str) -> list[str]:
    """Overlapping character pairs of a run of CJK characters (a lone character stays itself)."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def without_accents(word: str) -> str:
    """``word`` lowercased without its accents when that leaves plain Latin letters
    ("Météo" → "meteo", "Größe" → "grosse", "Łódź" → "lodz"); otherwise as it was."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))
    folded = folded.translate(PLAIN_LATIN_LETTERS)
    return folded if folded.isascii() else word


@functools.cache
def _english_stemmer() -> Any:
    import Stemmer  # PyStemmer: loaded with the first word no tool has

    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=16384)
def stem_of(term: str) -> str:
    """``stems`` of one term, kept: a search stems its request's words again for every list of
    tools it weighs by name."""
    return str(_english_stemmer().stemWord(term))


def stems(terms: list[str]) -> list[str]:
    """The Snowball (Porter 2) stem of each term: "translation" and "translate" share
    "translat". Not used for the terms themselves (see the module's docstring), only to find
    a word's relatives when no tool has the word."""
    return list(_english_stemmer().stemWords(terms))


@functools.cache
def _runs_with_marks() -> re.Pattern[str]:
    """A run of CJK, a pictograph, or a word with its combining marks inside it: Devanagari's
    vowel signs ("मौसम"), Arabic's and Hebrew's vowels, Bengali's, Tamil's... are no word characters to ``re``, and
    each one ended a word ("मौसम" was "म" and "सम", which matched any word with a "म"). The marks
    (categories Mn, Mc, Me) are listed once, at the first text beyond ASCII (20 ms)."""
    marks = character_class(code for code in range(0x30000) if unicodedata.category(chr(code)) in ("Mn", "Mc", "Me"))
    return re.compile(rf"([{_CJK}]+)|([{_PICTOGRAPHS}])|([^\W_{_CJK}](?:[^\W_{_CJK}]|[{marks}])*)")


@functools.lru_cache(maxsize=16384)
def _word_terms(word: str) -> tuple[str, ...]:
    if not word.isascii():
        if _OPTIONAL_MARKS.search(word):
            word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        word = without_accents(word)
    terms = [singular(part) for part in split_identifier(word) if part not in STOP_WORDS]
    return tuple(terms)


def is_pictograph(term: str) -> bool:
    """Whether ``term`` is an emoji (or another pictograph), which ``tokenize`` makes a term alone."""
    return len(term) == 1 and _PICTOGRAPH.match(term) is not None


def tokenize(text: str, *, request: bool = False) -> list[str]:
    """The search terms of ``text``, in order, repeats kept (they count as term frequency); of a
    ``request``, a word that ``looks_random`` is one term, whole."""
    if "\x1b" in text or "\x9b" in text:
        # A terminal's colour and cursor codes, copied with the text ("\x1b[31mweather\x1b[0m"):
        # split at the escape, "[31mweather" was the word "mweather", and found nothing.
        text = _TERMINAL_CODES.sub("", text)
    if request and "m" in text and _COLOUR_RESET.search(text):
        # The same codes whose escape was lost in copying ("[31mweather[0m", "^[[31m...^[[0m"):
        # read so only in a request that ends a colour as terminals do ("[0m", "[m").
        text = _COLOURS_WITHOUT_ESCAPE.sub(" ", text)
    if request and (read := read_as_a_key(text)) is not None:
        # A key written in full-width letters or with an accent apart inside ("ＡＫＩＡ...",
        # "ghp_A1b2\u0301C3...") is read as the key, whole, as the server hides it: split into
        # its letters and digits, it was answered with the tools that share "x" or "p" with it.
        text = read[0]
    if not text.isascii():
        text = INVISIBLE.sub("", text)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        # An accent written as a mark after its letter (macOS writes text so) is not a word
        # character: "me\u0301te\u0301o" would be three words.
        text = unicodedata.normalize("NFC", text)
    if request and _KEY_CHUNK.search(text):
        # A key written with separators (base64's "+" and "/", a UUID's dashes): one term, whole;
        # split at them, each piece was a word of its own (a re-check).
        terms = []
        at = 0
        for chunk in _KEY_CHUNK.finditer(text):
            if looks_random(re.sub(r"[^A-Za-z0-9]", "", chunk.group(0))):
                terms += _terms(text[at:chunk.start()], request)
                terms.append(chunk.group(0).lower())
                at = chunk.end()
        return terms + _terms(text[at:], request)
    return _terms(text, request)


# A terminal's escape sequences (``toolbay.control_chars``), read as no words.
_TERMINAL_CODES = compiled(TERMINAL_CODES)
# Not "[mm]", "[m/s]" or "[5m]": a unit in brackets is closed by "]" (a second re-check).
_COLOUR_RESET = compiled(r"\[0?m(?![\w/\]])")
_COLOURS_WITHOUT_ESCAPE = compiled(r"(?:\^\[)?\[[0-9]{0,3}(?:;[0-9]{1,3})*m(?![\w/]*\])")

# A run of letters and digits with a key's separators in it, long enough to be one.
_KEY_CHUNK = compiled(r"(?<![\w+/=-])[A-Za-z0-9][A-Za-z0-9+/=_.-]{15,}")


def _terms(text: str, request: bool) -> list[str]:
    terms: list[str] = []
    if text.isascii():
        # No CJK nor pictograph in ASCII: its words alone, by a pattern that tries nothing else
        # (the three-way pattern was half of reading a request).
        read_word = _request_word_terms if request else _word_terms
        for word in _ASCII_WORD.findall(text):
            terms.extend(read_word(word))
        return terms
    for cjk, pictograph, word in _runs_with_marks().findall(text):
        if cjk:
            terms.extend(cjk_terms(cjk))
        elif pictograph:
            terms.append(pictograph)
        else:
            terms.extend(_request_word_terms(word) if request else _word_terms(word))
    return terms


@functools.lru_cache(maxsize=16384)
def _request_word_terms(word: str) -> tuple[str, ...]:
    """A request's word as terms: one, whole, if it ``looks_random``. Kept as ``_word_terms`` is: a
    search reads its request's words again in each sentence and clause."""
    return (word.lower(),) if looks_random(word) else _word_terms(word)
