"""The ``markdown`` strategy: heading sections with their paths, split at
blocks, then sentences, then words; atomic blocks never cut."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from chunkseam.chunkers import get, route
from chunkseam.document.text import Document
from chunkseam.structure.markdown import structure
from chunkseam.tokens.tiktoken import get_sizer

from conftest import FIXTURES, corpus_files

MD = get("markdown")
TOK = get_sizer("tokens", "cl100k_base")
CHARS = get_sizer("chars")
#: inline units a word-level cut may not split
INLINE_UNIT = re.compile(
    r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)|<!--.*?-->|</?[A-Za-z][^<>]*>"
    r"|!?\[[^\[\]]*\](?:\([^()]*\)|\[[^\[\]]*\])?",
    re.S,
)
#: a lead-in paragraph ("…like so:"), glued to the block it introduces
LEAD_IN = re.compile(r"(?<![:\n]):{1,2}\s*\Z")
#: never cut, whatever the size
ATOMIC = {"fence", "code", "table", "front_matter", "html_block", "list_item", "hr", "heading"}


def chunk(text, size, overlap=0, sizer=TOK, **kw):
    doc = Document(text) if isinstance(text, str) else text
    return doc, MD.chunk(doc, sizer, size=size, overlap=overlap, **kw)


def texts(chunks):
    return [c.text for c in chunks]


def check_invariants(doc, chunks, size, sizer, overlap=0):
    """What every markdown chunk list must satisfy (beyond the generic
    properties of tests/engine/test_properties.py)."""
    text = doc.text
    st = structure(doc)
    by_end: dict[int, list] = {}
    for b in st.blocks:
        by_end.setdefault(b.end, []).append(b)
    for i, c in enumerate(chunks):
        assert c.index == i and c.strategy == "markdown"
        assert c.tokens == sizer.count(c.text)
        assert c.oversize == (c.tokens > size)
        # a block's own trailing spaces (a Markdown line may end in spaces) may stay
        # with it; a line break or a blank line after the block may not
        assert c.text.rstrip(" \t") == c.text.rstrip(), "no trailing blank lines"
        if c.text != c.text.lstrip():  # only an indented code block keeps its indentation
            assert any(b.kind == "code" and b.start == c.start for b in by_end.get(
                c.start + len(c.text.rstrip()), []) + st.containing(c.start)), c.text[:40]
        # no cut inside an atomic block or a word
        for p in (c.start, c.end):
            for b in st.containing(p) + by_end.get(p, []):
                if b.kind in ATOMIC:
                    assert not b.strictly_inside(p), (b.kind, text[b.start : b.end][:60])
            if 0 < p < len(text):
                assert not (text[p - 1].isalnum() and text[p].isalnum()), (
                    f"cut inside a word at {p}: {text[p - 10 : p + 10]!r}")
        # the heading path is that of the section the chunk's body belongs to
        assert c.heading_path == st.heading_path_at(c.end - 1)
        # a heading never ends a chunk, unless nothing follows it in the document
        last = [b for b in by_end.get(c.end, []) if b.depth == 0]
        if last and last[0].kind == "heading":
            assert not text[c.end :].strip(), f"chunk ends with a heading: {c.text[-60:]!r}"
        if c.oversize:
            assert_single_unit(doc, c)
    if not overlap:
        for a, b in zip(chunks, chunks[1:]):
            assert a.end <= b.start


def assert_single_unit(doc, c):
    """An oversize chunk is one atomic block (after the headings, labels and
    link reference definitions glued before it) or a single word."""
    from chunkseam.structure.markdown import is_anchor

    text = doc.text
    st = structure(doc)
    near = st.containing(c.start) + st.blocks_between(c.start, c.end)
    pos = c.start
    defs = re.match(r"(?: {0,3}\[[^\]\n]+\]:[^\n]*\n\s*)+", text[pos : c.end])  # (link definitions: glued too)
    pos += defs.end() if defs else 0
    for b in near:
        glued = b.kind == "heading" or (b.depth == 0 and is_anchor(b.kind, b.info, text[b.start : b.end])) or (
            b.depth == 0 and b.kind == "paragraph" and LEAD_IN.search(text, b.start, b.end) is not None) or (
            b.kind == "front_matter")  # (front matter goes with the first heading)
        if glued and doc.line_start(doc.line_of(b.start)) <= pos <= b.start < c.end:
            pos = b.end + len(text[b.end : c.end]) - len(text[b.end : c.end].lstrip())
    rest = text[pos : c.end]
    inline = [m.span() for m in INLINE_UNIT.finditer(rest)]
    if all(any(a < m.start() and m.end() < b for a, b in inline) for m in re.finditer(r"\s+", rest)):
        return  # one word, or words joined inside a code span, an HTML tag or a link
    end = c.start + len(c.text.rstrip("\r\n >"))  # a trailing ">" line of a quote may follow
    near = st.containing(pos) + st.blocks_between(pos, c.end)
    inside = [b for b in near if b.kind in ATOMIC and b.start <= pos and b.end >= end]
    lines = [b for b in near if b.kind in ATOMIC and doc.line_start(doc.line_of(b.start)) <= pos
             <= b.start and b.end == end]
    assert inside or lines, f"oversize chunk is not one unit: {c.text[:80]!r}"


# -- the field's reference example (acceptance test) -----------------------------------


def test_reference_example_gives_four_sections_with_their_paths():
    doc = Document.from_path(FIXTURES / "database.md")
    chunks = MD.chunk(doc, TOK, size=200)
    assert [c.heading_path for c in chunks] == [
        ("Setting Up the Database",),
        ("Setting Up the Database", "Installing the Server"),
        ("Setting Up the Database", "Creating the Schema"),
        ("Setting Up the Database", "Connection Strings"),
    ]
    assert [c.text.split("\n")[0] for c in chunks] == [
        "# Setting Up the Database", "## Installing the Server", "## Creating the Schema",
        "## Connection Strings",
    ]
    assert chunks[-1].text.endswith("`postgresql://postgres@localhost/myapp`.")
    assert sum(c.tokens for c in chunks) < 200  # the whole text would fit: sections still split
    check_invariants(doc, chunks, 200, TOK)


def test_router_sends_markdown_files_here():
    assert route(Document("x", path="docs/a.md")) == "markdown"
    assert route(Document("x", path="a.markdown")) == "markdown"


# -- sections -------------------------------------------------------------------------------


def test_one_chunk_per_section_and_subsections_separate():
    text = "Intro text.\n\n# A\n\nbody a\n\n## A1\n\nbody a1\n\n### A1x\n\nx\n\n# B\n\nbody b\n"
    doc, chunks = chunk(text, 400)
    assert texts(chunks) == [
        "Intro text.", "# A\n\nbody a", "## A1\n\nbody a1", "### A1x\n\nx", "# B\n\nbody b",
    ]
    assert [c.heading_path for c in chunks] == [
        (), ("A",), ("A", "A1"), ("A", "A1", "A1x"), ("B",),
    ]


def test_a_heading_without_body_joins_the_next_section():
    text = "# Guide\n\n## Intro\n\nThe body.\n\n## Empty\n## Next\n\nMore.\n\n# Trailing"
    doc, chunks = chunk(text, 400)
    assert texts(chunks) == [
        "# Guide\n\n## Intro\n\nThe body.", "## Empty\n## Next\n\nMore.", "# Trailing",
    ]
    assert [c.heading_path for c in chunks] == [
        ("Guide", "Intro"), ("Guide", "Next"), ("Trailing",),
    ]
    check_invariants(doc, chunks, 400, TOK)


def test_front_matter_is_kept_and_atomic():
    fm = "---\n" + "".join(f"key{i}: value number {i}\n" for i in range(40)) + "---\n"
    text = fm + "\n# Title\n\nBody.\n"
    doc, chunks = chunk(text, 50)
    assert chunks[0].text == fm.rstrip("\n") and chunks[0].oversize
    assert chunks[0].heading_path == ()
    assert chunks[1].text == "# Title\n\nBody."
    check_invariants(doc, chunks, 50, TOK)


def test_front_matter_goes_with_the_first_heading():
    """Front matter directly followed by the first heading is no chunk of its
    own ("sidebar_position: 2" is nothing to retrieve): it joins that
    heading's section, and stays with the heading when the section is split."""
    fm = "---\nsidebar_position: 2\n---\n\n"
    text = fm + "# Tools\n\nDSPy supports tools.\n\n## Next\n\nMore here.\n"
    doc, chunks = chunk(text, 400)
    assert [c.text for c in chunks] == [fm + "# Tools\n\nDSPy supports tools.", "## Next\n\nMore here."]
    assert chunks[0].heading_path == ("Tools",)
    check_invariants(doc, chunks, 400, TOK)
    big = fm + "# Tools\n\n" + "\n\n".join(para(30, f"p{k}x") for k in range(4)) + "\n"
    doc, chunks = chunk(big, 80)
    assert chunks[0].start == 0 and "# Tools" in chunks[0].text and len(chunks) > 1
    check_invariants(doc, chunks, 80, TOK)
    # front matter then a paragraph: the text before the first heading, as before
    doc, chunks = chunk(fm + "Intro here.\n\n# Tools\n\nBody.\n", 400)
    assert chunks[0].text == fm + "Intro here." and chunks[0].heading_path == ()


