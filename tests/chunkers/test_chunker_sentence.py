"""The ``sentence`` chunker: whole pysbd sentences merged greedily to ``size``."""

from __future__ import annotations

import pysbd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkseam.chunkers import get, names
from chunkseam.chunkers import sentence as sentence_module
from chunkseam.chunkers.sentence import paragraphs, sentence_spans
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import get_sizer

from conftest import FIXTURES

SENTENCE = get("sentence")
CHARS = get_sizer("chars")
TOKENS = get_sizer("tokens", "cl100k_base")


def chunk(text, sizer=TOKENS, size=40, overlap=0):
    return SENTENCE.chunk(Document(text), sizer, size=size, overlap=overlap)


def check(text, chunks, size, sizer=TOKENS):
    spans = sentence_spans(text)
    starts = {s for s, _ in spans}
    ends = {e for _, e in spans}
    for i, c in enumerate(chunks):
        assert c.index == i
        assert 0 <= c.start < c.end <= len(text)
        assert c.text == text[c.start : c.end]
        assert c.strategy == "sentence"
        assert c.start in starts, f"chunk {i} does not start at a sentence start"
        assert c.end in ends, f"chunk {i} does not end at a sentence end"
        assert c.tokens == sizer.count(c.text)
        if c.tokens > size:
            assert c.oversize and c.meta["sentences"] == 1
        else:
            assert not c.oversize
    for a, b in zip(chunks, chunks[1:]):
        assert a.start < b.start and a.end < b.end  # no chunk inside another
    for a, c in zip(chunks, chunks[2:]):
        assert a.end <= c.start  # only neighbours overlap
    # every sentence is in a chunk (so is every non-space character)
    for s, e in spans:
        assert any(c.start <= s and e <= c.end for c in chunks)


def test_registered():
    assert "sentence" in names()
    assert SENTENCE.name == "sentence" and "sentence" in SENTENCE.description


def test_reference_example_120_tokens_overlap_1_starts_at_sentence_starts():
    text = (FIXTURES / "database.md").read_text(encoding="utf-8")
    chunks = chunk(text, TOKENS, size=120, overlap=1)
    assert len(chunks) >= 2
    check(text, chunks, 120)
    # independently of our own segmentation: each chunk starts where pysbd
    # (run on the chunk's paragraph) starts a sentence, after whitespace
    seg = pysbd.Segmenter(language="en", clean=False)
    for c in chunks:
        assert c.start == 0 or text[c.start - 1].isspace()
        p_start = text.rfind("\n\n", 0, c.start + 1)
        p_start = 0 if p_start < 0 else p_start + 2
        p_end = text.find("\n\n", c.start)
        paragraph = text[p_start : p_end if p_end >= 0 else len(text)]
        firsts = [s.strip() for s in seg.segment(paragraph)]
        assert any(c.text.startswith(f) for f in firsts if f)
    # overlap 1: each chunk starts with the last sentence of the previous one
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end
        assert a.text.endswith(text[b.start : a.end])


def test_greedy_fill_in_characters():
    text = "One two. Three four five. Six. Seven eight nine ten. Eleven."
    chunks = chunk(text, CHARS, size=26)
    assert [c.text for c in chunks] == [
        "One two. Three four five.",  # 25: " Six." would make 30
        "Six. Seven eight nine ten.",  # exactly 26
        "Eleven.",
    ]
    # overlap 1 sentence, reduced to 0 where the next sentence would not fit
    assert [c.text for c in chunk(text, CHARS, size=26, overlap=1)] == [
        "One two. Three four five.",
        "Three four five. Six.",
        "Six. Seven eight nine ten.",
        "Eleven.",
    ]
    check(text, chunks, 26, CHARS)
    # greedy: no chunk could have taken the next sentence
    spans = sentence_spans(text)
    for c in chunks[:-1]:
        nxt = next(e for s, e in spans if s >= c.end)
        assert nxt - c.start > 26


