"""Study of the no-match decision (issue 16): which features of a search tell "the tool asked
for is not in the catalog" from "it is", on the TUNING queries only.

    python bench/study_no_match.py [--seal DIR] [--seeds N] [--held-out]

For each set and each of ``--seeds`` seeds, the outside check is replayed on the tuning
queries: a quarter of them (seeded) lose all their relevant tools, and every query is searched
on what is left. A query whose tools were removed should be answered no match ("chosen"); a
query none of whose tools was removed should not ("others"), and answering it no match costs
its recall@5. Per query a few features are computed (see ``features``); for each feature, and
for a few simple rules, the trade-off is printed: the share of the chosen caught against the
recall@5 the others lose (points), pooled over the seeds. The full catalog is searched too
(the loss of nDCG@10 there).

``--held-out`` evaluates the rules fixed in ``CHOSEN`` once on the held-out queries, with
the bench's own seed (16), as bench_search_quality does.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search_quality import DEFAULT_SEAL, METATOOL, Query, held_out, load_metatool, load_seal  # noqa: E402

from toolbay.search.documents import definition_from_mcp  # noqa: E402
from toolbay.search.index import SearchIndex, _ReadOnce  # noqa: E402
from toolbay.search.query import clauses  # noqa: E402
from toolbay.search.tokens import is_pictograph, stem_of, stems, tokenize  # noqa: E402

FEATURES = ("top", "lead2", "lead5", "lead10", "rel10", "cov", "covmax", "rare", "rare1", "near90",
            "name", "namemax", "wtop", "wlead10", "clause_top_max", "clause_top_mean", "clause_cov_max",
            "clause_cov_mean", "clause_cov_min", "rev", "revmax", "revdesc", "revsum", "s_wtop_max", "s_wlead10_max",
            "s_lead10_max", "s_wlead5_max", "c_wlead10_max", "c_wtop_max",
            "s_wlead10_min", "s_wlead10_mean", "n_sent", "s_wtop_mean", "s_wlead5_mean",
            "s_lead10_mean", "c_wlead10_mean", "s_wlead2_mean", "s_wrel10_mean", "s_wlead10_med", "today")


def build(tools: list[dict], min_lead: float = 0.0) -> SearchIndex:
    index = SearchIndex(min_lead=min_lead, min_sentence_lead=0.0)
    index.put_many(definition_from_mcp(tool) for tool in tools)
    return index


def query_weights(index: SearchIndex, terms: list[str]) -> dict[str, float]:
    """Each distinct term of the query (no pictographs) and its idf (a term no tool has: the
    highest)."""
    count = len(index)
    weights = {}
    for term in dict.fromkeys(terms):
        if is_pictograph(term):
            continue
        weights[term] = index._idf(count, len(index._postings.get(term, ())))
    return weights


def coverage(index: SearchIndex, key: str, weights: dict[str, float]) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    counts = index._documents[key].counts
    return sum(w for t, w in weights.items() if t in counts) / total


def name_share(index: SearchIndex, key: str, said: set[str]) -> float:
    """The share of the tool's name weight (idf) that the request says."""
    document = index._documents[key]
    total = missing = 0.0
    for term in document.name_terms:
        weight = index._name_word_weight(term, document.group)
        total += weight
        if term not in said and stem_of(term) not in said:
            missing += weight
    return 1.0 - missing / total if total > 0 else 1.0


_SENTENCES = re.compile(r"[.;!?\n]+\s")


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCES.split(text) if part and not part.isspace()]


def said_share(index: SearchIndex, key: str, said: set[str], fields: tuple[int, ...] = (0, 1)) -> float:
    """The share of the tool's own words (name and description, each distinct word by its idf)
    that the request says: a request written for this tool says most of what it is."""
    document = index._documents[key]
    count = len(index)
    total = hit = 0.0
    for term, counts in document.counts.items():
        if not any(counts[i] for i in fields):
            continue
        weight = index._idf(count, len(index._postings.get(term, ())))
        total += weight
        if term in said or stem_of(term) in said:
            hit += weight
    return hit / total if total > 0 else 0.0


