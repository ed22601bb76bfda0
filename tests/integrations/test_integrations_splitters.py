"""The drop-in splitters (chunkseam.integrations) in the real LangChain, LlamaIndex and Haystack,
and their guarantee: the linter finds no error- or warning-level cut issue in their output, at
any size; a unit over the size is one chunk, reported as oversize (CS101), never cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import chunkseam
from chunkseam import Settings
from chunkseam.engine.analysis import analyze
from chunkseam.document.text import Document
from chunkseam.integrations import Splitter, is_loud_cut
from chunkseam.engine.validate import validate

from conftest import CORPUS, IN_CI
from mdgen import markdown_texts, python_texts

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")
pytest.importorskip("haystack")

from haystack import Document as HDocument  # noqa: E402
from langchain_core.documents import Document as LDocument  # noqa: E402
from llama_index.core import Document as LIDocument  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship  # noqa: E402

from chunkseam.integrations.haystack import ChunkseamDocumentSplitter  # noqa: E402
from chunkseam.integrations.langchain import ChunkseamTextSplitter  # noqa: E402
from chunkseam.integrations.llamaindex import ChunkseamNodeParser  # noqa: E402

REPEATED = """# Setup

Run the installer. Then restart the service.

## Linux

Run the installer. Then restart the service.

## macOS

