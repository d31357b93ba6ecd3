"""How fast tool search answers and follows a change, at 10,000 tools, in process.

    python bench/bench_search_speed.py [--seal DIR] [--tools 10000] [--rounds 5] [--semantic]

The catalog: the 4,076 Seal-Tools tools, then copies of them renamed (``nameV2``, ...)
with their descriptions' words rotated, up to ``--tools``. Queries: the 700 dev queries.

Each round prints, and the end prints minimum and median over rounds:
- search: p50 and p95 of one query's CPU time (``thread_time_ns``), and p50 of its wall
  time (on a machine shared with others, wall time also counts waiting for a core); and the p50
  as a server searches for a caller (a tenth of the tools in a catalog folder it may not search,
  and whether it may know each tool taken asked of it);
- the longest request a caller may send (2,000 characters) written as 150-odd short clauses
  ("send mail, merge json, ..."), each weighed on its own: the worst case of one search's CPU;
- update (CPU time): replacing the tools of one changed file (one tool whose description changed)
  and removing one, as the catalog's hot reload does;
- with ``--semantic``, the same search and update with meaning (``[search] semantic``), on a
  second index of the same tools; its update counts embedding the changed tool (the next
  search would), and the first search over all the tools (reading the model, embedding every
  tool) is printed once;
- reference, measured in the same round: the same queries with ``bm25s`` (numpy sparse
  matrices; tokens from the same tokenizer), and its full rebuild, which is what an
  update would cost with it, since it has no incremental add or remove.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench_search_quality import DEFAULT_SEAL, load_seal

from toolbay.handlers.base import ToolDefinition
from toolbay.handlers.search import MAX_QUERY_CHARS
from toolbay.search.documents import definition_from_mcp, field_terms
from toolbay.search.index import SearchIndex


def catalog_of(size: int, seal: Path) -> list[ToolDefinition]:
    tools, _ = load_seal(seal)
    base = [definition_from_mcp(tool) for tool in tools]
    definitions = list(base)
    copy = 2
    while len(definitions) < size:
        for definition in base:
            if len(definitions) >= size:
                break
            words = definition.description.split()
            shift = copy % max(len(words), 1)
            definitions.append(replace(definition, name=f"{definition.name}V{copy}",
                                       description=" ".join(words[shift:] + words[:shift])))
        copy += 1
    return definitions


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def search_round(index: SearchIndex, queries: list[str], groups: list[str] | None = None,
                 allowed: Callable[[str], bool] | None = None) -> tuple[float, float, float]:
    """p50 and p95 of one query's CPU time (this thread's), and p50 of its wall time."""
    cpu, wall = [], []
    for query in queries:
        started, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
        index.search(query, 10, allowed, groups=groups)
        cpu.append((time.thread_time_ns() - started_cpu) / 1e6)
        wall.append((time.perf_counter_ns() - started) / 1e6)
    return percentile(cpu, 0.5), percentile(cpu, 0.95), percentile(wall, 0.5)


def longest_request(queries: list[str]) -> str:
    """2,000 characters of two-word clauses made of the queries' words (``MAX_QUERY_CHARS``)."""
    words = sorted({word for query in queries for word in query.lower().split() if word.isalpha()})
    clauses = (f"{words[(7 * i) % len(words)]} {words[(13 * i + 5) % len(words)]}" for i in range(10_000))
    return ", ".join(clauses)[:MAX_QUERY_CHARS]


def longest_request_ms(index: SearchIndex, request: str, times: int = 5) -> float:
    """The median CPU time of searching ``request``."""
    spent = []
    for _ in range(times):
        started = time.thread_time_ns()
        index.search(request, 10)
        spent.append((time.thread_time_ns() - started) / 1e6)
    return statistics.median(spent)


def update_round(index: SearchIndex, definitions: list[ToolDefinition], round_number: int) -> tuple[float, float]:
    target = definitions[(round_number * 997) % len(definitions)]
    changed = replace(target, description=target.description + f" revised {round_number}")
    started = time.thread_time_ns()
    index.put(changed)
    backlog = index.meaning_backlog()
    if backlog is not None:  # with meaning: the changed tool embedded, as the next search would
        backlog.embed()
        index.take_meaning(backlog)
    put_ms = (time.thread_time_ns() - started) / 1e6
    started = time.thread_time_ns()
    index.remove(changed.name)
    remove_ms = (time.thread_time_ns() - started) / 1e6
    index.put(target)
    return put_ms, remove_ms


