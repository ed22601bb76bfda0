"""The shortcuts on the cut rules' hot path answer as the general computation.

Each fast path here (an ASCII word, the blocks a cut is strictly inside, a
chunk opening that cannot refer back, the engine's own chunks read directly)
is checked against the general computation it stands for, on corpus pages
and on generated text that reaches the edge cases (joiners, combining marks,
case-insensitive look-alikes).
"""

from __future__ import annotations

import bisect
import random
import re

from chunkseam.checks import base, chunks, inputs
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.structure.markdown import structure
from conftest import corpus_files
from hypothesis import example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

# -- word_span ------------------------------------------------------------------------------------


def _reference_word_span(text: str, cut: int) -> tuple[int, int] | None:
    """word_span as specified, every character classified by _char_class."""
    n = len(text)
    if cut <= 0 or cut >= n:
        return None
    a, b = text[cut - 1], text[cut]
    ca, cb = base._char_class(a), base._char_class(b)
    if ca == "s" or cb == "s":
        return None
    split = False
    if cb == "m" or (ca == "m" and a in "\u200d") or ca in "wm" and cb in "wm":
        split = True
    elif a in base.JOINERS or b in base.JOINERS:
        i = cut - 1
        while i >= 0 and text[i] in base.JOINERS and cut - 1 - i < 3:
            i -= 1
        j = cut
        while j < n and text[j] in base.JOINERS and j - cut < 3:
            j += 1
        split = (i >= 0 and j < n and base._char_class(text[i]) in "wm"
                 and base._char_class(text[j]) in "wm")
    if not split:
        lo = cut - 1
        while lo > 0 and not text[lo - 1].isspace() and cut - lo < 2048:
            lo -= 1
        hi = cut + 1
        while hi < n and not text[hi].isspace() and hi - cut < 2048:
            hi += 1
        run = text[lo:hi]
        pats = []
        if "://" in run or "www." in run or "mailto:" in run:
            pats.append(base._URL)
        if "@" in run:
            pats.append(base._EMAIL)
        for pat in pats:
            for m in pat.finditer(run):
                if lo + m.start() < cut < lo + m.end():
                    return (lo + m.start(), lo + m.end())
        return None
    lo = cut
    while lo > 0 and cut - lo < base.MAX_WORD:
        c = text[lo - 1]
        if base._char_class(c) in "wm" or c in base.JOINERS and lo - 2 >= 0 and base._char_class(text[lo - 2]) in "wm":
            lo -= 1
        else:
            break
    hi = cut
    while hi < n and hi - cut < base.MAX_WORD:
        c = text[hi]
        if base._char_class(c) in "wm" or c in base.JOINERS and hi + 1 < n and base._char_class(text[hi + 1]) in "wm":
            hi += 1
        else:
            break
    return (lo, max(hi, cut + 1))


@hsettings(max_examples=300, deadline=None)
@example("don't stop_me-now")
@example("a" * 300 + "b" * 300)
@given(st.text(alphabet="ab9_ .'-:/@é\u0301\u200d漢 \n", max_size=60))
def test_word_span_fast_path_is_the_classified_one(text):
    """Every offset of generated text: ASCII words, joiners, accents,
    combining marks, zero-width joiners, unspaced scripts, long words."""
    for cut in range(len(text) + 1):
        assert base.word_span(text, cut) == _reference_word_span(text, cut), (text, cut)


def test_word_span_url_runs_at_their_limits():
    """The run of non-space characters searched for a URL or an e-mail
    address reaches 2048 characters each way from the cut: at and around
    that limit, at the text's edges and beside every kind of whitespace."""
    url = "https://example.com/a/b?c=d"
    texts = ["(" + url + ")", "x" * 2046 + "(" + url + ")" + "y" * 2046,
             "\u00a0(" + url + ")\u2028", "a@b.co(x)", "[x](mailto:a@b.co)\t" + "z" * 3000,
             "(www.example.org)" + "w" * 2100, "q" * 2100 + "(www.example.org)"]
    for text in texts:
        n = len(text)
        cuts = set(range(min(n, 40))) | set(range(max(0, n - 40), n + 1))
        for anchor in (text.find("("), text.find("@"), 2046, 2047, 2048, 2049, 2100):
            cuts |= set(range(max(0, anchor - 3), min(n, anchor + 4) + 1))
        for cut in sorted(cuts):
            assert base.word_span(text, cut) == _reference_word_span(text, cut), (text[:20], cut)