def test_overlap_in_whole_sentences():
    text = " ".join(f"Sentence number {i} is here." for i in range(30))
    spans = sentence_spans(text)
    assert len(spans) == 30
    for overlap in (0, 1, 2, 3):
        chunks = chunk(text, TOKENS, size=30, overlap=overlap)
        check(text, chunks, 30)
        for a, b in zip(chunks, chunks[1:]):
            in_a = [i for i, (s, e) in enumerate(spans) if a.start <= s and e <= a.end]
            in_b = [i for i, (s, e) in enumerate(spans) if b.start <= s and e <= b.end]
            shared = sorted(set(in_a) & set(in_b))
            assert shared == in_a[len(in_a) - len(shared):]  # a tail of a
            assert len(shared) <= min(overlap, len(in_a) - 1)
            if len(shared) < min(overlap, len(in_a) - 1):
                # reduced: to fit the next new sentence, or to keep clear of
                # the chunk before a
                more = spans[in_b[0] - 1][0], b.end
                before = [c for c in chunks if c.end <= a.end and c is not a]
                assert TOKENS.count(text[more[0] : more[1]]) > 30 or (
                    before and spans[in_b[0] - 1][0] < before[-1].end
                )


def test_overlap_larger_than_a_chunk_still_moves_forward():
    text = " ".join(f"Sentence {i}." for i in range(20))
    chunks = chunk(text, TOKENS, size=12, overlap=50)
    check(text, chunks, 12)
    assert chunks[-1].end == len(text)
    assert len(chunks) < 25


def test_oversize_sentence_stays_whole():
    long = "This sentence has " + "many " * 60 + "words in it."
    text = f"Short one. {long} Another short one."
    chunks = chunk(text, TOKENS, size=20)
    check(text, chunks, 20)
    big = [c for c in chunks if c.oversize]
    assert len(big) == 1 and big[0].text == long and big[0].tokens > 20


def test_chunks_may_span_paragraphs_but_sentences_do_not():
    text = "First paragraph ends here\n\nSecond paragraph starts. It goes on."
    spans = sentence_spans(text)
    assert text[spans[0][0] : spans[0][1]] == "First paragraph ends here"
    chunks = chunk(text, TOKENS, size=100)
    assert len(chunks) == 1 and chunks[0].text == text
    check(text, chunks, 100)


def test_paragraph_split_handles_crlf_cr_and_blank_lines_with_spaces():
    text = "a one.\r\n\r\nb two.\r\rc three.\n   \n\td four."
    assert [text[s:e] for s, e in paragraphs(text)] == ["a one.", "b two.", "c three.", "\td four."]
    chunks = chunk(text, CHARS, size=16)  # "a one.\r\n\r\nb two." is 16 characters
    check(text, chunks, 16, CHARS)
    assert [c.text for c in chunks][0] == "a one.\r\n\r\nb two."


@pytest.mark.parametrize("sizer", [CHARS, TOKENS], ids=["chars", "tokens"])
@pytest.mark.parametrize("text", ["", " ", "\n\n \t\r\n  "], ids=["empty", "space", "blank"])
def test_empty_and_whitespace_only(sizer, text):
    assert chunk(text, sizer) == []


def test_unterminated_sentence_and_emoji_cjk():
    text = "日本語の文です。次の文です。\n\n🧑‍🚀 launches today 👍🏽 and then"
    chunks = chunk(text, TOKENS, size=12, overlap=1)
    check(text, chunks, 12)
    assert chunks[-1].text.endswith("and then")


def test_long_paragraph_is_segmented_in_windows(monkeypatch):
    monkeypatch.setattr(sentence_module, "WINDOW", 200)
    text = " ".join(f"Item {i} is described in this sentence." for i in range(60))
    spans = sentence_spans(text)
    assert len(spans) == 60
    assert all(text[s:e].startswith("Item ") and text[s:e].endswith(".") for s, e in spans)


