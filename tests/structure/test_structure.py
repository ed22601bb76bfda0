"""Tests for chunkseam.structure.markdown: Markdown blocks with exact spans, heading
paths, sentences, and the segment-cached parse (which must equal a parse of
the whole text)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from chunkseam.structure import markdown as S
from chunkseam.document.text import Document
from chunkseam.structure.markdown import _parse_segment, parse_blocks, structure

from conftest import corpus_files
from mdgen import markdown_texts


def _tuples(blocks):
    return [
        (b.kind, b.start, b.end, b.level, b.title, b.parent, b.depth, b.info,
         [tuple(r) for r in b.rows], b.header_end, b.closed, b.line, b.end_line)
        for b in blocks
    ]


def _whole(text):
    return [
        (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], [tuple(x) for x in r[8]], r[9], r[10],
         r[11], r[12])
        for r in _parse_segment(text)
    ]


def assert_segmented_equals_whole(text):
    seg = _tuples(parse_blocks(text))
    whole = _whole(text)
    if seg != whole:  # show the first difference, not two long lists
        for i, (a, b) in enumerate(zip(seg, whole)):
            assert a == b, f"block {i} differs in {text!r}"
        assert len(seg) == len(whole), text


def kinds(text):
    return [(b.kind, text[b.start : b.end]) for b in parse_blocks(text)]


# -- segmented parse == whole parse --------------------------------------------------


def test_segmented_parse_equals_whole_parse_on_the_corpus():
    files = corpus_files("markdown")
    assert len(files) > 100
    for path in files:
        assert_segmented_equals_whole(path.read_text(encoding="utf-8"))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown_texts())
def test_segmented_parse_equals_whole_parse_on_generated_markdown(text):
    assert_segmented_equals_whole(text)


@pytest.mark.parametrize(
    "text",
    [
        # the \r of a \r\n is not a blank line: "<div>" (HTML type 6) runs on
        # to the next blank line, over the heading line
        "]]>\r\n<div>\r\n# Title\r\n\r\n\r\n```\r\n",
        "<?php\r\n?>\r\n## Sub\r\n> - x\r\n",
        "text\r\n# Title\r\n\r\n## B\r\n",
        # a fence whose only line is its opener is not closed by itself
        "|---|---|\n  ```\n\n#\n<!--\n- ```\n~~~\n\n# Title\n",
        "```\n\n# inside the fence\n",
        # "> ```" does not close a top-level fence
        "```\n]]>\n> ```\n\n## inside the fence\n```\n",
        # HTML blocks of types 1-5 run over blank lines to their end marker
        "<!--\n\n# commented out\n\n-->\n\n# Real\n",
        "<script>\n\n# js comment?\n</script>\n\n# Real\n",
        "<pre>\n\n# x\n\n</pre>\n# y\n",
        # front matter: "# comment" lines are YAML, not headings
        "---\ntitle: x\n\n# yaml comment\n---\n\n# Real\n",
        "---\n\n# never closed\n",
        # nested fences with blank lines and heading-like lines
        "- ```\n  a\n\n  # in the item's fence\n  ```\n\n# after\n",
        "> ```\n> a\n>\n> # in the quote's fence\n\n# after\n",
        "text\r\rmore\r\r# Lone CR\r\rbody\r",
    ],
)
def test_segmented_parse_equals_whole_parse_on_known_traps(text):
    assert_segmented_equals_whole(text)


def test_an_edit_reparses_only_the_segment_it_touches(monkeypatch):
    sections = [f"# Section {i}\n\nBody of section {i}. It has text.\n" for i in range(30)]
    text = "\n".join(sections)
    S._SEGMENTS.clear()
    calls: list[str] = []
    real = S._parse_segment

    def counting(seg):
        calls.append(seg)
        return real(seg)

    monkeypatch.setattr(S, "_parse_segment", counting)
    before = _tuples(parse_blocks(text))
    assert len(calls) == 30
    calls.clear()
    edited = text.replace("Body of section 17.", "Body of section seventeen, edited.")
    after = parse_blocks(edited)
    assert len(calls) == 1 and "seventeen" in calls[0]
    assert _tuples(after) == _whole(edited)
    assert len(after) == len(before)


# -- spans of each kind -----------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_texts())
def test_has_headings_without_making_them(text):
    """``has_headings`` is ``bool(headings)``, before and after the heading
    blocks are made."""
    st = structure(Document(text, path="/virtual/h.md"))
    before = st.has_headings
    assert st._headings is None  # (no heading block made to answer)
    assert before == bool(st.headings) == st.has_headings


@pytest.mark.parametrize("text,expected", [
    ("", False), ("plain words\n", False), ("# Title\n\nbody\n", True),
    ("para\n\n    # indented code\n", False), ("> # quoted\n", False),
    ("Setext\n======\n", True), ("- item\n\n```\n# in a fence\n```\n", False),
])
def test_has_headings_cases(text, expected):
    st = structure(Document(text, path="/virtual/h.md"))
    assert st.has_headings is expected
    assert bool(st.headings) is expected


def test_spans_of_every_block_kind():
    text = (
        "---\ntitle: x\n# yaml comment\n---\n\n"
        "# Title\n\n"
        "A paragraph\nover two lines.\n\n"
        "```python\nprint(1)\n```\n\n"
        "    indented code\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
        "- one\n- two\n\n"
        "1. first\n2. second\n\n"
        "> quoted\n> text\n\n"
        "<!-- a comment -->\n\n"
        "***\n"
    )
    got = kinds(text)
    assert got == [
        ("front_matter", "---\ntitle: x\n# yaml comment\n---"),
        ("heading", "# Title"),
        ("paragraph", "A paragraph\nover two lines."),
        ("fence", "```python\nprint(1)\n```"),
        ("code", "    indented code"),
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"),
        ("bullet_list", "- one\n- two"),
        ("list_item", "- one"),
        ("paragraph", "one"),
        ("list_item", "- two"),
        ("paragraph", "two"),
        ("ordered_list", "1. first\n2. second"),
        ("list_item", "1. first"),
        ("paragraph", "first"),
        ("list_item", "2. second"),
        ("paragraph", "second"),
        ("blockquote", "> quoted\n> text"),
        ("paragraph", "quoted\n> text"),
        ("html_block", "<!-- a comment -->"),
        ("hr", "***"),
    ]
    blocks = parse_blocks(text)
    table = next(b for b in blocks if b.kind == "table")
    assert [text[s:e] for s, e in table.rows] == ["| a | b |", "| 1 | 2 |", "| 3 | 4 |"]
    assert text[table.start : table.header_end] == "| a | b |\n|---|---|"
    fence = next(b for b in blocks if b.kind == "fence")
    assert fence.info == "python" and fence.closed
    heading = next(b for b in blocks if b.kind == "heading")
    assert (heading.level, heading.title) == (1, "Title")
    # parents and depths
    items = [b for b in blocks if b.kind == "list_item"]
    assert all(blocks[b.parent].kind in ("bullet_list", "ordered_list") for b in items)
    assert all(b.depth == 1 for b in items)


def test_fence_closed_flag():
    assert [b.closed for b in parse_blocks("```\nx\n```\n") if b.kind == "fence"] == [True]
    assert [b.closed for b in parse_blocks("```\nx\n") if b.kind == "fence"] == [False]
    assert [b.closed for b in parse_blocks("```") if b.kind == "fence"] == [False]
    assert [b.closed for b in parse_blocks("```\n\n\n") if b.kind == "fence"] == [False]
    assert [b.closed for b in parse_blocks("~~~\na\n~~~~~\n") if b.kind == "fence"] == [True]
    assert [b.closed for b in parse_blocks("> ```\n> x\n> ```\n") if b.kind == "fence"] == [True]
    assert [b.closed for b in parse_blocks("> ```\n> x\n\nz\n") if b.kind == "fence"] == [False]
    # an unclosed fence at the end runs to the end of the document
    text = "# T\n\n```python\ncode\n\n# not a heading\n"
    fence = [b for b in parse_blocks(text) if b.kind == "fence"][0]
    assert text[fence.start : fence.end] == "```python\ncode\n\n# not a heading"
    assert [b.title for b in parse_blocks(text) if b.kind == "heading"] == ["T"]


def test_html_blocks_span_their_blank_lines():
    text = "<!--\n\n# hidden\n\n-->\n\n<script>\nlet a;\n\nlet b;\n</script>\n\n<div>\nx\n</div>\n"
    assert kinds(text) == [
        ("html_block", "<!--\n\n# hidden\n\n-->"),
        ("html_block", "<script>\nlet a;\n\nlet b;\n</script>"),
        ("html_block", "<div>\nx\n</div>"),
    ]
    unclosed = parse_blocks("<!--\nnever closed\n\n# x\n")
    assert [(b.kind, b.closed) for b in unclosed] == [("html_block", False)]


def test_nested_blocks_in_quotes_and_lists():
    text = "- item\n\n  ```\n  code\n  ```\n- > quoted in item\n\n> - item in quote\n>   more\n"
    blocks = parse_blocks(text)
    fence = next(b for b in blocks if b.kind == "fence")
    assert text[fence.start : fence.end] == "```\n  code\n  ```"
    assert fence.depth == 2
    quote = next(b for b in blocks if b.kind == "blockquote")
    assert text[quote.start : quote.end] == "> quoted in item"
    inner = [b for b in blocks if b.kind == "list_item" and b.depth == 2]
    assert [text[b.start : b.end] for b in inner] == ["- item in quote\n>   more"]


def test_front_matter_comment_lines_are_not_headings():
    doc = Document("---\n# comment\ntitle: x\n---\n\n# Real\n\ntext\n")
    st = structure(doc)
    assert [h.title for h in st.headings] == ["Real"]
    assert st.blocks[0].kind == "front_matter"


# -- heading paths -----------------------------------------------------------------------


def test_heading_paths():
    text = (
        "intro\n\n# A\n\na\n\n## B\n\nb\n\n#### D (skips a level)\n\nd\n\n## C\n\nc\n\n"
        "```\n# not a heading\n```\n\n> # quoted, not in the path\n\nSetext\n======\n\ns\n"
    )
    st = structure(Document(text))
    at = lambda word: st.heading_path_at(text.index(word))  # noqa: E731
    assert at("intro") == ()
    assert at("\na\n") == ("A",)
    assert at("\nb\n") == ("A", "B")
    assert at("\nd\n") == ("A", "B", "D (skips a level)")
    assert at("\nc\n") == ("A", "C")
    assert at("not a heading") == ("A", "C")
    assert at("quoted") == ("A", "C")
    assert at("\ns\n") == ("Setext",)
    assert at("# A") == ("A",)  # a heading encloses itself from its first character
    assert [h.title for h in st.headings] == ["A", "B", "D (skips a level)", "C", "Setext"]


def test_heading_paths_at_many_offsets_in_one_go():
    text = "intro\n\n# A\n\na\n\n## B\n\nb\n\n# C\n\nc\n" * 3
    st = structure(Document(text))
    offsets = list(range(len(text) + 1))
    offsets += offsets[::-7] + [0, len(text), 5]  # any order, repeats
    got = st.heading_paths_at(offsets)
    assert got == [st.heading_path_at(o) for o in offsets]
    assert got[0] == () and got[text.index("b")] == ("A", "B") and got[len(text)] == ("C",)
    assert structure(Document("no headings\n")).heading_paths_at([0, 3]) == [(), ()]


def test_heading_titles_drop_inline_markup():
    text = "# The `foo` [link](http://x) *em* ##\n\n## Title {#anchor}\n"
    st = structure(Document(text))
    assert [h.title for h in st.headings] == ["The foo link em", "Title"]


# -- offsets with CRLF, lone CR and non-ASCII -------------------------------------------------


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_offsets_with_crlf_and_lone_cr(eol):
    lf = "# Täitle 😀\n\nPara one\nline two.\n\n```\ncode\n```\n\n- a\n- b\n\n| x |\n|---|\n| 1 |\n"
    other = lf.replace("\n", eol)
    a, b = parse_blocks(lf), parse_blocks(other)
    assert [x.kind for x in a] == [x.kind for x in b]
    for x, y in zip(a, b):
        assert other[y.start : y.end] == lf[x.start : x.end].replace("\n", eol)
        assert (x.line, x.end_line) == (y.line, y.end_line)
        assert [other[s:e] for s, e in y.rows] == [lf[s:e] for s, e in x.rows]
    assert_segmented_equals_whole(other)


# -- lookups -----------------------------------------------------------------------------


def test_leaf_at_containing_and_blocks_between():
    text = "# H\n\n- one\n- two words\n\n> quote\n"
    st = structure(Document(text))
    off = text.index("words")
    assert st.leaf_at(off).kind == "paragraph"
    assert [b.kind for b in st.containing(off)] == ["bullet_list", "list_item", "paragraph"]
    assert st.leaf_at(text.index("\n\n")) is None  # between blocks
    assert [b.kind for b in st.blocks_between(0, text.index("- one"))] == ["heading"]
    assert [b.kind for b in st.top_level()] == ["heading", "bullet_list", "blockquote"]


def test_sentences_of_a_paragraph_are_absolute():
    text = "# H\n\nFirst sentence here. Second one follows! Third?\n"
    st = structure(Document(text))
    para = st.blocks[1]
    assert [text[s:e] for s, e in st.sentences(para)] == [
        "First sentence here.", "Second one follows!", "Third?",
    ]
    assert st.sentences(st.blocks[0]) == [(0, 3)]  # a heading is one unit
    assert st.sentence_at(text.index("one follows")) == (
        text.index("Second"), text.index("Third") - 1,
    )


def test_sentences_never_end_inside_inline_code_html_or_link_targets():
    text = (
        "Similarly, `panic!` is often right. Use `cargo build\n--release` to compile it. "
        "This command will create an\nexecutable. If you run `cargo build --release` it "
        "works. See [Chapter\n7][public]<!-- ignore -->. Read [docs](https://x.org/a.b.html) "
        "first. Then go.\n"
    )
    st = structure(Document(text))
    got = [text[s:e] for s, e in st.sentences(st.blocks[0])]
    assert got == [
        "Similarly, `panic!` is often right.",
        "Use `cargo build\n--release` to compile it.",
        "This command will create an\nexecutable.",
        "If you run `cargo build --release` it works.",
        "See [Chapter\n7][public]<!-- ignore -->.",
        "Read [docs](https://x.org/a.b.html) first.",
        "Then go.",
    ]


def test_structure_is_memoised_per_document():
    doc = Document("# A\n\ntext\n")
    assert structure(doc) is structure(doc)
    assert structure(Document(doc.text)) is not structure(doc)


def test_plain_text_documents_are_paragraphs():
    doc = Document("one\ntwo\n\n\n  three\n\n", kind="text")
    st = structure(doc)
    assert [(b.kind, doc.text[b.start : b.end]) for b in st.blocks] == [
        ("paragraph", "one\ntwo"), ("paragraph", "three"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "", " ", "\n\n", "\ufeff# BOM", "```", "> " * 300 + "deep",
        "".join("  " * i + "- x\n" for i in range(200)),
        "\x00\x01\x02 binary \x7f", "\ud800 lone surrogate",
    ],
)
def test_parse_survives_odd_input(text):
    blocks = parse_blocks(text)
    for b in blocks:
        assert 0 <= b.start <= b.end <= len(text)
    assert_segmented_equals_whole(text)


# -- lead-ins ----------------------------------------------------------------------------------

_LEAD_IN_RE = re.compile(r"(?<![:\n]):{1,2}\s*\Z")


@settings(max_examples=300, deadline=None)
@given(hst.text(alphabet="a: \n", max_size=12))
def test_lead_in_end_reads_the_tail_as_the_regex_says(text):
    """A paragraph ending with one or two colons (not three, not a colon alone
    at a line's start) is a lead-in: the same answer as a regex over the whole
    text, reading only its tail."""
    from chunkseam.structure.markdown import lead_in_end

    got = lead_in_end(text, 0, len(text))
    assert (got is not None) == (_LEAD_IN_RE.search(text) is not None)
    if got is not None:
        assert text[:got].rstrip() == text[:got] and text[got:].strip() == ""
