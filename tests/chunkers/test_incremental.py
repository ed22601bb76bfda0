"""Work reused across edits gives exactly what a computation from scratch gives.

The engine keeps content-addressed caches (segment parses, each Markdown
section's chunk spans, each cut's judgement) and updates a document's
structure from the previous version's (``Document.with_edit`` records where
a text came from). Every test here compares the reused result with one made
with empty caches from a new ``Document`` of the same text: chunks, issues
(message, ranges, cut, related span, quick-fix ``data``), statistics and the
structure's lookups must be identical — over random edits of corpus
documents, over targeted edits (headings, fences, blank lines, front matter)
and through the real language server.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import itertools
import random
import re
import weakref
from pathlib import Path

import pytest
import pytest_lsp
from hypothesis import HealthCheck, given, settings, strategies as st
from pytest_lsp import LanguageClient

from chunkseam.engine.analysis import analyze
from chunkseam.core.chunk import Chunk
from chunkseam.chunkers import markdown as markdown_mod
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.structure.markdown import _segment_all, is_anchor, parse_blocks, structure
from chunkseam.engine.validate import validate

from conftest import corpus_files
from lsp_support import CONFIG, change_doc, edit, initialize, open_doc, shutdown, wait_published
from mdgen import markdown_texts

# the modules (chunkseam/__init__ exports functions of the same names)
sentences_mod = importlib.import_module("chunkseam.structure.sentences")
structure_mod = importlib.import_module("chunkseam.structure.markdown")
validate_mod = importlib.import_module("chunkseam.engine.validate")

# -- helpers ------------------------------------------------------------------------------------


@contextlib.contextmanager
def fresh_caches():
    """Run with every cross-version cache empty (and put the warm ones back)."""
    saved = (structure_mod._SEGMENTS, markdown_mod._SECTION_CACHES, validate_mod._CUT_CACHE)
    structure_mod._SEGMENTS = structure_mod._SegmentCache()
    markdown_mod._SECTION_CACHES = weakref.WeakKeyDictionary()
    validate_mod._CUT_CACHE = validate_mod._new_cut_cache()
    try:
        yield
    finally:
        structure_mod._SEGMENTS, markdown_mod._SECTION_CACHES, validate_mod._CUT_CACHE = saved


def snapshot(analysis) -> tuple:
    chunks = [(c.to_dict(), dict(c.meta)) for c in analysis.chunks]
    issues = [dataclasses.asdict(i) for i in analysis.issues]
    return chunks, issues, analysis.stats.to_dict()


def from_scratch(doc: Document, settings: Settings) -> tuple:
    with fresh_caches():
        fresh = Document(doc.text, path=doc.path, kind=doc.kind)
        return snapshot(analyze(fresh, settings))


def block_tuples(blocks) -> list[tuple]:
    return [(b.kind, b.start, b.end, b.level, b.title, b.parent, b.depth, b.info,
             [tuple(r) for r in b.rows], b.header_end, b.closed, b.line, b.end_line, b.index)
            for b in blocks]


def reference_sections(blocks, sx) -> list[tuple]:
    """The markdown chunker's sections as first written (a walk over every
    block): a label (an HTML anchor …) or the front matter is no body, and the
    labels that end a section with a body go with the heading after them."""
    out, current, last_heading, has_body, labels = [], [], None, False, 0
    for b in blocks:
        if b.depth != 0:
            continue
        if b.kind == "heading":
            if current and has_body:
                keep = len(current) - labels
                out.append((current[:keep], last_heading))
                current = current[keep:]
            current.append(b)
            last_heading, has_body, labels = b, False, 0
        elif b.kind == "front_matter" or is_anchor(b.kind, b.info, sx.text[b.start : b.end]):
            current.append(b)
            labels += has_body
        else:
            current.append(b)
            has_body, labels = True, 0
    if current:
        out.append((current, last_heading))
    return [([x.index for x in blocks_], sx.heading_path_at(h.start) if h else ())
            for blocks_, h in out]


def check_structure(doc: Document) -> None:
    """The (incrementally built, lazily materialised) structure of ``doc``
    against a fresh parse: segmentation, blocks and every lookup."""
    sx = structure(doc)
    with fresh_caches():
        full = _segment_all(doc.text)
        fresh_blocks = parse_blocks(doc.text)
    seg = sx._segmentation
    assert seg.starts == full.starts and seg.anchors == full.anchors
    assert [s.recs for s in seg.segs] == [s.recs for s in full.segs]
    # lookups before anything is materialised, then the whole list
    rng = random.Random(len(doc.text))
    text = doc.text
    offsets = sorted({rng.randrange(-1, len(text) + 2) for _ in range(60)}
                     | {b.start for b in fresh_blocks[:: max(1, len(fresh_blocks) // 20)]})
    leaves = [b for b in fresh_blocks if b.is_leaf]
    leaf_starts = [b.start for b in leaves]
    from bisect import bisect_left

    # reference heading paths: the last top-level heading at or before an offset
    top_heads = [b for b in fresh_blocks if b.kind == "heading" and b.depth == 0]
    head_paths, stack = [], []
    for h in top_heads:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        head_paths.append(tuple(x.title or "" for x in stack))
    head_starts = [h.start for h in top_heads]
    from bisect import bisect_right

    got_lookups = []
    want_lookups = []
    for off in offsets:
        leaf = sx.leaf_at(off)
        got_lookups.append((
            block_tuples([leaf]) if leaf else None,
            block_tuples(sx.containing(off)),
            sx.heading_path_at(off),
            block_tuples(sx.blocks_between(off, off + 300)),
            tuple(block_tuples([x]) if x else None for x in sx.leaves_around(off)),
        ))
        w_leaf = next((b for b in leaves if b.start <= off < b.end), None)
        i = bisect_left(leaf_starts, off) - 1
        around = (leaves[i] if i >= 0 else None,
                  leaves[i + 1] if 0 <= i and i + 1 < len(leaves) else None)
        chain = [b for b in fresh_blocks if b.start <= off < b.end]
        want_lookups.append((
            block_tuples([w_leaf]) if w_leaf else None,
            block_tuples(chain),
            head_paths[bisect_right(head_starts, off) - 1] if bisect_right(head_starts, off) else (),
            block_tuples([b for b in fresh_blocks if off <= b.start < off + 300]),
            tuple(block_tuples([x]) if x else None for x in around),
        ))
    assert got_lookups == want_lookups
    blocks = sx.blocks
    assert block_tuples(blocks) == block_tuples(fresh_blocks)
    assert all(blocks[b.index] is b for b in blocks)
    assert block_tuples(sx.headings) == block_tuples(
        [b for b in fresh_blocks if b.kind == "heading" and b.depth == 0])
    for b in blocks[:: max(1, len(blocks) // 50)]:
        assert block_tuples(sx.children(b)) == block_tuples(
            [x for x in fresh_blocks if x.parent == b.index])
        assert sx.parent(b) is (blocks[b.parent] if b.parent is not None else None)
    got = [([b.index for b in bs], path) for bs, path in markdown_mod.sections(sx)]
    assert got == reference_sections(fresh_blocks, sx)


PIECES = ["a", "xy", " ", "\n", "\n\n", "# ", "## ", "#", "```", "\n```\n", "~~~", "---",
          "\r\n", "- ", "> ", "| x |", "\t", "    ", "1. ", "*", "(", ")", "[", "]", "`",
          "<!--", "-->", "<div>", ". ", "Word", "é", "😀"]


def random_edit(rng: random.Random, doc: Document) -> Document:
    text = doc.text
    a = rng.randrange(len(text) + 1)
    b = min(len(text), a + rng.choice([0, 0, 0, 1, 1, 3, 12, 80]))
    ins = "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 1, 2, 4])))
    return doc.with_edit(a, b, ins, version=(doc.version or 0) + 1)


def corpus_text(rng: random.Random, files: list[Path], pieces: int) -> str:
    return "\n\n".join(rng.choice(files).read_text(encoding="utf-8") for _ in range(pieces))


SETTINGS = [
    Settings(),
    Settings(size=96, overlap=16),
    Settings(unit="chars", size=500),
    Settings(chunker="fixed", unit="chars", size=160),
]

# -- random edits of corpus documents ----------------------------------------------------------


@pytest.mark.parametrize("share", [False, True], ids=["copies", "shared"])
@pytest.mark.parametrize("seed", range(6))
def test_random_edits_of_corpus_documents_equal_a_fresh_analysis(seed, share):
    """``share=True`` (the language server's): the issues handed out are the
    ones kept for the next version; every version still equals a fresh
    analysis, and what an earlier version was given stays as it was."""
    files = corpus_files("markdown")
    rng = random.Random(seed)
    config = SETTINGS[seed % len(SETTINGS)]
    doc = Document(corpus_text(rng, files, 8), path=f"/virtual/doc{seed}.md", version=1)
    first = analyze(doc, config, share=share)
    assert snapshot(first) == from_scratch(doc, config)
    given = [(first, snapshot(first))]
    for step in range(8):
        new = random_edit(rng, doc)
        if step % 4 == 3:  # a version nobody analyses (a burst of typing)
            new = random_edit(rng, new)
        analysis = analyze(new, config, share=share)
        got = snapshot(analysis)
        assert structure(new)._segmentation.updated
        assert got == from_scratch(new, config), (seed, step)
        given.append((analysis, got))
        doc = new
    check_structure(doc)
    for analysis, was in given:  # (messages included: each written from its own version's text)
        assert snapshot(analysis) == was


def test_one_character_edits_reuse_almost_everything():
    """On a long document (many sections), a one-character edit re-chunks one
    section and re-judges the few cuts around it."""
    files = corpus_files("markdown")
    rng = random.Random(5)
    doc = Document("\n\n".join(f.read_text(encoding="utf-8") for f in files[:60]),
                   path="/virtual/long.md", version=1)
    config = Settings()
    before = analyze(doc, config)
    calls = {"judge": 0, "section": 0}
    real_judge = validate_mod._judge
    real_section = markdown_mod._Run.section_chunks

    def judge(*args):
        calls["judge"] += 1
        return real_judge(*args)

    def section(*args, **kw):
        calls["section"] += 1
        return real_section(*args, **kw)

    steady = 0
    for step in range(6):
        at = rng.randrange(len(doc.text))
        new = doc.with_edit(at, at, rng.choice("abc "), version=step + 2)
        calls.update(judge=0, section=0)
        validate_mod._judge, markdown_mod._Run.section_chunks = judge, section
        try:
            after = analyze(new, config)
        finally:
            validate_mod._judge, markdown_mod._Run.section_chunks = real_judge, real_section
        assert calls["section"] <= 2, calls
        if len(after.chunks) == len(before.chunks):  # chunk numbers (in messages) unchanged
            assert calls["judge"] <= 12, (calls, len(after.chunks))
            steady += 1
        before, doc = after, new
    assert steady >= 3
    assert snapshot(before) == from_scratch(doc, config)


def test_structure_lookups_after_edits_equal_a_fresh_parse():
    files = corpus_files("markdown")
    rng = random.Random(99)
    for _ in range(4):
        doc = Document(corpus_text(rng, files, 2), version=1)
        structure(doc)
        for _ in range(6):
            prev = doc  # alive, as the server's last result keeps it
            doc = random_edit(rng, prev)
            check_structure(doc)
            assert structure(doc)._segmentation.updated


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_texts(), data=st.data())
def test_incremental_segmentation_equals_a_full_one_on_generated_markdown(text, data):
    doc = Document(text)
    structure(doc)
    for _ in range(3):
        a = data.draw(st.integers(0, len(doc.text)))
        b = data.draw(st.integers(a, min(len(doc.text), a + 40)))
        ins = data.draw(st.lists(st.sampled_from(PIECES), max_size=3).map("".join))
        prev = doc
        doc = prev.with_edit(a, b, ins)
        st_ = structure(doc)
        assert st_._segmentation.updated or st_._segmentation.skip_to != (
            prev.memoised("structure")._segmentation.skip_to)
        full = _segment_all(doc.text)
        assert st_._segmentation.starts == full.starts
        assert st_._segmentation.anchors == full.anchors
        assert block_tuples(st_.blocks) == block_tuples(parse_blocks(doc.text))


SMALL_TEXTS = [
    "intro\n\n# A\n\ntext a\n \n## B\n\ntext b\nX\n# C\n\n```\n\n# in fence\n```\n\n# D\n",
    "---\nt: 1\n---\n\n# A\n\n<!--\n\n# hidden\n\n-->\n\n#\tB\n\n\t\n###### C\n\n####### no\n",
    "# A\r\n\r\ntext\r\n\r\n## B\r\rbody\r\r# C\r\n\r\n- item\r\n\r\n# D",
    "> q\n\n# A\n\n    code\n\n# B\n\n| a |\n|---|\n| 1 |\n\n# C\n#\n\n# E\n",
]
EDIT_OPS = [("ins", "\n"), ("ins", "#"), ("ins", " "), ("ins", "x"), ("ins", "\n\n"),
            ("ins", "```\n"), ("del", 1), ("del", 2)]


@pytest.mark.parametrize("text", SMALL_TEXTS)
def test_every_single_edit_of_small_documents_resegments_like_a_full_pass(text):
    base = Document(text)
    structure(base)
    for a in range(len(text) + 1):
        for op, arg in EDIT_OPS:
            if op == "ins":
                new = base.with_edit(a, a, arg)
            elif a + arg <= len(text):
                new = base.with_edit(a, a + arg, "")
            else:
                continue
            got = structure(new)._segmentation
            full = _segment_all(new.text)
            assert got.updated or got.skip_to != base.memoised("structure")._segmentation.skip_to
            assert (got.starts, got.anchors) == (full.starts, full.anchors), (text, a, op, arg)
            assert [s.recs for s in got.segs] == [s.recs for s in full.segs], (text, a, op, arg)


@pytest.mark.parametrize("change", [
    # (find, replace): edits that move segment boundaries or change many paths
    ("\n# ", "\n#"),            # a top-level heading stops being one
    ("\n## ", "\n# "),          # a heading changes level: later paths change
    ("\n\n#", "\n#"),           # the blank line before a heading goes
    ("\n\n", "\n\n```\n\n"),    # an unclosed fence swallows the rest
    ("```", "``"),              # a fence marker breaks
    ("\n\n", "\n\n<!--\n\n"),   # an unclosed HTML comment
])
def test_targeted_edits_equal_a_fresh_analysis(change):
    files = corpus_files("markdown")
    rng = random.Random(7)
    text = "---\ntitle: t\n---\n\n" + corpus_text(rng, files, 3)
    doc = Document(text, path="/virtual/t.md", version=1)
    config = Settings(size=128)
    analyze(doc, config)
    find, replace = change
    at = text.find(find, len(text) // 3)
    if at < 0:
        at = text.find(find)
    assert at >= 0
    edited = doc.with_edit(at, at + len(find), replace, version=2)
    assert snapshot(analyze(edited, config)) == from_scratch(edited, config)
    assert structure(edited)._segmentation.updated
    # and back again (an undo finds the old segments in the cache)
    undone = edited.with_edit(at, at + len(replace), find, version=3)
    assert undone.text == text
    assert snapshot(analyze(undone, config)) == from_scratch(undone, config)
    assert structure(undone)._segmentation.updated
    check_structure(undone)


def test_front_matter_edits_start_the_structure_afresh_and_stay_right():
    text = "---\ntitle: x\n---\n\n# A\n\ntext a\n\n# B\n\ntext b\n"
    doc = Document(text, version=1)
    structure(doc)
    for a, b, ins in [(4, 9, "name"), (0, 3, ""), (0, 0, "---\n"), (len(text), len(text), "\n---\n"),
                      (5, 6, "T")]:
        new = doc.with_edit(a, b, ins)
        check_structure(new)


# -- cut issues moved by an edit -------------------------------------------------------------

CRAFTED = """Intro paragraph with several words. It has two sentences here.

# Filler one

Some filler text for a section of its own.

# Filler two

More filler text in another section.

# Words

A paragraph with a verylongwordthatgetscut in it. Then a sentence that is cut in the middle of it.

# Brackets

Text (with parentheses that run on for a while) and a [link text](http://example.com/a/b).

# Fence

```python
def f(x):
    return x + 1


print(f(2))
```

# Table

| a | b |
|---|---|
| 1 | 2 |
| 3 | 4 |
| 5 | 6 |

# List

- item one is a long list item with words
- item two is another long list item

# Raw

<div>
html block content that is long enough to cut
</div>

## Orphan heading

Body of the orphan heading section with words.

# Tail

The end.
"""


def crafted_cuts(text: str) -> list[int]:
    def at(needle: str, plus: int = 0) -> int:
        i = text.index(needle)
        return i + plus

    return sorted({
        at("Intro paragraph with", 9),            # mid-word, in the edited paragraph
        at("verylongwordthatgetscut", 8),         # CS001
        at("cut in the middle", 7),               # CS002
        at("parentheses that run", 12),           # CS006
        at("    return x + 1", 4),                # CS003 (split-fence fix)
        at("| 5 | 6 |"),                          # CS004 (repeat-header fix)
        at("long list item with", 5),             # CS005
        at("<div>\nhtml block", 3),                # CS008 (inside the tag)
        at("Body of the orphan"),                 # CS007
        at("# Tail"),
    })


def chunks_for(text: str, cuts: list[int]) -> list[Chunk]:
    bounds = [0, *cuts, len(text)]
    return [Chunk(a, b, i, source=text) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def test_cached_cut_issues_are_moved_with_all_their_offsets():
    config = Settings(size=400, extend_select=("CS",))
    doc = Document(CRAFTED, path="/virtual/crafted.md", version=1)
    cuts = crafted_cuts(CRAFTED)
    first = validate(doc, chunks_for(CRAFTED, cuts), config)
    codes = {i.code for i in first}
    assert {"CS001", "CS002", "CS003", "CS004", "CS005", "CS006", "CS007", "CS008"} <= codes, codes
    fixes = {i.data.get("fix") for i in first}
    assert {"split-fence", "repeat-header", "move-heading", "paragraph-break"} <= fixes, fixes
    # every data key of a cut issue is known to the cache (as an offset or not)
    for i in first:
        if i.cut is not None:
            assert set(i.data) <= validate_mod._OFFSET_KEYS | validate_mod._PLAIN_KEYS, i.data

    # insert inside the first chunk: every later cut moves by the same amount,
    # chunk numbers stay; the judgements far from the edit come from the cache
    insert = "and more "
    at = CRAFTED.index("several")
    new = doc.with_edit(at, at, insert, version=2)
    moved = [cuts[0]] + [c + len(insert) for c in cuts[1:]]
    judged = [0]
    real_judge = validate_mod._judge

    def counting(*args):
        judged[0] += 1
        return real_judge(*args)

    validate_mod._judge = counting
    try:
        got = validate(new, chunks_for(new.text, moved), config)
    finally:
        validate_mod._judge = real_judge
    assert judged[0] <= 2, judged[0]  # only the cuts near the edit
    with fresh_caches():
        want = validate(Document(new.text, path="/virtual/crafted.md"),
                        chunks_for(new.text, moved), config)
    assert [dataclasses.asdict(i) for i in got] == [dataclasses.asdict(i) for i in want]
    moved_codes = [i for i in got if i.cut is not None and i.cut > at]
    assert {i.code for i in moved_codes} >= {"CS003", "CS004", "CS007", "CS008"}

    # the cache hands out copies: changing an issue does not change the next answer
    for i in got:
        i.data["side"] = "tampered"
        for v in i.data.values():
            if isinstance(v, list):
                v.append(-1)
    again = validate(new, chunks_for(new.text, moved), config)
    assert [dataclasses.asdict(i) for i in again] == [dataclasses.asdict(i) for i in want]


class _Text(str):
    """A document text a weak reference can watch."""


@pytest.mark.parametrize("share", [False, True], ids=["copies", "shared"])
def test_cut_messages_are_written_when_read_and_never_keep_an_old_text(share):
    """A cut issue's message is written when first read, from the text of
    its own version: after edits (cuts reused before the edit, moved ones
    from the cache, new ones judged) every message equals a fresh analysis's;
    neither the cut cache nor what a version keeps for the next one holds an
    earlier version's text (it is freed), and a pickled issue holds its
    message, not the text."""
    import gc
    import pickle

    files = corpus_files("markdown")
    text = _Text("\n\n".join(f.read_text(encoding="utf-8") for f in files[:4]))
    config = Settings(chunker="fixed", size=48, overlap=8)
    doc = Document(text, path="/virtual/lazy.md", version=1)
    first = analyze(doc, config, share=share)
    assert len(first.issues) > 50
    unwritten = [i for i in first.issues if type(i._message) is not str]
    assert len(unwritten) > len(first.issues) // 2  # nothing read them yet
    assert unwritten[0]._written is None and unwritten[0].message == unwritten[0]._written
    assert all(i._written is None for i in unwritten[1:])
    watch = weakref.ref(text)
    rng = random.Random(3)
    for version in (2, 3, 4):
        at = rng.randrange(len(doc.text) // 4, len(doc.text))
        doc = doc.with_edit(at, at, rng.choice(["x", "more words ", "\n\n"]), version=version)
        got = analyze(doc, config, share=share)
    del text, first, unwritten
    gc.collect()
    assert watch() is None  # version 1's text: nothing kept it
    pending = [i for i in got.issues if type(i._message) is not str and i._written is None]
    assert len(pending) > len(got.issues) // 2
    assert len(pickle.dumps(pending[0])) < 2000 and pickle.loads(pickle.dumps(pending[0])) == pending[0]
    with fresh_caches():
        want = analyze(Document(doc.text, path="/virtual/lazy.md"), config)
    assert [dataclasses.asdict(i) for i in got.issues] == [dataclasses.asdict(i) for i in want.issues]


def test_a_cut_judged_the_same_is_not_written_again(monkeypatch):
    """A message once written is shared by the same judgement elsewhere: the
    next version's cuts reused before an edit and those the cache finds
    after it (an edit that keeps the length keeps the windows) are not
    written again when read; only the cuts judged afresh are."""
    from chunkseam.checks.base import CutMessage

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:4])
    config = Settings(chunker="fixed", unit="chars", size=200, overlap=0)
    doc = Document(text, path="/virtual/shared.md", version=1)
    first = analyze(doc, config)
    assert len(first.issues) > 50
    assert all(i.message for i in first.issues)  # (read, as a publication reads them)
    at = text.index(" ", len(text) // 2)
    new = doc.with_edit(at, at + 1, "_", version=2)  # same length: every window stays put
    judged = []
    real_judge = validate_mod._judge
    monkeypatch.setattr(validate_mod, "_judge",
                        lambda *args: judged.append(args[2].offset) or real_judge(*args))
    second = analyze(new, config)
    monkeypatch.undo()
    writes = []
    real_write = CutMessage.write
    monkeypatch.setattr(CutMessage, "write", lambda self, t: writes.append(self[0]) or real_write(self, t))
    messages = [i.message for i in second.issues]
    monkeypatch.undo()
    cut_issues = [i for i in second.issues if isinstance(i._message, CutMessage)]
    # only the cuts judged afresh (those near the edit) are written
    assert len(cut_issues) > 50 and len(judged) < len(cut_issues) // 3
    assert writes and set(writes) <= set(judged), (writes, judged)
    with fresh_caches():
        want = analyze(Document(new.text, path="/virtual/shared.md"), config)
    assert messages == [i.message for i in want.issues]


def test_quick_fix_text_follows_the_documents_line_breaks():
    """The split-fence and repeat-header fixes insert the document's line
    break (its first one), which an edit far away can change."""
    config = Settings(size=400)
    doc = Document(CRAFTED, path="/virtual/crafted.md", version=1)
    cuts = crafted_cuts(CRAFTED)
    first = validate(doc, chunks_for(CRAFTED, cuts), config)
    assert any("\n" in i.data.get("insert", "") for i in first)
    at = CRAFTED.index("\n")
    crlf = doc.with_edit(at, at + 1, "\r\n", version=2)
    moved = [c + 1 if c > at else c for c in cuts]
    got = validate(crlf, chunks_for(crlf.text, moved), config)
    with fresh_caches():
        want = validate(Document(crlf.text, path="/virtual/crafted.md"),
                        chunks_for(crlf.text, moved), config)
    assert [dataclasses.asdict(i) for i in got] == [dataclasses.asdict(i) for i in want]
    assert any("\r\n" in i.data.get("insert", "") for i in got)


def test_chunk_numbers_in_messages_follow_a_changed_chunk_count():
    config = Settings(size=400)
    doc = Document(CRAFTED, path="/virtual/crafted.md", version=1)
    cuts = crafted_cuts(CRAFTED)
    validate(doc, chunks_for(CRAFTED, cuts), config)
    extra = sorted(cuts + [CRAFTED.index("filler text for")])  # one more chunk early on
    got = validate(doc, chunks_for(CRAFTED, extra), config)
    with fresh_caches():
        want = validate(Document(CRAFTED, path="/virtual/crafted.md"),
                        chunks_for(CRAFTED, extra), config)
    assert [dataclasses.asdict(i) for i in got] == [dataclasses.asdict(i) for i in want]


ORPHANS = """# Top

Some text of the top section.

## Alpha

### Beta

Body of beta, with words in it.

## Lonely

### Deeper

Body of the deeper section, with words.
"""


@pytest.mark.parametrize("edit_at, old, new_text", [
    ("## Alpha", "Alpha", "Gamma"),             # the orphan heading, a segment before the cut
    ("### Deeper", "Deeper", "Lesser"),          # the body, a segment after the cut
])
def test_cut_judgements_see_the_segments_on_both_sides(edit_at, old, new_text):
    text = ORPHANS
    cuts = sorted({text.index("### Beta"), text.index("## Lonely") + len("## Lonely")})
    config = Settings(size=400)
    doc = Document(text, path="/virtual/o.md", version=1)
    first = validate(doc, chunks_for(text, cuts), config)
    assert sum(i.code == "CS007" for i in first) == 2, [(i.code, i.message) for i in first]
    at = text.index(edit_at) + edit_at.index(old)
    new = doc.with_edit(at, at + len(old), new_text, version=2)  # same length: cuts stay
    got = validate(new, chunks_for(new.text, cuts), config)
    with fresh_caches():
        want = validate(Document(new.text, path="/virtual/o.md"), chunks_for(new.text, cuts),
                        config)
    assert [dataclasses.asdict(i) for i in got] == [dataclasses.asdict(i) for i in want]
    assert got != first


ALT = "# T\n\nPara one ends here.\n\n    indented code line\n    more code\n\nAfter.\n"


@pytest.mark.parametrize("text, variants, expect", [
    # a whitespace gap: the cut is clean at the left end, judged again where
    # the right chunk starts (inside the indented code, or at its start)
    (ALT, [[(0, ALT.index("\n\n    ")), (ALT.index("more code"), len(ALT))],
           [(0, ALT.index("\n\n    ")), (ALT.index("    indented"), len(ALT))]],
     [["CS003"], []]),
    # where the chunks on both sides start decides whether a heading is orphaned
    (ORPHANS, [[(0, ORPHANS.index("## Lonely")), (ORPHANS.index("## Lonely"), ORPHANS.index("\n\n### D")),
                (ORPHANS.index("### D"), len(ORPHANS))],
               [(0, ORPHANS.index("## Lonely") + 3), (ORPHANS.index("## Lonely") + 3, ORPHANS.index("\n\n### D")),
                (ORPHANS.index("### D"), len(ORPHANS))],
               [(0, ORPHANS.index("\n\n### D")), (ORPHANS.index("## Lonely"), len(ORPHANS))]],
     [["CS007"], ["CS002"], []]),
])
def test_cut_judgements_depend_on_the_chunks_around_them(text, variants, expect):
    """Same text, chunk lists that differ only around one cut: each answer is
    the fresh one (the cache keys on the other side of a gap, and on where
    the chunks on both sides of a cut start)."""
    config = Settings(size=400)
    doc = Document(text, path="/virtual/v.md", version=1)
    for spans, codes in zip(variants, expect):
        chunks = [Chunk(a, b, i, source=text) for i, (a, b) in enumerate(spans)]
        got = validate(doc, chunks, config)
        with fresh_caches():
            want = validate(Document(text, path="/virtual/v.md"), chunks, config)
        assert [dataclasses.asdict(i) for i in got] == [dataclasses.asdict(i) for i in want]
        assert [i.code for i in got if i.cut is not None] == codes, [(i.code, i.message) for i in got]


def test_heading_path_changes_reach_reused_sections():
    text = "# Alpha\n\nintro\n\n## One\n\nbody one\n\n## Two\n\nbody two\n"
    doc = Document(text, version=1)
    before = analyze(doc, Settings(size=20))
    assert before.chunks[-1].heading_path == ("Alpha", "Two")
    new = doc.with_edit(2, 7, "Omega", version=2)
    after = analyze(new, Settings(size=20))
    assert after.chunks[-1].heading_path == ("Omega", "Two")
    assert snapshot(after) == from_scratch(new, Settings(size=20))


# -- sentences: pysbd's processor output equals its segment() output --------------------------


def _reference_segment(text: str) -> tuple[tuple[int, int], ...]:
    """chunkseam.structure.sentences.segment as it was, through pysbd's Segmenter.segment."""
    if not text.strip():
        return ()
    text = sentences_mod._LINE_BREAK.sub(lambda m: " " * len(m.group()), text)
    text = sentences_mod._INLINE.sub(sentences_mod._as_word, text)
    try:
        pieces = sentences_mod._segmenter().segment(text)
    except Exception:
        pieces = [text]
    spans, cursor = [], 0
    for piece in pieces:
        core = piece.strip()
        if not core:
            continue
        at = text.find(core, cursor)
        if at < 0:
            break
        spans.append((at, at + len(core)))
        cursor = at + len(core)
    if not spans:
        stripped = text.strip()
        at = text.find(stripped)
        return ((at, at + len(stripped)),)
    tail = text[cursor:].rstrip()
    if tail.strip():
        spans[-1] = (spans[-1][0], cursor + len(tail))
    return tuple(spans)


def test_sentences_equal_pysbd_segment_on_corpus_paragraphs():
    files = corpus_files("markdown")
    rng = random.Random(3)
    seen = 0
    for path in rng.sample(files, 25):
        doc = Document(path.read_text(encoding="utf-8"))
        st_ = structure(doc)
        for b in st_.leaves:
            if b.kind == "paragraph" and b.end - b.start <= 3000:
                piece = doc.text[b.start : b.end]
                assert sentences_mod.segment.__wrapped__(piece) == _reference_segment(piece), piece
                seen += 1
    assert seen > 200


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    "Dr. Smith", "went", "home.", "It", "was", "3.14", "p.m.", "e.g.", "`x.y`", "(see", "Fig. 2)",
    "\n", "!", "?", "\"Quoted.\"", "U.S.A.", "...", "i.e.", "A", "b", "😀", "日本語。", "  "]),
    max_size=30).map(" ".join))