def test_a_lead_in_stays_with_the_block_it_introduces():
    """A paragraph ending with a colon is glued to the block after it, as a
    heading is: the example never starts a chunk without its lead-in."""
    code = "```python\n" + "\n".join(f"client.call_{k}(timeout={k})" for k in range(12)) + "\n```"
    text = ("## Timeouts\n\n" + para(40, "intro") + "\n\nSet a timeout on every call like so:\n\n"
            + code + "\n\nThat is all.\n")
    doc, chunks = chunk(text, 120)
    holder = next(c for c in chunks if "```python" in c.text)
    assert "Set a timeout on every call like so:" in holder.text
    assert not any(c.text.rstrip().endswith("like so:") for c in chunks)
    check_invariants(doc, chunks, 120, TOK)
    # not before a heading, and not an admonition's ":::" line
    assert MD.chunk(Document("Intro.\n\nNote:\n\n## Next\n\nBody.\n"), TOK, size=400)[0].text.endswith("Note:")


# -- splitting a section over budget --------------------------------------------------------


def para(n, word="word"):
    return " ".join(f"{word}{i}" for i in range(n)) + "."


def test_big_section_splits_at_blocks_with_the_heading_first():
    text = "## Big\n\n" + "\n\n".join(para(30, f"p{k}x") for k in range(6)) + "\n"
    doc, chunks = chunk(text, 150)
    assert len(chunks) > 1
    assert chunks[0].text.startswith("## Big\n\np0x0")
    for c in chunks:
        assert c.tokens <= 150 and not c.oversize
        assert c.heading_path == ("Big",)
        # block boundaries: every chunk starts at a paragraph start
        assert re.match(r"(## Big\n\n)?p\dx0 ", c.text)
        assert c.text.rstrip("\n>").endswith(".")  # a ">" line between children stays
    check_invariants(doc, chunks, 150, TOK)


