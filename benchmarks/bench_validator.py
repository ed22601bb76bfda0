"""Validator figures over ../shared/corpus (a benchmark, not a test).

1. The labelled set (benchmarks/labelled.py): recall per bad kind and the
   false-positive rate on clean cuts, for chunkseam's source-aware validator,
   its Markdown-aware text-only mode and the field article's naive text-only
   checks, on the same cuts. Targets: recall >= 0.98 on every bad kind,
   false positives <= 2 % on clean cuts.
2. The whole Markdown corpus chunked by ``fixed`` at 500 characters: the
   broken-chunk rate (chunks with an error/warning issue) and counts per rule.
3. The whole Markdown corpus chunked by ``markdown`` at 400 tokens: the share
   of chunks charged with CS001–CS006 (target < 1 %), per rule, with examples.
4. Speed: validation time per document and per MB for both runs, and for the
   Python corpus chunked by ``code``.

Run: ``python benchmarks/bench_validator.py [--per-file 20] [--examples 5]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import labelled  # noqa: E402

from chunkseam.engine.analysis import make_chunks, sizer_for  # noqa: E402
from chunkseam.document.text import Document  # noqa: E402
from chunkseam.core.settings import Settings  # noqa: E402
from chunkseam.engine.validate import charged_chunk, statistics, total, validate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
CUT_RULES = {"CS001", "CS002", "CS003", "CS004", "CS005", "CS006"}


def load(path: Path) -> Document | None:
    try:
        return Document.from_path(path)
    except (OSError, UnicodeDecodeError):
        return None


def run_corpus(files: list[Path], settings: Settings, examples: int = 0):
    sizer = sizer_for(settings)
    stats = []
    chunk_time = 0.0
    check_time = 0.0
    chars = 0
    cut_chunks = 0
    n_chunks = 0
    per_rule_chunks: Counter[str] = Counter()
    shown: list[str] = []
    for path in files:
        doc = load(path)
        if doc is None:
            continue
        chars += len(doc.text)
        t0 = time.perf_counter()
        _, chunks = make_chunks(doc, settings, sizer)
        t1 = time.perf_counter()
        issues = validate(doc, chunks, settings, sizer=sizer)
        t2 = time.perf_counter()
        chunk_time += t1 - t0
        check_time += t2 - t1
        stats.append(statistics(chunks, issues))
        n_chunks += len(chunks)
        hit: dict[int, set[str]] = {}
        for i in issues:
            if i.code in CUT_RULES:
                c = charged_chunk(i)
                if c is not None:
                    hit.setdefault(c, set()).add(i.code)
                    if len(shown) < examples:
                        shown.append(f"    {i.code} {path.relative_to(CORPUS)}:{doc.line_col(i.cut or i.start)[0]}: "
                                     f"{i.message}")
        cut_chunks += len(hit)
        for codes in hit.values():
            per_rule_chunks.update(codes)
    return total(stats), chunk_time, check_time, chars, cut_chunks, n_chunks, per_rule_chunks, shown


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="validator benchmark")
    ap.add_argument("--per-file", type=int, default=20, help="labelled cuts per label per file")
    ap.add_argument("--examples", type=int, default=8, help="CS001–CS006 examples to show")
    ap.add_argument("--skip-labelled", action="store_true")
    args = ap.parse_args(argv)
    md_files = sorted((CORPUS / "markdown").rglob("*.md"))
    if not md_files:
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    out = sys.stdout

    if not args.skip_labelled:
        out.write(f"== labelled set: {len(md_files)} files, up to {args.per_file} cuts per label per file\n")
        t0 = time.perf_counter()
        cuts = labelled.build(md_files, per_file=args.per_file)
        results = labelled.evaluate(cuts)
        labelled.report(results, out, examples=True)
        out.write(f"   ({len(cuts)} cuts, {time.perf_counter() - t0:.1f}s)\n\n")

    s = Settings(chunker="fixed", size=500, unit="chars")
    tot, ct, vt, chars, cut_chunks, n, per_rule_chunks, _ = run_corpus(md_files, s)
    out.write(f"== fixed, 500 characters: {tot.documents} documents, {tot.chunks} chunks\n")
    out.write(f"   broken-chunk rate: {tot.rate * 100:.1f}% ({tot.chunks_with_issues} chunks with an "
              f"error/warning issue)\n")
    out.write(f"   chunks with CS001–CS006: {cut_chunks / n * 100:.1f}%  per rule (chunks): "
              + ", ".join(f"{k} {v}" for k, v in sorted(per_rule_chunks.items())) + "\n")
    out.write("   issues per rule: " + ", ".join(f"{k} {v}" for k, v in sorted(tot.per_rule.items())) + "\n")
    out.write(f"   validate: {vt * 1000 / max(tot.documents, 1):.1f} ms/document, "
              f"{vt / (chars / 1e6):.2f} s/MB (chunking {ct:.2f}s)\n\n")

    s = Settings(chunker="markdown", size=400, unit="tokens")
    tot, ct, vt, chars, cut_chunks, n, per_rule_chunks, shown = run_corpus(md_files, s, args.examples)
    share = cut_chunks / n if n else 0.0
    out.write(f"== markdown, 400 tokens: {tot.documents} documents, {tot.chunks} chunks\n")
    out.write(f"   chunks with CS001–CS006: {share * 100:.2f}% ({cut_chunks} of {n}; target < 1%) "
              f"{'OK' if share < 0.01 else 'OVER'}\n")
    out.write("   per rule (chunks): " + (", ".join(f"{k} {v}" for k, v in sorted(per_rule_chunks.items()))
                                         or "none") + "\n")
    out.write(f"   broken-chunk rate (all error/warning rules): {tot.rate * 100:.2f}%\n")
    out.write("   issues per rule: " + ", ".join(f"{k} {v}" for k, v in sorted(tot.per_rule.items())) + "\n")
    for line in shown:
        out.write(line + "\n")
    out.write(f"   validate: {vt * 1000 / max(tot.documents, 1):.1f} ms/document, "
              f"{vt / (chars / 1e6):.2f} s/MB (chunking {ct:.2f}s)\n\n")

    for name in ("recursive", "sentence"):
        s = Settings(chunker=name, size=400, unit="tokens")
        try:
            tot, ct, vt, chars, cut_chunks, n, per_rule_chunks, _ = run_corpus(md_files, s)
        except KeyError:  # chunker not available
            continue
        out.write(f"== {name}, 400 tokens (for comparison): broken-chunk rate {tot.rate * 100:.1f}%, "
                  f"chunks with CS001–CS006 {cut_chunks / max(n, 1) * 100:.1f}%  "
                  + ", ".join(f"{k} {v}" for k, v in sorted(tot.per_rule.items())) + "\n")
    out.write("\n")

    py_files = sorted((CORPUS / "python").rglob("*.py"))
    if py_files:
        s = Settings(chunker="code", size=400, unit="tokens")
        tot, ct, vt, chars, cut_chunks, n, _, _ = run_corpus(py_files, s)
        out.write(f"== code, 400 tokens, Python corpus: {tot.documents} files, {tot.chunks} chunks\n")
        out.write(f"   broken-chunk rate: {tot.rate * 100:.2f}%  issues per rule: "
                  + (", ".join(f"{k} {v}" for k, v in sorted(tot.per_rule.items())) or "none") + "\n")
        out.write(f"   validate: {vt * 1000 / max(tot.documents, 1):.1f} ms/document\n")
        s = Settings(chunker="fixed", size=500, unit="chars")
        tot, ct, vt, chars, cut_chunks, n, _, _ = run_corpus(py_files, s)
        out.write(f"== fixed, 500 characters, Python corpus: broken-chunk rate {tot.rate * 100:.1f}%  "
                  + ", ".join(f"{k} {v}" for k, v in sorted(tot.per_rule.items())) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