def test_sentences_equal_pysbd_segment_on_generated_text(text):
    assert sentences_mod.segment.__wrapped__(text) == _reference_segment(text)


# -- Document.with_edit -----------------------------------------------------------------------

EDIT_PIECES = st.sampled_from(["a", "bc", "\n", "\r", "\r\n", " ", "😀", "\u2028"])


@settings(max_examples=200, deadline=None)
@given(text=st.lists(EDIT_PIECES, max_size=40).map("".join), data=st.data())
def test_with_edit_carries_the_line_index_and_records_the_lineage(text, data):
    docs = [Document(text, path="/x/a.md", version=1)]
    docs[0].line_starts
    for _ in range(data.draw(st.integers(1, 4))):
        d = docs[-1]
        start = data.draw(st.integers(0, len(d.text)))
        end = data.draw(st.integers(start, len(d.text)))
        inserted = data.draw(st.lists(EDIT_PIECES, max_size=4).map("".join))
        new = d.with_edit(start, end, inserted)
        assert new.text == d.text[:start] + inserted + d.text[end:]
        assert (new.path, new.kind, new.version) == (d.path, d.kind, d.version)
        assert new.line_starts == Document(new.text).line_starts
        docs.append(new)
    last = docs[-1]
    lineage = last.lineage()
    assert [anc for anc, *_ in lineage] == list(reversed(docs[:-1]))
    for anc, a, b, n in lineage:
        assert 0 <= a <= b <= len(anc.text)
        assert last.text == anc.text[:a] + last.text[a : a + n] + anc.text[b:]


