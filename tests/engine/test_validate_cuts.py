"""The cut checks against the source: where a cut is clean, where it breaks
what, which single issue a cut gets, and what the issue carries."""

from __future__ import annotations

import re

import pytest
from cutkit import codes, make_chunks, marked, unmark
from hypothesis import example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

S = Settings(min_tokens=0)  # no fragment noise in these small documents


def run(marked_text: str, settings: Settings = S, **kw):
    doc, chunks, cuts = marked(marked_text, **kw)
    return doc, chunks, cuts, validate(doc, chunks, settings)


def cut_codes(marked_text: str, settings: Settings = S, **kw) -> list[str]:
    doc, chunks, cuts, issues = run(marked_text, settings, **kw)
    return [i.code for i in issues if i.cut is not None]


# -- clean cuts -------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "First paragraph here.\n✂\nSecond paragraph here.",
    "First paragraph here.✂\n\nSecond paragraph here.",
    "First paragraph here.\n\n✂Second paragraph here.",
    "First sentence here. ✂Second sentence here.",
    "First sentence here.✂ Second sentence here.",
    "First sentence here.\n✂Second sentence on a new line.",
    "- item one\n✂- item two",
    "- item one\n\n✂- item two",
    "- parent\n  - child one\n✂  - child two",
    "Intro.\n\n✂```py\nx = 1\n```\n",
    "Intro:\n\n```py\nx = 1\n```✂\n\nAfter.",
    "Para.\n\n✂| a | b |\n|---|---|\n| 1 | 2 |\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n✂\nAfter the table.",
    "---\ntitle: x\n---\n✂\n# T\n\nBody.",
    "- one\n- a hard break after the last item.✂  \n\nAfter the list.",
    # a hard line break: the writer ended the line (entries of a list of papers, an address)
    "[Feb'24] [Writing Wikipedia-like Articles](https://arxiv.org/abs/1)✂   \n[Jan'24] [In-Context Learning](https://arxiv.org/abs/2)",
    "[Feb'24] [Writing Wikipedia-like Articles](https://arxiv.org/abs/1)   \n✂[Jan'24] [In-Context Learning](https://arxiv.org/abs/2)",
    "Jane Doe, 1 Main Street\\\n✂Springfield, the capital",
])
def test_clean_cuts_report_nothing(text):
    assert cut_codes(text) == []


# -- each rule at a cut ---------------------------------------------------------------------


@pytest.mark.parametrize("text,code", [
    ("Edit the configu✂ration file now.", "CS001"),
    ("Set the timeout to ✂30 seconds and go.", "CS002"),
    ("Set the timeout to✂ 30 seconds and go.", "CS002"),
    ("The line\n✂wraps inside one sentence here.", "CS002"),
    ("The line ends with one space ✂\nand wraps inside one sentence here.", "CS002"),
    ("The line ends in a hard break  \nand ✂wraps inside one sentence here.", "CS002"),
    ("```py\nx = 1\n✂y = 2\n```\n", "CS003"),
    ("Intro.\n\n    code line one\n✂    code line two\n", "CS003"),
    ("| a | b |\n|---|---|\n| 1 | 2 |\n✂| 3 | 4 |\n", "CS004"),
    ("| a | b |\n|---|---|\n✂| 1 | 2 |\n", "CS004"),
    ("- one two three\n  four ✂five six\n- next", "CS005"),
    ("- item one\n\n  ✂second paragraph of item one\n- next", "CS005"),
    ("- parent\n✂  - child one\n  - child two", "CS005"),
    ("See [the ✂guide](https://x.org) today.", "CS006"),
    ("Run `pip ✂install x` now.", "CS006"),
    ("A note (with an ✂aside) here.", "CS006"),
    ("Include {* ../src/app.py ✂hl[3] *} here.", "CS006"),
    ("Intro.\n\n## Install\n✂\nRun it.", "CS007"),
    ("---\ntitle: x\n✂tags: y\n---\n\nBody.", "CS008"),
    ("<div>\nThe two steps:\n<p>one</p>\n✂<p>two</p>\n</div>\n", "CS008"),
    ("## Configuring the ✂connection pool\n\nText.", "CS002"),
])
def test_each_rule_fires_at_its_cut(text, code):
    assert cut_codes(text) == [code]


