"""How a query is read besides its terms: the names it may spell out, and its clauses."""

from __future__ import annotations

import re
import unicodedata

from toolbay.kept_patterns import compiled

# Where a request moves on to another task: sentence ends, commas, "and", "then".
_CLAUSES = compiled(
    r"[.;!?\n]+\s|,\s*(?:and\s+|then\s+)?|\s+(?:and then|then|and|also|after that)\s+", re.IGNORECASE)
# Where a request moves on to another sentence (the first of the clause ends above).
_SENTENCES = compiled(r"[.;!?\n]+\s")
# A word joined the way program names are: snake, kebab or dotted, a digit, or camelCase.
_IDENTIFIER_LIKE = compiled(r"[_.\-]|\d|[a-z][A-Z]")
_QUOTES_AND_PUNCTUATION = "`'\".,;:!?()[]{}<>"
# Characters that show as nothing, pasted along with a name (zero-width spaces and joiners, the
# word joiner, a byte-order mark).
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))


def name_candidates(query: str) -> list[str]:
    """What in ``query`` may be a tool's exact name: the whole query, and each word that reads
    as a program's identifier (``jsonkit_fmt``, ``getWeather``, ``sha256``). A plain word
    such as "translate" is not one: it would push a tool named ``translate`` ahead of better
    ones for every sentence that uses the verb (measured: hit@1 -2 points on Seal-Tools)."""
    # Compatibility forms read as the letters they show: a name typed in full-width letters
    # (ｈａｓｈｓｕｍ, from a CJK keyboard) is that name.
    stripped = unicodedata.normalize("NFKC", query.translate(_INVISIBLE)).strip()
    words = (raw.strip(_QUOTES_AND_PUNCTUATION) for raw in stripped.split())
    # A word of letters alone, all small or capitalised ("weather", "Paris"), as most are, is no
    # name: it has no digit nor "_", "-", ".", nor a capital after a small letter; asked first,
    # the pattern is asked of the few others only.
    return [stripped] + [word for word in words if not (word.isalpha() and (word.islower() or word.istitle()))
                         and _IDENTIFIER_LIKE.search(word)]


def clauses(query: str) -> list[str]:
    """The parts of a request that asks for several things, in order (one part if it does not)."""
    return [clause for clause in _CLAUSES.split(query) if clause and not clause.isspace()]


def sentences(query: str) -> list[str]:
    """The sentences of a request (one if it has no sentence end followed by a space)."""
    return [sentence for sentence in _SENTENCES.split(query) if sentence and not sentence.isspace()]