def test_big_paragraph_splits_at_sentences():
    sentences = [f"Sentence number {i} says something useful about the topic." for i in range(40)]
    text = "# S\n\n" + " ".join(sentences) + "\n"
    doc, chunks = chunk(text, 60)
    assert len(chunks) > 2
    assert chunks[0].text.startswith("# S\n\nSentence number 0")
    for c in chunks:
        body = c.text.removeprefix("# S\n\n")
        assert body.startswith("Sentence number ") and body.endswith(".")
        assert c.tokens <= 60
    assert " ".join(c.text.removeprefix("# S\n\n") for c in chunks) == " ".join(sentences)
    check_invariants(doc, chunks, 60, TOK)


def test_sentence_cuts_avoid_inline_code_and_html():
    text = "# P\n\n" + " ".join(
        f"Call `panic!` in case {i} fails. Then see <!-- note --> the [guide](https://x.org/a.b) now."
        for i in range(30)) + "\n"
    doc, chunks = chunk(text, 40)
    assert len(chunks) > 3
    for c in chunks:
        body = c.text.removeprefix("# P\n\n")
        assert body.startswith(("Call `panic!` in case", "Then see <!--"))
        assert body.endswith(("fails.", "now."))
        assert body.count("`") % 2 == 0 and body.count("<!--") == body.count("-->")
    check_invariants(doc, chunks, 40, TOK)


def test_word_cuts_keep_inline_code_links_and_tags_whole():
    sentence = " ".join(
        f"w{i} `code span {i}` [a link {i}](http://x.org/{i}) <span class='x'>" for i in range(20)
    ) + "."
    doc, chunks = chunk("# W\n\n" + sentence + "\n", 30)
    assert len(chunks) > 4
    for c in chunks:
        body = c.text.removeprefix("# W\n\n")
        assert body.count("`") % 2 == 0, body
        for o, e in ("[]", "()", "<>"):
            assert body.count(o) == body.count(e), body
    tag = "<img alt='" + " ".join(f"word{i}" for i in range(200)) + "' src='x.png' />"
    doc, chunks = chunk(f"Before.\n\n{tag}\n", 30)
    assert texts(chunks) == ["Before.", tag] and chunks[1].oversize
    check_invariants(doc, chunks, 30, TOK)


