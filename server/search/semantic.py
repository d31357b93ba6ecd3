"""Meaning for tool search (``[search] semantic = true``, off by default): a static
word-embedding model that re-ranks what the words found.

Why: on MetaTool (bench/bench_search_quality.py) a request shares on average 1.4 words with
the tool it wants, and none at all for 18 % of them, so counting words finds the right tool
first for about two requests in five. This module scores every tool by the cosine between
its text and the request's in WordLlama's ``l2_supercat_256`` model (MIT): a table of 32,000
token vectors of 256 numbers that ships inside the ``wordllama`` wheel (16 MB), so nothing
is downloaded, ever (the ``semantic`` extra; a server asked for meaning without
it stops at start: ``require_model_folder``). Only the first 128 numbers of each vector are
kept: the model was trained so that a vector's head stands for it (Matryoshka), and half the
numbers halve the pass over every tool a search makes, which is bound by memory (MetaTool
tuning nDCG@10 67.09 at 256, 66.30 at 128; the search's CPU at 10,000 tools about a third
less). Kept as float32 and multiplied without BLAS (``np.einsum``): OpenBLAS's threads cost
more in waking up than the product itself on a busy machine (float16 and int8 products have
no BLAS in numpy and measured slower). Only the table and its tokenizer are read
(``safetensors``, ``tokenizers``, both wordllama's own dependencies), not wordllama's API:
importing it costs about 0.7 s (pydantic, requests), and its loader looks for the tokenizer
in a folder that does not exist and then downloads it.

How a text becomes a vector: its tokens' vectors averaged (as wordllama does), leaving out
stop words and punctuation (MetaTool nDCG@10 alone 64.1 -> 65.1 on the tuning queries;
weighting by rarity in the catalog did no better), then scaled to length 1. A tool's text is
its name split into words, its description, and its parameters' names and descriptions.

How it joins the word score (``SearchIndex``): the words stay first and decide "no match"
alone; the meaning moves tools up and down, and brings in tools that share no word with the
request. Each tool's final score is

    words / best words + WEIGHT * (1 - known) ** 2 * meaning

where ``known`` is the share of the request's weight in words some tool has, and
``meaning`` is the tool's cosine as a z-score among the tools searched (cosines of a static
model sit in a narrow band that differs from catalog to catalog; the z-score says how far a
tool stands out), half for the whole request and half for the clause it matches best (a
request that asks for three things should find each). A request written in the catalog's own
words leaves the order to them; one whose words no tool has is ranked mostly by meaning.
Chosen on the tuning queries of both sets (nDCG@10, the words alone first, at 256 numbers):
Seal-Tools 92.62 -> 93.18, MetaTool 54.47 -> 67.09. Held-out, at 128 (bench_search_quality
--semantic): Seal-Tools 93.39 -> 93.30, MetaTool 54.97 -> 66.44. Tried and worse there: the plain sum of the two, a sum
of the z-score at a fixed weight (every MetaTool point gained cost Seal-Tools about a fifth
of one), reciprocal-rank fusion, and re-ranking only the words' best 10 to 50.
Not used for "no match": a cosine threshold that wrongly refuses 2 % of the answerable
requests catches 7 % of MetaTool's unanswerable ones and about as many of Seal-Tools', and
the two sets' thresholds differ by a factor of two, so no one number would do for a catalog.
"""


from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolbay.defaults import install_extra
from toolbay.errors import ConfigError
from toolbay.kept_patterns import compiled
from toolbay.search.documents import parameter_texts
from toolbay.search.query import clauses
from toolbay.search.tokens import STOP_WORDS
from toolbay.words import ToolDefinition

if TYPE_CHECKING:
    import numpy as np

