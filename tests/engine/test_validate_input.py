"""Bad input never crashes validate(): it gets a clear issue instead."""

from __future__ import annotations

from dataclasses import replace

from cutkit import codes, make_chunks
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import statistics, validate

TEXT = ("# Guide\n\nRestart the server. Edit the file. Restart the server.\n\n"
        "```py\nx = 1\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n")
S = Settings(min_tokens=0)


def test_chunks_out_of_order_give_the_same_cuts_as_in_order():
    doc = Document(TEXT)
    spans = [(0, 30), (30, 70), (70, 95), (95, len(TEXT))]
    ordered = make_chunks(TEXT, spans)
    shuffled = [ordered[2], ordered[0], ordered[3], ordered[1]]
    a = validate(doc, ordered, S)
    b = validate(doc, shuffled, S)
    assert [(i.code, i.cut, i.start) for i in a] == [(i.code, i.cut, i.start) for i in b]
    # chunk numbers are positions in the list given: the mapping follows the shuffle
    pos = {id(c): k for k, c in enumerate(shuffled)}
    for i, j in zip(a, b):
        if i.chunk is not None:
            assert j.chunk == pos[id(ordered[i.chunk])]


def test_empty_and_whitespace_chunks_are_reported_and_skipped():
    doc = Document(TEXT)
    n = TEXT.index("\n\n```")
    chunks = make_chunks(TEXT, [(0, n), (n, n), (n, n + 2), (n + 2, len(TEXT))])
    issues = validate(doc, chunks, S)
    empties = [i for i in issues if i.code == "CS303"]
    assert sorted(i.chunk for i in empties) == [1, 2]
    assert "is empty" in empties[0].message and "only whitespace" in empties[1].message
    assert not [i for i in issues if i.cut is not None]  # the real cut is between blocks


def test_offset_mismatch_from_str_find_is_reported_with_the_real_offsets():
    doc = Document(TEXT)
    phrase = "Restart the server."
    first = TEXT.index(phrase)
    second = TEXT.index(phrase, first + 1)
    # a pipeline computed start with str.find: the second copy got the first offset,
    # and its end from a running total
    chunks = [{"start": first, "end": first + len(phrase), "text": phrase},
              {"start": first + 1, "end": first + 1 + len(phrase), "text": phrase}]
    issues = validate(doc, chunks, S)
    (m,) = [i for i in issues if i.code == "CS301"]
    assert m.chunk == 1 and m.severity == "error"
    assert m.data["found"] == [first, second] and m.data["occurrences"] == 2
    assert "occurs 2 times" in m.message and "str.find" in m.message


def test_chunk_objects_with_a_different_source_are_checked():
    doc = Document(TEXT)
    other = TEXT.replace("Edit", "Open")
    chunks = [Chunk(0, len(TEXT), 0, source=other, tokens=10)]
    assert codes(validate(doc, chunks, S)) == ["CS301"]
    same = [Chunk(0, len(TEXT), 0, source=str(TEXT), tokens=10)]
    assert "CS301" not in codes(validate(doc, same, S))


def test_offsets_past_the_end_negative_reversed_or_missing():
    doc = Document(TEXT)
    n = len(TEXT)
    chunks = [{"start": 0, "end": n + 50}, {"start": -3, "end": 10}, {"start": 20, "end": 10},
              {"start": "0", "end": 10}, {"text": "no offsets"}, None, 42,
              Chunk(0, n, 7, source=TEXT, tokens=5)]
    issues = validate(doc, chunks, S)
    bad = sorted(i.chunk for i in issues if i.code == "CS302")
    assert bad == [0, 1, 2, 3, 4, 5, 6]
    past = [i for i in issues if i.code == "CS302" and i.chunk == 0][0]
    assert "past the end" in past.message and past.end <= n
    assert all(0 <= i.start <= i.end <= n for i in issues)


def test_langchain_and_llamaindex_shaped_dicts_are_read():
    doc = Document(TEXT)
    cut = TEXT.index("Edit the") + 3
    lc = [{"page_content": TEXT[:cut], "metadata": {"start_index": 0}},
          {"page_content": TEXT[cut:], "metadata": {"start_index": cut}}]
    li = [{"text": TEXT[:cut], "start_char_idx": 0, "end_char_idx": cut},
          {"text": TEXT[cut:], "start_char_idx": cut, "end_char_idx": len(TEXT)}]
    for chunks in (lc, li):
        issues = validate(doc, chunks, S)
        assert [i.code for i in issues if i.cut == cut] == ["CS001"]


