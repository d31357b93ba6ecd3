"""The names closest to one that names nothing: what "there is no tool named X" suggests.

``difflib`` alone misses how people shorten tool names: ``grep`` for ``textkit_grep`` (a name's
last word, the program's subcommand) scores 0.5 against the whole name, under any useful cutoff.
So a name's words count too: one the wanted name equals, then one it nearly spells (``grp``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

# Where a tool name splits into words: snake, kebab or dotted names, and camelCase.
_WORD_BREAK = re.compile(r"[_\-.\s/]+|(?<=[a-z0-9])(?=[A-Z])")
# Below these, difflib's "close" is mostly noise: for whole names ("nosuchtool" is 0.64 of
# "search_tools"), and for words of a few letters.
CUTOFF = 0.7
WORD_CUTOFF = 0.8
# Words too common in tools' names to say which tool was meant: "get_weather" shares "get" with
# jsonkit_get, "list_files" "list" with job_list, and neither was meant (a re-check).
GENERIC_WORDS = frozenset({"get", "set", "list", "ls", "tool", "tools", "run", "exec", "file", "files", "info", "data",
                           "new", "add", "create", "update", "delete", "remove", "read", "write", "show", "find",
                           "make", "do", "the", "a", "an", "to", "of", "for", "by", "my", "all", "http", "api"})
# What is compared at all: a name longer than MCP allows a tool's (128) is no misspelling, and
# among more names than this the search tool finds better (each miss cost 35 ms of the event
# loop's time at 10,000 names), so nothing is suggested.
LONGEST_NAME = 128
MOST_NAMES = 1000


def closest_names(wanted: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """Up to ``limit`` of ``known`` closest to ``wanted``, the closest first: the same name in
    other letters' case (alone), else names with a word ``wanted`` is (``grep``: ``textkit_grep``), names
    close in spelling as a whole (``hashsun``: ``hashsum``), names sharing a word with it
    (``count_words``: ``textkit_count``), then names with a word close in spelling to it or
    one of its words (``grp``: ``textkit_grep``). None for a name too long to be a tool's, or among
    more than ``MOST_NAMES``."""
    names = sorted(set(known))
    if len(wanted) > LONGEST_NAME or len(names) > MOST_NAMES:
        return []
    folded = wanted.casefold()
    wanted_words = {word.casefold() for word in _WORD_BREAK.split(wanted) if word}
    same = [name for name in names if name.casefold() == folded]
    if same:  # only the case was wrong: no other name is as close
        return same[:limit]
    found: list[str] = []
    words_of = {name: {word.casefold() for word in _WORD_BREAK.split(name) if word} for name in names}
    found += sorted((name for name in names if wanted_words and wanted_words <= words_of[name]), key=len)
    found += difflib.get_close_matches(wanted, names, n=limit, cutoff=CUTOFF)
    # A name made of the tool's word and words of one's own ("count_words" for textkit_count):
    # the most words shared first.
    shared = {name: len((wanted_words - GENERIC_WORDS) & words) for name, words in words_of.items()}
    found += sorted((name for name in names if shared[name]), key=lambda name: (-shared[name], len(name)))
    by_word: dict[str, list[str]] = {}
    for name, words in words_of.items():
        for word in words:
            by_word.setdefault(word, []).append(name)
    for spelt in sorted((wanted_words - GENERIC_WORDS) | {folded}, key=len, reverse=True):
        for word in difflib.get_close_matches(spelt, list(by_word), n=limit, cutoff=WORD_CUTOFF):
            found += sorted(by_word[word], key=len)
    return list(dict.fromkeys(found))[:limit]