def test_precedence_gives_one_issue_per_cut():
    # mid-word inside a sentence inside a list item inside brackets: CS001 wins
    assert cut_codes("- see (the configu✂ration) now") == ["CS001"]
    # a fence inside a list item: CS003 beats CS005
    assert cut_codes("- item\n\n  ```\n  a\n✂  b\n  ```\n- next") == ["CS003"]
    # a bracket in a list item: CS006 beats CS005
    assert cut_codes("- item (one ✂two) end\n- next") == ["CS006"]
    # a table row cut mid-word: CS004 beats CS001
    assert cut_codes("| a | b |\n|---|---|\n| wo✂rd | 2 |\n") == ["CS004"]


def test_turning_the_winner_off_gives_the_next_rule():
    text = "- see the configu✂ration now"
    assert cut_codes(text) == ["CS001"]
    assert cut_codes(text, Settings(min_tokens=0, ignore=("CS001",))) == ["CS005"]
    assert cut_codes(text, Settings(min_tokens=0, ignore=("CS001", "CS005"))) == ["CS002"]
    assert cut_codes(text, Settings(min_tokens=0, select=("CS003",))) == []


def test_orphan_heading_edge_cases():
    # an empty section (next heading same level) is not an orphan
    assert cut_codes("## A\n✂\n## B\n\nText.") == []
    # a sub-heading is the body of its parent
    assert cut_codes("## A\n✂\n### A.1\n\nText.") == ["CS007"]
    # overlap that carries the heading into the next chunk: no orphan
    text, _ = unmark("Intro.\n\n## Install\n\nRun it.")
    doc = Document(text)
    h = text.index("## Install")
    body = text.index("Run")
    chunks = make_chunks(text, [(0, body - 1), (h, len(text))])
    assert "CS007" not in codes(validate(doc, chunks, S))


def test_mid_word_definition():
    assert cut_codes("plain word✂ next word") == ["CS002"]
    bad = ["end.✂Next", "conﬁgu✂ration", "cafe\u0301✂\u0301x", "e\u0301" + "✂" + "\u0301",  # combining marks
           "don✂'t do it", "call foo.✂bar now", "pi is 3✂.14 here", "std:✂:io::Result",
           "see https://example.com/a✂/b now", "mail me at a@b✂.org now"]
    for t in bad:
        assert cut_codes(t)[:1] == ["CS001"], t
    # Chinese has no spaces: a cut between two ideographs is mid-sentence, not mid-word
    assert cut_codes("这是一个很长的句子✂没有空格。") == ["CS002"]
    # an emoji ZWJ sequence is one character to a reader
    assert cut_codes("family 👨\u200d✂👩 here") == ["CS001"]


def test_issue_shape_for_a_mid_sentence_cut():
    doc, chunks, cuts, issues = run("Intro text.\n\nTo prevent this, set the timeout to ✂30 seconds and "
                                    "enable keepalive.\n")
    (i,) = [i for i in issues if i.cut is not None]
    c = cuts[0]
    assert i.code == "CS002" and i.name == "mid-sentence" and i.severity == "warning"
    assert (i.chunk, i.other_chunk, i.cut) == (0, 1, c)
    sentence = doc.text.index("To prevent")
    end = doc.text.index("keepalive.") + len("keepalive.")
    # the range starts at the cut (to its line's end); the sentence is the unit
    assert (i.start, i.end) == (c, end) and i.unit == (sentence, end)
    assert i.related == (c, end)
    assert i.message == ('chunk 1 ends mid-sentence: "…this, set the timeout to" | "30 seconds and '
                         'enable keepalive." is in chunk 2')
    assert i.data["fix"] == "paragraph-break" and i.data["offset"] == sentence
    assert i.data["sentence"] == [sentence, end] and i.data["side"] == "both"
    assert i.fix  # a human hint


