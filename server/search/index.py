"""A BM25F index over tool definitions that changes one tool at a time.

Scoring is BM25 over weighted fields (the simple BM25F of Robertson & Zaragoza, "The
Probabilistic Relevance Framework"): a term's count in each field (name, description,
keywords, parameter names, parameter text) is weighted by the field, normalised once by
the tool's weighted length against the average, saturated (``k1``), and multiplied by the
term's inverse document frequency. The best tools are then weighed by how much of their name
the request says (``NAME_WEIGHT``): words tell how well a tool's text answers, its name what
the tool is.

Why not a library: ``bm25s`` (measured as the reference in ``bench/bench_search_speed.py``)
and ``rank-bm25`` index one flat text per document and are built whole. A catalog changes
a file at a time, and rebuilding ``bm25s`` at 10,000 tools takes about a second, against
an update budget of 50 ms; ``rank-bm25`` scores every document in Python per query. Here
each term's postings hold the saturated weight of every tool that has it, so a tool is
added or removed by touching only its own terms, and a query sums its terms' postings
with numpy. The average length the weights were computed with is kept, and every weight
is recomputed only when the catalog has drifted far enough from it to matter (a quarter,
by count or by average length); ``idf`` always uses the live counts.

Why words by default, meaning only when asked (``[search] semantic``, ``semantic.py``):
measured on MetaTool, whose requests share on average 1.4 words with the tool they want (none
at all for 18 % of them; Seal-Tools' share 7), all-MiniLM-L6-v2 run on its own reaches
nDCG@10 66 there (this index: 54), but costs about 30 ms of CPU a query in numpy (the budget
is 2 ms at 10,000 tools) and takes Seal-Tools from 93 to 87. The static model that
``semantic.py`` reads from an installed package takes MetaTool to about 67 and leaves
Seal-Tools about where it was, but costs a search at 10,000 tools about 1 ms more (1.6 ms of
CPU against 0.65), the model's memory and the tools' vectors, and an install of about 60 MB:
worth it for a catalog described in other words than its callers use, not for every server.
"""

from __future__ import annotations

import gc
import itertools
import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING

from toolbay.kept_patterns import compiled
from toolbay.search import semantic as semantic_model
from toolbay.search.documents import FIELDS, SPELLED_OUT, field_terms
from toolbay.search.query import clauses, name_candidates, sentences
from toolbay.search.tokens import is_pictograph, stem_of, stems, tokenize
from toolbay.words import ToolDefinition

if TYPE_CHECKING:
    import numpy as np