def features(index: SearchIndex, text: str) -> dict[str, float] | None:
    """None when the search answers by an exact name (never no match)."""
    if index._exact_names(text):
        return None
    terms = tokenize(text)
    ranked, ceiling, known, ordered = index._ranked(text, terms, None, 30, exclude=set(), read=_ReadOnce())
    f: dict[str, float] = {}
    if not ranked or ceiling <= 0:
        return {name: 0.0 for name in FEATURES} | {"today": 1.0}
    s = [score for _, score in ranked] + [0.0] * 30
    f["top"] = s[0] / ceiling
    f["lead2"] = (s[0] - s[1]) / ceiling
    f["lead5"] = (s[0] - s[4]) / ceiling
    f["lead10"] = (s[0] - s[9]) / ceiling
    f["rel10"] = 1 - s[9] / s[0]
    f["near90"] = -sum(1 for x in s if x >= 0.9 * s[0])  # fewer near the best: more of a match
    weights = query_weights(index, terms)
    best = ranked[0][0]
    f["cov"] = coverage(index, best, weights)
    f["covmax"] = max(coverage(index, key, weights) for key, _ in ranked[:10])
    known_terms = {t: w for t, w in weights.items() if t in index._postings}
    rare = dict(sorted(known_terms.items(), key=lambda kv: -kv[1])[:3])
    f["rare"] = coverage(index, best, rare) if rare else 0.0
    rare1 = dict(sorted(known_terms.items(), key=lambda kv: -kv[1])[:1])
    f["rare1"] = max(coverage(index, key, rare1) for key, _ in ranked[:10]) if rare1 else 0.0
    said = set(terms) | set(stems(terms))
    weighed = index._weighed_by_name(terms, ordered)
    f["name"] = name_share(index, weighed[0][0], said)
    f["namemax"] = max(name_share(index, key, said) for key, _ in weighed[:5])
    w = [score for _, score in weighed] + [0.0] * 30
    f["wtop"] = w[0] / ceiling
    f["wlead10"] = (w[0] - w[9]) / ceiling
    f["rev"] = said_share(index, weighed[0][0], said)
    f["revmax"] = max(said_share(index, key, said) for key, _ in weighed[:10])
    f["revdesc"] = max(said_share(index, key, said, fields=(1,)) for key, _ in weighed[:10])
    f["revsum"] = max(w[i] / ceiling * said_share(index, key, said) for i, (key, _) in enumerate(weighed[:10]))
    # Clause by clause: each clause of two terms or more searched alone.
    tops, covs = [], []
    for clause in clauses(text):
        clause_terms = tokenize(clause)
        if len(clause_terms) < 2:
            continue
        c_ranked, c_ceiling, _, _ = index._ranked(clause, clause_terms, None, 10, exclude=set(), read=_ReadOnce())
        if not c_ranked or c_ceiling <= 0:
            tops.append(0.0)
            covs.append(0.0)
            continue
        tops.append(c_ranked[0][1] / c_ceiling)
        covs.append(coverage(index, c_ranked[0][0], query_weights(index, clause_terms)))
    tops = tops or [f["top"]]
    covs = covs or [f["cov"]]
    f["clause_top_max"], f["clause_top_mean"] = max(tops), sum(tops) / len(tops)
    f["clause_cov_max"], f["clause_cov_mean"], f["clause_cov_min"] = max(covs), sum(covs) / len(covs), min(covs)
    # Sentence by sentence (and clause by clause), each searched alone, names weighed.
    for prefix, parts in (("s", sentences(text)), ("c", clauses(text))):
        tops, leads, wtops, wleads, wleads5, wleads2, wrels = [], [], [], [], [], [], []
        for part in parts:
            part_terms = tokenize(part)
            if len(part_terms) < 2:
                continue
            p_ranked, p_ceiling, _, p_ordered = index._ranked(part, part_terms, None, 30, exclude=set(),
                                                              read=_ReadOnce())
            if not p_ranked or p_ceiling <= 0:
                continue
            ps = [score for _, score in p_ranked] + [0.0] * 30
            pw = [score for _, score in index._weighed_by_name(part_terms, p_ordered)] + [0.0] * 30
            tops.append(ps[0] / p_ceiling)
            leads.append((ps[0] - ps[9]) / p_ceiling)
            wtops.append(pw[0] / p_ceiling)
            wleads.append((pw[0] - pw[9]) / p_ceiling)
            wleads5.append((pw[0] - pw[4]) / p_ceiling)
            wleads2.append((pw[0] - pw[1]) / p_ceiling)
            wrels.append(1 - pw[9] / pw[0] if pw[0] > 0 else 0.0)
        if not tops:
            tops, leads, wtops, wleads, wleads5 = [f["top"]], [f["lead10"]], [f["wtop"]], [f["wlead10"]], [f["wlead10"]]
            wleads2, wrels = [0.0], [0.0]
        f[f"{prefix}_wtop_max"] = max(wtops)
        f[f"{prefix}_wlead10_max"] = max(wleads)
        f[f"{prefix}_lead10_max"] = max(leads)
        f[f"{prefix}_wlead5_max"] = max(wleads5)
        f[f"{prefix}_wlead10_min"] = min(wleads)
        f[f"{prefix}_wlead10_mean"] = sum(wleads) / len(wleads)
        f[f"{prefix}_wtop_mean"] = sum(wtops) / len(wtops)
        f[f"{prefix}_wlead5_mean"] = sum(wleads5) / len(wleads5)
        f[f"{prefix}_lead10_mean"] = sum(leads) / len(leads)
        f[f"{prefix}_wlead2_mean"] = sum(wleads2) / len(wleads2)
        f[f"{prefix}_wrel10_mean"] = sum(wrels) / len(wrels)
        f[f"{prefix}_wlead10_med"] = float(np.median(wleads))
    f["n_sent"] = -len(sentences(text))
    # Today's answer (the bench's default lead).
    verdict = index._verdict(ranked, ceiling, known)
    f["today"] = float(verdict is True or (verdict is None and f["lead10"] < 0.055))
    # Sign: larger = more of a match, for every feature but "today".
    return f


