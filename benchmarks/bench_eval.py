"""What the cuts cost retrieval on the corpus evaluation set, at 256 and 512 tokens.

On ``benchmarks/eval/corpus-questions.jsonl`` (233 questions over 94 documents of
../shared/corpus), for LangChain's RecursiveCharacterTextSplitter, LlamaIndex's
SentenceSplitter and chonkie's RecursiveChunker (the real libraries, through
chunkseam's adapters), chunkseam's own structure-aware ``markdown`` splitter and
``fixed`` windows, at 256 and 512 cl100k_base tokens (overlap 0 unless
``--overlap``), print per configuration: the broken-chunk rate (chunks an error or
warning is charged to, as ``lint`` counts them), excerpt integrity (share of
reference excerpts one chunk holds whole), BM25 recall@5, complete@5 (the top 5 hold the whole excerpt), MRR and token IoU (as
Chroma's chunking evaluation defines it, top 5 chunks), and the same retrieval
figures for the questions whose excerpt a loud cut splits vs. the others.

The closing note compares, per size, the configuration with the fewest loud issues
with the one with the most, gives the Spearman rank correlation between the
broken-chunk rate and recall@5 / IoU over all configurations, and pools the
within-configuration split (questions with a loudly split excerpt vs. not).

    python benchmarks/bench_eval.py [--overlap 0] [--sizes 256,512] [--jobs 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
CORPUS = ROOT.parent / "shared" / "corpus"
QUESTIONS = ROOT / "benchmarks" / "eval" / "corpus-questions.jsonl"

SPLITTERS = (
    ("LangChain recursive", "langchain", {"splitter": "RecursiveCharacterTextSplitter"}),
    ("LlamaIndex SentenceSplitter", "llamaindex", {"splitter": "SentenceSplitter"}),
    ("chonkie recursive", "chonkie", {"splitter": "RecursiveChunker"}),
    ("chunkseam markdown", "markdown", {}),
    ("fixed", "fixed", {}),
)


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="256,512")
    ap.add_argument("--overlap", type=int, default=0)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"no corpus at {CORPUS}")

    from chunkseam.evaluation.questions import Corpus, load
    from chunkseam.evaluation.run import evaluate
    from chunkseam.core.settings import Settings

    corpus = Corpus(CORPUS)
    questions = load(QUESTIONS, corpus)
    sizes = [int(s) for s in args.sizes.split(",")]
    configs = [(f"{name} {size}", Settings(chunker=chunker, size=size, overlap=args.overlap, chunker_options=opts))
               for size in sizes for name, chunker, opts in SPLITTERS]
    mapper = None
    if args.jobs > 1:
        from chunkseam.lint.parallel import Runner

        runner = Runner(args.jobs)
        mapper = lambda f, items: runner.map(f, items)  # noqa: E731
    t0 = time.perf_counter()
    results = evaluate(questions, corpus, configs, k=args.k, mapper=mapper)
    seconds = time.perf_counter() - t0

    docs = len({q.path for q in questions})
    print(f"{len(questions)} questions over {docs} documents; BM25, k = {args.k}; overlap {args.overlap} tokens; "
          f"{seconds:.1f} s")
    head = (f"{'configuration':<34}{'chunks':>7}{'mean tok':>9}{'broken%':>9}{'integr%':>9}{'loud':>6}"
            f"{'R@5%':>7}{'C@5%':>7}{'MRR':>7}{'IoU%':>7}   {'C@5% loud | quiet (n)':>26}   {'R@5% loud | quiet':>18}"
            f"   {'IoU% loud | quiet':>18}")
    rows = []
    for r in results:
        a, loud, quiet = (r.scores(None, g).to_dict() for g in ("all", "split_loudly", "not_split_loudly"))
        rows.append({"configuration": r.label, "size": r.settings.size, "chunks": r.chunks,
                     "mean_size": r.mean_size, "broken_rate": r.broken_rate, "integrity": r.integrity,
                     "excerpts_split_loudly": sum(x.loud for x in r.excerpts), "recall_at_5": a["recall_at_k"],
                     "complete_at_5": a["complete_at_k"],
                     "mrr": a["mrr"], "iou": a["token_iou"], "loud": loud, "quiet": quiet,
                     "split_by_rule": r.split_rules(), "errors": r.errors})

    def pct(v):
        return "—" if v is None else f"{v * 100:.1f}"

    for size in sizes:
        print()
        print(head)
        for row in (x for x in rows if x["size"] == size):
            lq, qq = row["loud"], row["quiet"]
            print(f"{row['configuration']:<34}{row['chunks']:>7}{row['mean_size']:>9.1f}{pct(row['broken_rate']):>9}"
                  f"{pct(row['integrity']):>9}{row['excerpts_split_loudly']:>6}{pct(row['recall_at_5']):>7}{pct(row['complete_at_5']):>7}"
                  f"{'—' if row['mrr'] is None else format(row['mrr'], '.3f'):>7}{pct(row['iou']):>7}   "
                  f"{pct(lq['complete_at_k']):>7} | {pct(qq['complete_at_k']):>5} ({lq['questions']:>3}/{qq['questions']:>3})"
                  f"   {pct(lq['recall_at_k']):>8} | {pct(qq['recall_at_k']):>5}"
                  f"   {pct(lq['token_iou']):>8} | {pct(qq['token_iou']):>5}")
            if row["errors"]:
                print(f"    {len(row['errors'])} document(s) refused, e.g. {row['errors'][0][:200]}")
    print()
    print("Excerpts split, by the rule at the cut (clean: a cut with no issue):")
    for row in rows:
        print(f"  {row['configuration']:<34}" + ", ".join(f"{k} {v}" for k, v in row["split_by_rule"].items()))

    # the closing note
    print()
    print("Do configurations with fewer loud issues retrieve better on this set?")
    notes = []
    for size in sizes:
        rs = [x for x in rows if x["size"] == size and x["recall_at_5"] is not None]
        if len(rs) < 2:
            continue
        best = min(rs, key=lambda x: x["broken_rate"])
        worst = max(rs, key=lambda x: x["broken_rate"])
        rho_r = spearman([x["broken_rate"] for x in rs], [x["recall_at_5"] for x in rs])
        rho_i = spearman([x["broken_rate"] for x in rs], [x["iou"] for x in rs])
        rho_int = spearman([x["broken_rate"] for x in rs], [x["integrity"] for x in rs])
        d_r = (best["recall_at_5"] - worst["recall_at_5"]) * 100
        d_i = (best["iou"] - worst["iou"]) * 100
        d_c = (best["complete_at_5"] - worst["complete_at_5"]) * 100
        line = (f"  {size} tokens: fewest loud issues {best['configuration']} (broken {pct(best['broken_rate'])}%) vs. "
                f"most {worst['configuration']} (broken {pct(worst['broken_rate'])}%): recall@5 "
                f"{pct(best['recall_at_5'])} vs. {pct(worst['recall_at_5'])} ({d_r:+.1f} points), complete@5 {pct(best['complete_at_5'])} vs. {pct(worst['complete_at_5'])} "
                f"({d_c:+.1f} points), IoU "
                f"{pct(best['iou'])} vs. {pct(worst['iou'])} ({d_i:+.1f} points), integrity "
                f"{pct(best['integrity'])} vs. {pct(worst['integrity'])}, mean chunk {best['mean_size']:.0f} vs. "
                f"{worst['mean_size']:.0f} tokens; Spearman over the {len(rs)} "
                f"configurations, broken-chunk rate against recall@5 {rho_r:+.2f}, against IoU {rho_i:+.2f}, "
                f"against integrity {rho_int:+.2f}, mean chunk size against recall@5 "
                f"{spearman([x['mean_size'] for x in rs], [x['recall_at_5'] for x in rs]):+.2f}")
        print(line)
        notes.append({"size": size, "fewest": best["configuration"], "most": worst["configuration"],
                      "recall_points": d_r, "complete_points": d_c, "iou_points": d_i, "spearman_recall": rho_r, "spearman_iou": rho_i,
                      "spearman_integrity": rho_int})
    comp_l = sum(round((x["loud"]["complete_at_k"] or 0) * x["loud"]["questions"]) for x in rows)
    comp_q = sum(round((x["quiet"]["complete_at_k"] or 0) * x["quiet"]["questions"]) for x in rows)
    hits_l = sum(round((x["loud"]["recall_at_k"] or 0) * x["loud"]["questions"]) for x in rows)
    n_l = sum(x["loud"]["questions"] for x in rows)
    hits_q = sum(round((x["quiet"]["recall_at_k"] or 0) * x["quiet"]["questions"]) for x in rows)
    n_q = sum(x["quiet"]["questions"] for x in rows)
    iou_l = sum((x["loud"]["token_iou"] or 0) * x["loud"]["questions"] for x in rows) / (n_l or 1)
    iou_q = sum((x["quiet"]["token_iou"] or 0) * x["quiet"]["questions"] for x in rows) / (n_q or 1)
    print(f"  within configurations, pooled: questions whose excerpt a loud cut splits: recall@5 "
          f"{hits_l / (n_l or 1) * 100:.1f}%, complete@5 {comp_l / (n_l or 1) * 100:.1f}% (n = {n_l}), IoU "
          f"{iou_l * 100:.1f}%; the others: recall@5 {hits_q / (n_q or 1) * 100:.1f}%, complete@5 "
          f"{comp_q / (n_q or 1) * 100:.1f}% (n = {n_q}), IoU {iou_q * 100:.1f}%")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "notes": notes, "seconds": seconds}, indent=2),
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
