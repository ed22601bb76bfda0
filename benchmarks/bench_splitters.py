"""The drop-in splitters beside each library's own default splitter, on ../shared/corpus.

For every corpus file chunkseam lints (Markdown, MDX, reStructuredText, notebooks, Python,
TypeScript, Go, Rust, Java, text) and each size (default 256 and 512 cl100k_base tokens, no
overlap), it splits the file with

* chunkseam's drop-in splitters, run through their frameworks: ``ChunkseamTextSplitter``
  (LangChain ``split_documents``), ``ChunkseamNodeParser`` (LlamaIndex
  ``get_nodes_from_documents``) and ``ChunkseamDocumentSplitter`` (a Haystack component's
  ``run``), each given the file's path in the metadata the framework's loaders set;
* each library's default splitter at the same size, run by chunkseam's adapters (the real
  library with chunkseam's offline tokenizer, offsets tracked): LangChain's
  ``RecursiveCharacterTextSplitter``, LlamaIndex's ``SentenceSplitter`` and Haystack's
  ``DocumentSplitter`` (``split_by="token"``: Haystack's default unit is words, tokens make
  the size the same),

and validates every chunk list with chunkseam's default rules. Printed per splitter: chunks,
*loud cut issues* (error- or warning-level issues about a cut: CS001–CS008, CS201, CS202, and
the chunk-list rules CS3xx), the share of chunks with one, the broken-chunk rate (any error or
warning, oversize CS101 included) and the seconds taken.

    python benchmarks/bench_splitters.py [--sizes 256,512] [--files N] [--only ours|defaults]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
CORPUS = ROOT.parent / "shared" / "corpus"
KINDS = {".md", ".mdx", ".rst", ".ipynb", ".py", ".txt", ".ts", ".go", ".rs", ".java"}


def files(limit: int | None) -> list[Path]:
    out = sorted(p for p in CORPUS.rglob("*") if p.suffix in KINDS and p.is_file())
    return out[:limit] if limit else out


def ours(size: int):
    from haystack import Document as HDocument
    from langchain_core.documents import Document as LDocument
    from llama_index.core import Document as LIDocument

    from chunkseam.integrations.haystack import ChunkseamDocumentSplitter
    from chunkseam.integrations.langchain import ChunkseamTextSplitter
    from chunkseam.integrations.llamaindex import ChunkseamNodeParser

    lc = ChunkseamTextSplitter(chunk_size=size)
    li = ChunkseamNodeParser(chunk_size=size, include_metadata=False)
    hs = ChunkseamDocumentSplitter(chunk_size=size)

    def run_lc(text: str, path: str) -> list[tuple[int, int]]:
        docs = lc.split_documents([LDocument(page_content=text, metadata={"source": path})])
        return [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs]

    def run_li(text: str, path: str) -> list[tuple[int, int]]:
        nodes = li.get_nodes_from_documents([LIDocument(text=text, metadata={"file_path": path})])
        return [(n.start_char_idx, n.end_char_idx) for n in nodes]

    def run_hs(text: str, path: str) -> list[tuple[int, int]]:
        docs = hs.run([HDocument(content=text, meta={"file_path": path})])["documents"]
        return [(d.meta["split_idx_start"], d.meta["split_idx_start"] + len(d.content)) for d in docs]

    return {"chunkseam LangChain ChunkseamTextSplitter": run_lc,
            "chunkseam LlamaIndex ChunkseamNodeParser": run_li,
            "chunkseam Haystack ChunkseamDocumentSplitter": run_hs}


def defaults(size: int):
    from chunkseam import Settings
    from chunkseam.engine.analysis import make_chunks, sizer_for

    def adapter(chunker: str, **options):
        settings = Settings(chunker=chunker, size=size, overlap=0, chunker_options=options)
        sizer = sizer_for(settings)

        def run(doc) -> list:
            with contextlib.redirect_stdout(io.StringIO()):
                return make_chunks(doc, settings, sizer)[1]
        return run

    return {"LangChain RecursiveCharacterTextSplitter (default)": adapter("langchain"),
            "LlamaIndex SentenceSplitter (default)": adapter("llamaindex"),
            "Haystack DocumentSplitter (split_by=token)": adapter("haystack", split_by="token")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="256,512")
    ap.add_argument("--files", type=int, default=None, help="only the first N files")
    ap.add_argument("--only", choices=("ours", "defaults"), default=None)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    from chunkseam import Settings
    from chunkseam.engine.analysis import sizer_for
    from chunkseam.core.chunk import Chunk
    from chunkseam.document.text import Document
    from chunkseam.integrations import is_loud_cut
    from chunkseam.engine.validate import statistics, total, validate

    paths = files(args.files)
    docs = []
    for p in paths:
        try:
            docs.append(Document.from_path(p))
        except Exception as exc:  # noqa: BLE001 - reported, the rest goes on
            print(f"skipped {p}: {exc}", file=sys.stderr)
    mb = sum(len(d.text.encode()) for d in docs) / 1e6
    print(f"{len(docs)} files, {mb:.1f} MB of ../shared/corpus; cl100k_base tokens, no overlap")
    for size in [int(s) for s in args.sizes.split(",")]:
        settings = Settings(size=size)
        sizer = sizer_for(settings)
        print(f"\nsize {size} tokens")
        print(f"  {'splitter':<52} {'chunks':>7} {'loud cut issues':>15} {'chunks w/ one':>13} "
              f"{'broken rate':>11} {'seconds':>8}")
        table = {}
        if args.only != "defaults":
            table.update((k, ("ours", f)) for k, f in ours(size).items())
        if args.only != "ours":
            table.update((k, ("lib", f)) for k, f in defaults(size).items())
        for name, (kind, fn) in table.items():
            t = time.perf_counter()
            stats = []
            loud = 0
            loud_chunks = 0
            failed = 0
            for doc in docs:
                try:
                    if kind == "ours":
                        spans = fn(doc.text, doc.path)
                        chunks = [Chunk(s, e, i, doc.text) for i, (s, e) in enumerate(spans)]
                    else:
                        chunks = fn(doc)
                except Exception as exc:  # noqa: BLE001 - a library that fails on a file
                    failed += 1
                    print(f"    {name}: {doc.path}: {type(exc).__name__}: {exc}"[:200], file=sys.stderr)
                    continue
                issues = validate(doc, chunks, settings, sizer=sizer)
                bad = [i for i in issues if is_loud_cut(i)]
                loud += len(bad)
                loud_chunks += len({i.chunk for i in bad if i.chunk is not None})
                stats.append(statistics(chunks, issues))
            tot = total(stats)
            secs = time.perf_counter() - t
            share = loud_chunks / tot.chunks if tot.chunks else 0.0
            print(f"  {name:<52} {tot.chunks:>7} {loud:>15} {share:>12.1%} {tot.rate:>11.1%} {secs:>8.1f}"
                  + (f"  ({failed} files failed)" if failed else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