# How much the meaning counts against the words (see the module's docstring).
WEIGHT = 2.0
# The numbers of each token vector kept (see the module's docstring).
DIMENSIONS = 128
# A request of 150 short clauses (the longest a caller may send) would be embedded and
# compared 150 times; its first clauses are enough to say what it is about.
MAX_CLAUSES = 8
# The tools a request's clauses are compared with: the nearest this many to the whole request,
# and this many with the best word scores (a tool further down would not reach the first ten).
CANDIDATES = 100
# The package whose wheel holds the model, and what installs it.
PACKAGE = "wordllama"
# What installs it: pip's advice alone sent a checkout's user (uv, no pip) nowhere.
INSTALL = install_extra("semantic")
# Texts embedded in one call beyond which the tokenizer's threads are worth it (tools being indexed).
_BATCH = 64
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
# The words of an identifier, as the tokenizer would not split ``getWeatherForecast`` into them.
_IDENTIFIER_PARTS = compiled(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def model_folder(package: str = PACKAGE) -> Path | None:
    """Where the installed ``package`` keeps the model's files, if it is installed and has them
    and their readers are installed too. Found without importing it (see the module's docstring)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / _WEIGHTS).is_file() or not (folder / _TOKENIZER).is_file():
        return None
    for module in ("safetensors", "tokenizers"):
        try:
            if importlib.util.find_spec(module) is None:
                return None
        except (ImportError, ValueError):
            return None
    return folder


def require_model_folder(package: str = PACKAGE) -> Path:
    """The model's folder, or a ``ConfigError`` saying what to install: meaning asked for and
    not there stops a server at start, not at its first search."""
    folder = model_folder(package)
    if folder is None:
        # Asked for by the setting or by ``toolbay search --semantic``: both are named.
        raise ConfigError(f"search by meaning ([search] semantic = true, or --semantic) needs the {package} package, "
                          f"whose wheel holds the model (nothing is downloaded): {INSTALL}")
    return folder


def clause_spans(query: str) -> list[tuple[int, int]]:
    """Where in ``query`` its clauses of two words or more are (``clauses``), at most ``MAX_CLAUSES``."""
    spans: list[tuple[int, int]] = []
    position = 0
    for part in clauses(query):
        start = query.find(part, position)
        if start < 0:
            continue
        position = start + len(part)
        if len(part.split()) >= 2:
            spans.append((start, position))
    return spans[:MAX_CLAUSES]


class Model:
    """The token table and tokenizer, read once per process (about 0.15 s and 8 MiB kept)."""

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        # Kept as stored (float16), its head alone: a text's few rows are widened when averaged.
        table = load_file(str(folder / _WEIGHTS))["embedding.weight"]
        self._table: np.ndarray = np.ascontiguousarray(table[:, :DIMENSIONS])
        self._tokenizer: Any = Tokenizer.from_file(str(folder / _TOKENIZER))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.dimensions = int(self._table.shape[1])
        # 1 for a token that says something, 0 for a stop word or punctuation.
        keep = np.ones(self._table.shape[0], dtype=np.float32)
        for token, token_id in self._tokenizer.get_vocab().items():
            word = token.replace("\u2581", "").lower()
            if word in STOP_WORDS or not any(character.isalnum() for character in word):
                keep[token_id] = 0.0
        self._keep = keep

    def embed_with_clauses(self, query: str, spans: list[tuple[int, int]]) -> np.ndarray:
        """The vectors of ``query`` and of each of its ``spans``, from one tokenization: a
        token belongs to the span its first character is in."""
        import numpy as np

        encoding = self._tokenizer.encode(query, add_special_tokens=False)
        ids = np.asarray(encoding.ids, dtype=np.int64)
        starts = np.asarray([start for start, _ in encoding.offsets], dtype=np.int64)
        vectors = np.zeros((1 + len(spans), self.dimensions), dtype=np.float32)
        if not len(ids):
            return vectors
        kept = self._keep[ids] > 0
        rows = self._table[ids].astype(np.float32)
        masks = [kept] + [kept & (starts >= start) & (starts < end) for start, end in spans]
        for row, mask in enumerate(masks):
            vector = rows[mask].sum(axis=0)
            norm = float(np.linalg.norm(vector))
            if norm > 0.0:
                vectors[row] = vector / norm
        return vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector a text (float32 rows); zeros for a text of stop words alone."""
        import numpy as np

        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return vectors
        # A request's few texts one by one: ``encode_batch`` hands them to a pool of threads that
        # then spin beside OpenBLAS's, and made each matrix-vector product after it ten times slower.
        encodings = (self._tokenizer.encode_batch(list(texts), add_special_tokens=False) if len(texts) > _BATCH
                     else [self._tokenizer.encode(text, add_special_tokens=False) for text in texts])
        for row, encoding in enumerate(encodings):
            ids = np.asarray(encoding.ids, dtype=np.int64)
            ids = ids[self._keep[ids] > 0] if len(ids) else ids
            if not len(ids):
                continue
            vector = self._table[ids].astype(np.float32).sum(axis=0)
            norm = float(np.linalg.norm(vector))
            if norm > 0.0:
                vectors[row] = vector / norm
        return vectors


_LOCK = threading.Lock()


def load(folder: Path) -> Model:
    """The model of ``folder``, read by the first caller; safe from any thread."""
    with _LOCK:
        return _load(folder)


@functools.cache
def _load(folder: Path) -> Model:
    return Model(folder)


def tool_text(definition: ToolDefinition) -> str:
    """What of a tool is embedded: its name in words, its description, its parameters."""
    parts = [" ".join(_IDENTIFIER_PARTS.findall(definition.name)), definition.description]
    parts += [" ".join(_IDENTIFIER_PARTS.findall(name)) + " " + text
              for name, text in parameter_texts(definition.input_schema)]
    return ". ".join(part for part in parts if part)


@dataclass(frozen=True, slots=True)
class _Waiting:
    """A tool put and not yet embedded: its text and group. Compared by identity: the same
    slot put again is another one."""

    text: str
    group: int


@dataclass(slots=True)
class Backlog:
    """Tools waiting to be embedded, taken as they were (``Vectors.backlog``). ``embed`` needs
    nothing of the index and may run on another thread while the index changes; the index
    then takes in (``Vectors.take``) only the tools still waiting as they were."""

    folder: Path
    waiting: list[tuple[int, _Waiting]]
    vectors: np.ndarray | None = field(default=None)

    def __len__(self) -> int:
        return len(self.waiting)

    def embed(self) -> None:
        self.vectors = load(self.folder).embed([entry.text for _, entry in self.waiting])


class Vectors:
    """Each indexed tool's vector by its slot in the index. The model is read, and the tools
    put since the last search are embedded together, when a search first needs them: a
    server that is never searched never reads it. A server embeds them on a worker thread
    before searching (``backlog``, ``Backlog.embed``, ``take``), so that a first search over
    10,000 tools (about 1.5 s) does not hold its event loop; what is put meanwhile is embedded
    by the search itself, a tool in about half a millisecond.

    Each group's count, vector sum and Gram matrix are kept as tools come and go, so the mean
    and spread of any text's cosines over any groups' tools cost a 128 x 128 product, not a
    pass over every tool: a request's clauses are then compared only with the tools that may
    rank (``CANDIDATES``), and a limited search weighs them among its own groups' tools."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._matrix: np.ndarray | None = None
        self._live: np.ndarray | None = None
        self._group: np.ndarray | None = None
        self._waiting: dict[int, _Waiting] = {}
        # group -> [count, sum of vectors, sum of their outer products]
        self._moments: dict[int, list[Any]] = {}

    def put(self, slot: int, definition: ToolDefinition, group: int) -> None:
        self._waiting[slot] = _Waiting(tool_text(definition), group)

    def remove(self, slot: int) -> None:
        self._waiting.pop(slot, None)
        self._forget(slot)

    def _forget(self, slot: int) -> None:
        """Takes the slot's vector, if it has one, out of the index and its group's sums."""
        if self._live is not None and self._matrix is not None and self._group is not None \
                and slot < len(self._live) and self._live[slot]:
            self._count(int(self._group[slot]), self._matrix[slot : slot + 1], -1)
            self._live[slot] = False
            self._matrix[slot] = 0.0

    def _count(self, group: int, vectors: np.ndarray, sign: int) -> None:
        import numpy as np

        moments = self._moments.get(group)
        if moments is None:
            dimensions = vectors.shape[1]
            moments = self._moments[group] = [0, np.zeros(dimensions), np.zeros((dimensions, dimensions))]
        wide = vectors.astype(np.float64)
        moments[0] += sign * len(vectors)
        moments[1] += sign * wide.sum(axis=0)
        moments[2] += sign * (wide.T @ wide)

    def backlog(self) -> Backlog | None:
        """The tools waiting to be embedded, or None when none is."""
        return Backlog(self._folder, list(self._waiting.items())) if self._waiting else None

    def take(self, backlog: Backlog) -> None:
        """Stores the vectors of an embedded ``backlog``'s tools that still wait as they were
        (one removed or put again since is not stored: it was forgotten, or waits again)."""
        import numpy as np

        vectors = backlog.vectors
        assert vectors is not None, "a backlog is embedded before it is taken"
        rows = [row for row, (slot, entry) in enumerate(backlog.waiting) if self._waiting.get(slot) is entry]
        if not rows:
            return
        slots = [backlog.waiting[row][0] for row in rows]
        matrix, live, group = self._room(max(slots) + 1, vectors.shape[1])
        for slot in slots:
            del self._waiting[slot]
            self._forget(slot)  # a slot embedded before and put again: its old vector leaves the sums
        taken = vectors[rows]
        groups = np.asarray([backlog.waiting[row][1].group for row in rows], dtype=np.int64)
        matrix[slots] = taken
        live[slots] = True
        group[slots] = groups
        for group_id in set(groups.tolist()):
            self._count(group_id, taken[groups == group_id], 1)

    def _room(self, size: int, dimensions: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The arrays, grown (doubling) to hold at least ``size`` slots."""
        import numpy as np

        matrix = self._matrix if self._matrix is not None else np.zeros((0, dimensions), dtype=np.float32)
        live = self._live if self._live is not None else np.zeros(0, dtype=bool)
        group = self._group if self._group is not None else np.zeros(0, dtype=np.int64)
        if size > len(matrix):
            grown = max(size, 2 * len(matrix))
            matrix = np.concatenate([matrix, np.zeros((grown - len(matrix), dimensions), dtype=np.float32)])
            live = np.concatenate([live, np.zeros(grown - len(live), dtype=bool)])
            group = np.concatenate([group, np.zeros(grown - len(group), dtype=np.int64)])
        self._matrix, self._live, self._group = matrix, live, group
        return matrix, live, group

    def flush(self, size: int) -> tuple[Model, np.ndarray, np.ndarray, np.ndarray]:
        """The model, and the vectors, liveness and group of the first ``size`` slots, the
        tools still waiting embedded first (here, on the caller's thread)."""
        model = load(self._folder)
        backlog = self.backlog()
        if backlog is not None:
            backlog.embed()
            self.take(backlog)
        matrix, live, group = self._room(size, model.dimensions)
        return model, matrix[:size], live[:size], group[:size]

    def _statistics(self, vectors: np.ndarray, groups: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The mean and spread of each vector's cosines with the tools of ``groups``."""
        import numpy as np

        count = sum(self._moments[group][0] for group in groups if group in self._moments)
        if count < 2:
            return np.zeros(len(vectors)), np.ones(len(vectors))
        total = sum(self._moments[group][1] for group in groups if group in self._moments)
        gram = sum(self._moments[group][2] for group in groups if group in self._moments)
        wide = vectors.astype(np.float64)
        mean = wide @ total / count
        variance = ((wide @ gram) * wide).sum(axis=1) / count - mean ** 2
        spread = np.sqrt(np.maximum(variance, 0.0))
        spread[spread < 1e-9] = 1.0
        return mean, spread

    def scores(self, query: str, size: int, visible: np.ndarray | None, words: np.ndarray) -> np.ndarray:
        """Each slot's meaning score for ``query`` (``size`` slots; see the module's docstring):
        its cosine's z-score among the live, visible tools, half for the whole request and half
        for its best clause; 0 for the others (removed, hidden, not yet embedded). ``words`` (the
        word scores) say which tools may rank: the clauses are compared with those and with the
        whole request's nearest."""
        import numpy as np

        model, matrix, live, group = self.flush(size)
        live = live & visible if visible is not None else live
        if int(live.sum()) < 2:
            return np.zeros(size)
        groups = np.unique(group[live]).tolist() if visible is not None else list(self._moments)
        spans = clause_spans(query)
        # A request of one clause is that clause: its vector would be the same.
        queries = model.embed_with_clauses(query, spans if len(spans) > 1 else [])
        mean, spread = self._statistics(queries, groups)
        # One pass over every tool, without BLAS (see the module's docstring).
        whole = (np.einsum("ij,j->i", matrix, queries[0]) - mean[0]) / spread[0]
        result = np.where(live, whole, 0.0)
        if len(queries) > 1:
            nearest = np.argpartition(-np.where(live, whole, -np.inf), min(CANDIDATES, size - 1))[:CANDIDATES]
            strongest = np.argpartition(-words, min(CANDIDATES, size - 1))[:CANDIDATES]
            candidates = np.union1d(nearest, strongest)
            candidates = candidates[live[candidates]]
            by_clause = (np.einsum("ij,kj->ik", matrix[candidates], queries[1:]) - mean[1:]) / spread[1:]
            result[candidates] = 0.5 * result[candidates] + 0.5 * by_clause.max(axis=1)
        return result
