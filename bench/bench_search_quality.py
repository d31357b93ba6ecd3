"""How well tool search ranks: hit@1, recall@5, nDCG@10, and how it says "no match".

    python bench/bench_search_quality.py [--seal DIR] [--cli]

Sets, each split once by a hash of the query id: "tuning" (70 %) is what the engine's
weights and no-match threshold were chosen on; "held-out" (30 %) was never looked at while
tuning, and is the figure to quote.
- Seal-Tools dev (4,076 tools, 700 queries; ``--seal``, default the shared data folder).
- MetaTool (``bench/data/metatool``, MIT): 199 ChatGPT plugins described in a sentence
  each, with queries written for them by other authors (a seeded sample of 1,000
  single-tool queries and the 497 two-tool queries). No parameters, little shared wording.

Each figure is printed beside its goal (issue 16) and beside the reference measured in the
same run: plain BM25 (``bm25s``, one flat text per tool: split name, description, parameter
names and descriptions, the same tokens), when ``bm25s`` is installed. The figures do not
vary between runs (no sampling, no timing), so one round is all rounds.

"No match": a quarter of the held-out queries (seeded) lose all their relevant tools from
the catalog. Reported: the share of those answered ``no_match`` (goal 80 %); of the other
held-out queries, the share wrongly answered ``no_match`` and recall@5 with the threshold
and without it (goal: at most 2 points lower).

``--semantic`` adds, under each figure, the same searches ranked by meaning too (``[search]
semantic``, the model inside the wordllama wheel), in the same run.

``--cli`` runs every search through ``toolbay search --catalog ... --queries ... --json``
(the contract measured from outside) instead of in process; the figures must be equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbay.search.batch import run_batch
from toolbay.search.documents import definition_from_mcp, field_terms
from toolbay.search.index import SearchIndex
from toolbay.search.tokens import tokenize

HERE = Path(__file__).resolve().parent
SEAL_TOOLS_FILE = "seal-tools-tools.jsonl"
# The shared data folder beside the checkout (../shared/data/toolsearch), or beside a folder
# above it (a clone made elsewhere); --seal names another.
DEFAULT_SEAL = next((folder / "shared" / "data" / "toolsearch" for folder in HERE.parents
                     if (folder / "shared" / "data" / "toolsearch" / SEAL_TOOLS_FILE).is_file()),
                    HERE.parent.parent / "shared" / "data" / "toolsearch")
METATOOL = HERE / "data" / "metatool"


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    relevant: tuple[str, ...]


@dataclass(frozen=True)
class Scores:
    hit1: float
    recall5: float
    ndcg10: float
    no_match: float
    n: int

    def line(self, label: str) -> str:
        return (f"{label:<34} n={self.n:<5} hit@1 {self.hit1:6.2f}  recall@5 {self.recall5:6.2f}  "
                f"nDCG@10 {self.ndcg10:6.2f}  no_match {self.no_match:6.2f}%")


def held_out(query_id: str) -> bool:
    """30 % of queries, fixed by their id, never used for tuning."""
    return hashlib.sha256(query_id.encode()).digest()[0] < 77


def load_seal(folder: Path) -> tuple[list[dict[str, Any]], list[Query]]:
    if not (folder / SEAL_TOOLS_FILE).is_file():
        raise SystemExit(f"no Seal-Tools data in {folder} (no {SEAL_TOOLS_FILE}): name the folder that holds it "
                         "with --seal DIR")
    tools = []
    for line in (folder / SEAL_TOOLS_FILE).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        tools.append({"name": record["name"], "description": record["description"],
                      "inputSchema": record["parameters"]})
    queries = [Query(r["id"], r["query"], tuple(r["relevant"])) for r in map(
        json.loads, (folder / "seal-tools-dev-queries.jsonl").read_text(encoding="utf-8").splitlines())]
    return tools, queries


def load_metatool(folder: Path) -> tuple[list[dict[str, Any]], list[Query]]:
    tools = [json.loads(line) for line in (folder / "tools.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = [Query(r["id"], r["query"], tuple(r["relevant"])) for r in map(
        json.loads, (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines())]
    return tools, queries


def search_all(tools: list[dict[str, Any]], queries: Sequence[Query], limit: int, *, cli: bool,
               index: SearchIndex | None = None, semantic: bool = False) -> dict[str, tuple[list[str], bool]]:
    """Ranked names and no_match of every query, in process or through the CLI."""
    if not cli:
        definitions = [definition_from_mcp(tool) for tool in tools]
        records: Iterable[dict[str, Any]] = run_batch(
            definitions, [(q.id, q.text) for q in queries], limit,
            index=index if index is not None else SearchIndex(semantic=semantic))
    else:
        with tempfile.TemporaryDirectory() as folder:
            catalog, query_file = Path(folder) / "tools.jsonl", Path(folder) / "queries.jsonl"
            catalog.write_text("".join(json.dumps(t) + "\n" for t in tools), encoding="utf-8")
            query_file.write_text("".join(json.dumps({"id": q.id, "query": q.text}) + "\n" for q in queries),
                                  encoding="utf-8")
            output = subprocess.run(
                [sys.executable, "-m", "toolbay", "search", "--catalog", str(catalog), "--queries", str(query_file),
                 "--limit", str(limit), "--json", *(["--semantic"] if semantic else [])],
                check=True, capture_output=True, text=True).stdout
            records = [json.loads(line) for line in output.splitlines()]
    return {r["id"]: ([hit["name"] for hit in r["results"]], r["no_match"]) for r in records}


def score(queries: Sequence[Query], found: dict[str, tuple[list[str], bool]]) -> Scores:
    hit1 = recall5 = ndcg10 = no_match = 0.0
    for query in queries:
        names, said_no_match = found[query.id]
        relevant = set(query.relevant)
        hit1 += bool(names) and names[0] in relevant
        recall5 += len(relevant & set(names[:5])) / len(relevant)
        dcg = sum(1 / math.log2(rank + 2) for rank, name in enumerate(names[:10]) if name in relevant)
        ideal = sum(1 / math.log2(rank + 2) for rank in range(min(len(relevant), 10)))
        ndcg10 += dcg / ideal
        no_match += said_no_match
    n = len(queries) or 1
    return Scores(100 * hit1 / n, 100 * recall5 / n, 100 * ndcg10 / n, 100 * no_match / n, len(queries))


def no_match_experiment(tools: list[dict[str, Any]], queries: Sequence[Query], *, cli: bool,
                        seed: int = 16, semantic: bool = False) -> list[str]:
    chosen = random.Random(seed).sample(list(queries), len(queries) // 4)
    removed = {name for query in chosen for name in query.relevant}
    kept_tools = [tool for tool in tools if tool["name"] not in removed]
    others = [q for q in queries if not removed & set(q.relevant)]
    with_threshold = search_all(kept_tools, queries, 10, cli=cli, semantic=semantic)

    def unthresholded() -> SearchIndex:
        return SearchIndex(min_lead=0.0, min_sentence_lead=0.0, semantic=semantic)

    without = search_all(kept_tools, others, 10, cli=False, index=unthresholded())
    full = search_all(tools, others, 10, cli=False, index=unthresholded())
    answered_no = sum(with_threshold[q.id][1] for q in chosen)
    false_no = sum(with_threshold[q.id][1] for q in others)
    r_with = score(others, with_threshold).recall5
    r_without = score(others, without).recall5
    r_full = score(others, full).recall5
    return [
        f"  removed the {len(removed)} relevant tools of {len(chosen)} queries",
        f"  answered no_match: {answered_no}/{len(chosen)} = {100 * answered_no / len(chosen):.1f}%  (goal >= 80%)",
        f"  the other {len(others)} queries: wrongly no_match {false_no} "
        f"= {100 * false_no / max(len(others), 1):.1f}%; "
        f"recall@5 {r_with:.2f} with the threshold, {r_without:.2f} without ({r_with - r_without:+.2f}, "
        f"goal >= -2), {r_full:.2f} on the full catalog",
        *_one_removed(tools, queries, seed=seed, semantic=semantic),
    ]


def _one_removed(tools: list[dict[str, Any]], queries: Sequence[Query], *, seed: int,
                 semantic: bool) -> list[str]:
    """Not in the goal, but what a caller notices: a request for several tools one of which is
    missing should still find the others, not be answered no match. Each query of several tools
    loses one of them (seeded), searched against the catalog without it."""
    several = [q for q in queries if len(q.relevant) > 1]
    if not several:
        return []
    chooser = random.Random(seed)
    by_removed: dict[str, list[Query]] = {}
    for query in several:
        by_removed.setdefault(chooser.choice(query.relevant), []).append(query)
    wrongly_no = 0
    recall = 0.0
    for name, group in by_removed.items():
        found = search_all([tool for tool in tools if tool["name"] != name], group, 10, cli=False,
                           index=SearchIndex(semantic=semantic))
        for query in group:
            names, said_no_match = found[query.id]
            rest = set(query.relevant) - {name}
            wrongly_no += said_no_match
            recall += len(rest & set(names[:5])) / len(rest)
    return [f"  queries of several tools, one of them removed ({len(several)}): answered no_match "
            f"{wrongly_no} = {100 * wrongly_no / len(several):.1f}%; recall@5 of their other tools "
            f"{100 * recall / len(several):.2f}"]


GOALS = {"Seal-Tools": "held-out: hit@1 >= 96, nDCG@10 >= 92", "MetaTool": "held-out: nDCG@10 >= 80"}


def split_groups(queries: list[Query]) -> dict[str, list[Query]]:
    held = [q for q in queries if held_out(q.id)]
    return {
        "tuning (70 %)": [q for q in queries if not held_out(q.id)],
        "held-out (30 %)": held,
        "held-out, one tool": [q for q in held if len(q.relevant) == 1],
        "held-out, several tools": [q for q in held if len(q.relevant) > 1],
        f"all {len(queries)}": queries,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seal", type=Path, default=DEFAULT_SEAL, help="folder of the Seal-Tools files")
    parser.add_argument("--cli", action="store_true", help="search through `toolbay search` (subprocess)")
    parser.add_argument("--semantic", action="store_true", help="also rank by meaning ([search] semantic)")
    args = parser.parse_args()

    seal_tools, seal_queries = load_seal(args.seal)
    report("Seal-Tools", f"Seal-Tools dev, {len(seal_tools)} tools", seal_tools, seal_queries, cli=args.cli,
           semantic=args.semantic)
    if (METATOOL / "tools.jsonl").exists():
        meta_tools, meta_queries = load_metatool(METATOOL)
        report("MetaTool", f"MetaTool, {len(meta_tools)} tools", meta_tools, meta_queries, cli=args.cli,
               semantic=args.semantic)


def plain_bm25(tools: list[dict[str, Any]], queries: Sequence[Query]) -> dict[str, tuple[list[str], bool]] | None:
    """The reference: ``bm25s`` over one flat text a tool (every field, same tokens)."""
    try:
        import bm25s
    except ImportError:
        return None
    definitions = [definition_from_mcp(tool) for tool in tools]
    vocabulary: dict[str, int] = {}
    ids = [[vocabulary.setdefault(term, len(vocabulary)) for terms in field_terms(d) for term in terms]
           for d in definitions]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocabulary), show_progress=False)
    found: dict[str, tuple[list[str], bool]] = {}
    for query in queries:
        terms = [vocabulary[term] for term in tokenize(query.text) if term in vocabulary]
        if not terms:
            found[query.id] = ([], False)
            continue
        documents, scores = retriever.retrieve([terms], k=10, show_progress=False, n_threads=1)
        found[query.id] = ([definitions[int(i)].name for i, value in zip(documents[0], scores[0], strict=True)
                            if value > 0], False)
    return found


def report(key: str, title: str, tools: list[dict[str, Any]], queries: list[Query], *, cli: bool,
           semantic: bool = False) -> None:
    found = search_all(tools, queries, 10, cli=cli)
    by_meaning = search_all(tools, queries, 10, cli=cli, semantic=True) if semantic else None
    reference = plain_bm25(tools, queries)
    print(title + (" (through the CLI)" if cli else "") + f"; goals {GOALS[key]}")
    groups = split_groups(queries)
    for label, group in groups.items():
        print(score(group, found).line(f"  {label}"))
        if by_meaning is not None:
            print(score(group, by_meaning).line("    with meaning (--semantic)"))
        if reference is not None:
            print(score(group, reference).line("    reference, plain BM25 (bm25s)"))
    print("  No match (held-out queries):")
    for line in no_match_experiment(tools, groups["held-out (30 %)"], cli=cli):
        print("  " + line)
    if semantic:
        print("  No match, with meaning (held-out queries):")
        for line in no_match_experiment(tools, groups["held-out (30 %)"], cli=cli, semantic=True):
            print("  " + line)


if __name__ == "__main__":
    main()