def test_with_edits_applies_in_order_and_keeps_no_ancestor_alive():
    doc = Document("one\ntwo\n", version=1)
    new = doc.with_edits([(0, 3, "ONE"), (4, 7, "2")], version=5)
    assert new.text == "ONE\n2\n" and new.version == 5
    assert doc.with_edits([], version=2).text == doc.text
    ref = weakref.ref(doc)
    del doc
    import gc

    gc.collect()
    assert ref() is None and new.lineage() == []


def test_old_versions_are_freed_without_the_cycle_collector():
    import gc

    gc.disable()
    try:
        doc = Document("# A\n\ntext\n", version=1)
        structure(doc)
        ref = weakref.ref(doc)
        new = doc.with_edit(0, 0, "x")
        structure(new)
        del doc
        assert ref() is None  # freed by reference counting: no doc <-> structure cycle
        assert structure(new).doc is new
    finally:
        gc.enable()


# -- the sequential strategies: recursive, langchain, fixed, sentence --------------------------
#
# Each keeps its run on the document and updates it from the previous
# version's (chunkers/incremental.py and each strategy's own update): re-chunk from the chunk holding the edit,
# stop where the new run meets the old one. The chunks of every version must
# be those of a run from scratch, and the update must actually be used.

incremental_mod = importlib.import_module("chunkseam.chunkers.incremental")
recursive_mod = importlib.import_module("chunkseam.chunkers.recursive")
sentence_mod = importlib.import_module("chunkseam.chunkers.sentence")

