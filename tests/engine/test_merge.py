"""merge_adjacent: join retrieved neighbours, never repeating an overlap."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from chunkseam import merge_adjacent
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document

TEXT = "Alpha one. Beta two. Gamma three. Delta four. Epsilon five."


def piece(a: int, b: int, **kw) -> dict:
    return {"doc_id": "d", "start": a, "end": b, "text": TEXT[a:b], **kw}


def test_overlapping_neighbours_join_without_repeating_the_overlap():
    a = piece(0, 25, score=0.2)   # "Alpha one. Beta two. Gamm"
    b = piece(21, 45, score=0.9)  # "Gamma three. Delta four."
    (m,) = merge_adjacent([b, a])
    assert m.text == TEXT[0:45] and (m.start, m.end) == (0, 45)
    assert m.score == 0.9 and m.members == [a, b]


def test_touching_and_contained_chunks():
    (m,) = merge_adjacent([piece(11, 21), piece(0, 11), piece(2, 8)])
    assert m.text == TEXT[0:21] and len(m) == 3


def test_gaps_join_only_when_indices_say_neighbours():
    a = piece(0, 10, index=0)
    c = piece(11, 20, index=1)
    far = piece(34, 45, index=3)
    runs = merge_adjacent([a, c, far], order="document")
    assert [r.text for r in runs] == [TEXT[0:10] + " " + TEXT[11:20], TEXT[34:45]]
    assert runs[0].indices == (0, 1)
    # the real gap text when the caller has the source
    (m, _) = merge_adjacent([a, c, far], sources={"d": TEXT}, order="document")
    assert m.text == TEXT[0:20]
    # without indices a gap is not adjacency, unless within max_gap
    assert len(merge_adjacent([piece(0, 10), piece(11, 20)])) == 2
    assert len(merge_adjacent([piece(0, 10), piece(11, 20)], max_gap=1)) == 1
    # a multi-character gap with no source is filled with the separator
    (m,) = merge_adjacent([piece(0, 9, index=0), piece(11, 20, index=1)], separator="\n\n")
    assert m.text == TEXT[0:9] + "\n\n" + TEXT[11:20]


def test_index_only_items_join_with_the_separator():
    items = [{"doc_id": "d", "index": 4, "text": "E", "score": 0.1},
             {"doc_id": "d", "index": 2, "text": "C", "score": 0.5},
             {"doc_id": "d", "index": 3, "text": "D"}]
    (m,) = merge_adjacent(items, separator=" | ")
    assert m.text == "C | D | E" and m.indices == (2, 3, 4) and m.score == 0.5


def test_documents_are_kept_apart_and_results_ordered_by_score():
    items = [{"doc_id": "x", "start": 0, "end": 5, "text": "aaaaa", "score": 0.3},
             {"doc_id": "y", "start": 5, "end": 9, "text": "bbbb", "score": 0.8},
             {"doc_id": "x", "start": 5, "end": 9, "text": "cccc", "score": 0.1}]
    runs = merge_adjacent(items)
    assert [(r.doc_id, r.text, r.score) for r in runs] == [("y", "bbbb", 0.8), ("x", "aaaaacccc", 0.3)]
    runs = merge_adjacent(items, order="document")
    assert [r.doc_id for r in runs] == ["x", "y"]
    with pytest.raises(ValueError):
        merge_adjacent(items, order="nope")


def test_langchain_documents_and_dicts():
    try:
        from langchain_core.documents import Document as LCDocument
    except ImportError:  # pragma: no cover - a test dependency
        pytest.skip("langchain-core not installed")
    a = LCDocument(page_content=TEXT[0:25], metadata={"source": "f.md", "start_index": 0})
    b = LCDocument(page_content=TEXT[21:45], metadata={"source": "f.md", "start_index": 21})
    other = LCDocument(page_content="zzz", metadata={"source": "g.md", "start_index": 0})
    runs = merge_adjacent([a, other, b])
    assert [r.text for r in runs if r.doc_id == "f.md"] == [TEXT[0:45]]
    assert runs[0].metadata["start_index"] == 0
    as_dicts = [{"page_content": d.page_content, "metadata": dict(d.metadata)} for d in (a, b)]
    assert merge_adjacent(as_dicts)[0].text == TEXT[0:45]


def test_llamaindex_shaped_nodes_and_node_with_score():
    n1 = SimpleNamespace(text=TEXT[0:25], start_char_idx=0, end_char_idx=25, ref_doc_id="doc-1",
                         metadata={})
    n2 = SimpleNamespace(text=TEXT[21:45], start_char_idx=21, end_char_idx=45, ref_doc_id="doc-1",
                         metadata={})
    hits = [SimpleNamespace(node=n2, score=0.7), SimpleNamespace(node=n1, score=0.4)]
    (m,) = merge_adjacent(hits)
    assert m.text == TEXT[0:45] and m.score == 0.7 and m.doc_id == "doc-1"
    as_dicts = [{"node": {"text": TEXT[0:25], "start_char_idx": 0, "end_char_idx": 25,
                          "ref_doc_id": "doc-1"}, "score": 0.4},
                {"node": {"text": TEXT[21:45], "start_char_idx": 21, "end_char_idx": 45,
                          "ref_doc_id": "doc-1"}, "score": 0.7}]
    (m,) = merge_adjacent(as_dicts)
    assert m.text == TEXT[0:45] and m.score == 0.7


def test_chunkseam_chunks_group_by_their_source():
    doc = Document(TEXT)
    other = "Another document entirely."
    chunks = [Chunk(0, 25, 0, source=doc.text), Chunk(21, 45, 1, source=doc.text),
              Chunk(0, 7, 0, source=other)]
    runs = merge_adjacent(chunks, order="document")
    assert [r.text for r in runs] == [TEXT[0:45], other[0:7]]
    assert runs[0].doc_id is None and runs[0].indices == (0, 1)


def test_duplicates_missing_ids_scores_and_empty_input():
    a = piece(0, 10, score=0.2)
    (m,) = merge_adjacent([a, dict(a, score=0.6)])
    assert m.text == TEXT[0:10] and m.score == 0.6 and len(m) == 1
    loose = [{"text": "x", "start": 0}, {"text": "y", "start": 1}]
    assert len(merge_adjacent(loose)) == 2
    assert [r.text for r in merge_adjacent(loose, assume_one_document=True)] == ["xy"]
    assert merge_adjacent([]) == [] and merge_adjacent(None) == []  # type: ignore[arg-type]
    (m,) = merge_adjacent([{"doc_id": "d", "text": "free text"}])
    assert m.text == "free text" and m.score is None and m.start is None
    assert m.to_dict()["count"] == 1