def test_big_sentence_splits_at_words_and_a_huge_word_is_oversize():
    long_sentence = " ".join(f"w{i}" for i in range(300)) + "."
    doc, chunks = chunk("# W\n\n" + long_sentence, 40)
    assert len(chunks) > 5
    assert all(c.tokens <= 40 for c in chunks)
    assert " ".join(c.text.removeprefix("# W\n\n") for c in chunks) == long_sentence
    word = "x" * 2000
    doc, chunks = chunk(f"Before it.\n\nA {word} b.\n", 40)
    assert texts(chunks) == ["Before it.\n\nA", word, "b."]
    assert [c.oversize for c in chunks] == [False, True, False]
    check_invariants(doc, chunks, 40, TOK)


@pytest.mark.parametrize(
    "block",
    [
        "```python\n" + "\n".join(f"print({i})  # line {i}" for i in range(60)) + "\n```",
        "~~~\n" + "\n\n".join(f"x = {i}" for i in range(60)) + "\n~~~",
        "\n".join(f"    indented_code_line({i})" for i in range(60)),
        "| a | b |\n|---|---|\n" + "\n".join(f"| row {i} | value {i} |" for i in range(60)),
        "<div>\n" + "\n".join(f"<p>html line {i}</p>" for i in range(60)) + "\n</div>",
        "<!--\n" + "\n\n".join(f"comment line {i}" for i in range(60)) + "\n-->",
    ],
)
def test_atomic_blocks_are_never_cut(block):
    text = "# Code\n\nLead-in paragraph.\n\n" + block + "\n\nAfter the block.\n"
    doc, chunks = chunk(text, 50)
    holding = [c for c in chunks if block in c.text]
    assert len(holding) == 1 and holding[0].oversize
    assert holding[0].text == block
    assert texts(chunks)[0] == "# Code\n\nLead-in paragraph."
    assert texts(chunks)[-1] == "After the block."
    check_invariants(doc, chunks, 50, TOK)


def test_a_heading_is_glued_to_an_oversize_block():
    fence = "```\n" + "\n".join(f"line {i}" for i in range(100)) + "\n```"
    doc, chunks = chunk("Intro.\n\n## Listing\n\n" + fence + "\n", 40)
    assert texts(chunks) == ["Intro.", "## Listing\n\n" + fence]
    assert chunks[1].oversize and chunks[1].heading_path == ("Listing",)
    check_invariants(doc, chunks, 40, TOK)


def test_lists_split_between_items_never_inside_one():
    items = [f"- item {i} " + " ".join(f"w{i}x{k}" for k in range(12)) for i in range(20)]
    big_item = "- big item\n\n  " + para(80) + "\n\n  ```\n  code\n  ```"
    text = "# L\n\n" + "\n".join(items[:10]) + "\n" + big_item + "\n" + "\n".join(items[10:]) + "\n"
    doc, chunks = chunk(text, 80)
    item_texts = items + [big_item]
    for c in chunks:
        body = c.text.removeprefix("# L\n\n")
        for line in body.split("\n- "):
            line = line if line.startswith("- ") else "- " + line
            assert line in item_texts, line[:40]
    big = [c for c in chunks if "big item" in c.text]
    assert len(big) == 1 and big[0].text == big_item and big[0].oversize
    check_invariants(doc, chunks, 80, TOK)


def test_block_quotes_split_at_child_blocks_keeping_their_markers():
    text = "# Q\n\n" + "\n>\n".join(f"> {para(12, f'q{k}w')}" for k in range(6)) + "\n"
    doc, chunks = chunk(text, 60)
    assert len(chunks) > 2
    assert chunks[0].text.startswith("# Q\n\n> q0w0 ")
    for c in chunks[1:]:
        assert re.match(r"> q\dw0 ", c.text)  # the marker is kept, whole paragraphs
        assert c.text.rstrip("\n>").endswith(".")  # a ">" line between children stays
    check_invariants(doc, chunks, 60, TOK)


def test_text_outside_blocks_is_kept():
    text = "# A\n\nSee [x].\n\n[x]: http://example.com/a\n\n# B\n\n> - q\n"
    doc, chunks = chunk(text, 400)
    assert texts(chunks) == ["# A\n\nSee [x].\n\n[x]: http://example.com/a", "# B\n\n> - q"]
    doc, chunks = chunk("[x]: http://example.com/only\n", 400)
    assert texts(chunks) == ["[x]: http://example.com/only"]