Run the installer. Then restart the service.
"""

LONG_FENCE = "# Big\n\nIntro sentence here.\n\n```python\n" + "\n".join(
    f"value_{i} = compute({i}, mode='fast')" for i in range(60)) + "\n```\n\nAfter the code.\n"


def loud(doc: Document, chunks, size: int, sizer=None) -> list:
    return [i for i in validate(doc, chunks, Settings(size=size), sizer=sizer) if is_loud_cut(i)]


# -- the guarantee ----------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_texts(), size=st.integers(4, 80), overlap=st.integers(0, 2),
       unit=st.sampled_from(["tokens", "chars"]))
@example(text=LONG_FENCE, size=16, overlap=1, unit="tokens")
def test_no_loud_cut_issue_on_generated_markdown(text: str, size: int, overlap: int, unit: str) -> None:
    if unit == "chars":
        size *= 4
    sp = Splitter(Settings(size=size, overlap=overlap, overlap_unit="sentences", unit=unit))
    doc = Document(text, path="gen.md")
    chunks = sp.split_document(doc)
    assert not loud(doc, chunks, size, sp.sizer)
    for c in chunks:
        assert text[c.start:c.end] == c.text and c.text.strip()
        assert c.tokens <= size or c.oversize


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=python_texts(), size=st.integers(4, 60))
def test_no_loud_cut_issue_on_generated_python(text: str, size: int) -> None:
    sp = Splitter(Settings(size=size))
    doc = Document(text, path="gen.py")
    assert not loud(doc, sp.split_document(doc), size, sp.sizer)


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {CORPUS}")
        pytest.skip(f"corpus not found at {CORPUS}")
    kinds = {".md", ".mdx", ".rst", ".ipynb", ".py", ".txt", ".ts", ".go", ".rs", ".java"}
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in kinds and p.is_file())


def test_no_loud_cut_issue_on_the_whole_corpus() -> None:
    """Every corpus document through the LangChain splitter (routing by each file's kind), at 256
    tokens (benchmarks/bench_splitters.py runs 256 and 512 with the libraries' defaults beside)."""
    splitter = ChunkseamTextSplitter(chunk_size=256)
    sizer = splitter.chunkseam.sizer
    files = _corpus_files()
    assert len(files) > 800
    chunks_total = oversize = 0
    for path in files:
        doc = Document.from_path(path)
        docs = splitter.create_documents([doc.text], [{"source": str(path)}])
        chunks = [chunkseam.Chunk(d.metadata["start_index"], d.metadata["end_index"], i, doc.text)
                  for i, d in enumerate(docs)]
        for d, c in zip(docs, chunks):
            assert c.text == d.page_content, path
        issues = validate(doc, chunks, Settings(size=256), sizer=sizer)
        assert not [i for i in issues if is_loud_cut(i)], (path, [i.message for i in issues if is_loud_cut(i)])
        over = {i.chunk for i in issues if i.code == "CS101"}
        flagged = {k for k, d in enumerate(docs) if d.metadata["oversize"]}
        # (CS101 allows a token window two tokens of slack)
        assert {k for k in flagged if docs[k].metadata["tokens"] > 258} <= over <= flagged, path
        chunks_total += len(docs)
        oversize += len(over)
    assert chunks_total > 10_000 and oversize < chunks_total * 0.1


def test_an_oversize_unit_is_one_chunk_reported_as_cs101_never_cut() -> None:
    sp = Splitter(Settings(size=40))
    doc = Document(LONG_FENCE, path="big.md")
    chunks = sp.split_document(doc)
    fence_start = LONG_FENCE.index("```python")
    fence_end = LONG_FENCE.index("```\n\nAfter") + 3
    holding = [c for c in chunks if c.start <= fence_start < c.end]
    assert len(holding) == 1 and holding[0].end >= fence_end and holding[0].oversize
    issues = validate(doc, chunks, Settings(size=40), sizer=sp.sizer)
    assert [i.chunk for i in issues if i.code == "CS101"] == [holding[0].index]
    assert not [i for i in issues if is_loud_cut(i)]
    # the engine's own markdown strategy says the same about the same fence
    assert not [i for i in analyze(doc, Settings(size=40)).issues if i.code == "CS003"]


def test_a_sentence_over_the_size_is_kept_whole_where_the_strategy_cuts_it() -> None:
    text = "# Notes\n\n" + "This sentence keeps on going " * 12 + "until it ends.\n\nShort one.\n"
    doc = Document(text, path="s.md")
    engine = analyze(doc, Settings(size=20))
    assert any(i.code == "CS002" for i in engine.issues)  # the markdown strategy falls back to words
    sp = Splitter(Settings(size=20))
    chunks = sp.split_document(doc)
    assert not loud(doc, chunks, 20, sp.sizer)
    sentence = text[text.index("This"):text.index("until it ends.") + len("until it ends.")]
    (holding,) = [c for c in chunks if "until it ends." in c.text]
    assert holding.oversize and sentence in holding.text  # with its heading (no orphan heading)


# -- sentence overlap ----------------------------------------------------------------


PROSE = "# Guide\n\n" + " ".join(f"Sentence number {i} says a thing about the steps." for i in range(40)) + "\n"


def test_sentence_overlap_in_the_builtin_strategies(tmp_path: Path) -> None:
    (tmp_path / "chunkseam.toml").write_text('size = 60\noverlap = 2\noverlap-unit = "sentences"\n')
    (tmp_path / "guide.md").write_text(PROSE)
    from chunkseam.config.loader import resolve

    s = resolve(tmp_path / "guide.md").settings
    assert (s.overlap, s.overlap_unit) == (2, "sentences")
    doc = chunkseam.load(tmp_path / "guide.md")
    for strategy in ("markdown", "recursive", "fixed"):
        chunks = analyze(doc, s.with_(chunker=strategy)).chunks
        assert len(chunks) > 3
        body = PROSE.index("Sentence")
        pairs = [(p, n) for p, n in zip(chunks, chunks[1:]) if p.start >= body]  # not after "# Guide"
        assert len(pairs) > 2
        for prev, nxt in pairs:
            assert prev.start < nxt.start < prev.end, strategy  # overlapping neighbours
            shared = PROSE[nxt.start:prev.end]
            assert shared.startswith("Sentence number "), (strategy, shared)  # a sentence start
            assert 1 <= nxt.meta["overlap_sentences"] <= 2
            assert nxt.tokens <= 60
    # the sentence strategy already counts its overlap in sentences
    plain = analyze(doc, s.with_(chunker="sentence")).chunks
    assert plain[1].start < plain[0].end


def test_sentence_overlap_through_the_library_api() -> None:
    chunks = chunkseam.chunk(PROSE, "markdown", size=60, overlap=1, overlap_unit="sentences")
    body = PROSE.index("Sentence")
    assert any(c.start < p.end for p, c in zip(chunks, chunks[1:]) if p.start >= body)
    assert all(c.meta.get("overlap_sentences", 0) <= 1 for c in chunks)
    with pytest.raises(ValueError, match="overlap_unit"):
        chunkseam.chunk(PROSE, size=60, overlap_unit="words")


def test_sentence_overlap_is_refused_for_a_library_splitter() -> None:
    from chunkseam.engine.analysis import ChunkerOptionError

    with pytest.raises(ChunkerOptionError, match="overlap-unit"):
        analyze(Document(PROSE, path="g.md"),
                Settings(chunker="langchain", size=60, overlap=2, overlap_unit="sentences"))


def test_an_overlap_unit_in_sentences_may_exceed_the_size_in_config() -> None:
    from chunkseam.config.loader import ConfigError, settings_from_mapping

    s, _ = settings_from_mapping({"size": 2, "overlap": 3, "overlap-unit": "sentences"}, source="t")
    assert s.overlap == 3
    with pytest.raises(ConfigError, match="overlap-unit"):
        settings_from_mapping({"overlap-unit": "words"}, source="t")


# -- LangChain -------------------------------------------------------------------------


def test_langchain_true_start_index_on_repeated_text_and_heading_paths() -> None:
    splitter = ChunkseamTextSplitter(chunk_size=12, add_start_index=True)
    docs = splitter.create_documents([REPEATED], [{"source": "setup.md"}])
    assert [d.metadata["heading_path"] for d in docs] == [["Setup"], ["Setup", "Linux"],
                                                         ["Setup", "macOS"]]
    for d in docs:
        s, e = d.metadata["start_index"], d.metadata["end_index"]
        assert REPEATED[s:e] == d.page_content
        assert d.metadata["source"] == "setup.md"
    assert len({d.metadata["start_index"] for d in docs}) == 3
    # LangChain's own search finds the first copy; ours are where the chunks are
    assert docs[2].metadata["start_index"] == REPEATED.rindex("## macOS")
    assert splitter.split_text(REPEATED) == [d.page_content for d in docs]
    split = splitter.split_documents([LDocument(page_content=REPEATED, metadata={"source": "x.md"})])
    assert [d.metadata for d in split] == [{**d.metadata, "source": "x.md"} for d in docs]


def test_langchain_sizes_are_in_the_configured_tokenizer(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunkseam]\nsize = 30\nencoding = "o200k_base"\n')
    splitter = ChunkseamTextSplitter.from_config(tmp_path)
    assert splitter._chunk_size == 30 and splitter.chunkseam.settings.encoding == "o200k_base"
    docs = splitter.create_documents([PROSE])
    from chunkseam.tokens.tiktoken import get_sizer

    o200k = get_sizer("tokens", "o200k_base")
    assert len(docs) > 5
    for d in docs:
        assert d.metadata["tokens"] == o200k.count(d.page_content) <= 30
    assert splitter._length_function("hello world") == o200k.count("hello world")
    no_index = ChunkseamTextSplitter(chunk_size=30, add_start_index=False).create_documents([PROSE])
    assert "start_index" not in no_index[0].metadata and "heading_path" in no_index[0].metadata


def test_langchain_routes_documents_by_their_file_kind() -> None:
    code = "import os\n\n\ndef one():\n    return 1\n\n\ndef two():\n    '''Two.'''\n    return 2\n"
    splitter = ChunkseamTextSplitter(chunk_size=12)
    docs = splitter.split_documents([LDocument(page_content=code, metadata={"source": "m.py"}),
                                     LDocument(page_content=REPEATED, metadata={"source": "r.md"})])
    assert {d.metadata["chunker"] for d in docs if d.metadata["source"] == "m.py"} == {"code"}
    assert {d.metadata["chunker"] for d in docs if d.metadata["source"] == "r.md"} == {"markdown"}


# -- LlamaIndex -------------------------------------------------------------------------


def test_llamaindex_exact_offsets_relationships_and_heading_paths() -> None:
    parser = ChunkseamNodeParser(chunk_size=12)
    doc = LIDocument(text=REPEATED, metadata={})
    nodes = parser.get_nodes_from_documents([doc])
    assert len(nodes) == 3
    for n in nodes:
        assert REPEATED[n.start_char_idx:n.end_char_idx] == n.text
        assert n.ref_doc_id == doc.doc_id
    assert nodes[2].start_char_idx == REPEATED.rindex("## macOS")  # not the first copy's
    assert nodes[1].relationships[NodeRelationship.PREVIOUS].node_id == nodes[0].node_id
    assert nodes[1].relationships[NodeRelationship.NEXT].node_id == nodes[2].node_id
    assert nodes[2].metadata["heading_path"] == ["Setup", "macOS"]
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):  # not embedded: sizes unchanged
        assert "heading_path" not in nodes[2].get_metadata_str(mode=mode)


def test_llamaindex_metadata_aware_sizing() -> None:
    parser = ChunkseamNodeParser(chunk_size=60)
    bare = parser.get_nodes_from_documents([LIDocument(text=PROSE)])
    meta = {"title": "a rather long title " * 5}
    heavy = parser.get_nodes_from_documents([LIDocument(text=PROSE, metadata=meta)])
    meta_size = parser.chunkseam.count(heavy[0].get_metadata_str(mode=MetadataMode.EMBED))
    assert meta_size > 20
    assert len(heavy) > len(bare)
    for n in heavy:
        assert n.metadata["tokens"] + meta_size <= 60
        assert n.metadata["title"] == meta["title"]
    with pytest.raises(ValueError, match="metadata"):
        parser.get_nodes_from_documents([LIDocument(text=PROSE, metadata={"t": "word " * 100})])


# -- Haystack ------------------------------------------------------------------------------


def test_haystack_split_ids_offsets_and_source_ids() -> None:
    splitter = ChunkseamDocumentSplitter(chunk_size=12)
    doc = HDocument(content=REPEATED, meta={"file_path": "setup.md"})
    out = splitter.run([doc])["documents"]
    assert [d.meta["split_id"] for d in out] == [0, 1, 2]
    for d in out:
        assert d.meta["source_id"] == doc.id
        assert REPEATED[d.meta["split_idx_start"]:d.meta["split_idx_start"] + len(d.content)] == d.content
        assert d.meta["page_number"] == 1
    assert out[2].meta["heading_path"] == ["Setup", "macOS"]
    again = ChunkseamDocumentSplitter.from_dict(splitter.to_dict())
    assert [d.content for d in again.run([doc])["documents"]] == [d.content for d in out]


def test_haystack_sentence_overlap_is_described_like_haystack() -> None:
    splitter = ChunkseamDocumentSplitter(chunk_size=60, chunk_overlap=1, overlap_unit="sentences")
    out = splitter.run([HDocument(content=PROSE, meta={"file_path": "g.md"})])["documents"]
    assert len(out) > 3
    for prev, d in zip(out, out[1:]):
        (link,) = [x for x in d.meta["_split_overlap"] if x["doc_id"] == prev.id]
        a, b = link["range"]
        assert d.content.startswith(prev.content[a:b])
        assert {"doc_id": d.id, "range": (0, b - a)} in prev.meta["_split_overlap"]
        assert prev.content[a:b].startswith("Sentence number ")


def test_the_three_splitters_cut_alike() -> None:
    lc = [d.page_content for d in ChunkseamTextSplitter(chunk_size=40).create_documents([PROSE])]
    li = [n.text for n in ChunkseamNodeParser(chunk_size=40).get_nodes_from_documents([LIDocument(text=PROSE)])]
    hs = [d.content for d in ChunkseamDocumentSplitter(chunk_size=40).run([HDocument(content=PROSE)])["documents"]]
    assert lc == li == hs and len(lc) > 3


# -- construction ----------------------------------------------------------------------------


def test_a_configured_library_chunker_is_replaced_by_routing_and_a_bad_strategy_refused(tmp_path: Path) -> None:
    (tmp_path / "chunkseam.toml").write_text('chunker = "langchain"\nsize = 50\n')
    sp = Splitter.from_config(tmp_path)
    assert sp.settings.chunker is None and sp.size == 50
    assert sp.strategy_for(sp.document("x = 1\n", path="a.py")) == "code"
    assert sp.strategy_for(sp.document("Plain text.", path="a.txt")) == "sentence"
    assert sp.strategy_for(sp.document("# T\n")) == "markdown"
    with pytest.raises(ValueError, match="structure-aware"):
        Splitter(strategy="recursive")
    with pytest.raises(ValueError, match="overlap"):
        Splitter(Settings(size=10, overlap=10))


def test_python_functions_over_the_size_are_whole_chunks() -> None:
    body = "\n".join(f"    total += value_{i} * {i}" for i in range(40))
    code = f'"""Module."""\n\nimport os\n\n\ndef big():\n    total = 0\n{body}\n    return total\n\n\ndef small():\n    return 1\n'
    sp = Splitter(Settings(size=30))
    doc = Document(code, path="m.py")
    chunks = sp.split_document(doc)
    assert not loud(doc, chunks, 30, sp.sizer)
    (big,) = [c for c in chunks if "def big" in c.text]
    assert big.oversize and "return total" in big.text
    assert any(c.text.startswith("def small") for c in chunks)


def test_chunkseam_and_the_shared_integration_code_import_no_framework() -> None:
    import subprocess
    import sys

    code = ("import sys, chunkseam, chunkseam.integrations, chunkseam.cli.app, chunkseam.trend\n"
            "from chunkseam import Settings\n"
            "chunkseam.integrations.Splitter(Settings(size=20)).split('# T\\n\\nSome text here.\\n')\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('langchain_core', 'langchain_text_splitters', 'llama_index', 'haystack', 'ruptures', 'opentelemetry')]\n"
            "assert not bad, bad\n")
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2] / "server"),
                                         env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("framework", ["langchain", "llamaindex", "haystack"])