STRATEGY_SETTINGS = {
    "recursive": [
        Settings(chunker="recursive", size=256, overlap=32),
        Settings(chunker="recursive", size=24, overlap=6),
        Settings(chunker="recursive", unit="chars", size=120, overlap=30),
        Settings(chunker="recursive", unit="chars", size=40, overlap=10,
                 chunker_options={"keep_separator": "end", "strip_whitespace": False}),
        Settings(chunker="recursive", size=48, overlap=0,
                 chunker_options={"keep_separator": False}),
        Settings(chunker="recursive", unit="chars", size=200, overlap=20,
                 chunker_options={"language": "markdown"}),
    ],
    "langchain": [
        Settings(chunker="langchain", size=256, overlap=32),
        Settings(chunker="langchain", unit="chars", size=120, overlap=30),
        Settings(chunker="langchain", size=32, overlap=8,
                 chunker_options={"splitter": "MarkdownTextSplitter"}),
    ],
    "fixed": [
        Settings(chunker="fixed", size=256, overlap=32),
        Settings(chunker="fixed", size=24, overlap=5),
        Settings(chunker="fixed", unit="chars", size=90, overlap=15),
    ],
    "sentence": [
        Settings(chunker="sentence", size=256, overlap=1),
        Settings(chunker="sentence", size=40, overlap=2),
        Settings(chunker="sentence", unit="chars", size=300, overlap=0),
    ],
}


