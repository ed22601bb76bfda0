"""Time on pathological documents under 2 MB (in-process, cold caches each).

1. ``'(' * N + ')' * N`` with ``recursive`` (N = 100,000 by default): one
   paragraph of nested parentheses, every cut inside ~N spans.
2. ``'[' * N + ')' * N``: openers that closers never match.
3. ``"#\\n" * 200,000`` (400 KB): 200,000 empty headings, with ``markdown``;
   then RSS kept after the document is dropped and the engine caches pruned.
4. A tiny Markdown document analysed in another thread while a ~400 KB one
   is being analysed (one segment, so one long parse): the tiny one's
   latency (it must not queue behind the large one's parse).

    python benchmarks/bench_pathological.py [--n 100000] [--skip-large]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from chunkseam.engine.analysis import analyze  # noqa: E402
from chunkseam.document.text import Document  # noqa: E402
from chunkseam.core.settings import Settings  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def clear() -> None:
    import importlib

    for mod in ("chunkseam.engine.validate", "chunkseam.chunkers.markdown", "chunkseam.chunkers.recursive",
                "chunkseam.structure.markdown", "chunkseam.structure.sentences"):
        m = importlib.import_module(mod)
        fn = getattr(m, "clear_caches", None)
        if fn is not None:
            fn()
    gc.collect()


def timed(text: str, path: str, **settings) -> tuple[float, int, int]:
    clear()
    t0 = time.perf_counter()
    a = analyze(Document(text, path=path), Settings(**settings))
    return time.perf_counter() - t0, len(a.chunks), len(a.issues)


def large_markdown(size: int) -> str:
    """~``size`` characters of Markdown with no heading after a blank line:
    one segment, so one long markdown-it parse."""
    rng = random.Random(7)
    words = "alpha beta gamma delta (note) [link](http://x.y) `code` e.g. Dr. Smith".split()
    parts, total = [], 0
    while total < size:
        kind = rng.random()
        sent = " ".join(rng.choice(words) for _ in range(rng.randint(8, 30))).capitalize() + "."
        part = f"- {sent}" if kind < 0.3 else (f"> {sent}" if kind < 0.4 else sent)
        parts.append(part)
        total += len(part) + 2
    return "\n\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--skip-large", action="store_true", help="skip the 400 KB concurrency case")
    ap.add_argument("--cases", default="brackets,headings,concurrent",
                    help="comma-separated subset of brackets, headings, concurrent")
    args = ap.parse_args()
    cases = set(args.cases.split(","))
    if args.skip_large:
        cases.discard("concurrent")
    n = args.n
    analyze(Document("# warm\n\nup.\n", path="w.md"), Settings())  # imports, tokenizer

    if "brackets" in cases:
        s, c, i = timed("(" * n + ")" * n, "p.txt", chunker="recursive")
        print(f"'(' * {n} + ')' * {n}, recursive: {s:.2f} s ({c} chunks, {i} issues)")
        s, c, i = timed("[" * n + ")" * n, "p.md", chunker="recursive")
        print(f"'[' * {n} + ')' * {n}, recursive: {s:.2f} s ({c} chunks, {i} issues)")
    if "headings" in cases:
        headings()
    if "concurrent" in cases:
        concurrent()


def headings() -> None:

    gc.collect()
    before = rss_mb()
    s, c, i = timed("#\n" * 200_000, "h.md", chunker="markdown")
    during = rss_mb()
    clear()
    after = rss_mb()
    print(f'"#\\n" * 200000 (400 KB), markdown: {s:.2f} s ({c} chunks, {i} issues); '
          f"RSS {before:.0f} MB before, {during:.0f} MB after the analysis, "
          f"{after:.0f} MB once dropped (+{after - before:.0f} MB kept)")


def concurrent() -> None:
    big = large_markdown(400_000)
    tiny = "# Tiny\n\nA short note. It has two sentences.\n"
    clear()
    started = threading.Event()
    big_seconds: list[float] = []

    def run_big() -> None:
        started.set()
        t0 = time.perf_counter()
        analyze(Document(big, path="big.md"), Settings())
        big_seconds.append(time.perf_counter() - t0)

    th = threading.Thread(target=run_big)
    th.start()
    started.wait()
    time.sleep(0.2)  # let the large analysis get into its parse
    t0 = time.perf_counter()
    analyze(Document(tiny, path="tiny.md"), Settings())
    tiny_s = time.perf_counter() - t0
    th.join()
    print(f"tiny document during a {len(big) // 1000} KB analysis: {tiny_s * 1000:.0f} ms "
          f"(the large one took {big_seconds[0]:.2f} s)")


if __name__ == "__main__":
    main()