def test_overlap_gives_two_cuts_charged_to_each_side():
    text = "One two three four five six seven eight nine ten."
    doc = Document(text)
    a = text.index("four")
    b = text.index("seven")
    chunks = make_chunks(text, [(0, b), (a, len(text))])
    issues = [i for i in validate(doc, chunks, S) if i.cut is not None]
    assert sorted((i.cut, i.data["side"], i.chunk, i.other_chunk) for i in issues) == [
        (a, "start", 0, 1), (b, "end", 0, 1)]
    start = [i for i in issues if i.data["side"] == "start"][0]
    assert start.message.startswith("chunk 2 starts mid-sentence:")
    assert start.related == (0, a)


def test_whitespace_gap_between_chunks_is_one_cut():
    text = "Alpha beta gamma delta epsilon."
    doc = Document(text)
    g = text.index(" gamma")
    chunks = make_chunks(text, [(0, g), (g + 1, len(text))])  # the space is in no chunk
    issues = [i for i in validate(doc, chunks, S) if i.cut is not None]
    assert [(i.code, i.cut, i.chunk, i.other_chunk, i.data["side"]) for i in issues] == [
        ("CS002", g, 0, 1, "both")]
    assert "CS304" not in codes(validate(doc, chunks, S))


def test_whitespace_gap_judged_at_the_second_offset_when_the_first_is_clean():
    text = "Para one.\n\n    code one\n    code two\n"
    doc = Document(text)
    end = text.index("\n\n")
    code = text.index("code one")  # after the indentation of the indented code block
    # the second offset is judged, and there the code block is whole on the
    # right (only its indentation is dropped, as LangChain's strip does)
    chunks = make_chunks(text, [(0, end), (code, len(text))])
    assert [(i.code, i.cut) for i in validate(doc, chunks, S) if i.cut is not None] == []
    two = text.index("code two")
    chunks = make_chunks(text, [(0, end), (two, len(text))])
    got = [(i.code, i.cut) for i in validate(doc, chunks, S) if i.cut is not None]
    assert got == [("CS003", two)]


def test_split_fence_data_makes_two_complete_fences():
    doc, chunks, cuts, issues = run("Intro.\n\n```python\nimport a\nimport b\n✂import c\n```\n")
    (i,) = [i for i in issues if i.code == "CS003"]
    d = i.data
    assert d["fix"] == "split-fence" and d["marker"] == "```" and d["info"] == "python"
    fixed = doc.text[: d["offset"]] + d["insert"] + doc.text[d["offset"]:]
    again = Document(fixed)
    from chunkseam.structure.markdown import structure

    fences = [b for b in structure(again).blocks if b.kind == "fence"]
    assert len(fences) == 2 and all(f.closed and f.info == "python" for f in fences)


def test_repeat_header_data_gives_each_piece_a_header():
    doc, chunks, cuts, issues = run("| a | b |\n|---|---|\n| 1 | 2 |\n✂| 3 | 4 |\n")
    (i,) = [i for i in issues if i.code == "CS004"]
    d = i.data
    assert d["fix"] == "repeat-header" and d["rows_before"] == 1
    assert "between body rows 1 and 2" in i.message
    fixed = doc.text[: d["offset"]] + d["insert"] + doc.text[d["offset"]:]
    from chunkseam.structure.markdown import structure

    tables = [b for b in structure(Document(fixed)).blocks if b.kind == "table"]
    assert len(tables) == 2
    assert all(fixed[t.start:t.end].startswith("| a | b |\n|---|---|") for t in tables)


def test_crlf_documents_judge_like_lf():
    lf = "Para one here.\n\nSet the timeout to ✂30 seconds.\n\n```\na\n✂b\n```\n"
    crlf = lf.replace("\n", "\r\n")
    assert cut_codes(lf) == cut_codes(crlf) == ["CS002", "CS003"]


def test_plain_text_documents_use_paragraph_and_sentence_checks():
    assert cut_codes("Set the timeout to ✂30 seconds.\n", kind="text") == ["CS002"]
    assert cut_codes("First para.\n✂\nSecond para.\n", kind="text") == []
    assert cut_codes("Some (paren ✂aside) here.\n", kind="text") == ["CS006"]


def test_cut_in_inline_html_tag_is_split_brackets():
    assert cut_codes('A <dfn title="Not dynamic. ✂Fixed.">fixed</dfn> IP.') == ["CS006"]


# -- the judgement's fast path for cuts in plain leaves --------------------------------------