def chunk_tuples(chunks) -> list[tuple]:
    return [(c.start, c.end, c.index, c.tokens, c.oversize, c.strategy, c.heading_path,
             dict(c.meta)) for c in chunks]


def cold_chunks(doc: Document, config: Settings) -> list[tuple]:
    from chunkseam.engine.analysis import make_chunks

    return chunk_tuples(make_chunks(Document(doc.text, path=doc.path), config)[1])


@contextlib.contextmanager
def counting_updates():
    """Count the runs updated from a previous version's (``find_previous``
    hits, and LangChain splits updated around an edit)."""
    real, real_lc = incremental_mod.find_previous, recursive_mod.langchain_update
    hits = [0]

    def spy(doc, key):
        found = real(doc, key)
        hits[0] += found is not None
        return found

    def spy_lc(*args, **kw):
        found = real_lc(*args, **kw)
        hits[0] += found is not None
        return found

    incremental_mod.find_previous, recursive_mod.langchain_update = spy, spy_lc
    try:
        yield hits
    finally:
        incremental_mod.find_previous, recursive_mod.langchain_update = real, real_lc


def edit_sequence_equals_cold(doc: Document, config: Settings, edits) -> tuple[int, Document]:
    """Apply ``edits`` (callables doc -> doc) one by one; every version's chunks
    equal a cold run's. Returns how many runs were updates, and the last version."""
    from chunkseam.engine.analysis import make_chunks

    make_chunks(doc, config)
    with counting_updates() as hits:
        for n, make in enumerate(edits):
            prev = doc  # alive, as the server's last result keeps it
            doc = make(prev)
            got = chunk_tuples(make_chunks(doc, config)[1])
            assert got == cold_chunks(doc, config), (config, n, len(doc.text))
    return hits[0], doc


@pytest.mark.parametrize("unit,size,overlap", [("tokens", 60, 1), ("chars", 250, 2)])
def test_sentence_run_after_random_edits_equals_a_fresh_run(unit, size, overlap):
    """The sentence run an edit updates (paragraphs, sentences, chunks kept as
    lists of ints, shifted past the edit) is, list by list, a fresh run's."""
    from chunkseam.engine.analysis import sizer_for

    sizer = sizer_for(Settings(chunker="sentence", unit=unit, size=size))
    rng = random.Random(size)
    doc = Document(corpus_text(rng, corpus_files("markdown"), 3), path="/virtual/s.md")
    sentence_mod.sentence_run(doc, sizer, size, overlap)
    fields = ("para_starts", "para_ends", "starts", "s_starts", "s_ends", "firsts", "lasts",
              "units")
    updated = 0
    with counting_updates() as hits:
        for _ in range(25):
            prev = doc
            doc = random_edit(rng, prev)
            if rng.random() < 0.3:  # paragraphs split and joined
                a = rng.randrange(len(doc.text) + 1)
                doc = doc.with_edit(a, a + rng.choice([0, 2]), rng.choice(["\n\n", "", "x. Y"]))
            got = sentence_mod.sentence_run(doc, sizer, size, overlap)
            fresh = sentence_mod.sentence_run(Document(doc.text), sizer, size, overlap)
            for name in fields:
                assert getattr(got, name) == getattr(fresh, name), name
            assert got.spans == list(zip(fresh.s_starts, fresh.s_ends))
            assert got.runs == list(zip(fresh.firsts, fresh.lasts, fresh.units))
            assert all(type(x) is int for name in fields for x in getattr(got, name))
        updated = hits[0]
    assert updated >= 20  # the update path ran


@pytest.mark.parametrize("config", [
    Settings(chunker="sentence", size=60, overlap=1, extend_select=("CS104",)),
    Settings(chunker="sentence", unit="chars", size=300)])
