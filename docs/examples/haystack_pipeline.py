"""Ingest a directory with Haystack's TextFileToDocument, chunkseam's document splitter and
guard into an InMemoryDocumentStore, retrieve with BM25 and merge adjacent documents, and print
the broken-chunk rate of the run's events.

    python docs/examples/haystack_pipeline.py ../shared/corpus/markdown --limit 20

Needs ``pip install "chunkseam[haystack]"``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from haystack import Pipeline
from haystack.components.converters import TextFileToDocument
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.components.writers import DocumentWriter
from haystack.document_stores.in_memory import InMemoryDocumentStore

from chunkseam import events
from chunkseam.integrations.haystack import (ChunkseamDocumentSplitter, ChunkseamGuard,
                                             MergeAdjacentDocuments)

KINDS = (".md", ".mdx", ".rst", ".py", ".txt")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path, help="a directory of documents")
    ap.add_argument("--limit", type=int, default=None, help="only the first N files")
    ap.add_argument("--size", type=int, default=None, help="chunk size (default: the project's config)")
    ap.add_argument("--events", type=Path, default=Path("chunkseam-events.jsonl"))
    ap.add_argument("--run", default=None, help="run id the events are tagged with")
    ap.add_argument("--query", default="How do I install it?")
    args = ap.parse_args(argv)

    files = sorted(p for p in args.corpus.rglob("*") if p.suffix in KINDS and p.is_file())[:args.limit]
    store = InMemoryDocumentStore()
    splitter = ChunkseamDocumentSplitter.from_config(args.corpus,
                                                     overrides={"size": args.size} if args.size else None)
    guard = ChunkseamGuard.for_splitter(splitter, events=str(args.events), run=args.run)
    indexing = Pipeline()
    # store_full_path: the guard reads each file to judge its chunks against it
    indexing.add_component("converter", TextFileToDocument(store_full_path=True))
    indexing.add_component("splitter", splitter)
    indexing.add_component("guard", guard)
    indexing.add_component("writer", DocumentWriter(store))
    indexing.connect("converter.documents", "splitter.documents")
    indexing.connect("splitter.documents", "guard.documents")
    indexing.connect("guard.documents", "writer.documents")
    indexing.run({"converter": {"sources": files}})

    query = Pipeline()
    query.add_component("retriever", InMemoryBM25Retriever(store, top_k=6))
    query.add_component("merge", MergeAdjacentDocuments())
    query.connect("retriever.documents", "merge.documents")
    for doc in query.run({"retriever": {"query": args.query}})["merge"]["documents"][:3]:
        start = doc.meta["split_idx_start"]
        print(f"{Path(doc.meta['file_path']).name} [{start}:{start + len(doc.content)}] "
              f"{doc.meta.get('merged_chunks', 1)} chunk(s): {doc.content[:60]!r}")

    summaries = [e for e in events.read(args.events.read_text(encoding="utf-8").splitlines())
                 if e["event"] == "chunkseam.summary" and e["run"] == guard.guard.run]
    n = sum(e["stats"]["chunks"] for e in summaries)
    broken = sum(e["stats"]["chunks_with_issues"] for e in summaries)
    print(f"chunkseam: broken-chunk rate {broken / max(n, 1):.1%} of {n} chunks in "
          f"{len(summaries)} documents (run {guard.guard.run}, events in {args.events})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