@pytest.mark.parametrize("kind,pattern", [("markdown", "*.md"), ("rst", "*.rst")])
def test_plain_leaf_fast_path_judges_as_the_full_order(kind, pattern, monkeypatch):
    """Cuts in a leaf with no code, raw block or table around it (list items
    allowed) are judged by the rules that can apply there only: over corpus
    pages cut by a ``fixed`` chunker every 97 characters (mid-word,
    mid-sentence, in fences, tables, lists, HTML and directives), the issues
    are those of the full precedence order, and the three kinds of cut occur
    (in a plain leaf, in a list item's leaf, elsewhere)."""
    import importlib

    from conftest import corpus_files

    from chunkseam.engine.analysis import make_chunks as chunk_doc
    from chunkseam.config.loader import resolve

    v = importlib.import_module("chunkseam.engine.validate")  # (the package exports the function)
    files = corpus_files(kind, pattern)[:6]
    settings = resolve(None, {"chunker": "fixed", "size": 97, "overlap": 0, "unit": "chars"},
                       strict=False).settings
    full_order = v._plain_order
    taken = {"plain": 0, "list": 0, "full": 0}
    real_judge = v._judge

    def counting(ctx, order, cut, blocks, plain=None):
        where = v.locate(ctx, cut.offset)
        kinds = {b.kind for b in where.blocks} & v._STRUCTURAL
        taken["full" if where.leaf is None or kinds - {"list_item"} else
              "list" if kinds else "plain"] += 1
        return real_judge(ctx, order, cut, blocks, plain)

    for path in files:
        text = path.read_text(encoding="utf-8")
        doc = Document(text, path=str(path))
        _name, chunks = chunk_doc(doc, settings)
        v.clear_caches()
        monkeypatch.setattr(v, "_judge", counting)
        fast = [i.to_dict() for i in validate(Document(text, path=str(path)), chunks, settings)]
        monkeypatch.setattr(v, "_judge", real_judge)
        v.clear_caches()
        monkeypatch.setattr(v, "_plain_order", lambda order: (list(order), list(order)))
        slow = [i.to_dict() for i in validate(Document(text, path=str(path)), chunks, settings)]
        monkeypatch.setattr(v, "_plain_order", full_order)
        assert fast == slow, path.name
    v.clear_caches()
    assert taken["plain"] > 0 and taken["list"] > 0 and taken["full"] > 0, taken


_BREAK_RUN_SPEC = re.compile(r"(?<!\s)\s*[\r\n]\s*")
_WS_RUN_SPEC = re.compile(r"\s+")


@hsettings(max_examples=400, deadline=None)
@example("wrapped \n  line  and\n\n \nmore")
@given(st.one_of(st.text(alphabet="ab \n", max_size=40),
                 st.text(alphabet="ab |\n\r\t\u00a0\u2028⏎-:", max_size=40)))
def test_excerpt_whitespace_as_the_regex_rules_say(s):
    """Excerpts: every whitespace run holding a line break is one ``⏎``, any
    other run one space (the fast paths for plain and wrapped prose agree
    with the two regex passes); table rows are left to the pipe rules."""
    from chunkseam.checks.base import _clean

    expected = _WS_RUN_SPEC.sub(" ", _BREAK_RUN_SPEC.sub("⏎", s.strip()))
    got = _clean(s)
    if "|" not in expected:
        assert got == expected


def _naive_line_start(text: str, offset: int) -> int:
    return max((i + 1 for i, ch in enumerate(text[:offset]) if ch in "\r\n"), default=0)


def _naive_at_cut(text: str, cut: int, lo: int, hi: int) -> tuple[int, int]:
    """:func:`chunkseam.checks.base.at_cut` with each line break looked for
    character by character (any of CR and LF, the nearest wins)."""
    if hi - lo <= 0:
        return (lo, hi)
    c = max(lo, min(cut, hi))
    if lo < cut < hi and hi - lo <= 256 and not any(ch.isspace() for ch in text[lo:hi]):
        return (lo, hi)
    j = c
    while j < hi and text[j] in " \t\r\n":
        j += 1
    if j < hi:
        e = next((k for k in range(j, hi) if text[k] in "\r\n"), hi)
        while e > j and text[e - 1] in " \t":
            e -= 1
        return (c, max(e, c))
    i = c
    while i > lo and text[i - 1] in " \t\r\n":
        i -= 1
    a = max(_naive_line_start(text[:i], i), lo)
    while a < i and text[a] in " \t":
        a += 1
    return (a, i) if i > a else (lo, hi)