def test_cuts_after_an_edit_moved_with_their_judgements_equal_a_cold_run(config, monkeypatch):
    """The sentence chunker's chunks after an edit are the previous version's,
    moved: their cuts keep the previous run's judgements, moved, instead of
    being judged again. Every version's issues (messages too) are a cold
    run's, and the moved judgements were used."""
    moved = []
    real = validate_mod._CutJudge._moved_tail

    def spy(self, cuts, previous, delta, floor):
        k = real(self, cuts, previous, delta, floor)
        moved.append(len(cuts) - k)
        return k

    monkeypatch.setattr(validate_mod._CutJudge, "_moved_tail", spy)
    chunks_moved = []
    real_chunks = validate_mod._CutJudge._moved_chunks

    def spy_chunks(self, keys, *args):
        k = real_chunks(self, keys, *args)
        chunks_moved.append(len(keys) - k)
        return k

    monkeypatch.setattr(validate_mod._CutJudge, "_moved_chunks", spy_chunks)
    rng = random.Random(config.size)
    doc = Document(corpus_text(rng, corpus_files("markdown"), 4), path="/virtual/moved.md")
    analyze(doc, config)

    def heading_edit(r, d):
        # a heading's title or level changes: the heading paths after it do
        # (CS104's message names the path), the text around them does not
        heads = [m.start() for m in re.finditer(r"(?m)^#{1,3} \w", d.text)]
        at = r.choice(heads[: len(heads) // 2 or 1])
        return d.with_edit(at, at, r.choice(["#", "X"]) if r.random() < 0.5 else "# Y\n\n",
                           version=(d.version or 0) + 1)

    for step in range(16):
        prev = doc
        doc = heading_edit(rng, prev) if step % 4 == 3 else random_edit(rng, prev)
        got = analyze(doc, config)
        assert snapshot(got) == from_scratch(doc, config), step
        with fresh_caches():
            cold = analyze(Document(doc.text, path=doc.path), config)
        assert [i.message for i in got.issues] == [i.message for i in cold.issues]
        if config.extend_select:  # (the heading paths of chunks without their own)
            assert any(i.code == "CS104" for i in got.issues)
    assert sum(moved) > 0 and sum(1 for m in moved if m) >= 6, moved
    assert sum(1 for m in chunks_moved if m) >= 6, chunks_moved


@pytest.mark.parametrize("strategy", sorted(STRATEGY_SETTINGS))
@pytest.mark.parametrize("seed", range(2))
def test_sequential_strategies_after_random_corpus_edits_equal_a_cold_run(strategy, seed):
    files = corpus_files("markdown")
    rng = random.Random(seed * 31 + len(strategy))
    configs = STRATEGY_SETTINGS[strategy]
    config = configs[(seed * 2) % len(configs)]
    doc = Document(corpus_text(rng, files, 4), path=f"/virtual/{strategy}{seed}.md", version=1)
    edits = [lambda d, r=random.Random(rng.random()): random_edit(r, d) for _ in range(10)]
    updates, last = edit_sequence_equals_cold(doc, config, edits)
    if strategy == "fixed" and config.unit == "chars":
        assert updates == 0  # character windows are cut afresh (a few list items)
    else:
        assert updates >= 8, updates  # the update path ran
    # and the whole analysis (issues, statistics) of the last version is a fresh one's
    assert snapshot(analyze(last, config)) == from_scratch(last, config)


@pytest.mark.parametrize("strategy", sorted(STRATEGY_SETTINGS))
@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=markdown_texts(max_lines=30), data=st.data())
def test_sequential_strategies_after_generated_edits_equal_a_cold_run(strategy, text, data):
    configs = STRATEGY_SETTINGS[strategy]
    config = configs[data.draw(st.integers(0, len(configs) - 1))]
    doc = Document(text, path="/virtual/gen.md", version=1)
    edits = []
    for _ in range(data.draw(st.integers(1, 4))):
        frac = data.draw(st.floats(0, 1))
        length = data.draw(st.sampled_from([0, 0, 1, 2, 10]))
        ins = data.draw(st.lists(st.sampled_from(PIECES), max_size=3).map("".join))

        def make(d, frac=frac, length=length, ins=ins):
            a = int(frac * len(d.text))
            return d.with_edit(a, min(len(d.text), a + length), ins, version=(d.version or 0) + 1)

        edits.append(make)
    edit_sequence_equals_cold(doc, config, edits)


@pytest.mark.parametrize("strategy", ["recursive", "langchain"])
@pytest.mark.parametrize("change", [
    ("first", "\n\n"),   # a text without blank lines gets one: the top-level separator changes
    ("blank", ""),       # the only blank line goes: back to splitting at line breaks
    ("blank", "x"),      # a blank line stops being blank
    ("start", "\n\n"),   # at the very start
    ("end", "\n\nlast"),  # at the very end
])
def test_recursive_edits_that_move_the_top_level_separator(strategy, change):
    where, ins = change
    lines = [f"Line {i} has some words in it, enough to be cut." for i in range(40)]
    text = "\n".join(lines[:20]) + ("\n\n" if where == "blank" else "\n") + "\n".join(lines[20:])
    at = {"first": text.index("Line 7"), "blank": text.find("\n\n"), "start": 0,
          "end": len(text)}[where]
    end = at + (2 if where == "blank" else 0)
    config = Settings(chunker=strategy, unit="chars", size=150, overlap=40)
    doc = Document(text, path="/virtual/sep.md", version=1)
    edit_sequence_equals_cold(doc, config, [
        lambda d: d.with_edit(at, end, ins, version=2),
        lambda d: d.with_edit(at, at + len(ins), text[at:end], version=3),  # and back
    ])


@pytest.mark.parametrize("config", [
    Settings(chunker="recursive", unit="chars", size=12, overlap=4),
    Settings(chunker="recursive", unit="chars", size=7, overlap=0,
             chunker_options={"keep_separator": "end"}),
    Settings(chunker="sentence", unit="chars", size=30, overlap=1),
    Settings(chunker="fixed", size=4, overlap=1),
])
def test_every_single_edit_of_a_small_text_equals_a_cold_run(config):
    """Every insertion and deletion of one or two characters (separators,
    letters, sentence ends) at every offset of a small text."""
    text = "Ab cd.\n\nEf gh ij.\nKl mn op qr.\n\n\nSt uv. Wx yz ab cd ef.\n\nGh"
    base = Document(text, path="/virtual/small.md", version=1)
    from chunkseam.engine.analysis import make_chunks

    make_chunks(base, config)
    for a in range(len(text) + 1):
        for op in ("\n", "\n\n", " ", "x", ". ", "del1", "del2"):
            if op.startswith("del"):
                n = int(op[3:])
                if a + n > len(text):
                    continue
                new = base.with_edit(a, a + n, "", version=2)
            else:
                new = base.with_edit(a, a, op, version=2)
            got = chunk_tuples(make_chunks(new, config)[1])
            assert got == cold_chunks(new, config), (a, op)


def test_fixed_token_windows_keep_their_phase_or_move_all():
    """Token windows after an edit are the old ones shifted when the edit keeps
    the number of tokens, and all move otherwise: both equal a cold run."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3])
    config = Settings(chunker="fixed", size=64, overlap=8)
    at = text.index(" the ", len(text) // 3) + 1
    doc = Document(text, path="/virtual/phase.md", version=1)
    updates, _ = edit_sequence_equals_cold(doc, config, [
        lambda d: d.with_edit(at, at + 3, "THE", version=2),     # same tokens count
        lambda d: d.with_edit(at, at, "more words ", version=3),  # more tokens
        lambda d: d.with_edit(0, 0, "😀", version=4),             # at the start, multi-byte
        lambda d: d.with_edit(len(d.text), len(d.text), " tail", version=5),
    ])
    assert updates == 4


def test_fixed_windows_an_edit_leaves_alone_are_not_counted_again(monkeypatch):
    """The sizes of the token windows wholly before an edit, and of those after
    it that only moved, are the previous version's: only the windows around
    the edit (and all after it when the edit changes the number of tokens)
    are counted, and the chunks equal a cold run's."""
    from chunkseam.engine.analysis import make_chunks
    from chunkseam.chunkers.fixed import _TokenText

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:4])
    config = Settings(chunker="fixed", size=64, overlap=8)
    doc = Document(text, path="/virtual/counts.md", version=1)
    n = len(make_chunks(doc, config)[1])
    counted = []
    real = _TokenText.span_count

    def spy(self, a, b, *hints):
        counted.append((a, b))
        return real(self, a, b, *hints)

    monkeypatch.setattr(_TokenText, "span_count", spy)
    at = text.index(" the ", 3 * len(text) // 4) + 1
    same = doc.with_edit(at, at + 3, "THE", version=2)  # same number of tokens
    got = chunk_tuples(make_chunks(same, config)[1])
    windows = [w for w in counted if w in {(c[0], c[1]) for c in got}]  # (not the overlaps)
    assert 0 < len(windows) <= 3, windows  # the window(s) holding the edit
    more = same.with_edit(at, at, "more words ", version=3)  # more tokens: later windows move
    del counted[:]
    got_more = chunk_tuples(make_chunks(more, config)[1])
    windows = [w for w in counted if w in {(c[0], c[1]) for c in got_more}]
    assert 0 < len(windows) < n // 3, (len(windows), n)
    monkeypatch.setattr(_TokenText, "span_count", real)
    assert got == cold_chunks(same, config)
    assert got_more == cold_chunks(more, config)


def test_fixed_windows_before_an_edit_are_not_placed_again(monkeypatch):
    """After an edit, the token windows that end before the first token the
    edit may change are the previous version's: only the windows from there
    on are mapped to characters again, and the chunks equal a cold run's
    (an edit near the end, one at the start, a multi-byte one)."""
    from chunkseam.engine.analysis import make_chunks
    from chunkseam.chunkers.fixed import _TokenText

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:4]) + "\n\nnaïve café 😀\n"
    config = Settings(chunker="fixed", size=64, overlap=8)
    doc = Document(text, path="/virtual/phase-reuse.md", version=1)
    n = len(make_chunks(doc, config)[1])
    placed = []
    real = _TokenText.char_of

    def spy(self, x):
        placed.append(x)
        return real(self, x)

    monkeypatch.setattr(_TokenText, "char_of", spy)
    at = text.index(" the ", 9 * len(text) // 10) + 1
    late = doc.with_edit(at, at, "more words ", version=2)
    got = chunk_tuples(make_chunks(late, config)[1])
    assert 0 < len(placed) < n // 2, (len(placed), n)  # (two per window placed)
    del placed[:]
    first = late.with_edit(0, 0, "😀 ", version=3)
    got_first = chunk_tuples(make_chunks(first, config)[1])
    assert len(placed) >= 2 * (n - 1)  # every window moved
    monkeypatch.setattr(_TokenText, "char_of", real)
    assert got == cold_chunks(late, config)
    assert got_first == cold_chunks(first, config)


def test_fixed_window_and_overlap_share_what_their_common_ends_give(monkeypatch):
    """A moved window and the overlap after it start at the same token, the
    overlap and the window before it end at the same token: what a span's
    start and end give (their stable boundaries and the texts before and
    after them, counted alone) is found once for both. After an edit that
    moves every later window, fewer than three texts are counted per window
    (a window and its overlap: four, counted each on its own; the overlaps
    when first asked for, after the windows), and the sizes are the
    sizer's."""
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.chunkers.fixed import kept_count, kept_counts
    from chunkseam.tokens.tiktoken import TokenSizer

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:4]) + "\n\nnaïve café — 😀 ✓\n"
    config = Settings(chunker="fixed", size=64, overlap=8)
    sizer = sizer_for(config)
    doc = Document(text, path="/virtual/ends.md", version=1)
    make_chunks(doc, config)
    counted = []
    real = TokenSizer.count

    def spy(self, piece):
        counted.append(piece)
        return real(self, piece)

    monkeypatch.setattr(TokenSizer, "count", spy)
    moved = doc.with_edit(5, 5, "more words ", version=2)  # every window after it moves
    chunks = make_chunks(moved, config)[1]
    windows_only = len(counted)
    kept_counts(moved, sizer)  # (the overlaps: counted when first asked for)
    monkeypatch.setattr(TokenSizer, "count", real)
    assert len(chunks) > 50
    assert 0 < windows_only < len(counted) < 3 * len(chunks), (windows_only, len(counted), len(chunks))
    assert chunk_tuples(chunks) == cold_chunks(moved, config)
    for p, c in itertools.pairwise(chunks):
        if c.start < p.end:
            end = min(p.end, c.end)
            assert kept_count(moved, sizer, c.start, end) == sizer.count(moved.text[c.start:end])