def test_word_span_fast_path_on_corpus_pages():
    rng = random.Random(7)
    for path in corpus_files()[:12]:
        text = path.read_text(encoding="utf-8")
        for cut in rng.sample(range(len(text) + 1), min(400, len(text) + 1)):
            assert base.word_span(text, cut) == _reference_word_span(text, cut), (path.name, cut)


# -- bracket pairs ---------------------------------------------------------------------------------


def _reference_paired_spans(text: str, code: list) -> list:
    """paired_spans as specified: every character of the text visited."""
    spans = [base.Span(c[0], c[1], c[2] if len(c) > 2 else "code") for c in code]
    if "<" in text:
        code_starts = [c[0] for c in code]
        for pat, kind in ((base._AUTOLINK, "link"), (base._INLINE_HTML, "html")):
            for m in pat.finditer(text):
                k = bisect.bisect_left(code_starts, m.end()) - 1
                if k >= 0 and code[k][1] > m.start():
                    continue
                spans.append(base.Span(m.start(), m.end(), kind))
    stack: list = []
    where: dict = {"(": [], "[": [], "{": []}
    pairs: dict = {}
    ci = 0
    i = 0
    n = len(text)
    while i < n:
        if ci < len(code) and i >= code[ci][0]:
            i = code[ci][1]
            ci += 1
            continue
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in base._ASCII_PUNCT:
            i += 2
            continue
        if ch in "([{":
            where[ch].append(len(stack))
            stack.append((ch, i))
        elif ch in ")]}":
            mine = where[base._PAIRS[ch]]
            if mine:
                k = mine[-1]
                pairs[stack[k][1]] = i
                del stack[k:]
                for positions in where.values():
                    while positions and positions[-1] >= k:
                        positions.pop()
        i += 1
    linked: set = set()
    for o, c in sorted(pairs.items()):
        if o in linked:
            continue
        ch = text[o]
        if ch == "[" and c + 1 < n and text[c + 1] in "([" and (c + 1) in pairs:
            start = o - 1 if o > 0 and text[o - 1] == "!" else o
            spans.append(base.Span(start, pairs[c + 1] + 1, "link"))
            linked.add(c + 1)
            continue
        spans.append(base.Span(o, c + 1, {"(": "parentheses", "[": "brackets", "{": "braces"}[ch]))
    spans.sort(key=lambda s: (s.start, -s.end))
    return spans


@hsettings(max_examples=400, deadline=None)
@example("\\`(a)` [b](c) \\\\(d) \\[e]")
@example("``(`)`` ]x[ (y]")
@given(st.text(alphabet="ab()[]{}\\`!< >:", max_size=50))
def test_bracket_pairs_visit_only_brackets_and_escapes(text):
    """Escapes (of brackets, backticks, backslashes), code spans with
    brackets in them, unbalanced and crossed pairs, links and images."""
    code = base.code_spans(text)
    assert base.paired_spans(text, 0, code) == _reference_paired_spans(text, code)


def test_bracket_pairs_on_corpus_paragraphs_and_rst_literals():
    from chunkseam.structure.rst import inline_literals

    checked = 0
    for path in corpus_files()[:30] + corpus_files("rst", "*.rst")[:4]:
        text = path.read_text(encoding="utf-8")
        for para in re.split(r"\n\s*\n", text)[:200]:
            if path.suffix == ".rst":
                code = [(a, b, base._rst_span_kind(para, a, b)) for a, b in inline_literals(para)]
            else:
                code = base.code_spans(para)
            assert base.paired_spans(para, 0, code) == _reference_paired_spans(para, code), path.name
            checked += 1
    assert checked > 1000


# -- the blocks a cut is strictly inside ----------------------------------------------------------