@hsettings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\r\n", max_size=40), st.data())
def test_line_bounds_at_cuts_take_the_nearest_break(text, data):
    """A cut's line start and its issue's range find the nearest CR or LF,
    whichever it is (the searches stop at the nearest LF before looking for a
    CR), in texts mixing both."""
    from chunkseam.checks.base import at_cut
    from chunkseam.checks.cuts import _line_start

    n = len(text)
    offset = data.draw(st.integers(0, n))
    assert _line_start(text, offset) == _naive_line_start(text, offset)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    cut = data.draw(st.integers(0, n))
    assert at_cut(text, cut, lo, hi) == _naive_at_cut(text, cut, lo, hi)


# -- a cut before closing tags only ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    # HTML: the <a> is whole before the cut, only its closers are after it
    '<p align="center">\n  <a href="https://x.org"><img src="a.svg" alt="A"></a>\n✂</p>\n\nAfter.',
    "<details>\n<summary>More</summary>\nAll of it here.\n✂</details>\n\nAfter.",
    # a list item whose <details> block closes after the cut
    "- <details>\n    <summary>Run it</summary>\n\n    Start the server now.\n\n✂    </details>\n- next",
])
def test_only_closing_tags_after_a_cut_is_clean(text):
    assert cut_codes(text) == []


def test_only_closing_tags_after_a_cut_in_mdx_is_clean():
    text = ("<Steps>\n\n1. Install it.\n\n2. Run it.\n\n</Steps>\n\n"
            "<Tabs>\n  <TabItem value=\"npm\">\n\nRun `npm i x` now.\n✂\n  </TabItem>\n</Tabs>\n\nAfter.")
    assert cut_codes(text, path="example.mdx") == []


def test_closing_tags_then_more_of_the_enclosing_element_is_still_a_split():
    """Past the closing tags the cut is judged where it lands: between two
    rows of one HTML table the table is split, and it is the table that the
    message names."""
    text = ("<table>\n<tr>\n  <td><a href=\"https://x.org\"><img src=\"a.svg\"></a>✂</td>\n</tr>\n"
            "<tr>\n  <td>two</td>\n</tr>\n</table>\n")
    _doc, _chunks, _cuts, issues = run(text)
    (issue,) = [i for i in issues if i.cut is not None]
    assert issue.code == "CS008"
    assert "<table>" in issue.message
    # a bare opening tag is still a split: its attributes label what follows
    assert cut_codes('<TabItem value="npm">\n✂\nRun `npm i x` now.\n\n</TabItem>\n', path="example.mdx") == ["CS008"]


BADGE = '<a href="https://x.org/{0}"><img src="https://img.shields.io/badge/{0}-blue" alt="{0}"></a>'


@pytest.mark.parametrize("text", [
    # a centred badge row cut between two badges (separators between them)
    f'<p align="center">\n  {BADGE.format("npm")}\n  {BADGE.format("ci")}✂\n  {BADGE.format("docs")}\n</p>\n',
    f'<div align="center">{BADGE.format("a")}&nbsp;|&nbsp;✂{BADGE.format("b")}</div>\n',
    # two images of a sponsors <div>, the items of an HTML list, whole paragraphs in a <div>
    '<div align="center">\n<img src="a.gif" width="600"/>\n✂<img src="b.gif" width="600"/>\n</div>\n',
    "<ul>\n  <li>First item.</li>\n✂  <li>Second item.</li>\n</ul>\n",
    "<div>\n<p>one</p>\n✂<p>two</p>\n</div>\n",
])
def test_a_row_of_whole_items_cut_between_two_is_clean(text):
    """A cut between two whole children of a container that says nothing of
    its own (a badge row, a list, a wrapper <div>) splits no text and no
    item: each chunk holds whole badges, the container's tags are all that
    is across."""
    assert cut_codes(text) == []