def test_fixed_spans_between_stable_boundaries_are_counted_by_their_tokens(monkeypatch):
    """A window or overlap that starts or ends at a stable boundary (a word
    then a space: most token starts) where its token starts needs no text
    encoded on that side: the whole text's tokens split there. After an
    edit that moves every later window, about one text is encoded per
    window (three without), and every window's and overlap's size is the sizer's count
    of its text (multi-byte characters and mid-word token starts included)."""
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.chunkers.fixed import kept_count
    from chunkseam.tokens.tiktoken import TokenSizer

    files = corpus_files("markdown")
    text = ("\n\n".join(f.read_text(encoding="utf-8") for f in files[:4])
            + "\n\nnaïve café — 😀 ✓ 漢字かな unbelievably" * 20)
    config = Settings(chunker="fixed", size=64, overlap=8)
    sizer = sizer_for(config)
    doc = Document(text, path="/virtual/stable.md", version=1)
    make_chunks(doc, config)
    encoded = []
    real = TokenSizer.count

    def spy(self, piece):
        encoded.append(piece)
        return real(self, piece)

    monkeypatch.setattr(TokenSizer, "count", spy)
    moved = doc.with_edit(5, 5, "more words ", version=2)
    chunks = make_chunks(moved, config)[1]
    monkeypatch.setattr(TokenSizer, "count", real)
    assert len(chunks) > 50
    assert len(encoded) < 1.5 * len(chunks), (len(encoded), len(chunks))
    for c in chunks:
        assert c.tokens == sizer.count(moved.text[c.start:c.end])
    for p, c in itertools.pairwise(chunks):
        if c.start < p.end:
            end = min(p.end, c.end)
            assert kept_count(moved, sizer, c.start, end) == sizer.count(moved.text[c.start:end])