def recall5(names: list[str], relevant: Sequence[str]) -> float:
    return len(set(relevant) & set(names[:5])) / len(relevant)


def ndcg10(names: list[str], relevant: Sequence[str]) -> float:
    dcg = sum(1 / math.log2(rank + 2) for rank, name in enumerate(names[:10]) if name in relevant)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(len(relevant), 10)))
    return dcg / ideal


def collect(tools: list[dict], queries: list[Query], seeds: Sequence[int]) -> dict[str, list]:
    """Rows of (features, kind, value): kind "chosen" (should be no match), "other" (value:
    its recall@5 on the reduced catalog), "full" (value: its nDCG@10 on the full catalog)."""
    rows: dict[str, list] = {"chosen": [], "other": [], "full": []}
    full = build(tools)
    for query in queries:
        f = features(full, query.text)
        names = [hit.name for hit in full.search(query.text, 10).hits]
        rows["full"].append((f, ndcg10(names, query.relevant), recall5(names, query.relevant)))
    for seed in seeds:
        chosen = random.Random(seed).sample(list(queries), len(queries) // 4)
        removed = {name for query in chosen for name in query.relevant}
        index = build([tool for tool in tools if tool["name"] not in removed])
        chosen_ids = {query.id for query in chosen}
        for query in queries:
            if query.id in chosen_ids:
                rows["chosen"].append((features(index, query.text), 0.0, 0.0))
            elif not removed & set(query.relevant):
                names = [hit.name for hit in index.search(query.text, 10).hits]
                rows["other"].append((features(index, query.text), recall5(names, query.relevant), 0.0))
    return rows


def matrix(rows: list, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Feature matrix (exact-name rows: +inf, never flagged) and values."""
    x = np.array([[(f[n] if f is not None else np.inf) for n in names] for f, _, _ in rows], dtype=float)
    return x, np.array([v for _, v, _ in rows])


def trade_off(flag_chosen: np.ndarray, flag_other: np.ndarray, recall_other: np.ndarray) -> tuple[float, float]:
    caught = 100 * flag_chosen.mean()
    loss = 100 * (flag_other * recall_other).sum() / len(recall_other)
    return caught, loss


def curve(score_chosen: np.ndarray, score_other: np.ndarray, recall_other: np.ndarray,
          budgets: Sequence[float] = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0)) -> list[tuple[float, float, float]]:
    """For each loss budget: the best (caught, loss, threshold) with "flag when score < t"."""
    thresholds = np.unique(np.concatenate([score_chosen[np.isfinite(score_chosen)],
                                           score_other[np.isfinite(score_other)]]))
    points = []
    for t in thresholds:
        points.append((*trade_off(score_chosen < t, score_other < t, recall_other), float(t)))
    out = []
    for budget in budgets:
        fit = [p for p in points if p[1] <= budget + 1e-9]
        out.append(max(fit, key=lambda p: (p[0], -p[1])) if fit else (0.0, 0.0, float("nan")))
    return out


def logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, steps: int = 50, l2: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton steps; returns (bias, coefficients...)."""
    a = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(a.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(a @ beta, -30, 30)))
        g = a.T @ (weight * (p - y)) + l2 * beta
        h = (a * (weight * p * (1 - p))[:, None]).T @ a + l2 * np.eye(len(beta))
        beta -= np.linalg.solve(h, g)
    return beta


def study(key: str, tools: list[dict], queries: list[Query], seeds: Sequence[int]) -> dict:
    rows = collect(tools, queries, seeds)
    chosen = [r for r in rows["chosen"] if r[0] is not None]
    n_exact = len(rows["chosen"]) - len(chosen)
    others = rows["other"]
    print(f"\n== {key}: {len(queries)} tuning queries, seeds {list(seeds)}: {len(rows['chosen'])} chosen "
          f"({n_exact} found by exact name), {len(others)} others; full-catalog recall@5 of others' kind: "
          f"{100 * np.mean([r[1] for r in others]):.2f}")
    xc, _ = matrix(chosen, FEATURES)
    xo, ro = matrix(others, FEATURES)
    today_c, today_o = xc[:, FEATURES.index("today")], xo[:, FEATURES.index("today")]
    c, loss = trade_off(today_c > 0.5, today_o > 0.5, ro)
    print(f"  today (lead 0.055): caught {c:.1f}%  recall@5 loss {loss:.2f}")
    header = "  ".join(f"loss<={b:<3}" for b in (0.0, 0.5, 1.0, 2.0, 3.0, 5.0))
    print(f"  {'feature':<18} caught % at   {header}")
    for i, name in enumerate(FEATURES[:-1]):
        points = curve(xc[:, i], xo[:, i], ro)
        print(f"  {name:<18}              " + "  ".join(f"{p[0]:5.1f}@{p[2]:<7.3f}" for p in points))
    return {"rows": rows, "chosen": xc, "others": xo, "recall": ro}


def combos(results: dict[str, dict], sets: list[list[str]]) -> None:
    """Logistic regression on each set of features, fitted on the tuning rows of both sets
    pooled (each set weighted equally; an "other" weighted by its recall@5, what flagging it
    costs), the threshold swept per set."""
    for names in sets:
        idx = [FEATURES.index(n) for n in names]
        xs, ys, ws = [], [], []
        for data in results.values():
            xc, xo, ro = data["chosen"][:, idx], data["others"][:, idx], data["recall"]
            xc = np.where(np.isfinite(xc), xc, 5.0)
            xo = np.where(np.isfinite(xo), xo, 5.0)
            xs += [xc, xo]
            ys += [np.ones(len(xc)), np.zeros(len(xo))]
            ws += [np.full(len(xc), 1.0 / len(xc)), (ro + 0.05) / (ro + 0.05).sum()]
        beta = logistic(np.vstack(xs), np.concatenate(ys), np.concatenate(ws))
        print(f"\n  logistic {names}: beta {np.round(beta, 2).tolist()}")
        for key, data in results.items():
            sc = -(np.where(np.isfinite(data['chosen'][:, idx]), data['chosen'][:, idx], 5.0) @ beta[1:] + beta[0])
            so = -(np.where(np.isfinite(data['others'][:, idx]), data['others'][:, idx], 5.0) @ beta[1:] + beta[0])
            points = curve(sc, so, data["recall"])
            print(f"    {key:<11} " + "  ".join(f"{p[0]:5.1f}%@{p[1]:.2f}(t={p[2]:.2f})" for p in points))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seal", type=Path, default=DEFAULT_SEAL)
    parser.add_argument("--seeds", type=int, default=6)
    args = parser.parse_args()
    seeds = list(range(100, 100 + args.seeds))
    results = {}
    seal_tools, seal_queries = load_seal(args.seal)
    results["Seal-Tools"] = study("Seal-Tools", seal_tools, [q for q in seal_queries if not held_out(q.id)], seeds)
    meta_tools, meta_queries = load_metatool(METATOOL)
    results["MetaTool"] = study("MetaTool", meta_tools, [q for q in meta_queries if not held_out(q.id)], seeds)
    combos(results, [["s_wlead10_mean", "wlead10"], ["s_wlead10_mean", "s_wtop_mean"],
                     ["s_wlead10_mean", "wlead10", "wtop"], ["s_wlead10_mean", "s_wlead10_min", "s_wlead10_max"],
                     ["s_wlead10_mean", "namemax"], ["s_wlead10_mean", "wlead10", "namemax", "n_sent"],
                     ["top", "lead10"], ["cov", "lead10"], ["namemax", "lead10"], ["top", "lead10", "namemax"],
                     ["top", "lead10", "cov"], ["clause_top_max", "lead10", "top"],
                     ["wtop", "wlead10", "namemax"], ["top", "lead10", "namemax", "clause_top_mean", "cov"]])


if __name__ == "__main__":
    main()


def joint(results: dict[str, dict], score_of, label: str, budgets: Sequence[float] = (0.0, 0.5, 1.0, 1.5, 2.0)) -> None:
    """One rule for both sets: "flag when score < t", t swept; for each budget, the t that
    catches most of Seal-Tools' chosen (then MetaTool's) with both sets' loss within it."""
    scored = {}
    for key, data in results.items():
        sc, so = score_of(data["chosen"]), score_of(data["others"])
        scored[key] = (np.where(np.isfinite(sc), sc, np.inf), np.where(np.isfinite(so), so, np.inf), data["recall"])
    thresholds = np.unique(np.concatenate([np.quantile(v[0][np.isfinite(v[0])], np.linspace(0, 1, 400))
                                           for v in scored.values()]))
    points = []
    for t in thresholds:
        point = [t]
        for sc, so, ro in scored.values():
            point += list(trade_off(sc < t, so < t, ro))
        points.append(point)
    out = []
    for budget in budgets:
        fit = [p for p in points if max(p[2], p[4]) <= budget + 1e-9]
        best = max(fit, key=lambda p: (p[1], p[3])) if fit else None
        out.append(f"<={budget}: " + (f"S {best[1]:4.1f}%/{best[2]:.2f} M {best[3]:4.1f}%/{best[4]:.2f} t={best[0]:.3f}"
                                      if best else "-"))
    print(f"  {label:<40} " + " | ".join(out))


def column(name: str):
    i = FEATURES.index(name)
    return lambda x: x[:, i]