def test_strictly_containing_is_containing_without_the_blocks_starting_there():
    rng = random.Random(11)
    files = corpus_files()[:10] + corpus_files("rst", "*.rst")[:2]
    for path in files:
        text = path.read_text(encoding="utf-8")
        doc = Document(text, path=str(path))
        st_ = structure(doc)
        offsets = rng.sample(range(len(text) + 1), min(300, len(text) + 1))
        # (asked first of a structure whose blocks are not made yet)
        fresh = structure(Document(text, path=str(path), version=2))
        got = [fresh.strictly_containing(off) for off in offsets]
        offsets += [b.start for b in st_.blocks[:50]] + [b.end for b in st_.blocks[:50]]
        for k, off in enumerate(offsets):
            want = [b for b in st_.containing(off) if b.start < off]
            assert st_.strictly_containing(off) == want, (path.name, off)
            if k < len(got):
                assert got[k] == want, (path.name, off)


# -- CS103: a chunk opening that cannot refer back -------------------------------------------------

_WORDS = ["as", "above", "shown", "earlier", "previously", "before", "see", "the", "previous",
          "preceding", "example", "section", "steps", "in", "this", "our", "code", "described",
          "we", "run", "it", "ſee", "prevıous", "ABOVE", "Earlier", "EXAMPLE", "ſhown", "done",
          "\u212aey"]


_PHRASES = st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from([" ", "  ", "\n", ", "])),
                   max_size=8).map(lambda pairs: "".join(w + s for w, s in pairs))


@hsettings(max_examples=400, deadline=None)
@example("as ſhown above")
@example("The previous EXAMPLE")
@example("as described earlier")
@given(_PHRASES)
def test_back_reference_prefilter_never_hides_a_match(text):
    """Back references of every form, in any case, with the look-alikes
    case-insensitive matching accepts ("ſ" for "s", "ı" for "i")."""
    if chunks._BACK_REF.search(text) is not None:
        assert chunks._may_refer_back(text)


def test_back_reference_prefilter_on_corpus_openings():
    """At every paragraph start of corpus pages: wherever the back-reference
    pattern finds a match in the first 400 characters, the prefilter lets it
    through; and it rules out most openings."""
    found = ruled_out = 0
    for path in corpus_files()[:40]:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\n\n", text):
            q = m.end()
            end = min(len(text), q + chunks.BACK_REF_REACH)
            may = chunks._may_refer_back(text[q:end])
            if chunks._BACK_REF.search(text, q, end) is not None:
                found += 1
                assert may, (path.name, q)
            elif not may:
                ruled_out += 1
    assert found > 0 and ruled_out > 0


# -- the engine's own chunks, read directly -------------------------------------------------------


def test_own_chunks_read_as_any_chunk_object():
    """A :class:`Chunk` of the document's text is read directly; the views and
    issues are those of the same chunks given as plain dicts (read the
    general way), blank and out-of-range chunks included."""
    text = "# Title\n\nSome text here.\n\n   \n\nMore text, and more.\n"
    own = [Chunk(0, 8, 0, source=text, tokens=3, heading_path=("Title",)),
           Chunk(9, 25, 1, source=text, tokens=4, oversize=True),
           Chunk(25, 30, 2, source=text),  # blank
           Chunk(30, 52, 3, source=text, tokens=5),
           Chunk(40, 80, 4, source=text, tokens=9)]  # past the end
    as_dicts = [{"start": c.start, "end": c.end, "tokens": c.tokens, "heading_path": list(c.heading_path),
                 "oversize": c.oversize} for c in own]

    def make_issue(code, message, start, end, **kw):
        return (code, message, start, end, tuple(sorted((k, repr(v)) for k, v in kw.items())))

    views, issues = inputs.read_chunks(text, own, make_issue)
    views_d, issues_d = inputs.read_chunks(text, as_dicts, make_issue)
    strip = [(v.position, v.start, v.end, v.tokens, v.heading_path, v.oversize) for v in views]
    strip_d = [(v.position, v.start, v.end, v.tokens, v.heading_path, v.oversize) for v in views_d]
    assert strip == strip_d and len(strip) == 3
    assert issues == issues_d and {i[0] for i in issues} == {"CS302", "CS303"}
    assert all(v.obj is c for v, c in zip(views, [own[0], own[1], own[3]]))
