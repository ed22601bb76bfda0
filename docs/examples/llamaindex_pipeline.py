"""Ingest a directory with chunkseam's node parser and guard in a LlamaIndex IngestionPipeline,
retrieve with adjacent chunks merged, and print the broken-chunk rate of the run's events.

    python docs/examples/llamaindex_pipeline.py ../shared/corpus/markdown --limit 20

Needs ``pip install "chunkseam[llamaindex]"``. The embedding is LlamaIndex's own offline
``MockEmbedding``: put your embedding model there.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llama_index.core import MockEmbedding, SimpleDirectoryReader, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline

from chunkseam import events
from chunkseam.integrations.llamaindex import (ChunkseamGuard, ChunkseamNodeParser,
                                               MergeAdjacentPostprocessor)

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

    files = sorted(str(p) for p in args.corpus.rglob("*") if p.suffix in KINDS and p.is_file())
    documents = SimpleDirectoryReader(input_files=files[:args.limit]).load_data()

    # the splitter of the project's [tool.chunkseam] (what `chunkseam lint` simulates)
    parser = ChunkseamNodeParser.from_config(args.corpus, overrides={"size": args.size} if args.size else None)
    guard = ChunkseamGuard.for_parser(parser, events=args.events, run=args.run)
    nodes = IngestionPipeline(transformations=[parser, guard]).run(documents=documents)

    index = VectorStoreIndex(nodes, embed_model=MockEmbedding(embed_dim=32))
    retriever = index.as_retriever(similarity_top_k=6)
    hits = MergeAdjacentPostprocessor().postprocess_nodes(retriever.retrieve(args.query))
    for hit in hits[:3]:
        node = hit.node
        print(f"{Path(node.metadata['file_path']).name} [{node.start_char_idx}:{node.end_char_idx}] "
              f"{node.metadata.get('merged_chunks', 1)} chunk(s): {node.text[:60]!r}")

    summaries = [e for e in events.read(args.events.read_text(encoding="utf-8").splitlines())
                 if e["event"] == "chunkseam.summary" and e["run"] == guard.guard.run]
    chunks = sum(e["stats"]["chunks"] for e in summaries)
    broken = sum(e["stats"]["chunks_with_issues"] for e in summaries)
    print(f"chunkseam: broken-chunk rate {broken / max(chunks, 1):.1%} of {chunks} chunks in "
          f"{len(summaries)} documents (run {guard.guard.run}, events in {args.events})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