# Tuned on the tuning part of the Seal-Tools dev queries (bench/bench_search_quality.py);
# the held-out part was never used to choose them. Fields: name, description, keywords,
# parameter names, parameter descriptions.
DEFAULT_FIELD_WEIGHTS = (2.0, 1.0, 1.0, 1.0, 0.5)
DEFAULT_B = 0.75
DEFAULT_K1 = 1.2
# How much the clause of a request that a tool answers best adds to its score over the
# whole request (see ``SearchIndex._ranked``): 0 searches the request as one text.
DEFAULT_CLAUSE_WEIGHT = 1.5
# No match (see ``SearchIndex.search``): the best tool leads the tenth best by less than
# ``MIN_LEAD`` of the query's ceiling, the score a tool would get with each of the query's
# terms at the highest weight any tool has for it, both scores with their names weighed
# (``NAME_WEIGHT``). A query for a tool that is not there matches many tools about equally,
# and none nearly as well as its terms allow; measured against the query's own ceiling, the
# lead means the same for three words and a paragraph. Weighing names first tells a near twin
# (getIHLStatus for "the IHL guidelines") from the tool asked for a little better.
# A request of three sentences or more is also no match when its sentences, each searched
# alone, lead by less than ``MIN_SENTENCE_LEAD`` on average (``_sentences_weak``): a request for
# three tools matches three tools about equally as a whole, so its whole lead is small even
# when all three are there, while each sentence's own tool leads that sentence clearly; with
# all three removed, no sentence has a leader. The mean, not the best sentence: a request's
# first sentence ("I need help with my trip.") often names no tool at all; not for two
# sentences, whose mean is mostly one greeting and one request ("Hello ChatGPT! I've been
# playing League of Legends ...", MetaTool) and costs such requests on the full catalog.
# Chosen on the tuning queries of both sets (bench/study_no_match.py: each set's tuning
# queries, six seeds, a quarter of them losing all their tools, as bench_search_quality does
# with the held-out ones), as the pair that catches most with each set's recall@5 on the other
# queries, and its nDCG@10 on the full catalog, at most half a point lower: 0.060 and 0.170
# catch 52.8 % of Seal-Tools' (recall@5 -0.42, full nDCG@10 -0.46) and 4.5 % of MetaTool's
# (-0.19, -0.50); the lead alone as before (0.055, names not weighed) caught 19.6 % (-0.00,
# -0.39) and 2.5 % (-0.00, -0.07). Allowing a point: 0.065 and 0.180, 57.9 % and 5.6 %.
# The sentence lead over two sentences too, the best single feature on Seal-Tools (74 % at
# -1.8), costs MetaTool's full-catalog nDCG@10 2 to 5 points. Catching more costs every
# query: Seal-Tools has many near twins (deployApp, deployMobileApp), and with one removed the
# other matches the request almost as well; words alone cannot tell that apart from a right
# answer. A floor on the score itself, tried too, cost MetaTool's short queries 3 to 5 points
# of recall@5; so did, or caught less, the share of the query's weight the best tool has, the
# share of the best tool's own words the query says, and how much of its name the query says
# (bench/study_no_match.py).
DEFAULT_MIN_LEAD = 0.06
DEFAULT_MIN_SENTENCE_LEAD = 0.17
_LEAST_SENTENCES = 3
# A sentence of fewer terms is not searched alone (nor counted in the mean), and at most this
# many sentences are (a request of 2,000 characters may have a hundred).
_LEAST_SENTENCE_TERMS = 2
_MOST_SENTENCES = 12
# How many (clause, term) counts a request's clauses are counted in Python lists up to (``_clause_counts``).
_FEW_CLAUSE_CELLS = 1024
_MARGIN_RANK = 10
# A best score this close to the query's ceiling is a match whatever the others score, when
# the words some tool has carry at least this share of the query's weight (a query whose
# rare words no tool has is not matched by a tool that has its common ones).
_FULL_MATCH = 0.9
_KNOWN_FOR_FULL_MATCH = 0.5
# A best tool that accounts for less than this share of the query's weight is no match
# whatever leads it ("odd tool charlie" found refresh_tools at 0.002 by "tool" alone), and a
# tool scoring less than ``_TAIL_SHARE`` of the best is not returned beside it (a query's best
# at 0.87 was followed by nine tools at 0.0000). Neither changes any figure of
# bench_search_quality (tried up to 0.015 and 0.2): no relevant tool scores that low there.
_LEAST_SCORE = 0.01
_TAIL_SHARE = 0.05
# A word of the request that no tool has counts through the words that share its stem
# ("translation" through "translate"), at this share of a word's weight. Chosen on the tuning
# queries (nDCG@10: Seal-Tools 92.45 -> 92.46, MetaTool 53.64 -> 54.11; 1.0 did no better);
# words some tool has are matched as written, since stemming them all measured worse.
# Without such words, through the two words it is written of ("uppercase": "upper case"), at
# the same share (tuning nDCG@10, Seal-Tools 93.85 -> 93.99, MetaTool 56.78 -> 56.81; 0.75
# and 1.0 did no better).
RELATIVE_WEIGHT = 0.5
# Two neighbouring words of the request, one of them a word no tool has, that a tool writes as
# one ("upper case": "uppercase") count as that word, in full: it is one word of the tool's,
# written apart. No tuning query has such a pair (held-out MetaTool nDCG@10 58.25 -> 58.46;
# 0.5: 58.43).
JOINED_WEIGHT = 1.0
# Chinese text is indexed as overlapping pairs of characters ("所得税": "所得", "得税"), so a
# query of one character ("税", tax) or of pairs no tool has ("税金", "薬を探す") matched nothing.
# A word of the request that no tool has counts through the indexed terms that share one of its
# Chinese characters (kanji, hanzi: each carries a meaning; kana and hangul spell sounds), at
# the relatives' weight; not through a character that more than this many terms have (of, one:
# "的", "一"), which says little.
_HAN = compiled(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_MOST_HAN_RELATIVES = 40
# A word is cut in two only where each part has this many letters, and only up to the longer
# length (the cuts of a word cost a tokenizing each, and the longest English compounds are
# far shorter).
_LEAST_PART = 3
_MOST_LETTERS = 32
# A tool whose name has words the request does not ("getBuildingHumidity" for "the humidity
# level of the location") keeps 1 - NAME_WEIGHT x their share of its name's weight (each word
# by its idf): of two tools that match a request about as well, the one the request names more
# fully comes first (getHumidity). A name word counts as in the request when the request has
# it, its stem ("simulated" for simulateDNASequence) or its spelling out (``info``). Chosen on
# the tuning queries (bench/bench_search_quality.py; 0.2 to 0.5 tried): nDCG@10 Seal-Tools 92.62 ->
# 93.85, hit@1 95.86 -> 96.27; MetaTool 54.47 -> 56.78. 0 leaves the order to the words alone.
NAME_WEIGHT = 0.3
# How many of the best tools by words are weighed by their names before the first ``limit``
# are taken: mostly a tool ranked further down gains too little to come into them; where one
# could, the pool grows (``_left_out_may_lead``).
_NAME_POOL = 3
_NAME_POOL_LEAST = 30
# How much the pool grows when a tool left out of it could lead one shown (``_left_out_may_lead``).
_POOL_GROWTH = 4
_DRIFT = 0.25
# How many sets of groups' sights a search index keeps (``_visible``), and how many words each
# keeps what it knows of (``_seen_as``; about 150 bytes a word, and a mask of the tools): bounded
# whatever callers ask, 8.5 MB at most at 10,000 tools (measured at the bound by an outside check).
_MOST_SIGHTS = 16
_MOST_SIGHT_TERMS = 4096


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One tool found. ``score`` is in (0, 1]: the share of the query's weight (its terms'
    idf) that this tool accounts for, less a part for words of its name the query lacks
    (``NAME_WEIGHT``); 1.0 for an exact name."""

    definition: ToolDefinition
    score: float
    # What the tool is kept under in the index: its name, unless it was put with a key of its
    # own (two callers' personal tools may share a name).
    key: str = ""

    @property
    def name(self) -> str:
        return self.definition.name


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """Best first; empty with ``no_match`` when nothing was relevant enough."""

    hits: tuple[SearchHit, ...]
    no_match: bool


# (term, its postings' arrays, how many of the tools a search sees have it, its highest weight
# among them, its idf among them)
_Entry = tuple[str, tuple["np.ndarray", "np.ndarray", float], int, float, float]


@dataclass(slots=True)
class _Sight:
    """The tools of some groups, as a search for a caller sees them (``SearchIndex._visible``)."""

    mask: np.ndarray  # of the slots whose tools are in the groups
    count: int  # how many they are
    hidden: np.ndarray  # the other slots
    # What each term asked of so far is among them (``SearchIndex._visible_terms``; None: no tool
    # of theirs has it): a search asks again for every sentence and clause, and so do the caller's
    # next searches, which see the same groups.
    terms: dict[str, _Entry | None]


@dataclass(slots=True)
class _Document:
    definition: ToolDefinition
    counts: dict[str, tuple[int, ...]]  # term -> count in each field
    lengths: tuple[int, ...]
    slot: int  # its position in score vectors
    group: int  # its group's id (0: the tools every search sees)
    name_terms: tuple[str, ...]  # its name's own words (not spelled out, no title)


class SearchIndex:
    """Tools by key (their name unless ``put`` was given another); ``put`` adds or replaces
    one, ``remove`` takes one out. An exact name finds every tool of that name.

    Each tool may belong to a group (``group_of``: a catalog folder, a caller's personal
    tools), and a search may be limited to some groups: it then scores as if the others were
    not there (word rarity, the query's ceiling, which words are known at all), so neither
    the scores nor the no-match answer tell a caller what the groups it cannot see contain."""

    def __init__(
        self,
        *,
        field_weights: tuple[float, ...] = DEFAULT_FIELD_WEIGHTS,
        b: float = DEFAULT_B,
        k1: float = DEFAULT_K1,
        clause_weight: float = DEFAULT_CLAUSE_WEIGHT,
        min_clause_terms: int = 2,
        min_lead: float = DEFAULT_MIN_LEAD,
        min_sentence_lead: float = DEFAULT_MIN_SENTENCE_LEAD,
        group_of: Callable[[str, ToolDefinition], str] | None = None,
        semantic: bool = False,
        semantic_weight: float = semantic_model.WEIGHT,
        name_weight: float = NAME_WEIGHT,
    ) -> None:
        """``semantic``: re-rank by meaning too (``toolbay.search.semantic``; ``[search]
        semantic``), weighed by ``semantic_weight``; raises ``ConfigError`` when the model's
        package is not installed. Off, no model is read and nothing is embedded."""
        self.min_lead = min_lead
        self.min_sentence_lead = min_sentence_lead
        self.name_weight = name_weight
        self.semantic_weight = semantic_weight if semantic else 0.0
        self._vectors = semantic_model.Vectors(semantic_model.require_model_folder()) if semantic else None
        self._group_of = group_of
        self._group_ids: dict[str, int] = {"": 0}
        # The group of the tool in each slot (-1: a free slot), and the same as an array, made
        # when a limited search first needs it after a change.
        self._slot_groups: list[int] = []
        self._slot_group_array: np.ndarray | None = None
        # The stems of the terms, made when a request first has a word no tool has: the
        # terms of each stem, and the terms indexed since, not yet stemmed.
        self._terms_by_stem: dict[str, dict[str, None]] = {}
        self._terms_by_han: dict[str, dict[str, None]] = {}  # a Chinese character -> the terms that have it
        self._stemmed: set[str] = set()
        self._unstemmed: dict[str, None] = {}
        # Each name word's weight in each group with the count of changes it was computed at (a
        # word's rarity changes with the tools; clearing them all at each change cost a changed
        # file more than its own update).
        self._name_word_weights: dict[int, dict[str, tuple[int, float]]] = {}
        # Each tool's name words weighed (``_name_profile``), as of ``_name_profiles_at`` changes.
        self._name_profiles: dict[str, tuple[float, tuple[tuple[float, str, str, tuple[str, ...]], ...]]] = {}
        self._name_profiles_at = -1
        # What each set of groups sees (``_visible``), as of ``_sights_at`` changes.
        self._sights: dict[tuple[str, ...], _Sight] = {}
        self._sights_at = -1
        # What each term asked of is among all the tools (``_visible_terms``), as of ``_terms_at``
        # changes: as a sight's terms, for a search that sees every tool.
        self._terms_seen: dict[str, _Entry] = {}
        self._terms_at = -1
        self._changes = 0
        self.field_weights = field_weights
        self.b = b
        self.k1 = k1
        self.clause_weight = clause_weight
        self.min_clause_terms = min_clause_terms
        self._documents: dict[str, _Document] = {}
        self._by_lower_name: dict[str, set[str]] = {}
        # term -> {slot: saturated weight}; the slot's tool is ``_names[slot]``.
        self._postings: dict[str, dict[int, float]] = {}
        # The same postings as arrays (slots, weights) with their highest weight, made when a
        # query first needs them and dropped when the term's postings change.
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
        self._names: list[str | None] = []
        self._free_slots: list[int] = []
        # The lengths and count of each group's tools: a tool's length is normalised against
        # its own group's average, so that adding a tool some callers cannot see changes no
        # score they get, and a catalog folder's tools are weighed as they would be alone
        # (as ``toolbay search --catalog`` weighs them), not against the built-ins' lengths.
        self._length_sums: dict[int, list[int]] = {}
        self._counted: dict[int, int] = {}
        # Each group's average length and count the stored weights were computed with.
        self._weighed: dict[int, tuple[float, int]] = {}

    def __len__(self) -> int:
        return len(self._documents)

    def __contains__(self, name: object) -> bool:
        return name in self._documents

    @property
    def semantic(self) -> bool:
        return self._vectors is not None

    def meaning_backlog(self) -> semantic_model.Backlog | None:
        """The tools put since meaning was last brought up to date, for ``Backlog.embed`` to
        embed on another thread and ``take_meaning`` to take in; None when none waits (or
        meaning is off). A search embeds what still waits itself."""
        return self._vectors.backlog() if self._vectors is not None else None

    def take_meaning(self, backlog: semantic_model.Backlog) -> None:
        """Takes in an embedded backlog: its tools removed or put again since are left out."""
        if self._vectors is not None:
            self._vectors.take(backlog)

    def names(self) -> list[str]:
        return list(self._documents)

    def definition(self, name: str) -> ToolDefinition | None:
        document = self._documents.get(name)
        return document.definition if document is not None else None

    # -- changes ---------------------------------------------------------------------

    def put_many(self, definitions: Iterable[ToolDefinition | tuple[str, ToolDefinition]], *,
                 weigh_all: bool = True) -> None:
        """Adds or replaces many tools (definitions, or (key, definition) pairs), weighing all
        of them once at the end; with ``weigh_all`` False, each as ``put`` weighs one (a few
        tools put again: weighing 10,000 again for them took 0.4 s)."""
        # Python's cyclic collector would walk the new postings again and again while they are
        # made (10,000 tools: passes of 50 to 70 ms, holding the interpreter's lock, so the
        # event loop waited while a worker thread filled the index); they all live on, so it
        # waits until they are made, and they are then frozen out of its reach (as the start's
        # imports are, see toolbay.start_up_collector): the first collection after would walk
        # them all once more (34 ms). Turned back on only if it was on.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for item in definitions:
                key, definition = item if isinstance(item, tuple) else (item.name, item)
                self._remove(key)
                self._insert(key, definition, weigh=not weigh_all)
            if weigh_all:
                self._reweigh_all()
            else:
                self._reweigh_if_drifted()
            # Here, on the thread filling the index, rather than at the first search that needs
            # them, on the event loop: the word pairs of 1,000 tools described in Chinese took
            # half a second to file there, 10,000 two seconds.
            self._stem_new_terms()
        finally:
            gc.freeze()
            if collecting:
                gc.enable()

    def put(self, definition: ToolDefinition, key: str | None = None) -> None:
        """Adds ``definition`` under ``key`` (its name by default), replacing what was there."""
        key = definition.name if key is None else key
        self._remove(key)
        self._insert(key, definition, weigh=True)
        self._reweigh_if_drifted()

    def remove(self, key: str) -> bool:
        """Takes the tool out; it is never returned again. False if it was not there."""
        removed = self._remove(key)
        if removed:
            self._reweigh_if_drifted()
        return removed

    def _insert(self, key: str, definition: ToolDefinition, *, weigh: bool) -> None:
        per_field = field_terms(definition)
        counts: dict[str, list[int]] = {}
        for position, terms in enumerate(per_field):
            for term in terms:
                per_term = counts.get(term)
                if per_term is None:
                    per_term = counts[term] = [0] * len(FIELDS)
                per_term[position] += 1
        lengths = tuple(len(terms) for terms in per_field)
        group = self._group_of(key, definition) if self._group_of is not None else ""
        group_id = self._group_ids.setdefault(group, len(self._group_ids))
        if self._free_slots:
            slot = self._free_slots.pop()
            self._names[slot] = key
            self._slot_groups[slot] = group_id
        else:
            slot = len(self._names)
            self._names.append(key)
            self._slot_groups.append(group_id)
        self._slot_group_array = None
        self._changes += 1
        document = _Document(definition, {term: tuple(c) for term, c in counts.items()}, lengths, slot, group_id,
                             tuple(dict.fromkeys(tokenize(definition.name))))
        if self._vectors is not None:
            self._vectors.put(slot, definition, group_id)
        for term in counts:
            if term not in self._stemmed:
                self._unstemmed[term] = None
        self._documents[key] = document
        self._by_lower_name.setdefault(definition.name.lower(), set()).add(key)
        self._counted[group_id] = self._counted.get(group_id, 0) + 1
        sums = self._length_sums.setdefault(group_id, [0] * len(FIELDS))
        for position, length in enumerate(lengths):
            sums[position] += length
        if weigh:
            self._weigh(document)

    def _remove(self, key: str) -> bool:
        document = self._documents.pop(key, None)
        if document is None:
            return False
        lower = document.definition.name.lower()
        same_lower = self._by_lower_name[lower]
        same_lower.discard(key)
        if not same_lower:
            del self._by_lower_name[lower]
        self._counted[document.group] -= 1
        sums = self._length_sums[document.group]
        for position, length in enumerate(document.lengths):
            sums[position] -= length
        for term in document.counts:
            posting = self._postings.get(term)
            if posting is not None:
                posting.pop(document.slot, None)
                self._arrays.pop(term, None)
                if not posting:
                    del self._postings[term]
        if self._vectors is not None:
            self._vectors.remove(document.slot)
        self._names[document.slot] = None
        self._slot_groups[document.slot] = -1
        self._slot_group_array = None
        self._changes += 1
        self._free_slots.append(document.slot)
        return True

    def _weigh(self, document: _Document) -> None:
        """Stores the document's saturated weight in each of its terms' postings. Term
        counts are weighted by field, and the tool's length (weighted the same way) is
        normalised once against the average, as if the fields were one text in which the
        name is written twice: measured better here than normalising each field apart."""
        weights = self.field_weights
        length = sum(weight * n for weight, n in zip(weights, document.lengths, strict=True))
        average = self._weighed.get(document.group, (0.0, 0))[0] or self._live_average(document.group)
        norm = 1.0 / (1.0 - self.b + self.b * length / average) if average > 0 else 0.0
        norms = [weight * norm for weight in weights]
        k1 = self.k1
        slot = document.slot
        postings, arrays = self._postings, self._arrays
        for term, counts in document.counts.items():
            pseudo = sum(count * norm for count, norm in zip(counts, norms, strict=True) if count)
            if pseudo <= 0.0:
                continue
            posting = postings.get(term)
            if posting is None:
                posting = postings[term] = {}
            posting[slot] = pseudo / (k1 + pseudo)
            arrays.pop(term, None)

    def _live_average(self, group: int) -> float:
        counted = self._counted.get(group, 0)
        if not counted:
            return 1.0
        sums = self._length_sums[group]
        return sum(weight * n for weight, n in zip(self.field_weights, sums, strict=True)) / counted

    def _reweigh_all(self) -> None:
        # A change as a tool's coming or going is: what is kept of the weights (``_visible``'s
        # sights) is dropped (``put_many`` of no tool weighs them all again with no tool changed).
        self._changes += 1
        self._weighed = {group: (self._live_average(group), count) for group, count in self._counted.items()}
        self._postings = {}
        self._arrays = {}
        for document in self._documents.values():
            self._weigh(document)

    def _reweigh_if_drifted(self) -> None:
        """Weighs again the tools of each group whose count or average length has moved by
        more than ``_DRIFT`` since its tools were weighed."""
        drifted = set()
        for group, count in self._counted.items():
            average, weighed = self._weighed.get(group, (0.0, 0))
            if (abs(count - weighed) > _DRIFT * max(weighed, 4)
                    or abs(self._live_average(group) - average) > _DRIFT * max(average, 1.0)):
                drifted.add(group)
        if not drifted:
            return
        self._changes += 1  # as in ``_reweigh_all``
        for group in drifted:
            self._weighed[group] = (self._live_average(group), self._counted[group])
        for document in self._documents.values():
            if document.group in drifted:
                self._weigh(document)

    # -- queries ---------------------------------------------------------------------

    def search(self, query: str, limit: int = 10, allowed: Callable[[str], bool] | None = None,
               groups: Collection[str] | None = None) -> SearchOutcome:
        """The ``limit`` best tools for ``query`` that ``allowed`` lets through (all by
        default), best first, scored among the tools of ``groups`` alone (all by default). A
        tool named exactly as the query, or as one of its identifier-like words, comes first,
        alone when the rest are weak. Otherwise the outcome
        is ``no_match``, with no hits, when no tool has any of the query's terms, or the best
        one falls short of the query's ceiling and does not lead the tenth best by
        ``min_lead`` of it, or the request's sentences, each searched alone, lead theirs by
        less than ``min_sentence_lead`` on average (see ``DEFAULT_MIN_LEAD``); 0 turns each
        test off."""
        if limit <= 0:
            return SearchOutcome((), no_match=False)
        if allowed is not None:
            allowed = _asked_once(allowed)
        exact = [key for key in self._exact_names(query) if allowed is None or allowed(key)]
        hits = [SearchHit(self._documents[key].definition, 1.0, key) for key in exact[:limit]]
        if exact and len(query.split()) == 1 and _written_as_a_name(query.strip()):
            # A name alone ("jsonkit_fmt", "weatherAlerts") asks for that tool alone; a plain word
            # that happens to be a tool's name ("weather") also asks for its neighbours
            # (weather_forecast), which follow it where they match well.
            return SearchOutcome(tuple(hits), no_match=False)
        visible = self._visible(groups)
        pool = max(limit, _MARGIN_RANK) if self.name_weight <= 0 else max(_NAME_POOL * limit, _NAME_POOL_LEAST)
        read = _ReadOnce()
        terms = read(query)  # read once: the words rank the tools, then weigh their names
        ranked, ceiling, known, ordered = self._ranked(query, terms, allowed, pool, exclude=set(exact),
                                                       visible=visible, read=read)
        verdict = self._verdict(ranked, ceiling, known)
        if verdict is not True and ranked and self._known_by_numbers_alone(terms, visible):
            # "hunter2x9" found the tools whose names end in "_9", by the 9 alone: a number says
            # which one, of what the words ask for; with no word known, nothing was asked for.
            verdict = True
        if verdict is True:
            # A name found exactly is the answer; weak matches do not pad it.
            return SearchOutcome(tuple(hits), no_match=not exact)
        if not ordered:  # every tool the words found fell to nothing by meaning (or was not allowed)
            ordered = ranked
        weighed = self._weighed_by_name(terms, ordered, max(limit, _MARGIN_RANK))
        while self._left_out_may_lead(ordered, weighed, pool, limit):
            # A tool past the pool may score more, its name weighed, than one shown: the pool
            # grows until none can, so that the first ``limit`` are the best ``limit`` by the
            # scores shown whatever the limit (a tool once shown at 11 of 100 was left out of 10).
            pool *= _POOL_GROWTH
            ranked, ceiling, known, ordered = self._ranked(query, terms, allowed, pool, exclude=set(exact),
                                                           visible=visible, read=read)
            weighed = self._weighed_by_name(terms, ordered or ranked, max(limit, _MARGIN_RANK))
        if verdict is None:
            # The lead is that of the words alone, names weighed, whether or not meaning ranks.
            by_words = weighed if self._vectors is None else self._weighed_by_name(terms, ranked, _MARGIN_RANK)
            if self._leads_weakly(by_words, ceiling) or self._sentences_weak(query, allowed, exact, visible, read):
                return SearchOutcome(tuple(hits), no_match=not exact)
        ordered = weighed
        least = _TAIL_SHARE * ordered[0][1]
        for key, score in ordered:
            if len(hits) >= limit or score < least:
                break
            hits.append(SearchHit(self._documents[key].definition, score, key))
        return SearchOutcome(tuple(hits), no_match=False)

    def _left_out_may_lead(self, pool_ranked: list[tuple[str, float]], weighed: list[tuple[str, float]],
                           pool: int, limit: int) -> bool:
        """Whether a tool left out of the pool (``pool_ranked``, best first, before names are
        weighed) could be among the first ``limit`` of ``weighed``: weighing a name only lowers a
        score, so none can when the pool held every tool that scored, or the last one shown
        (or the least score shown at all) is at least the pool's last before weighing."""
        if self.name_weight <= 0 or len(pool_ranked) < pool or not weighed:
            return False
        last_shown = weighed[limit - 1][1] if len(weighed) >= limit else 0.0
        return pool_ranked[-1][1] > max(last_shown, _TAIL_SHARE * weighed[0][1])

    def _weighed_by_name(self, terms: list[str], ordered: list[tuple[str, float]],
                         first: int | None = None) -> list[tuple[str, float]]:
        """``ordered`` with each tool's score times 1 - ``name_weight`` x the share of its name's
        weight in words the request's ``terms`` lack (see ``NAME_WEIGHT``), best first again. A word's
        weight is its idf among the tools of the tool's own group (a catalog folder's tools are
        weighed by their names as they would be alone, as ``toolbay search --catalog`` weighs
        them, whatever tools the caller sees beside them). With ``first``, only the first ``first``
        of that list are sure, and it may stop past them (holding ``first`` at least): weighing only
        lowers a score, so a tool of ``ordered`` (best first) scoring less than ``first`` tools
        already weighed is none of them (a search needs its first ten, of thirty or more)."""
        if self.name_weight <= 0 or not ordered:
            return ordered
        said = set(terms)
        said.update(map(stem_of, terms))
        if self._name_profiles_at != self._changes:
            self._name_profiles.clear()
            self._name_profiles_at = self._changes
        profiles = self._name_profiles
        name_weight = self.name_weight
        weighed = []
        least = -1.0  # weighed scores are never negative: every tool is weighed until ``first`` are
        for key, score in ordered:
            if score < least:
                break  # as are all after it (``ordered`` is best first)
            total, words = profiles.get(key) or self._name_profile(key)
            missing = 0.0
            for weight, term, stem, spelled in words:
                if term not in said and stem not in said and not (spelled and any(word in said for word in spelled)):
                    missing += weight
            weighed.append((key, score * (1.0 - name_weight * missing / total) if total > 0 else score))
            if len(weighed) == first:
                least = min(value for _, value in weighed)
        # By key, then by score, best first: the sort is stable, so tied scores stay in the order of their keys.
        weighed.sort(key=itemgetter(0))
        weighed.sort(key=itemgetter(1), reverse=True)
        return weighed

    def _name_profile(self, key: str) -> tuple[float, tuple[tuple[float, str, str, tuple[str, ...]], ...]]:
        """The total weight of the tool's name words, and each word's (weight, word, stem,
        spellings out), kept until the index changes: a search weighs the names of 30 tools or
        more, three times for a request of three sentences, and looking each word's weight and
        stem up anew was a third of a search's time."""
        document = self._documents[key]
        words = tuple((self._name_word_weight(term, document.group), term, stem_of(term),
                       SPELLED_OUT.get(term, ())) for term in document.name_terms)
        profile = self._name_profiles[key] = (sum(weight for weight, *_ in words), words)
        return profile

    def _name_word_weight(self, term: str, group: int) -> float:
        """The idf of ``term`` among the tools of ``group``, kept until the index changes."""
        weights = self._name_word_weights.get(group)
        if weights is None:
            weights = self._name_word_weights[group] = {}
        kept = weights.get(term)
        if kept is not None and kept[0] == self._changes:
            return kept[1]
        if term not in self._postings:  # a name word weighed as nothing (a field weight of 0)
            frequency = 0
        elif len(self._counted) == 1:
            frequency = len(self._postings[term])
        else:
            frequency = int((self._group_array()[self._array(term)[0]] == group).sum())
        weight = self._idf(self._counted[group], frequency)
        weights[term] = (self._changes, weight)
        return weight

    def _verdict(self, ranked: list[tuple[str, float]], ceiling: float, known: float) -> bool | None:
        """True: no match whatever the lead (no tool, or the best is next to nothing); False: a
        match whatever the lead; None: the leads decide (``_leads_weakly``, ``_sentences_weak``)."""
        if not ranked or ceiling <= 0.0 or ranked[0][1] < _LEAST_SCORE:
            return True
        if known >= _KNOWN_FOR_FULL_MATCH and ranked[0][1] >= _FULL_MATCH * ceiling:
            # The best has the query's words about as strongly as any tool has them, and they
            # are most of what it asks: many tools doing so ("github" over a dozen github_*
            # tools) is a family to choose from, not no match.
            return False
        return None

    def _known_by_numbers_alone(self, terms: list[str], visible: _Sight | None) -> bool:
        """Whether the only terms of the request that tools the search sees have are numbers
        (``9``, ``2024``): none of its words, nor a word sharing a stem with one of them."""
        if not any(term.isdigit() for term in terms):
            return False
        words = [term for term in dict.fromkeys(terms) if not term.isdigit()]
        if any(self._is_visible(word, visible) for word in words):
            return False
        relatives = self._relatives(words)
        return not any(self._is_visible(relative, visible) for word in words for relative in relatives.get(word, ()))

    def _leads_weakly(self, weighed: list[tuple[str, float]], ceiling: float) -> bool:
        """Whether the best of ``weighed`` (best first, names weighed) leads the tenth by less
        than ``min_lead`` of the query's ceiling."""
        return not weighed or _lead(weighed) < self.min_lead * ceiling

    def _sentences_weak(self, query: str, allowed: Callable[[str], bool] | None, exact: list[str],
                        visible: _Sight | None, read: _ReadOnce) -> bool:
        """Whether the request's sentences (``DEFAULT_MIN_SENTENCE_LEAD``), each searched alone,
        lead by less than ``min_sentence_lead`` on average: how far each one's best tool leads its
        tenth, names weighed, as a share of the sentence's ceiling. Never for a request of fewer
        than ``_LEAST_SENTENCES`` (nor when no sentence could be searched)."""
        if self.min_sentence_lead <= 0:
            return False
        parts = [(sentence, read(sentence)) for sentence in sentences(query)[:_MOST_SENTENCES]]
        if len(parts) < _LEAST_SENTENCES:
            return False
        parts = [(sentence, terms) for sentence, terms in parts if len(terms) >= _LEAST_SENTENCE_TERMS]
        total = 0.0
        counted = 0
        for sentence, terms in parts:
            # Leads are never negative: once the leads so far reach the threshold times the
            # most sentences that can count, the mean does too, and the rest need no search
            # (a request that matches mostly stops after a sentence or two).
            if total >= self.min_sentence_lead * len(parts):
                return False
            ranked, ceiling, _, _ = self._ranked(sentence, terms, allowed, _NAME_POOL_LEAST, exclude=set(exact),
                                                 visible=visible, meaning=False, read=read)
            if not ranked or ceiling <= 0.0:
                continue
            total += _lead(self._weighed_by_name(terms, ranked, _MARGIN_RANK)) / ceiling
            counted += 1
        return counted > 0 and total / counted < self.min_sentence_lead

    @staticmethod
    def _idf(count: int, frequency: int) -> float:
        return math.log(1.0 + (count - frequency + 0.5) / (frequency + 0.5))

    def _exact_names(self, query: str) -> list[str]:
        """Tools named exactly as the query or one of its identifier-like words, any case."""
        candidates = name_candidates(query)
        found: list[str] = []
        for candidate in candidates:
            exact = self._by_lower_name.get(candidate.lower())
            if not exact:
                continue
            # The same spelling first, then other casings.
            for key in sorted(exact, key=lambda k: (self._documents[k].definition.name != candidate, k)):
                if key not in found:
                    found.append(key)
        return found

    def _visible(self, groups: Collection[str] | None) -> _Sight | None:
        """The tools of ``groups``; None for all. Kept until the index changes (the last
        ``_MOST_SIGHTS`` sets of groups): a caller's searches all see the same ones."""
        if groups is None:
            return None
        import numpy as np

        if self._sights_at != self._changes:
            self._sights.clear()
            self._sights_at = self._changes
        # Kept by the groups that have tools: callers of the same scopes without personal tools
        # (a team's, each its own "personal:ID") see the same, and were each kept apart, 17 of
        # them enough to push each other out. A group's first tool is a change: all are dropped.
        key = tuple(sorted({group for group in groups if group in self._group_ids}))
        sight = self._sights.pop(key, None)
        if sight is None:
            mask = np.isin(self._group_array(), [self._group_ids[group] for group in key])
            sight = _Sight(mask, int(mask.sum()), (~mask).nonzero()[0], {})
            while len(self._sights) >= _MOST_SIGHTS:
                del self._sights[next(iter(self._sights))]  # the one used longest ago
        self._sights[key] = sight
        return sight

    def _group_array(self) -> np.ndarray:
        """The group of the tool in each slot (-1: a free slot), as an array."""
        import numpy as np

        if self._slot_group_array is None:
            self._slot_group_array = np.array(self._slot_groups, dtype=np.int64)
        return self._slot_group_array

    def _ranked(self, query: str, whole: list[str], allowed: Callable[[str], bool] | None, limit: int, *,
                exclude: set[str], read: _ReadOnce, visible: _Sight | None = None, meaning: bool = True,
                ) -> tuple[list[tuple[str, float]], float, float, list[tuple[str, float]]]:
        """``whole``: the query's terms (``tokenize``). (name, score) of the best ``limit`` tools
        by their words, the query's ceiling (the score of a tool with each of the query's terms at
        the highest weight any tool has for it), the share of the query's weight in terms some
        tool has, and the best ``limit`` by words and meaning (``_with_meaning``; the first list when meaning is off). A
        request that asks for two things ("convert the file, then mail it") is also searched
        clause by clause, and the clause a tool answers best adds to its score over the
        whole request: a tool that does one of the things well should not lose to one that
        touches both vaguely.
        Scores are divided by the query's total weight (the idf of its known terms, the
        clause share included), so they fall in (0, 1)."""
        scored = read.scored.get(query)
        if scored is None:
            # Kept for the search: a pool that grows takes more of the same scores.
            scored = read.scored[query] = self._scored(query, whole, read, visible, exclude)
        if not scored:
            return [], 0.0, 0.0, []
        scores, ceiling, total, known_share = scored
        ranked = self._best(scores, allowed, limit)
        ordered = self._with_meaning(query, scores, known_share, visible, exclude, allowed, limit) \
            if ranked and meaning and self._vectors is not None else ranked
        return ranked, ceiling / total, known_share, ordered

    def _scored(self, query: str, whole: list[str], read: _ReadOnce, visible: _Sight | None,
                exclude: set[str]) -> tuple[np.ndarray, float, float, float] | None:
        """Each tool's score by words (see ``_ranked``; 0 for those ``visible`` hides and those of
        ``exclude``), by slot, the query's ceiling and total weight, and the share of its weight in
        terms some tool has; None when no tool has any."""
        words = list(dict.fromkeys(whole))
        found = self._visible_terms(words, visible)
        if len(found) < len(words):
            have = {entry[0] for entry in found}
            unknown_words = [word for word in words if word not in have]
            asked = set(words)
            # What each word no tool has leads to is asked once a search: its sentences have the same words.
            kin = read.kin
            new = [word for word in unknown_words if word not in kin]
            if new:
                kin.update(self._relatives(new))
            # Each term once, at its first weight: a word's relative may also be another's part.
            related_terms = dict.fromkeys(term for word in unknown_words for term in kin[word] if term not in asked)
            # A word cut in two only where no tool the caller sees has a word of its stem.
            alone = [word for word in unknown_words if not any(self._is_visible(term, visible) for term in kin[word])]
            related_terms.update(dict.fromkeys(self._compound_parts(alone, asked, visible, read.cuts)))
            joined_terms = [term for term in self._joined_words(whole, set(unknown_words), asked)
                            if term not in related_terms]
            relatives = self._visible_terms(related_terms, visible)
            joined = self._visible_terms(joined_terms, visible)
            found += relatives + joined
        else:
            relatives = joined = []
        if not found:
            return None
        # numpy is loaded with the first search, not with the server (keeping postings needs none).
        import numpy as np

        count = len(self._documents) if visible is None else visible.count
        arrays = [entry[1] for entry in found]
        related = dict.fromkeys((entry[0] for entry in relatives), RELATIVE_WEIGHT)
        related.update(dict.fromkeys((entry[0] for entry in joined), JOINED_WEIGHT))
        row_of = {entry[0]: row for row, entry in enumerate(found)}
        idf = np.array([entry[4] for entry in found])
        highest = np.array([entry[3] for entry in found])
        # The query's postings end to end; each query vector scales them term by term and
        # bincount sums them per tool (no dense matrix, and no BLAS threads, which cost
        # more in waking up than they save on a busy machine). Arrays' own methods (repeat,
        # nonzero), not numpy's functions of the same names: those are Python that calls them,
        # once or more for each clause of each text a search reads.
        slots = np.concatenate([triple[0] for triple in arrays])
        weights = np.concatenate([triple[1] for triple in arrays])
        lengths = [len(triple[0]) for triple in arrays]
        size = len(self._names)

        def score(vector: np.ndarray) -> np.ndarray:
            return np.bincount(slots, weights=weights * vector.repeat(lengths), minlength=size)

        def best_clause(vectors: np.ndarray) -> np.ndarray | None:
            """Each tool's score for the clause it answers best, each clause summed over its own
            terms' postings (a request of two hundred short clauses summed every term's
            postings two hundred times: 45 ms at 10,000 tools); None when no clause has a term
            some tool has. Scores are never negative, so the first clause's are the best so far."""
            best = None
            for vector in vectors:
                rows = vector.nonzero()[0].tolist()
                if rows:
                    clause = np.bincount(np.concatenate([arrays[row][0] for row in rows]),
                                         weights=np.concatenate([arrays[row][1] for row in rows])
                                         * vector[rows].repeat([lengths[row] for row in rows]),
                                         minlength=size)
                    if best is None:
                        best = clause
                    else:
                        np.maximum(best, clause, out=best)
            return best

        whole_vector = self._query_vector(whole, row_of, idf, related)
        scores = score(whole_vector)
        ceiling = float(whole_vector @ highest)
        # Words no tool has count too, as rare as can be: a query that only one of its
        # eight words matches is mostly not about that tool. Not an emoji no tool has: it
        # decorates a request ("weather in Paris 🌧️🌧️") rather than asking for something.
        unknown = sum(1 for term in whole if term not in row_of and not is_pictograph(term))
        known = float(whole_vector.sum())
        total = known + unknown * self._idf(count, 0)
        known_share = known / total if total > 0 else 0.0
        if self.clause_weight > 0:
            parts = [read(clause) for clause in clauses(query)]
            chosen = [terms for terms in parts if len(terms) >= self.min_clause_terms] if len(parts) > 1 else []
            if chosen:
                clause_vectors = self._clause_counts(chosen, row_of) * idf
                best = best_clause(clause_vectors)
                if best is not None:  # else it adds nothing
                    best *= self.clause_weight
                    scores += best
                ceiling += self.clause_weight * max(float(vector @ highest) for vector in clause_vectors)
                total *= 1.0 + self.clause_weight
        scores /= total
        if visible is not None:
            scores[visible.hidden] = 0.0
        for name in exclude:
            scores[self._documents[name].slot] = 0.0
        return scores, ceiling, total, known_share

    def _with_meaning(self, query: str, scores: np.ndarray, known: float, visible: _Sight | None,
                      exclude: set[str], allowed: Callable[[str], bool] | None, limit: int) -> list[tuple[str, float]]:
        """The best ``limit`` tools by words and meaning (``semantic.py``): each tool's word score
        as a share of the best one's, plus its meaning weighed by the share of the request's
        weight in words no tool has. Scaled so that the first keeps the best word score: a
        score still says how much of the request's wording the answer has, about."""
        import numpy as np

        best = float(scores.max())
        weight = self.semantic_weight * (1.0 - known) ** 2
        if self._vectors is None or weight <= 0.0 or best <= 0.0:
            return self._best(scores, allowed, limit)
        mask = visible.mask if visible is not None else None
        fused = scores / best + weight * self._vectors.scores(query, len(self._names), mask, scores)
        for name in exclude:
            fused[self._documents[name].slot] = 0.0
        np.maximum(fused, 0.0, out=fused)
        top = float(fused.max())
        if top <= 0.0:
            return self._best(scores, allowed, limit)
        return self._best(fused * (best / top), allowed, limit)

    @staticmethod
    def _query_vector(terms: list[str], row_of: dict[str, int], idf: np.ndarray,
                      related: dict[str, float] | None = None) -> np.ndarray:
        """idf times the count of each known term in ``terms`` (and the weight of each term
        in ``related``), by matrix row."""
        import numpy as np

        counts = SearchIndex._query_counts(terms, row_of)
        for term, weight in (related or {}).items():
            counts[row_of[term]] += weight
        return np.array(counts) * idf

    @staticmethod
    def _query_counts(terms: list[str], row_of: dict[str, int]) -> list[float]:
        """The count of each known term in ``terms``, by matrix row (counted in Python: setting
        an array's items one by one cost more than the rest of a query vector)."""
        counts = [0.0] * len(row_of)
        for term in terms:
            row = row_of.get(term)
            if row is not None:
                counts[row] += 1.0
        return counts

    @staticmethod
    def _clause_counts(parts: list[list[str]], row_of: dict[str, int]) -> np.ndarray:
        """The count of each known term in each of ``parts``, a row each, by matrix column:
        counted in Python lists when they are few (``_FEW_CLAUSE_CELLS``), else by bincount (a
        request of two hundred clauses and three hundred terms made 60,000 numbers of lists, and
        turning them into an array took more than its search)."""
        import numpy as np

        width = len(row_of)
        if len(parts) * width <= _FEW_CLAUSE_CELLS:
            return np.array([SearchIndex._query_counts(terms, row_of) for terms in parts])
        cells = [index * width + row for index, terms in enumerate(parts)
                 for term in terms if (row := row_of.get(term)) is not None]
        return np.bincount(np.array(cells, dtype=np.intp), minlength=len(parts) * width).reshape(len(parts), width)

    def _visible_terms(self, terms: Iterable[str], visible: _Sight | None) -> list[_Entry]:
        """What each of ``terms`` some visible tool has is among them (``_Entry``)."""
        found = []
        if visible is not None:
            for term in terms:
                entry = self._seen_as(term, visible)
                if entry is not None:
                    found.append(entry)
            return found
        if self._terms_at != self._changes or len(self._terms_seen) >= _MOST_SIGHT_TERMS:
            self._terms_seen = {}
            self._terms_at = self._changes
        # Kept, as a sight's terms are: each search asks again for each sentence and clause, and
        # the next searches for the same words (looking a term up in the postings, making its
        # entry and its idf, were a tenth of a search's time).
        seen = self._terms_seen
        for term in terms:
            entry = seen.get(term)
            if entry is None:
                if term not in self._postings:
                    continue  # not kept: what is kept is bounded by the words tools have
                arrays = self._array(term)
                frequency = len(arrays[0])
                entry = seen[term] = (term, arrays, frequency, arrays[2], self._idf(len(self._documents), frequency))
            found.append(entry)
        return found

    def _seen_as(self, term: str, sight: _Sight) -> _Entry | None:
        """What ``term`` is among the tools of ``sight`` (see ``_visible_terms``); None if none has it."""
        if term in sight.terms:
            return sight.terms[term]
        if term not in self._postings:
            return None  # not kept: what is kept is bounded by the words tools have, not by requests
        arrays = self._array(term)
        # Only the visible tools' postings count towards a word's rarity and the ceiling;
        # a word only hidden tools have is unknown.
        mask = sight.mask[arrays[0]]
        frequency = int(mask.sum())
        if len(sight.terms) >= _MOST_SIGHT_TERMS:
            sight.terms.clear()  # begun again: the words asked of lately are asked again soon
        entry = sight.terms[term] = (term, arrays, frequency, float(arrays[1][mask].max()),
                                     self._idf(sight.count, frequency)) if frequency else None
        return entry

    def _is_visible(self, term: str, visible: _Sight | None) -> bool:
        """Whether some tool the search may see has ``term``."""
        return term in self._postings if visible is None else self._seen_as(term, visible) is not None

    def _relatives(self, words: list[str]) -> dict[str, list[str]]:
        """The indexed terms that share a stem with each of ``words``, and, for a word of Chinese
        characters (``_HAN``), those that share one of its characters."""
        if not words:
            return {}
        self._stem_new_terms()
        kin = {word: [term for term in self._terms_by_stem.get(stem, ()) if term in self._postings]
               for word, stem in zip(words, stems(words), strict=True)}
        # A character's terms are looked up once a request, and no further than the limit: a
        # request of 2,000 Chinese characters went through every term of each of its characters
        # (thousands for a common one) for each pair it is in, 0.25 s over 1,000 tools.
        sharing_of: dict[str, list[str] | None] = {}
        for word in words:
            for character in dict.fromkeys(_HAN.findall(word)):
                if character not in sharing_of:
                    live = (term for term in self._terms_by_han.get(character, ()) if term in self._postings)
                    first = list(itertools.islice(live, _MOST_HAN_RELATIVES + 1))
                    sharing_of[character] = first if len(first) <= _MOST_HAN_RELATIVES else None
                sharing = sharing_of[character]
                if sharing is not None:
                    kin[word].extend(term for term in sharing if term != word and term not in kin[word])
        return kin

    def _stem_new_terms(self) -> None:
        """Files the terms indexed since last time by their stem and Chinese characters."""
        if self._unstemmed:
            new = list(self._unstemmed)
            for term, stem in zip(new, stems(new), strict=True):
                self._terms_by_stem.setdefault(stem, {})[term] = None
                for character in dict.fromkeys(_HAN.findall(term)):
                    self._terms_by_han.setdefault(character, {})[term] = None
            self._stemmed.update(new)
            self._unstemmed = {}

    def _compound_parts(self, words: list[str], exclude: set[str], visible: _Sight | None,
                        kept: dict[str, tuple[str, str] | None] | None = None) -> list[str]:
        """The two terms each of ``words`` is written of ("uppercase": "upper", "case";
        "filenames": "file", "name"), where tools the search may see have both, but those in
        ``exclude``. Of several ways to cut a word, the most even. Each word's cut is kept in
        ``kept`` (a search's: the cuts of a word cost a tokenizing each)."""
        parts: dict[str, None] = {}
        for word in words:
            if kept is not None and word in kept:
                cut = kept[word]
            else:
                cut = self._cut(word, visible)
                if kept is not None:
                    kept[word] = cut
            if cut is not None:
                parts.update((part, None) for part in cut if part not in exclude)
        return list(parts)

    def _cut(self, word: str, visible: _Sight | None) -> tuple[str, str] | None:
        """The two terms ``word`` is written of, as ``_compound_parts`` tells; None if none."""
        if not (2 * _LEAST_PART <= len(word) <= _MOST_LETTERS and word.isascii() and word.isalpha()):
            return None
        cuts = []
        for at in range(_LEAST_PART, len(word) - _LEAST_PART + 1):
            heads, tails = tokenize(word[:at]), tokenize(word[at:])
            if len(heads) == 1 == len(tails) and self._is_visible(heads[0], visible) \
                    and self._is_visible(tails[0], visible):
                cuts.append((min(at, len(word) - at), heads[0], tails[0]))
        if not cuts:
            return None
        _, head, tail = max(cuts)
        return head, tail

    def _joined_words(self, terms: list[str], unknown: set[str], exclude: set[str]) -> list[str]:
        """The indexed terms two neighbouring ``terms`` make written as one word, one of the
        two a word no tool has ("upper case": "uppercase"; a word and its number too, "SHA-256" and
        "blake2": "sha256", "BLAKE2", which the tools' texts read as one term; not two numbers: "1 and
        5" is no "15"), but those in ``exclude``."""
        joined: dict[str, None] = {}
        for first, second in itertools.pairwise(terms):
            word = first + second
            if (first in unknown or second in unknown) and word in self._postings and word not in exclude \
                    and len(word) <= _MOST_LETTERS and word.isascii() and word.isalnum() and not word.isdigit():
                joined[word] = None
        return list(joined)

    def _array(self, term: str) -> tuple[np.ndarray, np.ndarray, float]:
        arrays = self._arrays.get(term)
        if arrays is None:
            import numpy as np

            posting = self._postings[term]
            weights = np.fromiter(posting.values(), dtype=np.float64, count=len(posting))
            arrays = self._arrays[term] = (
                np.fromiter(posting.keys(), dtype=np.int64, count=len(posting)), weights, float(weights.max()))
        return arrays

    def _best(self, scores: np.ndarray, allowed: Callable[[str], bool] | None,
              limit: int) -> list[tuple[str, float]]:
        """The ``limit`` best (key, score), tools of equal score in the order of their keys: the
        same answer whatever order the tools were indexed in (a file replaced takes a new slot).
        Tools that ``allowed`` refuses are passed over; it is asked of as few as can be, best first."""

        best: list[tuple[str, float]] = []
        candidates = (scores > 0.0).nonzero()[0]
        while len(candidates) and len(best) < limit:
            # The best ``limit`` of the rest sorted and taken in turn, not all of them: when
            # ``allowed`` refuses some, the next best ``limit`` of the rest after them (sorting
            # the thousands of tools a common word finds, for a caller who may know them all,
            # was a tenth of a search's time). Every tool tied with the limit-th best comes
            # along, for its key to decide.
            # The rest only where ``allowed`` may refuse some: else every tool is taken at once.
            head, candidates = self._head(scores, candidates, limit, rest=allowed is not None)
            names = self._names
            # Slots of no name (freed) are passed over. By key, then by score, best first: the
            # sort is stable, so tied scores stay in the order of their keys (sorted so in C, not
            # tie by tie in Python).
            taken = [(name, value) for name, value in zip(map(names.__getitem__, head.tolist()),
                                                          scores[head].tolist(), strict=True) if name is not None]
            taken.sort(key=itemgetter(0))
            taken.sort(key=itemgetter(1), reverse=True)
            if allowed is None:
                best += taken[:limit]
                break  # every tool was taken
            # Asked only of as many as are taken, best first: 10,000 tools sharing one word
            # ("department" said 181 times) tie, and asking each whether the caller may know it,
            # for every pool the search tried, held the event loop 0.7 s a search (an outside check).
            for pair in taken:
                if len(best) >= limit:
                    break
                if allowed(pair[0]):
                    best.append(pair)
        return best

    @staticmethod
    def _head(scores: np.ndarray, candidates: np.ndarray, limit: int,
              rest: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The ``candidates`` (slots) scoring at least the ``limit``-th best of them, and the rest
        (if ``rest``; else none)."""
        if len(candidates) <= limit:
            return candidates, candidates[:0]
        values = scores[candidates]
        cut = len(candidates) - limit
        kth = values.copy()
        kth.partition(cut)
        top = values >= kth[cut]
        return candidates[top], candidates[~top] if rest else candidates[:0]


class _ReadOnce:
    """The terms of each text one search reads (``tokenize`` of a request), read once: the
    request, its sentences and their clauses were read again for every pool the search tried
    and every sentence searched alone, half of a search's calls of ``tokenize``."""

    __slots__ = ("_terms", "cuts", "kin", "scored")

    def __init__(self) -> None:
        self._terms: dict[str, list[str]] = {}
        # The scores by words of each text searched (``SearchIndex._scored``; None: no tool has its words).
        self.scored: dict[str, tuple[np.ndarray, float, float, float] | None] = {}
        # What each word no tool has leads to: its relatives, and its cut in two (``SearchIndex._scored``).
        self.kin: dict[str, list[str]] = {}
        self.cuts: dict[str, tuple[str, str] | None] = {}

    def __call__(self, text: str) -> list[str]:
        terms = self._terms.get(text)
        if terms is None:
            terms = self._terms[text] = tokenize(text, request=True)
        return terms


def _asked_once(allowed: Callable[[str], bool]) -> Callable[[str], bool]:
    """``allowed``, asked once a tool for one search: the pools a search tries, its sentences
    and its clauses ask of the same tools again (a caller's rights do not change meanwhile)."""
    answers: dict[str, bool] = {}

    def asked(key: str) -> bool:
        answer = answers.get(key)
        if answer is None:
            answer = answers[key] = allowed(key)
        return answer

    return asked


def _lead(ordered: list[tuple[str, float]]) -> float:
    """How far the best of ``ordered`` (best first, not empty) leads the tenth (or nothing)."""
    runner_up = ordered[_MARGIN_RANK - 1][1] if len(ordered) >= _MARGIN_RANK else 0.0
    return ordered[0][1] - runner_up


def _written_as_a_name(word: str) -> bool:
    """A word only a name is written as: with '_', '-' or a digit (jsonkit_fmt, sha256), or in
    camelCase (weatherAlerts, JSONPath); not a plain word, whatever its case (weather, Weather, JSON)."""
    return not word.isalpha() or any(a.islower() and b.isupper() for a, b in itertools.pairwise(word)) \
        or any(a.isupper() and b.isupper() and c.islower() for a, b, c in zip(word, word[1:], word[2:], strict=False))
