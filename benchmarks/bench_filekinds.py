"""Throughput per file kind beside the floor of that kind's parser, in one run.

For each kind with files in ../shared/corpus (``*.md`` and ``*.mdx`` under
markdown/; TypeScript, Go, Rust and Java under code/ with the ``code`` extra), chunk every file with the strategy it is routed to (``markdown``
at 256 cl100k tokens) and print MB/s (UTF-8 megabytes of input per CPU second
of this single-threaded process). In the same run, the floor: the kind's
parser alone plus tiktoken encode of the same text — markdown-it-py
(commonmark + table + front matter) for Markdown, the same with the MDX rules
of ``chunkseam.structure.mdx`` for MDX, docutils' reStructuredText parser (with the
safe settings of ``chunkseam.structure.rst``) for reStructuredText, ``json.loads`` of the
file and markdown-it on its view for Jupyter notebooks, the tree-sitter parse of
the language for code — and the ratio strategy / floor (target >= 0.5x).

Every pass starts cold (segment-parse, section and sentence caches cleared,
new Document objects); passes are interleaved and the best of ``--repeat``
is kept, with the garbage collector run before and paused during each pass.

    python benchmarks/bench_filekinds.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

SIZE = 256
#: kind -> (glob under the corpus, file name for the Document)
KINDS = {"markdown": ("markdown/**/*.md", "doc.md"), "mdx": ("markdown/**/*.mdx", "doc.mdx"),
         "rst": ("rst/**/*.rst", "doc.rst")}


def cold() -> None:
    import importlib

    from chunkseam.chunkers import markdown

    importlib.import_module("chunkseam.structure.sentences").clear_caches()
    importlib.import_module("chunkseam.structure.markdown")._SEGMENTS.clear()
    markdown.clear_caches()


def best(fn: Callable[[], None], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        cold()
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            fn()
            times.append(time.process_time() - t0)
        finally:
            gc.enable()
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes per measurement (best kept)")
    args = parser.parse_args(argv)

    from chunkseam.tokens import tiktoken as tokens
    from chunkseam.chunkers import get
    from chunkseam.document.text import Document
    from chunkseam.structure.mdx import mdx_plugin
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    encoding = tokens.get_encoding("cl100k_base")
    parsers = {
        "markdown": MarkdownIt("commonmark").enable("table").use(front_matter_plugin),
        "mdx": MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(mdx_plugin),
    }
    class _Docutils:  # the reStructuredText floor: docutils' parse, as chunkseam.structure.rst runs it
        @staticmethod
        def parse(text: str) -> None:
            from chunkseam.structure.rst import _docutils_tree

            _docutils_tree(text)

    parsers["rst"] = _Docutils()
    strategy = get("markdown")
    print(f"settings: markdown (code for code) strategy at {SIZE} tokens (cl100k_base); "
          f"best of {args.repeat} cold passes")
    print(f"{'kind':10} {'files':>6} {'MB':>7} {'floor MB/s':>11} {'strategy MB/s':>14} {'ratio':>6}")
    for kind, (pattern, name) in KINDS.items():
        files = sorted(CORPUS.glob(pattern))
        if not files:
            print(f"{kind:10} no files at {CORPUS / pattern}")
            continue
        texts = [f.read_text(encoding="utf-8") for f in files]
        mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        md = parsers[kind]

        def floor(texts: list[str] = texts, md=md) -> None:
            for t in texts:
                md.parse(t)
                encoding.encode_ordinary(t)

        def chunk(texts: list[str] = texts, name: str = name) -> None:
            sizer = tokens.get_sizer("tokens", "cl100k_base")
            for t in texts:
                strategy.chunk(Document(t, path=name), sizer, size=SIZE, overlap=0)

        f = best(floor, args.repeat)
        c = best(chunk, args.repeat)
        print(f"{kind:10} {len(files):6} {mb:7.2f} {mb / f:11.2f} {mb / c:14.2f} {f / c:5.2f}x")
    notebook_row(args.repeat, encoding, parsers["markdown"], strategy)
    code_rows(args.repeat, encoding)
    return 0


def notebook_row(repeat: int, encoding, md, strategy) -> None:
    """Jupyter notebooks (notebooks/**/*.ipynb): the view of :mod:`chunkseam.document.notebook`
    read from the file's JSON and chunked by the ``markdown`` strategy, beside the
    floor of ``json.loads`` of the file plus markdown-it and tiktoken on the view
    (the view itself built before the floor is timed). MB are the .ipynb files' bytes."""
    import json

    from chunkseam.tokens import tiktoken as tokens
    from chunkseam.document.notebook import read_document

    files = sorted(CORPUS.glob("notebooks/**/*.ipynb"))
    if not files:
        print(f"{'notebook':10} no files at {CORPUS / 'notebooks'}")
        return
    raws = [f.read_text(encoding="utf-8") for f in files]
    views = [read_document(r, "nb.ipynb").text for r in raws]
    mb = sum(len(r.encode("utf-8")) for r in raws) / 1e6

    def floor() -> None:
        for raw, view in zip(raws, views):
            json.loads(raw)
            md.parse(view)
            encoding.encode_ordinary(view)

    def chunk() -> None:
        sizer = tokens.get_sizer("tokens", "cl100k_base")
        for raw in raws:
            strategy.chunk(read_document(raw, "nb.ipynb"), sizer, size=SIZE, overlap=0)

    f = best(floor, repeat)
    c = best(chunk, repeat)
    print(f"{'notebook':10} {len(files):6} {mb:7.2f} {mb / f:11.2f} {mb / c:14.2f} {f / c:5.2f}x")


#: code kinds (``code`` strategy, tree-sitter): kind -> (glob, tree-sitter language)
CODE_KINDS = {"ts": ("code/ts/**/*.ts", "ts"), "go": ("code/go/**/*.go", "go"),
              "rust": ("code/rust/**/*.rs", "rust"), "java": ("code/java/**/*.java", "java")}


def code_rows(repeat: int, encoding) -> None:
    """A row per code language: the ``code`` strategy at SIZE tokens beside the
    floor of tree-sitter parsing the file plus tiktoken encoding it."""
    from chunkseam.tokens import tiktoken as tokens
    from chunkseam.structure import treesitter as tsstructure
    from chunkseam.chunkers import get
    from chunkseam.document.text import Document

    strategy = get("code")
    for kind, (pattern, lang) in CODE_KINDS.items():
        files = sorted(CORPUS.glob(pattern))
        if not files or not tsstructure.available(lang):
            print(f"{kind:10} no files at {CORPUS / pattern} or no grammar (chunkseam[code])")
            continue
        texts = [f.read_text(encoding="utf-8") for f in files]
        names = [f.name for f in files]
        mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        ts_parser = tsstructure._parser(lang)

        def floor(texts: list[str] = texts, ts_parser=ts_parser) -> None:
            for t in texts:
                ts_parser.parse(t.encode("utf-8"))
                encoding.encode_ordinary(t)

        def chunk(texts: list[str] = texts, names: list[str] = names) -> None:
            sizer = tokens.get_sizer("tokens", "cl100k_base")
            for t, name in zip(texts, names):
                strategy.chunk(Document(t, path=name), sizer, size=SIZE, overlap=0)

        f = best(floor, repeat)
        c = best(chunk, repeat)
        print(f"{kind:10} {len(files):6} {mb:7.2f} {mb / f:11.2f} {mb / c:14.2f} {f / c:5.2f}x")


if __name__ == "__main__":
    sys.exit(main())