def bm25s_round(definitions: list[ToolDefinition], queries: list[str]) -> tuple[float, float] | None:
    try:
        import bm25s
    except ImportError:
        return None
    corpus = [[term for terms in field_terms(d) for term in terms] for d in definitions]
    started = time.thread_time_ns()
    retriever = bm25s.BM25()
    vocabulary: dict[str, int] = {}
    ids = [[vocabulary.setdefault(term, len(vocabulary)) for term in doc] for doc in corpus]
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocabulary), show_progress=False)
    build_ms = (time.thread_time_ns() - started) / 1e6
    from toolbay.search.tokens import tokenize

    times = []
    for query in queries:
        started = time.thread_time_ns()
        terms = [[term for term in tokenize(query) if term in vocabulary] or [next(iter(vocabulary))]]
        retriever.retrieve(terms, k=10, show_progress=False, n_threads=1)
        times.append((time.thread_time_ns() - started) / 1e6)
    return percentile(times, 0.5), build_ms


def summary(label: str, values: list[float], unit: str = "ms") -> str:
    return f"{label:<42} min {min(values):8.3f} {unit}   median {statistics.median(values):8.3f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seal", type=Path, default=DEFAULT_SEAL)
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--semantic", action="store_true", help="also time the search with meaning")
    args = parser.parse_args()

    definitions = catalog_of(args.tools, args.seal)
    _, seal_queries = load_seal(args.seal)
    queries = [query.text for query in seal_queries]
    started = time.perf_counter()
    index = SearchIndex()
    index.put_many(definitions)
    print(f"{len(index)} tools indexed in {time.perf_counter() - started:.2f} s; {len(queries)} queries a round")
    # As a server searches for a caller: a tenth of the tools in a catalog folder it may not
    # search, scored as if they were not there, and whether the caller may know each tool asked of
    # those it would take (here a look-up in the names it may know: every tool of its groups).
    in_catalog = {definition.name for definition in definitions[::10]}
    may_know = {definition.name for definition in definitions} - in_catalog
    limited = SearchIndex(group_of=lambda key, definition: "catalog:hidden" if key in in_catalog else "")
    limited.put_many(definitions)
    meaning = None
    if args.semantic:
        meaning = SearchIndex(semantic=True)
        meaning.put_many(definitions)
        # What a server's first search does on a worker thread (Disclosure._embed_off_loop).
        started, started_cpu = time.perf_counter(), time.process_time()
        backlog = meaning.meaning_backlog()
        assert backlog is not None
        backlog.embed()
        meaning.take_meaning(backlog)
        print(f"with meaning, before the first search: the model read and {len(backlog)} tools embedded in "
              f"{time.perf_counter() - started:.2f} s wall, {time.process_time() - started_cpu:.2f} s CPU (all"
              " threads)")
    results: dict[str, list[float]] = {}
    longest = longest_request(queries)
    for round_number in range(1, args.rounds + 1):
        p50, p95, wall = search_round(index, queries)
        longest_ms = longest_request_ms(index, longest)
        limited_p50, _, _ = search_round(limited, queries, ["", "personal:caller"], may_know.__contains__)
        put_ms, remove_ms = update_round(index, definitions, round_number)
        line = (f"round {round_number}: search CPU p50 {p50:.3f} ms, p95 {p95:.3f} ms (wall p50 {wall:.3f}), "
                f"as a server (a caller's groups and rights) {limited_p50:.3f} ms, "
                f"longest request {longest_ms:.2f} ms; "
                f"update one file {put_ms:.3f} ms, "
                f"remove one {remove_ms:.3f} ms")
        row = {"search CPU p50": p50, "search CPU p95": p95, "search wall p50": wall,
               "search CPU p50 as a server": limited_p50, "longest request (2,000 characters)": longest_ms,
               "update one file": put_ms,
               "remove one tool": remove_ms}
        if meaning is not None:
            m50, m95, mwall = search_round(meaning, queries)
            m_longest = longest_request_ms(meaning, longest)
            m_put, m_remove = update_round(meaning, definitions, round_number)
            line += (f" | with meaning: search CPU p50 {m50:.3f} ms, p95 {m95:.3f} ms (wall p50 {mwall:.3f}), "
                     f"longest request {m_longest:.2f} ms, update one file {m_put:.3f} ms")
            row.update({"with meaning: search CPU p50": m50, "with meaning: search CPU p95": m95,
                        "with meaning: search wall p50": mwall, "with meaning: longest request": m_longest,
                        "with meaning: update one file": m_put, "with meaning: remove one tool": m_remove})
        reference = bm25s_round(definitions, queries)
        if reference is not None:
            row["bm25s search CPU p50 (reference)"], row["bm25s full rebuild (reference)"] = reference
            line += f" | bm25s: search CPU p50 {reference[0]:.3f} ms, rebuild {reference[1]:.1f} ms"
            line += f" | search ratio {p50 / reference[0]:.2f}x, update ratio {put_ms / reference[1]:.4f}x"
        print(line, flush=True)
        for key, value in row.items():
            results.setdefault(key, []).append(value)
    print(f"over {args.rounds} rounds:")
    for key, values in results.items():
        print(summary(key, values))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
