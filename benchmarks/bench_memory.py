"""Memory of a long-running server: open/close cycles and many edits.

Runs the language server's own document store in-process (``DocumentStore``:
open, analyse as the worker thread does, close) so that RSS is the engine's:

1. ``--cycles`` (1,000) open/analyse/close cycles of different generated
   ~200 KB Markdown documents;
2. ``--edits`` (1,000) analysed one-line edits of one ~500 KB document, then
   its close.

RSS is read from /proc after the first document (the steady state) and after
each phase; the target (issue 15) is to stay within 150 MB of the steady
state. ``--report N`` prints the figures every N steps. At the end, on glibc,
RSS is read once more after ``malloc_trim(0)``: what the C allocator could
give back to the operating system (the rest is live: the byte-bounded caches
listed, Python's own object arenas).

    python benchmarks/bench_memory.py [--cycles 1000] [--edits 1000] [--report 100]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from lsprotocol import types  # noqa: E402

try:  # noqa: E402
    from chunkseam.core import cache
except ImportError:  # an older checkout (before byte-bounded caches), for "before" figures
    cache = None
from chunkseam.lsp.settings import EditorSettings  # noqa: E402
from chunkseam.lsp.state import DocumentStore  # noqa: E402

WORDS = ("the a system index chunk token model query answer vector store embed retrieval "
         "document section heading paragraph sentence (note) [link](http://x.y) `code` e.g. "
         "Dr. 3.14 well-known don't").split()


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def malloc_trim() -> float | None:
    """RSS (MB) after glibc's ``malloc_trim(0)``; None where there is no glibc."""
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        return None
    return rss_mb()


def generated(seed: int, size: int, flat: bool = False) -> str:
    """A Markdown document of about ``size`` characters, different per seed;
    ``flat``: no heading after a blank line, so the whole text is one segment."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    j = 0
    while total < size:
        j += 1
        block = [f"**Part {seed}-{j}** {rng.choice(WORDS)}\n" if flat
                 else f"## Section {seed}-{j} {rng.choice(WORDS)}\n"]
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            sentences = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 20))).capitalize()
                         + f" {seed}.{j}." for _ in range(rng.randint(1, 6))]
            if r < 0.7:
                block.append(" ".join(sentences) + "\n")
            elif r < 0.9:
                block.append("\n".join(f"- {s}" for s in sentences) + "\n")
            else:
                block.append(f"```python\ndef f_{seed}_{j}(x):\n    return (x, [{j}])\n```\n")
        text = "\n".join(block)
        parts.append(text)
        total += len(text) + 1
    return "\n".join(parts)


def analyse(store: DocumentStore, uri: str) -> None:
    od = store.docs[uri]
    snapshot = (uri, od.version, store.generation, od.doc, od.language_id, store.editor,
                store.encoding) + ((od.serial,) if hasattr(od, "serial") else ())
    r = store._compute(snapshot)
    assert r.error is None, r.error
    store.results[uri] = r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--report", type=int, default=250)
    ap.add_argument("--flat", action="store_true",
                    help="documents without headings after blank lines (one segment each)")
    args = ap.parse_args()
    print(f"documents: {'flat (one segment each)' if args.flat else 'sectioned'}")
    store = DocumentStore(workers=1)
    store.editor = EditorSettings.from_initialization_options({"settings": {"debounceMs": 0}})
    store.config_ready.set()

    uri = "untitled:/first.md"
    store.open(uri, generated(0, 200_000, args.flat), 1, "markdown")
    analyse(store, uri)
    store.close(uri)
    gc.collect()
    steady = rss_mb()
    print(f"steady state (after the first 200 KB document): {steady:.0f} MB")

    t0 = time.perf_counter()
    for i in range(1, args.cycles + 1):
        uri = f"untitled:/doc{i}.md"
        store.open(uri, generated(i, 200_000, args.flat), 1, "markdown")
        analyse(store, uri)
        store.close(uri)
        if i % args.report == 0 or i == args.cycles:
            gc.collect()
            print(f"  {i} open/close cycles: RSS {rss_mb():.0f} MB "
                  f"(+{rss_mb() - steady:.0f}) after {time.perf_counter() - t0:.0f} s")
    gc.collect()
    after_cycles = rss_mb()

    uri = "untitled:/big.md"
    text = generated(10**6, 500_000, args.flat)
    store.open(uri, text, 1, "markdown")
    analyse(store, uri)
    rng = random.Random(3)
    t0 = time.perf_counter()
    for v in range(2, args.edits + 2):
        od = store.docs[uri]
        line = rng.randrange(od.doc.line_count)
        store.change(uri, v, [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            text=rng.choice(["word ", "x", "More text here. ", "# New heading\n\n"]))])
        analyse(store, uri)
        if (v - 1) % args.report == 0 or v == args.edits + 1:
            gc.collect()
            print(f"  {v - 1} edits of a {len(text) // 1000} KB document: RSS {rss_mb():.0f} MB "
                  f"(+{rss_mb() - steady:.0f}) after {time.perf_counter() - t0:.0f} s")
    gc.collect()
    after_edits = rss_mb()
    store.close(uri)
    gc.collect()
    closed = rss_mb()
    store.shutdown()
    print(f"RSS: steady {steady:.0f} MB; after {args.cycles} open/close cycles {after_cycles:.0f} MB "
          f"(+{after_cycles - steady:.0f}); after {args.edits} edits {after_edits:.0f} MB "
          f"(+{after_edits - steady:.0f}); after closing it {closed:.0f} MB (+{closed - steady:.0f})")
    trimmed = malloc_trim()
    if trimmed is not None:
        print(f"after malloc_trim(0): {trimmed:.0f} MB (+{trimmed - steady:.0f}; "
              f"{closed - trimmed:.0f} MB given back)")
    for name, s in sorted(cache.all_caches().items() if cache is not None else ()):
        print(f"  cache {name}: {s['entries']} entries, ~{s['bytes'] / 2**20:.1f} of "
              f"{s['max_bytes'] / 2**20:.0f} MB")


if __name__ == "__main__":
    main()