def test_arbitrary_overlaps_and_nesting():
    doc = Document(TEXT)
    n = len(TEXT)
    spans = [(0, n), (10, 20), (10, 20), (5, 60), (55, n), (0, 3), (n - 1, n)]
    chunks = make_chunks(TEXT, spans)
    issues = validate(doc, chunks, S)
    for i in issues:
        assert 0 <= i.start <= i.end <= n
        if i.cut is not None:
            assert i.chunk is None or 0 <= i.chunk < len(chunks)
            assert i.other_chunk is None or 0 <= i.other_chunk < len(chunks)
    statistics(chunks, issues)


def test_uncovered_text_is_reported():
    doc = Document(TEXT)
    a = TEXT.index("```")
    b = TEXT.index("| a |")
    chunks = make_chunks(TEXT, [(0, a), (b, len(TEXT))])
    (u,) = [i for i in validate(doc, chunks, S) if i.code == "CS304"]
    assert (u.start, u.end) == (a, TEXT.index("```\n\n|") + 3)
    assert u.chunk == 0 and u.other_chunk == 1 and "in no chunk" in u.message


def test_no_chunks_and_empty_documents():
    assert validate(Document(""), [], S) == []
    assert validate(Document("   \n"), make_chunks("   \n", [(0, 4)]), S)[0].code == "CS303"
    assert codes(validate(Document(TEXT), [], S)) == ["CS304"]
    assert validate(Document(TEXT), None, S) == validate(Document(TEXT), [], S)


def test_unparsable_python_gets_no_code_checks_and_no_crash():
    text = "def broken(:\n    return 1\n\ndef ok():\n    return 2\n"
    doc = Document(text, kind="python")
    chunks = make_chunks(text, [(0, 20), (20, len(text))])
    issues = validate(doc, chunks, S)
    assert not [i for i in issues if i.code in ("CS201", "CS202")]


_ALPHABET = st.sampled_from(list("ab .,(`)[]|#-*>\n\n\r\t\u00e9\u0301\u4e2d😀~") + ["```", "| a |", "- ", "<div>", "---\n"])


@hsettings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_ALPHABET, max_size=60),
       spans=st.lists(st.tuples(st.integers(-5, 80), st.integers(-5, 80)), max_size=8),
       kind=st.sampled_from(["markdown", "text", "python", "code"]))
def test_fuzz_never_crashes(parts, spans, kind):
    text = "".join(parts)
    doc = Document(text, kind=kind)
    chunks = [Chunk(a, b, i, source=text, tokens=abs(b - a)) for i, (a, b) in enumerate(spans)]
    issues = validate(doc, chunks, Settings(min_tokens=2, size=10, unit="chars"))
    n = len(text)
    for i in issues:
        assert 0 <= i.start <= i.end <= n, i
        i.to_dict()
    stats = statistics(chunks, issues)
    assert 0 <= stats.chunks_with_issues <= len(chunks)


@hsettings(max_examples=60, deadline=None)
@given(parts=st.lists(_ALPHABET, min_size=1, max_size=50), data=st.data())
def test_fuzz_contiguous_chunks_cut_issues_lie_on_real_cuts(parts, data):
    text = "".join(parts)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=6))))
    bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
    chunks = make_chunks(text, list(zip(bounds, bounds[1:])))
    for i in validate(Document(text), chunks, S):
        if i.cut is not None:
            assert i.cut in bounds[1:-1]
            assert i.start <= i.cut <= i.end or i.code == "CS007"


def test_chunk_index_field_does_not_matter():
    doc = Document(TEXT)
    chunks = make_chunks(TEXT, [(0, 40), (40, len(TEXT))])
    renumbered = [replace(c, index=99) for c in chunks]
    assert [(i.code, i.chunk) for i in validate(doc, chunks, S)] == [
        (i.code, i.chunk) for i in validate(doc, renumbered, S)]