def test_chunkseam_audit_finds_no_loud_cut_issue_in_a_dump_of_the_splitters_output(
        framework: str, tmp_path: Path) -> None:
    """The real CLI (`chunkseam audit`, source-aware) on an index dump of each splitter's chunks."""
    import json
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    sources = [root / "examples" / "deploy-guide.md", root / "examples" / "api-errors.md",
               root / "tests" / "fixtures" / "database.md", root / "tests" / "fixtures" / "streaming.md"]
    for p in sources:
        (tmp_path / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    size = 48
    rows = []
    for p in sources:
        text = p.read_text(encoding="utf-8")
        if framework == "langchain":
            for d in ChunkseamTextSplitter(chunk_size=size, chunk_overlap=1, overlap_unit="sentences").split_documents(
                    [LDocument(page_content=text, metadata={"source": p.name})]):
                rows.append({"page_content": d.page_content, "metadata": d.metadata})
        elif framework == "llamaindex":
            for n in ChunkseamNodeParser(chunk_size=size, include_metadata=False).get_nodes_from_documents(
                    [LIDocument(text=text, metadata={"file_path": p.name})]):
                rows.append({"text": n.text, "start_char_idx": n.start_char_idx,
                             "metadata": {"file_path": p.name}})
        else:
            for d in ChunkseamDocumentSplitter(chunk_size=size).run(
                    [HDocument(content=text, meta={"file_path": p.name})])["documents"]:
                rows.append({"text": d.content, "source": p.name, "start": d.meta["split_idx_start"]})
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root / "server"), env.get("PYTHONPATH", "")])
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "chunkseam", "audit", str(dump), "--source-root", str(tmp_path),
                           "--size", str(size), "--format", "json", "-o", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["summary"]["chunks"] == len(rows) and report["summary"]["files"] == len(sources)
    assert report["modes"] == {"source-aware": len(sources), "text-only": 0}
    loud = [i for i in report["issues"] if i["severity"] in ("error", "warning") and i["code"] != "CS101"]
    assert not loud, loud[:3]
