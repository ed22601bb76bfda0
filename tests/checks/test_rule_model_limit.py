"""CS105 over-model-limit: a chunk longer than the embedding model reads."""

from __future__ import annotations

from chunkseam import Settings
from chunkseam.engine.analysis import analyze
from chunkseam.document.text import Document
from chunkseam.tokens.models import known_limit, model_limit
from conftest import FIXTURES

TEXT = (FIXTURES / "database.md").read_text(encoding="utf-8")


def codes(analysis, code="CS105"):
    return [i for i in analysis.issues if i.code == code]


def test_no_limit_no_issue_and_distinct_from_cs101():
    doc = Document(TEXT, path="database.md")
    assert not codes(analyze(doc, Settings(size=2000)))
    # a chunk within the chunker's size but over the model's limit: CS105, not CS101
    a = analyze(doc, Settings(chunker="recursive", size=2000, model_max_tokens=64))
    found = codes(a)
    assert found and not codes(a, "CS101")
    for issue in found:
        chunk = a.chunks[issue.data["chunk"]] if "chunk" in issue.data else None
        assert issue.data["tokens"] > 64 and issue.data["limit"] == 64
        s, e = issue.data["chunk_span"]
        assert s <= issue.start < e
        if chunk is not None:
            assert (chunk.start, chunk.end) == (s, e)
    # every chunk over the limit is reported, and only those
    over = [c for c in a.chunks if c.tokens > 64]
    assert len(found) == len(over)


def test_known_models_and_unit_chars():
    assert known_limit("text-embedding-3-small") == 8191
    assert known_limit("BAAI/bge-small-en-v1.5") == 512
    assert known_limit("hf:BAAI/bge-small-en-v1.5") == 512
    assert known_limit("my-own-model") is None
    assert model_limit(Settings(embedding_model="sentence-transformers/all-MiniLM-L6-v2")) == 256
    assert model_limit(Settings(embedding_model="x", model_max_tokens=99)) == 99
    # sized in characters: the model's tokens are still counted (with the encoding)
    doc = Document(TEXT * 4, path="database.md")
    a = analyze(doc, Settings(chunker="recursive", unit="chars", size=2400,
                              embedding_model="all-MiniLM-L6-v2"))
    assert codes(a) and all("all-MiniLM-L6-v2" in i.message for i in codes(a))
    assert all(i.data["tokens"] > 256 for i in codes(a))
