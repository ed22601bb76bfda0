"""Chunker throughput on ../shared/corpus/markdown, with the floor and LangChain.

For every registered strategy (``chunkseam.chunkers.names()``), chunk every
Markdown file of the corpus at 256 tokens (cl100k_base), overlap 32 tokens —
for ``sentence`` overlap is counted in sentences, so it gets 1 — and print
MB/s (UTF-8 megabytes of input per CPU second of this single-threaded
process; wall-clock seconds are printed beside). In the same run:

* the floor: markdown-it-py parse (commonmark + table + front matter, as
  chunkseam's structure does) plus tiktoken encode of the same text;
* LangChain's ``RecursiveCharacterTextSplitter.from_tiktoken_encoder(
  chunk_size=256, chunk_overlap=32)`` (encoding resolved offline);
* the ratios recursive / LangChain (target >= 2x) and markdown / floor
  (target >= 0.5x), and a check that ``recursive`` produced exactly
  LangChain's chunks.

Every pass starts cold: a fresh sizer (its count cache empty), the pysbd
sentence cache, the structure's segment-parse cache, the markdown chunker's
section cache and the recursive chunker's short-text count cache cleared,
new Document objects (so no structure is memoised). Passes are interleaved
(floor, LangChain, each strategy, then again), the garbage collector is run
before and paused during each timed pass (as ``timeit`` does), and the best
of ``--repeat`` passes is reported, which keeps other load on the machine out
of the figures as far as possible.

    python benchmarks/bench_chunkers.py [--repeat 3] [--only recursive,markdown]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "markdown"

SIZE = 256
OVERLAP = 32
#: strategies whose overlap is not in size units (sentence: in sentences), or that have none
#: (chonkie's RecursiveChunker takes no overlap: it runs with 0)
OVERLAP_BY_STRATEGY = {"sentence": 1, "chonkie": 0}


def load_corpus() -> list[str]:
    files = sorted(CORPUS.rglob("*.md"))
    if not files:
        sys.exit(f"no corpus at {CORPUS}")
    return [f.read_text(encoding="utf-8") for f in files]


def cold() -> None:
    """Forget everything cached across calls by content."""
    import importlib

    from chunkseam.chunkers import markdown, recursive

    # the modules (chunkseam/__init__ exports functions named like some of them)
    sentences = importlib.import_module("chunkseam.structure.sentences")
    structure = importlib.import_module("chunkseam.structure.markdown")
    sentences.clear_caches()
    recursive.clear_caches()
    markdown.clear_caches()  # section chunks (also keyed by sizer, which is fresh anyway)
    structure._SEGMENTS.clear()  # Markdown segment parses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes per measurement (best kept)")
    parser.add_argument("--only", default="", help="comma-separated strategies (default: all)")
    args = parser.parse_args(argv)

    import tiktoken
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    from chunkseam.tokens import tiktoken as tokens
    from chunkseam.chunkers import get, names
    from chunkseam.document.text import Document

    texts = load_corpus()
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    encoding = tokens.get_encoding("cl100k_base")
    print(f"corpus: {len(texts)} files, {mb:.2f} MB (UTF-8), {sum(map(len, texts))} characters")
    print(f"settings: {SIZE} tokens (cl100k_base), overlap {OVERLAP} "
          f"(sentence: {OVERLAP_BY_STRATEGY['sentence']} sentence); "
          f"best of {args.repeat} cold passes")

    md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)

    def floor() -> None:
        for t in texts:
            md.parse(t)
            encoding.encode_ordinary(t)

    original = tiktoken.get_encoding
    try:
        tiktoken.get_encoding = lambda name: tokens.get_encoding(name)
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        lc = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=SIZE, chunk_overlap=OVERLAP
        )
    except ImportError:
        lc = None
        print("langchain-text-splitters not installed: no LangChain figures")
    finally:
        tiktoken.get_encoding = original

    lc_output: list[list[str]] = []

    def langchain() -> None:
        lc_output.clear()
        for t in texts:
            lc_output.append(lc.split_text(t))

    strategies = [n for n in names() if not args.only or n in args.only.split(",")]
    outputs: dict[str, list] = {}

    def strategy(name: str) -> Callable[[], None]:
        chunker = get(name)
        overlap = OVERLAP_BY_STRATEGY.get(name, OVERLAP)

        def run() -> None:
            cold()
            sizer = tokens.TokenSizer(encoding)  # empty count cache
            docs = [Document(t, path=f"doc{i}.md") for i, t in enumerate(texts)]
            outputs[name] = [
                chunker.chunk(d, sizer, size=SIZE, overlap=overlap) for d in docs
            ]
            del docs  # (freed inside the timing, like any caller would)

        return run

    jobs: dict[str, Callable[[], None]] = {"floor (parse + encode)": floor}
    if lc is not None:
        jobs["LangChain recursive"] = langchain
    for name in strategies:
        jobs[name] = strategy(name)

    best = {k: float("inf") for k in jobs}  # CPU seconds of this process
    best_wall = {k: float("inf") for k in jobs}
    errors: dict[str, str] = {}
    for _ in range(max(1, args.repeat)):
        for key, job in jobs.items():
            if key in errors:
                continue
            gc.collect()
            gc.disable()  # as timeit does: no collection of other jobs' garbage
            start = time.process_time()
            start_wall = time.perf_counter()
            try:
                job()
            except Exception as exc:  # a strategy under construction must not stop the run
                errors[key] = f"{type(exc).__name__}: {exc}"
                continue
            finally:
                elapsed = time.process_time() - start
                elapsed_wall = time.perf_counter() - start_wall
                gc.enable()
            best[key] = min(best[key], elapsed)
            best_wall[key] = min(best_wall[key], elapsed_wall)

    print()
    print(f"{'':24} {'CPU s':>8} {'MB/s':>8} {'wall s':>8} {'chunks':>8}")
    for key in jobs:
        if key in errors:
            print(f"{key:24} failed: {errors[key]}")
            continue
        count = sum(map(len, outputs[key])) if key in outputs else (
            sum(map(len, lc_output)) if key.startswith("LangChain") else "")
        print(f"{key:24} {best[key]:8.3f} {mb / best[key]:8.2f} {best_wall[key]:8.3f} {count!s:>8}")
    print("(MB/s from CPU time of this process, so that other load on the machine "
          "does not skew the ratios; wall time for reference)")

    print()
    ok = True
    if lc is not None and "recursive" in outputs and "recursive" not in errors:
        ratio = best["LangChain recursive"] / best["recursive"]
        same = [[c.text for c in chunks] for chunks in outputs["recursive"]] == lc_output
        ok &= same and ratio >= 2
        print(f"recursive / LangChain throughput: {ratio:.2f}x (target >= 2x); "
              f"output identical: {'yes' if same else 'NO'}")
    if "markdown" in outputs and "markdown" not in errors:
        ratio = best["floor (parse + encode)"] / best["markdown"]
        ok &= ratio >= 0.5
        print(f"markdown / floor throughput: {ratio:.2f}x (target >= 0.5x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