# -- overlap ------------------------------------------------------------------------------------


def test_overlap_repeats_whole_trailing_units_within_a_section():
    sentences = [f"Fact {i} is stated here plainly." for i in range(30)]
    text = "# O\n\n" + " ".join(sentences) + "\n\n# Next\n\nOther.\n"
    doc, chunks = chunk(text, 50, overlap=20)
    body = [c for c in chunks if c.heading_path == ("O",)]
    assert len(body) > 2
    for a, b in zip(body, body[1:]):
        assert b.start < a.end  # they overlap
        shared = doc.text[b.start : a.end]
        assert TOK.count(shared) <= 20
        assert shared.startswith("Fact ") and shared.endswith(".")  # whole sentences
    nxt = [c for c in chunks if c.heading_path == ("Next",)]
    assert nxt[0].text == "# Next\n\nOther."  # never crosses a heading
    for a, c in zip(chunks, chunks[2:]):
        assert a.end <= c.start  # only neighbours overlap
    check_invariants(doc, chunks, 50, TOK, overlap=20)


def test_overlap_that_leaves_no_room_is_dropped():
    text = "# O\n\n" + "\n\n".join(para(18, f"b{k}x") for k in range(5)) + "\n"
    doc, chunks = chunk(text, 45, overlap=45)
    for c in chunks:
        assert c.tokens <= 45
    check_invariants(doc, chunks, 45, TOK, overlap=45)


# -- units, line ends, errors --------------------------------------------------------------------


def test_chars_unit():
    doc = Document.from_path(FIXTURES / "database.md")
    chunks = MD.chunk(doc, CHARS, size=120)
    for c in chunks:
        assert c.tokens == len(c.text)
        assert c.tokens <= 120 or c.oversize
    check_invariants(doc, chunks, 120, CHARS)


def test_lone_cr_gives_the_same_chunks():
    lf = (FIXTURES / "database.md").read_text(encoding="utf-8")
    cr = lf.replace("\n", "\r")
    for size in (60, 150, 400):  # characters: same lengths, so the same decisions
        _, a = chunk(lf, size, sizer=CHARS)
        doc, b = chunk(cr, size, sizer=CHARS)
        assert [(c.start, c.end, c.heading_path) for c in a] == [
            (c.start, c.end, c.heading_path) for c in b]
        check_invariants(doc, b, size, CHARS)


def test_crlf_sections():
    crlf = (FIXTURES / "database.md").read_text(encoding="utf-8").replace("\n", "\r\n")
    doc, chunks = chunk(crlf, 200)
    assert [c.text.split("\r\n")[0] for c in chunks] == [
        "# Setting Up the Database", "## Installing the Server", "## Creating the Schema",
        "## Connection Strings",
    ]
    doc, chunks = chunk(crlf, 30)
    assert all(not c.text.endswith("\r") for c in chunks)
    check_invariants(doc, chunks, 30, TOK)


def test_bad_parameters():
    doc = Document("# x\n")
    with pytest.raises(ValueError, match="size"):
        MD.chunk(doc, TOK, size=0)
    with pytest.raises(ValueError, match="overlap"):
        MD.chunk(doc, TOK, size=10, overlap=11)
    with pytest.raises(ValueError, match="overlap"):
        MD.chunk(doc, TOK, size=10, overlap=-1)
    assert MD.chunk(doc, TOK, size=10, separators=["x"]) == MD.chunk(doc, TOK, size=10)


def test_huge_paragraph_is_segmented_in_windows():
    sentences = " ".join(f"This is sentence {i} of a very long paragraph." for i in range(800))
    doc, chunks = chunk("# H\n\n" + sentences + "\n", 100)
    assert len(doc.text) > 30000
    for c in chunks:
        body = c.text.removeprefix("# H\n\n")
        assert body.startswith("This is sentence ") and body.endswith("paragraph.")
    check_invariants(doc, chunks, 100, TOK)