@pytest.mark.parametrize("size,overlap", [(64, 8), (24, 5), (256, 32)])
def test_fixed_overlap_sizes_kept_by_the_chunker_are_the_sizers(size, overlap):
    """The overlap sizes the ``fixed`` chunker keeps for the language server
    (the whole text's tokens, the windows' end tokens as hints; reused after
    an edit) are what the sizer counts on each overlap's text alone."""
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.chunkers.fixed import kept_count

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3]) + "\n\nnaïve café — 😀 ✓\n"
    config = Settings(chunker="fixed", size=size, overlap=overlap)
    sizer = sizer_for(config)
    doc = Document(text, path="/virtual/overlaps.md", version=1)
    at = text.index(" the ", len(text) // 2) + 1
    for version in (doc, doc.with_edit(at, at, "more words ", version=2)):
        chunks = make_chunks(version, config)[1]
        pairs = [(p, c) for p, c in zip(chunks, chunks[1:]) if c.start < p.end]
        assert pairs
        for p, c in pairs:
            end = min(p.end, c.end)
            assert kept_count(version, sizer, c.start, end) == sizer.count(version.text[c.start:end])


def test_langchain_window_is_split_by_langchain_itself(monkeypatch):
    """After an edit the installed splitter runs on a window around it, not on
    the whole text, and the result is still a cold run's."""
    from chunkseam.chunkers.adapters import langchain as pipeline
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:6])
    config = Settings(chunker="langchain", size=256, overlap=32)
    doc = Document(text, path="/virtual/lc.md", version=1)
    from chunkseam.engine.analysis import make_chunks, sizer_for

    make_chunks(doc, config)
    splitter = pipeline.get_splitter(sizer_for(config), size=256, overlap=32)
    lengths = []
    real = type(splitter).split_text

    def spy(self, t):
        lengths.append(len(t))
        return real(self, t)

    monkeypatch.setattr(type(splitter), "split_text", spy)
    at = text.index(" ", len(text) // 2)
    new = doc.with_edit(at, at, " inserted words", version=2)
    got = chunk_tuples(make_chunks(new, config)[1])
    assert lengths and max(lengths) < len(new.text) // 4, lengths
    monkeypatch.setattr(type(splitter), "split_text", real)
    assert got == cold_chunks(new, config)


# -- through the real language server ---------------------------------------------------------

SERVER_SETTINGS = {"size": 96, "debounceMs": 0}


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def _fresh_server_diagnostics(uri: str, text: str, settings: dict | None = None) -> list:
    """What the server's own analysis code publishes for ``text`` opened anew,
    run in this process with empty caches."""
    from chunkseam.lsp import diagnostics
    from chunkseam.lsp.settings import EditorSettings
    from chunkseam.lsp.state import DocumentStore

    store = DocumentStore()
    store.build_diagnostics = diagnostics.build
    store.editor = EditorSettings.from_initialization_options(
        {"settings": settings or SERVER_SETTINGS})
    try:
        od = store.open(uri, text, 1, "markdown")
        with fresh_caches():
            result = store._compute((uri, od.version, store.generation, od.doc, "markdown",
                                     dataclasses.replace(store.editor), store.encoding))
        return result.diagnostics
    finally:
        store.shutdown()


def _comparable(diags) -> list:
    out = []
    for d in diags:
        data = dict(d.data) if isinstance(d.data, dict) else d.data
        if isinstance(data, dict):
            data.pop("version", None)
        out.append((d.code, d.range.start.line, d.range.start.character, d.range.end.line,
                    d.range.end.character, d.message, int(d.severity), repr(data),
                    [(r.location.range.start.line, r.location.range.start.character,
                      r.location.range.end.line, r.location.range.end.character, r.message)
                     for r in d.related_information or []]))
    return sorted(out)


@pytest.mark.parametrize("strategy", [None, "recursive", "fixed", "sentence"])
async def test_server_diagnostics_after_incremental_edits_equal_a_fresh_open(
        client: LanguageClient, tmp_path, strategy):
    files = corpus_files("markdown")
    rng = random.Random(11)
    text = corpus_text(rng, files, 3)
    server_settings = dict(SERVER_SETTINGS)
    if strategy is not None:
        server_settings.update(chunker=strategy, overlap=1 if strategy == "sentence" else 16)
    await initialize(client, init_options={"settings": server_settings})
    uri = (tmp_path / "incremental.md").as_uri()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    version = 1
    for step in range(15):
        doc = Document(text)
        off = rng.randrange(len(text) + 1)
        end = min(len(text), off + rng.choice([0, 0, 1, 5]))
        ins = rng.choice(["x", " ", "\n\n", "# H ", "", "```\n", "word. "])
        s, e = doc.offset_to_position(off), doc.offset_to_position(end)
        text = text[:off] + ins + text[end:]
        version += 1
        change_doc(client, uri, version, [edit(s.line, s.character, e.line, e.character, ins)])
        if step % 5 == 4:
            await wait_published(client, uri, version=version)
    final = await wait_published(client, uri, version=version)
    assert _comparable(final.diagnostics) == _comparable(
        _fresh_server_diagnostics(uri, text, server_settings))


@pytest.mark.parametrize("seed", range(4))
def test_cuts_before_an_edit_are_the_previous_versions_and_all_equal_a_fresh_list(seed):
    """The cuts before the first chunk an edit changes are taken from the
    previous version (the same objects); every version's list equals one
    made from scratch: edits anywhere, at the very end (trailing blank
    lines), before the first content, and ones that join two cuts."""
    from chunkseam.engine.analysis import make_chunks
    from chunkseam.checks.inputs import make_cuts, read_chunks

    files = corpus_files("markdown")
    rng = random.Random(seed)
    config = [Settings(chunker="fixed", size=48, overlap=8), Settings(),
              Settings(chunker="recursive", size=64, overlap=8),
              Settings(chunker="fixed", unit="chars", size=300)][seed]
    doc = Document(corpus_text(rng, files, 4), path=f"/virtual/cuts{seed}.md", version=1)
    shared = 0
    previous: list = []
    for step in range(16):
        _, chunks = make_chunks(doc, config)
        views, _ = read_chunks(doc.text, chunks, lambda *a, **k: None)
        got = validate_mod._cuts(doc, doc.text, views)
        assert got == make_cuts(doc.text, views), (seed, step)
        ids = {id(c) for c in previous}
        shared += sum(id(c) in ids for c in got)
        previous = got
        n = len(doc.text)
        a = [rng.randrange(n + 1), n, 0, rng.randrange(n + 1)][step % 4]
        b = min(n, a + rng.choice([0, 0, 1, 5, 40]))
        kept = doc  # (the previous version stays alive, as the server's last result keeps it)
        doc = kept.with_edit(a, b, rng.choice(["x", " ", "\n\n", "word ", "", "```\n", "# h\n", "  \n"]),
                             version=step + 2)
    assert shared > 50


def test_cuts_are_not_taken_over_past_the_edit_even_where_no_chunk_moved():
    """Two chunks with only a blank line between them make one cut (the end,
    then the start as its alternative); an edit that puts a letter there
    without moving either chunk (the chunks given as offsets, as a pipeline's
    are) makes them two cuts again: the cuts are taken over only before the
    edit."""
    from chunkseam.checks.inputs import make_cuts, read_chunks

    text = "Alpha beta gamma.\n\nDelta epsilon zeta.\n\nEta theta iota.\n"
    spans = [(0, 17), (19, 38), (40, 55)]
    doc = Document(text, path="/virtual/joint.md", version=1)

    def cuts_of(d):
        views, _ = read_chunks(d.text, [{"start": a, "end": b} for a, b in spans], lambda *a, **k: None)
        return validate_mod._cuts(d, d.text, views), make_cuts(d.text, views)

    got, want = cuts_of(doc)
    assert got == want and [(c.offset, c.alt) for c in got] == [(17, 19), (38, 40)]
    edited = doc.with_edit(18, 19, "x", version=2)  # the blank line before the second chunk: "\nx"
    got, want = cuts_of(edited)
    assert got == want and [(c.offset, c.alt) for c in got] == [(17, None), (19, None), (38, 40)]


def _counting_cache_use(monkeypatch) -> tuple[str, Settings, list[tuple[int, int, int]]]:
    """A text of eight corpus files, 32-token fixed windows, and the list each
    cut validation appends its (cuts judged, cache lookups, hits) to."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:8])
    stats: list[tuple[int, int, int]] = []
    real_all = validate_mod._CutJudge.judge_all

    def spy(self, cuts):
        out = real_all(self, cuts)
        stats.append((self.judged, self.lookups, self.hits))
        return out

    monkeypatch.setattr(validate_mod._CutJudge, "judge_all", spy)
    return text, Settings(chunker="fixed", size=32, overlap=4), stats


def test_a_run_that_judges_few_cuts_passes_the_cache_verdict_on(monkeypatch):
    """After an edit that moves every later cut (the cache found nothing), an
    edit that keeps the token count (one word for another: the later windows
    are moved, few cuts judged) does not reset the verdict: the next edit
    that moves every cut still looks up only every _CACHE_PROBE-th one. Every
    version's issues equal a cold run's."""
    text, config, stats = _counting_cache_use(monkeypatch)
    at = text.index(" the ", len(text) // 10) + 1
    same = text.index(" the ", len(text) // 2) + 1  # " the" -> " and": one token for one
    versions = [Document(text, path="/virtual/verdict.md", version=1)]
    with fresh_caches():
        runs = [analyze(versions[0], config)]
        for edit in ((at, at, "more words "), (same + len("more words "), same + len("more words ") + 3, "and"),
                     (at, at, "even more ")):
            versions.append(versions[-1].with_edit(*edit, version=len(versions) + 1))
            runs.append(analyze(versions[-1], config))
    monkeypatch.undo()
    _cold, (judged1, lookups1, _), (judged2, _l2, _h2), (judged3, lookups3, hits3) = stats
    assert judged1 > validate_mod._CACHE_TRIAL and lookups1 == -(-judged1 // validate_mod._CACHE_PROBE)
    assert judged2 < validate_mod._CACHE_TRIAL  # (the windows after the word were moved, not judged)
    assert judged3 > validate_mod._CACHE_TRIAL
    assert lookups3 == -(-judged3 // validate_mod._CACHE_PROBE) and hits3 * 50 < judged3
    for version, run in zip(versions, runs):
        with fresh_caches():
            cold = analyze(Document(version.text, path="/virtual/verdict.md", version=9), config)
        assert [dataclasses.asdict(i) for i in run.issues] == [dataclasses.asdict(i) for i in cold.issues]


def test_cut_cache_is_probed_when_it_stopped_paying_and_taken_again_on_undo(monkeypatch):
    """A fixed-window edit that changes the token count moves every later cut
    to where none was judged: after a run that found (almost) nothing in the
    cut cache, the next looks up only every _CACHE_PROBE-th cut it judges;
    undoing the edit finds the first run's judgements, so it looks up every
    cut again and hits. Every version's issues equal a cold run's."""
    text, config, stats = _counting_cache_use(monkeypatch)
    at = text.index(" the ", len(text) // 10) + 1
    with fresh_caches():
        doc = Document(text, path="/virtual/probe.md", version=1)
        runs = [analyze(doc, config)]
        edited = doc.with_edit(at, at, "more words ", version=2)  # more tokens: all later cuts move
        runs.append(analyze(edited, config))
        undone = edited.with_edit(at, at + len("more words "), "", version=3)
        runs.append(analyze(undone, config))
    monkeypatch.undo()
    (judged0, lookups0, hits0), (judged1, lookups1, hits1), (judged2, lookups2, hits2) = stats
    assert judged0 == lookups0 > validate_mod._CACHE_TRIAL and hits0 * 50 < lookups0  # cold
    assert judged1 > validate_mod._CACHE_TRIAL  # (most cuts after the edit judged afresh)
    assert lookups1 == -(-judged1 // validate_mod._CACHE_PROBE) and hits1 * 50 < judged1
    assert judged2 > validate_mod._CACHE_TRIAL
    assert lookups2 > judged2 - 2 * validate_mod._CACHE_PROBE and hits2 > 0.9 * judged2
    for version, run in zip((doc, edited, undone), runs):
        with fresh_caches():
            cold = analyze(Document(version.text, path="/virtual/probe.md", version=9), config)
        assert [dataclasses.asdict(i) for i in run.issues] == [dataclasses.asdict(i) for i in cold.issues]
    assert len(runs[1].issues) > 100


def test_per_chunk_issues_graded_by_impact_are_moved_not_checked_again(monkeypatch):
    """A chunk kept whole over the size (CS101, impact "kept-whole") and a
    whole small section (CS102, impact "whole-section") after an edit are the
    last run's, moved: an edit near the start checks only the chunks around
    it again, not every chunk after it (the impact key made every chunk's
    issues be checked afresh on each edit), and every version equals a cold
    run."""
    code = "```python\n" + "\n".join(f"value_{k} = compute({k}, retries=3)  # step {k}"
                                     for k in range(10)) + "\n```\n"
    parts = []
    for k in range(40):
        parts.append(f"## Section {k}\n\nThe service reads its settings from the environment when it "
                     f"starts, and it refuses to start when a required value is missing. Section {k} "
                     "says why.\n\n")
        if k % 10 == 9:
            parts.append(code + "\n")
        if k % 10 == 4:
            parts.append(f"## Licence {k}\n\nMIT.\n\n")
    config = Settings(chunker="markdown", size=120, min_tokens=16)
    doc = Document("".join(parts), path="/virtual/kept.md", version=1)
    first = analyze(doc, config, share=True)
    impacts = {(i.code, i.data.get("impact")) for i in first.issues}
    assert {("CS101", "kept-whole"), ("CS102", "whole-section")} <= impacts, impacts
    checked = []
    real = validate_mod.chunk_issues

    def spy(ctx, first_content, views=None):
        checked.append(len(ctx.chunks if views is None else views))
        return real(ctx, first_content, views) if views is not None else real(ctx, first_content)

    monkeypatch.setattr(validate_mod, "chunk_issues", spy)
    rng = random.Random(3)
    near = doc.text.index("Section 1 says")  # (the second section's prose)
    for step in range(6):
        at = near + rng.randrange(8)
        doc = doc.with_edit(at, at, rng.choice("ab "), version=step + 2)
        checked.clear()
        got = analyze(doc, config, share=True)
        assert sum(checked) <= 3, (step, checked, len(got.chunks))
        assert snapshot(got) == from_scratch(doc, config), step