def test_one_megabyte_line_of_prose():
    # a repeating text: windows repeat, and pysbd results are cached by content
    text = ("The cache is warm. Requests are fast; nothing waits. " * 20000)[:1_000_000]
    chunks = chunk(text, TOKENS, size=256, overlap=1)
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text.rstrip())
    for c in chunks[:50]:
        assert c.text == text[c.start : c.end] and c.tokens <= 256


def test_one_megabyte_without_spaces_is_one_oversize_sentence():
    text = "x" * 1_000_000
    chunks = chunk(text, CHARS, size=1000)
    assert len(chunks) == 1 and chunks[0].oversize and len(chunks[0]) == len(text)


@pytest.mark.parametrize("size,overlap", [(0, 0), (10, -1)])
def test_bad_size_or_overlap(size, overlap):
    with pytest.raises(ValueError, match="sentence: (size|overlap)"):
        chunk("Some text.", CHARS, size=size, overlap=overlap)


def test_o200k_and_chars_sizers_are_exact():
    text = (FIXTURES / "database.md").read_text(encoding="utf-8")
    sizer = get_sizer("tokens", "o200k_base")
    check(text, SENTENCE.chunk(Document(text), sizer, size=50, overlap=1), 50, sizer)
    check(text, chunk(text, CHARS, size=200, overlap=2), 200, CHARS)


@settings(max_examples=40, deadline=None)
@given(
    sentences=st.lists(
        st.tuples(
            st.sampled_from(["Alpha", "The value", "日本", "It", "x = 3", "`code`", "😀 Hi"]),
            st.lists(st.sampled_from(["beta", "gamma", "12", "e.g.", "(see", "below)", "é"]),
                     max_size=8),
            st.sampled_from([".", "!", "?", "", ":"]),
            st.sampled_from([" ", "  ", "\n", "\n\n", "\r\n\r\n", " \n"]),
        ),
        max_size=12,
    ),
    size=st.integers(3, 40),
    overlap=st.integers(0, 3),
    tokens=st.booleans(),
)
def test_property_sentence_chunks(sentences, size, overlap, tokens):
    text = "".join(f"{a} {' '.join(words)}{end}{gap}" for a, words, end, gap in sentences)
    sizer = TOKENS if tokens else CHARS
    chunks = chunk(text, sizer, size=size, overlap=overlap)
    check(text, chunks, size, sizer)
    assert chunk(text, sizer, size=size, overlap=overlap) == chunks


def test_chunks_are_the_dataclass_chunks_field_by_field():
    """The chunker makes its chunks with ``chunk_of`` (no dataclass
    ``__init__``): each is what ``Chunk(...)`` with the same fields makes."""
    import copy
    import dataclasses
    import pickle

    from chunkseam.core.chunk import Chunk, chunk_of

    text = "One sentence here. Another one follows it!\n\nA new paragraph? Yes. " * 20
    chunks = chunk(text, size=30, overlap=1)
    assert len(chunks) > 3
    for c in chunks:
        made = Chunk(c.start, c.end, c.index, source=text, tokens=c.tokens, strategy="sentence",
                     oversize=c.tokens > 30, meta={"sentences": c.meta["sentences"]})
        assert type(c) is Chunk
        assert c == made and hash(c) == hash(made) and repr(c) == repr(made)
        assert vars(c) == vars(made)
        assert dataclasses.asdict(c) == dataclasses.asdict(made)
        assert pickle.loads(pickle.dumps(c)) == made
        assert copy.copy(c) == made and c.to_dict() == made.to_dict()
        with pytest.raises(dataclasses.FrozenInstanceError):
            c.start = 0
    fields = [f.name for f in dataclasses.fields(Chunk)]
    values = {name: object() for name in fields}
    assert vars(chunk_of(**values)) == vars(Chunk(**values))  # every field, none more
