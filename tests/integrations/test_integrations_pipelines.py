"""The guard and the merge components in real LangChain, LlamaIndex and Haystack pipelines
(retrievers and stores of the libraries themselves; embeddings are the libraries' own
deterministic test embeddings, so nothing reaches the network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")
pytest.importorskip("haystack")

from chunkseam import events as ev  # noqa: E402
from chunkseam.integrations import BrokenChunkRateExceeded, Guard  # noqa: E402

GUIDE = """# Deploying

Set the timeout before you deploy. The default is too short for large uploads, and the upload
stops halfway when it is reached. To prevent this, set the timeout to 30 seconds or more.

## Configuration

| key | default | meaning |
| --- | --- | --- |
| timeout | 10 | seconds before an upload stops |
| retries | 3 | attempts before giving up |

Write the file like so:

```toml
timeout = 30
retries = 5
```

## Rollback

Run the rollback command. It restores the previous release. Then check the logs for errors,
and report what you found to the team that owns the service.
"""


@pytest.fixture()
def guide(tmp_path: Path) -> Path:
    p = tmp_path / "guide.md"
    p.write_text(GUIDE, encoding="utf-8")
    return p


def summaries(path: Path) -> list[dict]:
    return [e for e in ev.read(path.read_text(encoding="utf-8").splitlines())
            if e["event"] == "chunkseam.summary"]


# -- LlamaIndex ----------------------------------------------------------------------


def test_llamaindex_ingestion_pipeline_guard_retriever_and_merge(guide: Path, tmp_path: Path) -> None:
    from llama_index.core import MockEmbedding, SimpleDirectoryReader, VectorStoreIndex
    from llama_index.core.ingestion import IngestionPipeline

    from chunkseam.integrations.llamaindex import (ChunkseamGuard, ChunkseamNodeParser,
                                                   MergeAdjacentPostprocessor)

    docs = SimpleDirectoryReader(input_files=[str(guide)]).load_data()
    parser = ChunkseamNodeParser(chunk_size=40, chunk_overlap=1, overlap_unit="sentences")
    events = tmp_path / "events.jsonl"
    guard = ChunkseamGuard.for_parser(parser, events=events, run="run-1")
    nodes = IngestionPipeline(transformations=[parser, guard]).run(documents=docs)
    plain = parser.get_nodes_from_documents(docs)
    assert [n.text for n in nodes] == [n.text for n in plain]  # passed through unchanged
    assert all(n.metadata["chunkseam_issues"] == [] or not n.metadata["chunkseam_broken"] for n in nodes)
    assert not any(n.metadata["chunkseam_broken"] for n in nodes)
    (summary,) = summaries(events)
    assert summary["run"] == "run-1" and summary["rate"] == 0.0
    assert summary["document"] == str(guide) and summary["chunker"] == "markdown"
    assert summary["params"]["size"] == 40 and summary["params"]["overlap_unit"] == "sentences"
    assert summary["version"] and summary["stats"]["chunks"] == len(nodes)

    index = VectorStoreIndex(nodes, embed_model=MockEmbedding(embed_dim=8))
    hits = index.as_retriever(similarity_top_k=len(nodes)).retrieve("timeout")
    merged = MergeAdjacentPostprocessor().postprocess_nodes(hits)
    assert len(merged) == 1  # every chunk of the one document, joined once each
    node = merged[0].node
    assert GUIDE[node.start_char_idx:node.end_char_idx] == node.text  # overlaps not repeated
    assert node.text.count("To prevent this, set the timeout") == 1
    assert node.metadata["merged_chunks"] == len(nodes)


def test_llamaindex_guard_flags_a_library_splitters_broken_chunks_and_fails_the_run(
        guide: Path, tmp_path: Path) -> None:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import TokenTextSplitter

    from chunkseam.integrations.llamaindex import ChunkseamGuard

    docs = SimpleDirectoryReader(input_files=[str(guide)]).load_data()
    events = tmp_path / "events.jsonl"
    guard = ChunkseamGuard(events=events, run="r", max_rate=0.10)
    pipeline = IngestionPipeline(transformations=[TokenTextSplitter(chunk_size=40, chunk_overlap=0), guard])
    with pytest.raises(BrokenChunkRateExceeded) as info:
        pipeline.run(documents=docs)
    assert info.value.rate > 0.10
    (summary,) = summaries(events)  # written before the run failed
    assert summary["rate"] == pytest.approx(info.value.rate)
    assert summary["stats"]["per_rule"]
    nodes = IngestionPipeline(transformations=[TokenTextSplitter(chunk_size=40, chunk_overlap=0),
                                               ChunkseamGuard(run="r2")]).run(documents=docs)
    broken = [n for n in nodes if n.metadata["chunkseam_broken"]]
    assert broken and all(n.metadata["chunkseam_issues"] for n in broken)
    assert "chunkseam_issues" not in broken[0].get_content(metadata_mode="embed")


# -- LangChain ------------------------------------------------------------------------


def test_langchain_splitter_guard_vector_store_and_merging_retriever(guide: Path, tmp_path: Path) -> None:
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    from chunkseam.integrations.langchain import (ChunkseamGuard, ChunkseamTextSplitter,
                                                  MergingRetriever)

    splitter = ChunkseamTextSplitter(chunk_size=40, chunk_overlap=16)
    events = tmp_path / "events.jsonl"
    guard = ChunkseamGuard(Guard(splitter=splitter.chunkseam, events=events, run="lc"))
    chunks = guard.transform_documents(
        splitter.split_documents([Document(page_content=GUIDE, metadata={"source": str(guide)})]))
    assert len(chunks) > 3 and not any(d.metadata["chunkseam_broken"] for d in chunks)
    assert any(d.metadata["start_index"] < p.metadata["end_index"] for p, d in zip(chunks, chunks[1:]))
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents(chunks)
    retriever = MergingRetriever(base=store.as_retriever(search_kwargs={"k": len(chunks)}))
    (merged,) = retriever.invoke("timeout")
    m = merged.metadata
    assert GUIDE[m["start_index"]:m["end_index"]] == merged.page_content
    assert merged.page_content.count("Run the rollback command.") == 1
    assert m["merged_chunks"] == len(chunks)
    some = MergingRetriever(base=store.as_retriever(search_kwargs={"k": 2})).invoke("rollback")
    for d in some:
        assert GUIDE[d.metadata["start_index"]:d.metadata["end_index"]] == d.page_content
    assert summaries(events)[0]["run"] == "lc"


def test_langchain_guard_on_recursive_character_splitter_output_and_otel_metrics(guide: Path) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from chunkseam.integrations.langchain import ChunkseamGuard

    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("test")
    chunks = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=0, add_start_index=True
                                            ).split_documents([Document(page_content=GUIDE,
                                                                        metadata={"source": str(guide)})])
    guard = ChunkseamGuard(run="otel", meter=meter)
    out = guard.transform_documents(chunks)
    assert [d.page_content for d in out] == [d.page_content for d in chunks]
    broken = sum(d.metadata["chunkseam_broken"] for d in out)
    assert broken > 0
    data = {}
    for rm in reader.get_metrics_data().resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                (point,) = metric.data.data_points
                data[metric.name] = (point.value, dict(point.attributes))
    assert data["chunkseam.chunks"][0] == len(chunks)
    assert data["chunkseam.broken_chunks"][0] == broken
    assert data["chunkseam.broken_chunk_rate"][0] == pytest.approx(broken / len(chunks))
    assert data["chunkseam.broken_chunk_rate"][1]["run"] == "otel"


def test_the_guard_judges_chunks_without_a_readable_source_by_text_only_checks() -> None:
    g = Guard(run="t")
    from chunkseam.integrations import Record

    report = g.inspect([Record("The timeout is set to"), Record("30 seconds.")])
    assert report.stats.chunks == 2 and report.rate > 0
    assert report.events[-1]["text_only"] is True
    with pytest.raises(ValueError, match="max_rate"):
        Guard(max_rate=5)


# -- Haystack -----------------------------------------------------------------------------


def test_haystack_pipeline_with_bm25_retriever_and_merge(guide: Path, tmp_path: Path) -> None:
    from haystack import Document, Pipeline
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.components.writers import DocumentWriter
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    from chunkseam.integrations.haystack import (ChunkseamDocumentSplitter, ChunkseamGuard,
                                                 MergeAdjacentDocuments)

    store = InMemoryDocumentStore()
    splitter = ChunkseamDocumentSplitter(chunk_size=40, chunk_overlap=1, overlap_unit="sentences")
    events = tmp_path / "events.jsonl"
    indexing = Pipeline()
    indexing.add_component("splitter", splitter)
    indexing.add_component("guard", ChunkseamGuard.for_splitter(splitter, events=str(events), run="hs"))
    indexing.add_component("writer", DocumentWriter(store))
    indexing.connect("splitter.documents", "guard.documents")
    indexing.connect("guard.documents", "writer.documents")
    source = Document(content=GUIDE, meta={"file_path": str(guide)})
    result = indexing.run({"splitter": {"documents": [source]}})
    n = result["writer"]["documents_written"]
    assert n > 3 and result["guard"]["rate"] == 0.0
    assert summaries(events)[0]["params"]["overlap_unit"] == "sentences"

    query = Pipeline()
    query.add_component("retriever", InMemoryBM25Retriever(store, top_k=n))
    query.add_component("merge", MergeAdjacentDocuments())
    query.connect("retriever.documents", "merge.documents")
    for q in ("timeout upload", "rollback logs", "retries"):
        res = query.run({"retriever": {"query": q}}, include_outputs_from={"retriever"})
        retrieved, merged = res["retriever"]["documents"], res["merge"]["documents"]
        assert retrieved and len(merged) <= len(retrieved)
        assert sum(d.meta.get("merged_chunks", 1) for d in merged) == len(retrieved)
        for d in merged:  # each a span of the source: overlaps not repeated, gaps not invented
            s = d.meta["split_idx_start"]
            assert GUIDE[s:s + len(d.content)] == d.content
    assert any(d.meta.get("merged_chunks", 1) > 1 for d in merged)


def test_events_are_json_lines_with_the_documented_tags(guide: Path, tmp_path: Path) -> None:
    from chunkseam.integrations import Record, Splitter

    sp = Splitter()
    chunks = sp.split(GUIDE, path=str(guide))
    events = tmp_path / "e.jsonl"
    Guard(splitter=sp, events=events, run="x").inspect(
        [Record(c.text, str(guide), c.start, c.end, c.strategy) for c in chunks])
    for line in events.read_text().splitlines():
        e = json.loads(line)
        assert {"event", "version", "time", "run", "document", "chunker", "params", "size"} <= set(e)
