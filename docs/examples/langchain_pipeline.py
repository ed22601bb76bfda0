"""Ingest a directory with chunkseam's text splitter and guard in LangChain, retrieve from an
in-memory vector store with adjacent chunks merged, and print the broken-chunk rate of the
run's events.

    python docs/examples/langchain_pipeline.py ../shared/corpus/markdown --limit 20

Needs ``pip install "chunkseam[langchain]"``. The embedding is LangChain's own offline
``DeterministicFakeEmbedding``: put your embedding model there.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

from chunkseam import events
from chunkseam.integrations import Guard
from chunkseam.integrations.langchain import ChunkseamGuard, ChunkseamTextSplitter, MergingRetriever

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
    documents = [Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": str(p)})
                 for p in files]  # what LangChain's TextLoader makes

    splitter = ChunkseamTextSplitter.from_config(args.corpus,
                                                 overrides={"size": args.size} if args.size else None)
    guard = ChunkseamGuard(Guard(splitter=splitter.chunkseam, events=args.events, run=args.run))
    chunks = guard.transform_documents(splitter.split_documents(documents))

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(list(chunks))
    retriever = MergingRetriever(base=store.as_retriever(search_kwargs={"k": 6}))
    for doc in retriever.invoke(args.query)[:3]:
        m = doc.metadata
        print(f"{Path(m['source']).name} [{m['start_index']}:{m['end_index']}] "
              f"{m.get('merged_chunks', 1)} chunk(s): {doc.page_content[:60]!r}")

    summaries = [e for e in events.read(args.events.read_text(encoding="utf-8").splitlines())
                 if e["event"] == "chunkseam.summary" and e["run"] == guard.guard.run]
    n = sum(e["stats"]["chunks"] for e in summaries)
    broken = sum(e["stats"]["chunks_with_issues"] for e in summaries)
    print(f"chunkseam: broken-chunk rate {broken / max(n, 1):.1%} of {n} chunks in "
          f"{len(summaries)} documents (run {guard.guard.run}, events in {args.events})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
