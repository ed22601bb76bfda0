"""The ``recursive`` chunker: LangChain's RecursiveCharacterTextSplitter,
offset-exact. Compared with the real ``langchain-text-splitters``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

langchain_text_splitters = pytest.importorskip("langchain_text_splitters")
from langchain_text_splitters import Language, RecursiveCharacterTextSplitter  # noqa: E402
from langchain_text_splitters.character import _split_text_with_regex  # noqa: E402

from chunkseam.chunkers import get, names  # noqa: E402
from chunkseam.chunkers.recursive import (  # noqa: E402
    LANGUAGE_SEPARATORS,
    SpanCounter,
    separators_for_language,
    split_spans,
)
from chunkseam.document.text import Document  # noqa: E402
from chunkseam.tokens.tiktoken import TokenSizer, get_encoding, get_sizer  # noqa: E402

from conftest import CORPUS, FIXTURES  # noqa: E402

RECURSIVE = get("recursive")
CHARS = get_sizer("chars")
TOKENS = get_sizer("tokens", "cl100k_base")
ENC = get_encoding("cl100k_base")


def ours(text, sizer=CHARS, size=20, overlap=0, **options):
    return RECURSIVE.chunk(Document(text), sizer, size=size, overlap=overlap, **options)


def token_length(text: str) -> int:
    # what from_tiktoken_encoder measures (special tokens disallowed; none here)
    return len(ENC.encode(text, allowed_special=set(), disallowed_special="all"))


def lc_splitter(size, overlap, tokens=False, **kwargs):
    if tokens:
        kwargs["length_function"] = token_length
    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, **kwargs)


def check_exact(text, chunks):
    for i, c in enumerate(chunks):
        assert c.index == i
        assert 0 <= c.start < c.end <= len(text)
        assert c.text == text[c.start : c.end]
        assert c.strategy == "recursive"


def test_registered():
    assert "recursive" in names()
    assert RECURSIVE.name == "recursive" and "LangChain" in RECURSIVE.description


def test_small_example_equals_langchain_with_true_offsets():
    text = "Alpha beta gamma.\n\nDelta epsilon.\nZeta eta theta iota kappa.\n\nLambda mu."
    chunks = ours(text, size=30, overlap=10)
    expected = lc_splitter(30, 10).split_text(text)
    assert [c.text for c in chunks] == expected
    check_exact(text, chunks)
    assert all(c.tokens == len(c.text) for c in chunks)


def test_reference_example_120_tokens_overlap_20():
    text = (FIXTURES / "database.md").read_text(encoding="utf-8")
    chunks = ours(text, TOKENS, size=120, overlap=20)
    assert len(chunks) >= 2
    assert all(c.tokens <= 120 for c in chunks)
    assert all(c.tokens == TOKENS.count(c.text) for c in chunks)
    assert not any(c.oversize for c in chunks)
    assert [c.text for c in chunks] == lc_splitter(120, 20, tokens=True).split_text(text)
    check_exact(text, chunks)


def test_add_start_index_of_langchain_is_wrong_on_repeated_text_ours_is_right():
    # four identical paragraphs: LangChain finds the last chunk's text with
    # str.find from an estimated offset and lands on an earlier copy
    text = "\n\n".join(["Done."] * 4)
    splitter = RecursiveCharacterTextSplitter(chunk_size=20, chunk_overlap=5, add_start_index=True)
    docs = splitter.create_documents([text])
    chunks = ours(text, size=20, overlap=5)
    assert [d.page_content for d in docs] == [c.text for c in chunks]
    lc_starts = [d.metadata["start_index"] for d in docs]
    assert lc_starts != [c.start for c in chunks]
    # the chunker has seen the whole document, so the last chunk ends at its end;
    # with LangChain's start the last paragraph would belong to no chunk
    assert chunks[-1].end == len(text)
    last = docs[-1]
    assert last.metadata["start_index"] + len(last.page_content) < len(text)
    assert [(c.start, c.end) for c in chunks] == [(0, 19), (21, 26)]


def test_repeated_paragraphs_keep_increasing_true_starts():
    para = "Restart the server. Then check the logs for errors."
    text = "\n\n".join([para] * 12)
    chunks = ours(text, size=120, overlap=60)
    assert [c.text for c in chunks] == lc_splitter(120, 60).split_text(text)
    check_exact(text, chunks)
    starts = [c.start for c in chunks]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    assert chunks[-1].end == len(text)


@pytest.mark.parametrize("keep", [True, "start", "end", False])
@pytest.mark.parametrize("strip", [True, False])
def test_options_match_langchain(keep, strip):
    text = "one two  three\n\nfour five six seven\n\n\n\neight nine ten eleven twelve\nthirteen"
    kwargs = dict(keep_separator=keep, strip_whitespace=strip)
    chunks = ours(text, size=16, overlap=5, **kwargs)
    expected = lc_splitter(16, 5, **kwargs).split_text(text)
    check_exact(text, chunks)
    if keep is False:
        # LangChain re-joins the pieces with the separator, collapsing runs of
        # separators; ours is the true span: equal up to those whitespace runs
        norm = lambda s: " ".join(s.split())  # noqa: E731
        assert [norm(c.text) for c in chunks] == [norm(t) for t in expected]
    else:
        assert [c.text for c in chunks] == expected


def test_regex_separators_and_lookahead_match_langchain():
    text = "Intro text.\nSection A: alpha beta.\nSection B: gamma delta epsilon.\nSection C: zeta."
    for keep in (True, "end"):
        kwargs = dict(separators=[r"\n(?=Section)", r"\.\s", " ", ""], is_separator_regex=True,
                      keep_separator=keep)
        chunks = ours(text, size=30, overlap=0, **kwargs)
        assert [c.text for c in chunks] == lc_splitter(30, 0, **kwargs).split_text(text)
        check_exact(text, chunks)


def test_custom_separators_without_empty_string_emit_long_pieces_unsplit():
    text = "short; " + "x" * 50 + "; tail"
    chunks = ours(text, size=10, separators=[";"])
    expected = lc_splitter(10, 0, separators=[";"]).split_text(text)
    assert [c.text for c in chunks] == expected
    long = [c for c in chunks if "xxxx" in c.text]
    assert long and long[0].oversize and long[0].tokens > 10


@pytest.mark.parametrize("language", sorted(LANGUAGE_SEPARATORS))
def test_language_separators_equal_langchain(language):
    expected = RecursiveCharacterTextSplitter.get_separators_for_language(Language(language))
    assert list(separators_for_language(language)) == expected
    assert separators_for_language(Language(language)) == separators_for_language(language)


def _sample(kind: str, pattern: str, n: int) -> list[Path]:
    base = CORPUS / kind
    if not base.is_dir():
        pytest.skip(f"corpus not found at {base}")
    files = sorted(base.rglob(pattern))
    return files[:: max(1, len(files) // n)][:n]


@pytest.mark.parametrize(
    "language,kind,pattern", [("python", "python", "*.py"), ("markdown", "markdown", "*.md")]
)
def test_from_language_on_corpus_sample(language, kind, pattern):
    files = _sample(kind, pattern, 12)
    lc = RecursiveCharacterTextSplitter.from_language(
        Language(language), chunk_size=400, chunk_overlap=50, length_function=token_length
    )
    for path in files:
        text = path.read_text(encoding="utf-8")
        chunks = ours(text, TOKENS, size=400, overlap=50, language=language)
        assert [c.text for c in chunks] == lc.split_text(text), path
        check_exact(text, chunks)


def test_special_token_text_is_counted_as_plain_text():
    text = "before <|endoftext|> after\n\n" * 3
    with pytest.raises(ValueError):  # LangChain's from_tiktoken_encoder refuses it
        token_length(text)
    chunks = ours(text, TOKENS, size=8, overlap=0)
    check_exact(text, chunks)
    assert all(c.tokens == len(ENC.encode_ordinary(c.text)) for c in chunks)


@pytest.mark.parametrize("sizer", [CHARS, TOKENS], ids=["chars", "tokens"])
@pytest.mark.parametrize("text", ["", " ", "\n\n \t\r\n  "], ids=["empty", "space", "blank"])
def test_empty_and_whitespace_only(sizer, text):
    assert ours(text, sizer, size=10) == []


def test_crlf_and_lone_cr():
    text = "first line\r\nsecond line\r\n\r\nthird\rfourth line here\r\n"
    for sizer, tokens in ((CHARS, False), (TOKENS, True)):
        chunks = ours(text, sizer, size=8, overlap=2)
        assert [c.text for c in chunks] == lc_splitter(8, 2, tokens=tokens).split_text(text)
        check_exact(text, chunks)


def test_emoji_and_cjk_with_tokens():
    text = "日本語のテキストです。" * 20 + "\n\n" + "🧑‍🚀👍🏽 " * 30
    chunks = ours(text, TOKENS, size=16, overlap=4)
    assert [c.text for c in chunks] == lc_splitter(16, 4, tokens=True).split_text(text)
    check_exact(text, chunks)
    assert all(c.tokens == TOKENS.count(c.text) for c in chunks)


def test_one_megabyte_line():
    text = ("lorem ipsum dolor sit amet, consectetur adipiscing elit " * 18000)[:1_000_000]
    chunks = ours(text, TOKENS, size=256, overlap=32)
    check_exact(text, chunks)
    assert chunks[0].start == 0 and chunks[-1].end == len(text.rstrip())
    # LangChain measures " adipiscing" (1 token) but the stripped chunk starts
    # with "adipiscing" (3 tokens): its chunks can exceed the budget by a few
    # tokens. Ours are the same chunks, and say so.
    assert all(c.oversize == (c.tokens > 256) for c in chunks)
    assert all(c.tokens <= 256 + 4 for c in chunks)
    head = text[:20_000]
    assert [c.text for c in ours(head, TOKENS, size=256, overlap=32)] == lc_splitter(
        256, 32, tokens=True).split_text(head)
    # the same text in characters, checked against LangChain
    chunks = ours(text, CHARS, size=1000, overlap=200)
    assert [c.text for c in chunks] == lc_splitter(1000, 200).split_text(text)


def test_one_megabyte_without_separators_splits_by_character():
    text = "x" * 200_000
    chunks = ours(text, CHARS, size=1000, overlap=0)
    assert [len(c) for c in chunks] == [1000] * 200
    assert "".join(c.text for c in chunks) == text
    assert [c.text for c in chunks] == lc_splitter(1000, 0).split_text(text)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(size=0), "size must be a positive"),
        (dict(size=10, overlap=11), r"overlap \(11\) must not be larger than size \(10\)"),
        (dict(size=10, overlap=-1), "overlap must be a non-negative"),
        (dict(size=10, keep_separator="middle"), "keep_separator"),
        (dict(size=10, separators="\n"), "separators"),
        (dict(size=10, separators=["("], is_separator_regex=True), "not a valid regex"),
        (dict(size=10, language="klingon"), "unknown language"),
        (dict(size=10, language="python", separators=["\n"]), "either"),
    ],
)
def test_bad_options_are_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ours("some text", **kwargs)


def test_overlap_equal_to_size_is_allowed_like_langchain():
    text = "a b c d e f g h i j k"
    assert [c.text for c in ours(text, size=5, overlap=5)] == lc_splitter(5, 5).split_text(text)


# ---------------------------------------------------------------------------
# properties, differential against LangChain

_ALPHABET = st.sampled_from(list("aab b.\n\n \t\r,;é日😀") + ["\n\n", "  ", "ab", "Zy9"])
_TEXT = st.lists(_ALPHABET, max_size=80).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXT, size=st.integers(1, 30), data=st.data(),
       keep=st.sampled_from([True, "end", "start"]), strip=st.booleans(),
       tokens=st.booleans())
def test_property_equals_langchain(text, size, data, keep, strip, tokens):
    overlap = data.draw(st.integers(0, size))
    kwargs = dict(keep_separator=keep, strip_whitespace=strip)
    chunks = ours(text, TOKENS if tokens else CHARS, size=size, overlap=overlap, **kwargs)
    expected = lc_splitter(size, overlap, tokens=tokens, **kwargs).split_text(text)
    assert [c.text for c in chunks] == expected
    check_exact(text, chunks)
    sizer = TOKENS if tokens else CHARS
    assert all(c.tokens == sizer.count(c.text) for c in chunks)
    starts = [c.start for c in chunks]
    assert starts == sorted(starts)


@settings(max_examples=100, deadline=None)
@given(text=_TEXT, keep=st.sampled_from([True, False, "start", "end"]),
       sep=st.sampled_from(["\n\n", "\n", " ", "", ".", r"\s+", r"(?=b)", r"\b", "a*"]))
def test_property_split_spans_equal_langchain_pieces(text, keep, sep):
    regex = sep in (r"\s+", r"(?=b)", r"\b", "a*")
    pattern = sep if regex else re.escape(sep)
    expected = _split_text_with_regex(text, pattern, keep_separator=keep)
    spans = split_spans(text, sep, keep_separator=keep, is_regex=regex)
    assert [text[a:b] for a, b in spans] == expected
    assert all(a < b for a, b in spans)
    assert all(a1 <= a2 and b1 <= a2 for (a1, b1), (a2, _) in zip(spans, spans[1:]))


# ---------------------------------------------------------------------------
# the span counter: exact token counts from piece counts

_RICH = st.sampled_from(
    list("aZ9 .,'\"()-\n\r\t_#*`<>/:;!?")
    + ["'s", "'ll", "'re", "123", "4567", " 89", "é", "日本", "😀", "\u00a0", "\u2028", "...",
       "\n\n", "  "]
)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.lists(_RICH, min_size=1, max_size=12).map("".join), min_size=1, max_size=8),
    data=st.data(),
)
def test_property_span_counter_is_exact(parts, data):
    text = "".join(parts)
    sizer = TokenSizer(ENC)
    pieces = []
    pos = 0
    for part in parts:
        pieces.append((pos, pos + len(part), sizer.count(part)))
        pos += len(part)
    counter = SpanCounter(text, sizer, sizer.count)
    counter.MIN_PIECE = data.draw(st.sampled_from([1, 4, 48]))
    assert counter.enabled
    i = data.draw(st.integers(0, len(pieces) - 1))
    j = data.draw(st.integers(i + 1, len(pieces)))
    a, b = pieces[i][0], pieces[j - 1][1]
    # whitespace may be cut off the ends, as strip_whitespace does
    span = text[a:b]
    a2 = a + len(span) - len(span.lstrip())
    b2 = b - (len(span) - len(span.rstrip()))
    if a2 < b2:
        assert counter.span(a2, b2, pieces[i:j]) == len(ENC.encode_ordinary(text[a2:b2]))
    assert counter.span(a, b, pieces[i:j]) == len(ENC.encode_ordinary(text[a:b]))


def test_span_counter_is_off_for_other_encodings():
    sizer = get_sizer("tokens", "o200k_base")
    counter = SpanCounter("abc def", sizer, sizer.count)
    assert not counter.enabled
    assert counter.span(0, 7, [(0, 3, 1), (3, 7, 1)]) == sizer.count("abc def")


def test_other_encoding_equals_langchain():
    enc = get_encoding("o200k_base")
    text = (FIXTURES / "database.md").read_text(encoding="utf-8")
    chunks = ours(text, get_sizer("tokens", "o200k_base"), size=60, overlap=10)
    lc = RecursiveCharacterTextSplitter(
        chunk_size=60, chunk_overlap=10, length_function=lambda s: len(enc.encode_ordinary(s))
    )
    assert [c.text for c in chunks] == lc.split_text(text)
    assert all(c.tokens == len(enc.encode_ordinary(c.text)) for c in chunks)
