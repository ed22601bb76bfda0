"""Statistics: the broken-chunk rate, what counts, and totals over documents."""

from __future__ import annotations

from cutkit import make_chunks, marked

from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import Stats, charged_chunk, statistics, total, validate

S = Settings(min_tokens=0)


def test_end_cut_is_charged_to_the_left_chunk_start_cut_to_the_right():
    end = Issue("CS002", "mid-sentence", "warning", "m", 0, 5, chunk=2, other_chunk=3, cut=4,
                data={"side": "end"})
    both = Issue("CS002", "mid-sentence", "warning", "m", 0, 5, chunk=2, other_chunk=3, cut=4,
                 data={"side": "both"})
    start = Issue("CS002", "mid-sentence", "warning", "m", 0, 5, chunk=2, other_chunk=3, cut=4,
                  data={"side": "start"})
    assert (charged_chunk(end), charged_chunk(both), charged_chunk(start)) == (2, 2, 3)


def test_rate_counts_error_and_warning_only():
    doc, chunks, _ = marked("Edit the configu✂ration file now. Then ✂restart the server.\n\n"
                            "Set it.✂ This is done.")
    issues = validate(doc, chunks, Settings(min_tokens=0))
    st = statistics(chunks, issues)
    # chunk 1 ends mid-word, chunk 2 ends mid-sentence; chunk 4 opens with "This" (info)
    assert st.chunks == 4 and st.chunks_with_issues == 2 and st.rate == 0.5
    assert st.per_rule == {"CS001": 1, "CS002": 1, "CS103": 1}
    assert st.per_severity == {"error": 1, "warning": 1, "info": 1}
    regraded = validate(doc, chunks, Settings(min_tokens=0, severity={"CS002": "info"}))
    assert statistics(chunks, regraded).chunks_with_issues == 1


def test_overlap_counts_both_chunks_when_both_are_cut():
    text = "One two three four five six seven eight nine ten."
    chunks = make_chunks(text, [(0, text.index("seven")), (text.index("four"), len(text))])
    st = statistics(chunks, validate(Document(text), chunks, S))
    assert st.chunks_with_issues == 2


def test_a_chunk_with_several_issues_counts_once_and_totals_add_up():
    doc, chunks, _ = marked("The ✂quick ✂brown fox.")
    st1 = statistics(chunks, validate(doc, chunks, S))
    assert st1.chunks_with_issues == 2 and st1.per_rule == {"CS002": 2}
    doc2, chunks2, _ = marked("Clean one.\n✂\nClean two.")
    st2 = statistics(chunks2, validate(doc2, chunks2, S))
    t = total([st1, st2])
    assert (t.documents, t.chunks, t.chunks_with_issues) == (2, 5, 2)
    assert t.rate == 2 / 5 and t.per_rule == {"CS002": 2}
    d = t.to_dict()
    assert d["rate"] == t.rate and d["documents"] == 2 and d["per_rule"] == {"CS002": 2}
    assert total([]).to_dict()["rate"] == 0.0 and Stats().rate == 0.0


def test_statistics_tolerates_foreign_chunk_numbers():
    issues = [Issue("CS002", "mid-sentence", "warning", "m", 0, 1, chunk=99, data={"side": "end"}),
              Issue("CS304", "uncovered-text", "warning", "m", 0, 1, chunk=None)]
    assert statistics([object()], issues).chunks_with_issues == 0
