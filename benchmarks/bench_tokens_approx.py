"""Token counting figures over ../shared/corpus/markdown (a benchmark, not a test).

1. The approximate counter (tiktoken pre-tokenizer splits x factor): the factor
   that fits the corpus (total exact tokens / total splits) and the relative
   error of the approximation per file and per paragraph, beside ``len/4``.
2. The count cache of :class:`chunkseam.tokens.tiktoken.TokenSizer`: cost of a count
   without the cache, on a cache miss, and on a hit (the language server
   re-counts the same paragraphs after an edit).

Run: ``python benchmarks/bench_tokens_approx.py [--encodings cl100k_base,o200k_base]``
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

from chunkseam.tokens.tiktoken import (APPROX_FACTORS, COUNT_CACHE_SIZE, ApproxTokenSizer, TokenSizer,
                              encoding_spec, get_encoding)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "markdown"


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def paragraphs(texts: list[str]) -> list[str]:
    out = []
    for text in texts:
        out.extend(p for p in re.split(r"\n[ \t]*\n", text) if p.strip())
    return out


def windows(texts: list[str], chars: int = 1600) -> list[str]:
    """Chunk-sized pieces (~400 tokens): consecutive paragraphs of each file."""
    out = []
    for text in texts:
        current = ""
        for para in re.split(r"(?<=\n\n)", text):
            current += para
            if len(current) >= chars:
                out.append(current)
                current = ""
        if current.strip():
            out.append(current)
    return out


def errors(pairs: list[tuple[int, int, int]], estimate) -> list[float]:
    """Signed relative errors of ``estimate(splits, chars)`` against exact counts."""
    return [(estimate(s, n) - c) / c for s, n, c in pairs]


def row(errs: list[float]) -> str:
    a = [abs(e) for e in errs]
    under = sum(e < -0.05 for e in errs) / len(errs)
    over = sum(e > 0.05 for e in errs) / len(errs)
    return (f"{100 * statistics.median(a):5.1f} {100 * quantile(a, 0.9):5.1f} {100 * max(a):6.1f}"
            f"  {100 * under:3.0f}/{100 * over:<3.0f}")


def approx_figures(name: str, texts: list[str]) -> None:
    exact = TokenSizer(get_encoding(name), cache_size=0)
    approx = ApproxTokenSizer(name, encoding_spec(name).pat_str)
    sets = {}
    for label, items, minimum in (("files", texts, 1), ("windows", windows(texts), 50),
                                  ("paragraphs", paragraphs(texts), 20)):
        triples = [(approx.splits(t), len(t), exact.count(t)) for t in items]
        sets[label] = [t for t in triples if t[2] >= minimum]
    files = sets["files"]
    fitted = sum(c for _, _, c in files) / sum(s for s, _, _ in files)
    median_ratio = statistics.median(c / s for s, _, c in sets["windows"])
    print(f"\n== {name}: {len(files)} files, {sum(c for *_, c in files)} tokens, "
          f"{sum(s for s, *_ in files)} pre-tokenizer splits")
    print(f"total tokens / total splits: {fitted:.3f}; median tokens/splits of chunk-sized "
          f"windows: {median_ratio:.3f}; factor in use: {approx.factor}")
    print("relative error |estimate - exact| / exact in %: median p90 max, "
          "and % of pieces under/over by > 5 %")
    print(f"{'estimate':<18}" + "".join(
        f"{label + f' ({len(v)})':<31}" for label, v in sets.items()))
    candidates = sorted({1.06, 1.08, 1.10, 1.12, round(fitted, 3), approx.factor})
    for factor in candidates:
        mark = "*" if factor == approx.factor else " "
        est = lambda s, n, f=factor: max(1, round(s * f))  # noqa: E731
        print(f"{mark}splits x {factor:<7.3f} " + "".join(
            f"{row(errors(v, est)):<31}" for v in sets.values()))
    est = lambda s, n: round(n / 4)  # noqa: E731
    print(f" {'len / 4':<17}" + "".join(f"{row(errors(v, est)):<31}" for v in sets.values()))


def timeit(fn, items: list[str], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1e6


def cache_figures(paras: list[str]) -> None:
    enc = get_encoding("cl100k_base")
    # a working set that fits the cache, as one edited document's pieces do
    paras = paras[: COUNT_CACHE_SIZE // 2]
    print(f"\n== count cache (cl100k_base, {len(paras)} paragraphs, "
          f"mean {statistics.mean(map(len, paras)):.0f} chars)")
    wrapper = lambda t: len(enc.encode_ordinary(t))  # noqa: E731
    timeit(wrapper, paras, repeat=1)  # warm up the encoder
    print(f"  len(Encoding.encode_ordinary)   {timeit(wrapper, paras):7.2f} µs/piece")
    plain = TokenSizer(enc, cache_size=0)
    print(f"  TokenSizer.count, no cache     {timeit(plain.count, paras):7.2f} µs/piece")
    misses = []
    for _ in range(3):
        cold = TokenSizer(enc)
        start = time.perf_counter()
        for p in paras:
            cold.count(p)
        misses.append((time.perf_counter() - start) / len(paras) * 1e6)
    print(f"  TokenSizer.count, cache miss   {min(misses):7.2f} µs/piece")
    print(f"  TokenSizer.count, cache hit    {timeit(cold.count, paras):7.2f} µs/piece"
          f"   ({cold.cache_info()})")
    # a re-analysis after an edit: fresh string objects with equal content
    copies = [("x" + p)[1:] for p in paras]
    print(f"  cache hit, equal new strings   {timeit(cold.count, copies, repeat=1):7.2f} µs/piece")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encodings", default="cl100k_base,o200k_base")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.md"))]
    texts = [t for t in texts if t.strip()]
    print(f"factors in chunkseam.tokens.tiktoken.APPROX_FACTORS: {APPROX_FACTORS}")
    for name in args.encodings.split(","):
        approx_figures(name.strip(), texts)
    cache_figures(paragraphs(texts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