@pytest.mark.parametrize("text,path", [
    # reStructuredText: a label, the highlighting language, the module, a comment before a title
    (".. _quickstart:\n\nQuickstart\n==========\n\nBody text.\n\n.. _more:\n\nMore\n----\n\nMore text.\n", "a.rst"),
    (".. highlight:: rst\n\nDirectives\n==========\n\nBody text.\n", "a.rst"),
    (".. currentmodule:: flask\n\nBlog\n====\n\nBody text.\n\n.. index:: pair: a; b\n\nMore\n----\n\nText.\n",
     "a.rst"),
    # Markdown: an HTML anchor alone on its line (a paragraph to CommonMark) or an anchor block
    ('<a name="top"></a>\n\n# Title\n\nBody text.\n\n<a name="sub"></a>\n\n## Sub\n\nMore text.\n', None),
    ('<a id="top"></a>\n<span id="x"></span>\n\nTitle\n=====\n\nBody text.\n\n<div id="y"></div>\n\n## Sub\n\nMore.\n',
     None),
    # an HTML comment and an anchor kept for old links (the Rust book's chapters)
    (("<!-- Old headings. Do not remove or links may break. -->\n\n<a id=\"old\"></a>\n\n## Title\n\nBody text.\n\n"
      "<!-- Old headings. -->\n\n<a id=\"older\"></a>\n\n## Sub\n\nMore text.\n"), None),
    # link reference definitions: glued to the block after them, as a heading is
    (("[ref]: https://example.com\n\n# Title\n\nBody [ref].\n\n[r2]: https://example.org\n\nMore [r2].\n\n## Sub\n\n"
      "More.\n"), None),
])
def test_a_label_goes_with_the_section_it_labels(text, path):
    doc = Document(text, path=path) if path else Document(text)
    for size, sizer in ((512, TOK), (24, TOK), (64, CHARS)):
        chunks = MD.chunk(doc, sizer, size=size)
        for c in chunks:  # no chunk is only labels: each has a title or text of its own
            words = [ln for ln in c.text.splitlines()
                     if ln.strip() and not re.match(r"\.\. |<(a|span|div) |<!--|\[[^\]]+\]: ", ln)]
            assert words, (size, c.text)
        if size == 512:  # the sections: each starts at its labels and ends at its text
            starts = [c.text.splitlines()[0] for c in chunks]
            assert len(chunks) == 2 - ("highlight" in text), starts
            assert all(not c.text.rstrip().endswith((":", ">")) for c in chunks), texts(chunks)
        check_invariants(doc, chunks, size, sizer)


def test_a_label_is_not_taken_for_text():
    """A footnote, a substitution image and an HTML anchor with text say something: no labels."""
    from chunkseam.structure.markdown import is_anchor

    assert is_anchor("explicit", "target", ".. _x:")
    assert is_anchor("explicit", "comment", ".. a comment")
    assert not is_anchor("explicit", "comment", ".. [1] A footnote.")
    assert not is_anchor("explicit", "image", ".. image:: a.png")
    assert is_anchor("paragraph", "", '<a name="x"></a>')
    assert is_anchor("html_block", "", "<!-- prettier-ignore -->\n<a id='x'></a>")
    assert not is_anchor("paragraph", "", '<a name="x">Read this</a>')
    assert not is_anchor("paragraph", "", "a name")
    assert not is_anchor("html_block", "", '<p align="center"><img src="logo.png"></p>')
    doc = Document(".. [1] A footnote.\n\nTitle\n=====\n\nBody.\n", path="a.rst")
    assert len(MD.chunk(doc, TOK, size=512)) == 2


# -- the corpus ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size,step", [(96, 4), (400, 1)])
def test_corpus_invariants(size, step):
    # small sizes segment many paragraphs with pysbd (slow): a sample of the files
    files = corpus_files("markdown")[::step]
    over = total = 0
    for path in files:
        doc = Document.from_path(path)
        chunks = MD.chunk(doc, TOK, size=size)
        check_invariants(doc, chunks, size, TOK)
        total += len(chunks)
        over += sum(c.oversize for c in chunks)
    assert total > len(files)
    assert over < total * 0.15


# -- line starts without a line index (the fallback of _line_start_of) ----------------------


def _old_line_start(text: str, pos: int) -> int:
    """The fallback as it was: the last CR or LF before ``pos``, each searched
    back to the text's start."""
    return max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1


@hsettings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\r\n", max_size=40), st.data())
def test_line_start_fallback_equals_the_unbounded_search(text, data):
    """Without a line index, a line's start is found by looking for a CR only
    after the last LF (a 1 MB document without CRs is not read back per
    call): the same start as the old search on texts mixing CR, LF and CRLF."""
    from chunkseam.chunkers.markdown import _line_start_of

    line_start = _line_start_of(text, None)
    pos = data.draw(st.integers(0, len(text)))
    assert line_start(pos) == _old_line_start(text, pos)