@pytest.mark.parametrize("text", [
    # children that are parts of one thing: the sources of one image, a summary and its content
    '<picture>\n  <source media="(prefers-color-scheme: dark)" srcset="d.svg">\n✂  <img src="l.svg">\n</picture>\n',
    "<details>\n<summary>Show the options</summary>\n✂<p>All of them.</p>\n</details>\n",
    # the container has words of its own; the cut is right after its start tag; inside a badge
    f'<p align="center">Made by {BADGE.format("a")} and ✂{BADGE.format("b")}</p>\n',
    f'<p align="center">\n✂{BADGE.format("a")}\n{BADGE.format("b")}\n</p>\n',
    f'<p align="center">{BADGE.format("a")}<a href="https://x.org">\n✂<img src="b.svg"></a></p>\n',
    # never closed in its block: not a row that can be seen whole
    f'<p align="center">\n{BADGE.format("a")}\n✂{BADGE.format("b")}\n\nText.\n',
])
def test_a_row_cut_that_still_splits_something_is_reported(text):
    codes = cut_codes(text)
    assert codes and set(codes) <= {"CS008", "CS002"}, codes


def test_excerpts_never_reach_outside_the_chunk_they_are_said_to_be_in():
    """An excerpt of no words (a table's delimiter row) reaches for the
    nearest words only within the chunk the message names: the delimiter row
    is shown as it is, not the link definitions after the chunk."""
    text = "| Logo | Name |\n✂| :-: | :-: |\n✂\n[npm-image]: https://img.shields.io/npm/v/x.svg\n"
    _doc, _chunks, _cuts, issues = run(text, Settings(min_tokens=16))
    split = next(i for i in issues if i.code == "CS004")
    assert '"| :-: | :-: |" is in chunk 2' in split.message
    frag = next(i for i in issues if i.code == "CS102" and i.chunk == 1)
    assert "npm-image" not in frag.message and "| :-: | :-: |" in frag.message


def test_a_heading_is_named_without_its_badge_images():
    text = ("Intro.\n\n## Sponsors [![](https://opencollective.com/x/badge.svg?label=Sponsors)]"
            "(https://opencollective.com/x)\n✂\nThanks to all of them.\n")
    _doc, _chunks, _cuts, issues = run(text)
    (issue,) = [i for i in issues if i.code == "CS007"]
    assert 'the heading "Sponsors":' in issue.message
    # a heading of only a badge keeps it: something must name the heading
    text = "Intro.\n\n## ![Logo](logo.svg)\n✂\nThanks to all of them.\n"
    _doc, _chunks, _cuts, issues = run(text)
    (issue,) = [i for i in issues if i.code == "CS007"]
    assert 'the heading "![Logo](logo.svg)":' in issue.message


@pytest.mark.parametrize("text,flagged", [
    ("Intro.\n\nConfigure the client like so:\n✂\n```python\nclient = Client(timeout=30)\n```\n", True),
    ("Intro.\n\nThe options are:\n✂\n- one\n- two\n", True),
    ("Intro.\n\nThe options are:\n✂\n| a | b |\n|---|---|\n| 1 | 2 |\n", True),
    # more prose after the colon, a heading after it: no lead-in
    ("Intro.\n\nThe reason is simple:\n✂\nIt is faster.\n", False),
    ("Intro.\n\nSee also:\n✂\n## Next\n\nBody.\n", False),
    # the next chunk carries the lead-in (overlap): nothing is orphaned
])
def test_a_lead_in_that_ends_a_chunk_is_cs007(text, flagged):
    got = cut_codes(text)
    assert ("CS007" in got) is flagged, got
    if flagged:
        _doc, _chunks, _cuts, issues = run(text)
        (issue,) = [i for i in issues if i.code == "CS007"]
        assert "lead-in" in issue.message and "is in chunk 2" in issue.message


def test_a_lead_in_carried_by_the_overlap_is_no_orphan():
    text, _ = unmark("Intro.\n\nConfigure the client like so:\n\n```python\nclient = Client(timeout=30)\n```\n")
    doc = Document(text)
    lead = text.index("Configure")
    end = text.index("\n\n```")
    chunks = make_chunks(text, [(0, end), (lead, len(text))])
    assert "CS007" not in [i.code for i in validate(doc, chunks, S)]
