"""Impact grading across versions: the language server's validations
(``share=True``) keep each issue's grading with the version and hand the very
graded issue to the next version when nothing its verdict read changed (the
text it read, the chunks that may hold its unit, the blocks around its cut).
Every version must still equal a fresh analysis, impact, severity and message
included."""

from __future__ import annotations

import dataclasses
import importlib
import random
import weakref

import pytest

from chunkseam.engine.analysis import analyze
from chunkseam.checks.base import ChunkView, Context
from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

from conftest import corpus_files

impact = importlib.import_module("chunkseam.checks.impact")
validate_mod = importlib.import_module("chunkseam.engine.validate")
structure_mod = importlib.import_module("chunkseam.structure.markdown")
markdown_mod = importlib.import_module("chunkseam.chunkers.markdown")

#: what a badge-laden README, a table of contents and prose give a chunker to cut
DECORATED = (
    "# Harbour\n\n"
    + " ".join(f"[![badge {k}](https://img.example/b{k}.svg)](https://ci.example/{k})" for k in range(12))
    + "\n\n## Contents\n\n"
    + "\n".join(f"- [Section {k}](#section-{k})" for k in range(14))
    + "\n\n"
    + "".join(f"## Section {k}\n\nHarbour schedules builds across a pool of workers, and each worker "
              f"pulls job {k} from the queue (it builds it in a sandbox) before it uploads the image. "
              f"A failed build is retried twice.\n\n" for k in range(14))
)

PIECES = ["a", "xy", " ", "\n", "\n\n", "# ", "- ", "(", ")", "[", "]", "`", ". ", "Word",
          "![i](x.png)", "[l](#s)", "<br>", "é"]

SETTINGS = [
    Settings(chunker="fixed", unit="chars", size=220, overlap=60, min_tokens=0),
    Settings(chunker="recursive", unit="chars", size=300, overlap=80, min_tokens=0),
]


def full(issues) -> list[dict]:
    """Every field of every issue, the message written out."""
    return [dataclasses.asdict(i) for i in issues]


def fresh(text: str, path: str, settings: Settings) -> list[dict]:
    """The issues of a new document of ``text`` analysed with no cross-version cache."""
    saved = (structure_mod._SEGMENTS, markdown_mod._SECTION_CACHES, validate_mod._CUT_CACHE)
    structure_mod._SEGMENTS = structure_mod._SegmentCache()
    markdown_mod._SECTION_CACHES = weakref.WeakKeyDictionary()
    validate_mod._CUT_CACHE = validate_mod._new_cut_cache()
    try:
        return full(analyze(Document(text, path=path), settings).issues)
    finally:
        structure_mod._SEGMENTS, markdown_mod._SECTION_CACHES, validate_mod._CUT_CACHE = saved


def random_edit(rng: random.Random, doc: Document) -> Document:
    text = doc.text
    a = rng.randrange(len(text) + 1)
    b = min(len(text), a + rng.choice([0, 0, 1, 4, 30]))
    ins = "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 2])))
    return doc.with_edit(a, b, ins, version=(doc.version or 0) + 1)


@pytest.mark.parametrize("seed", range(4))
def test_random_edits_grade_as_a_fresh_analysis_and_reuse_the_grading(seed):
    rng = random.Random(seed)
    settings = SETTINGS[seed % len(SETTINGS)]
    files = corpus_files("markdown")
    readmes = [f for f in files if "readmes" in f.parts]
    text = "\n\n".join([DECORATED] + [rng.choice(readmes).read_text(encoding="utf-8") for _ in range(2)])
    path = f"/virtual/graded{seed}.md"
    doc = Document(text, path=path, version=1)
    kept = [(doc, analyze(doc, settings, share=True))]  # every version stays alive
    assert kept[0][1].issues
    quiet = reused = moved = 0
    calls = {"n": 0, "moved": 0}
    real, real_moved = impact._grade_one, impact._graded_as

    def counted(*args, **kw):
        calls["n"] += 1
        return real(*args, **kw)

    def counted_moved(*args, **kw):  # (graded as the same issue was before the edit moved it)
        calls["moved"] += 1
        return real_moved(*args, **kw)

    for _step in range(10):
        new = random_edit(rng, kept[-1][0])
        calls.update(n=0, moved=0)
        impact._grade_one, impact._graded_as = counted, counted_moved
        try:
            analysis = analyze(new, settings, share=True)
        finally:
            impact._grade_one, impact._graded_as = real, real_moved
        got = full(analysis.issues)
        assert got == fresh(new.text, path, settings), (seed, _step)
        graded = [i for i in analysis.issues if (i.data or {}).get("impact")]
        quiet += len(graded)
        before = {id(i) for i in kept[-1][1].issues}
        # the very graded issue of the last version (no new object, no new verdict)
        reused += sum(1 for i in graded if id(i) in before)
        # not every issue the grading reads is graded afresh
        read = [i for i in analysis.issues if i.code in impact.CUT_RULES and i.cut is not None
                and (i.severity in ("error", "warning") or (i.data or {}).get("impact"))]
        assert calls["n"] + calls["moved"] <= len(read)
        moved += calls["moved"]
        kept.append((new, analysis))
    assert quiet > 0 and reused > 0, (quiet, reused)
    if settings.chunker == "recursive":  # (its chunks after an edit are the same, moved)
        assert moved > 0
    for doc, analysis in kept:  # what an earlier version was given is as it was
        assert full(analysis.issues) == fresh(doc.text, path, settings)


def _context(doc: Document, settings: Settings, spans: list[tuple[int, int]]) -> Context:
    views = [ChunkView(k, s, e, None, (), False) for k, (s, e) in enumerate(spans)]
    return Context(doc, settings, {c: "warning" for c in impact.CUT_RULES}, views)


def _sentence_issue(text: str, sentence: str, cut: int) -> Issue:
    s = text.index(sentence)
    return Issue("CS002", "mid-sentence", "warning", "chunk 1 ends inside a sentence", cut, cut + 3,
                 chunk=0, other_chunk=1, cut=cut, data={"side": "end"}, unit=(s, s + len(sentence)))


def test_a_kept_grading_follows_the_chunks_that_may_hold_the_unit():
    """The same issue object in the next version, its text unchanged, is
    graded again when a chunk that starts before its unit changed: here the
    overlap that held the sentence whole is gone."""
    sentence = "Builds are stopped after forty minutes of work."
    text = f"# Limits\n\n{sentence}\n\nMore prose follows here, and it goes on.\n"
    settings = Settings(min_tokens=0)
    doc = Document(text, path="/virtual/held.md", version=1)
    s = text.index(sentence)
    cut = s + 20
    issue = _sentence_issue(text, sentence, cut)
    p = text.index("More prose")
    # chunk 2 starts before the sentence (overlap) and holds it whole
    first = impact.grade(_context(doc, settings, [(0, cut), (s - 2, p), (p, len(text))]), [issue],
                         keep=True)
    assert first[0].data["impact"] == "whole-elsewhere" and first[0].data["whole_in"] == 1
    assert first[0].severity == "info"
    end = len(text)
    new = doc.with_edit(end, end, "Appended.\n", version=2)  # after everything the verdict read
    # only a chunk after the sentence changed (longer): the kept grading is handed out again
    same = impact.grade(_context(new, settings, [(0, cut), (s - 2, p), (p, len(new.text))]), [issue],
                        keep=True)
    assert same[0] is first[0]
    newer = new.with_edit(len(new.text), len(new.text), "x", version=3)
    # chunk 2 starts at the cut now (chunks still overlap elsewhere): the sentence is lost
    lost = impact.grade(_context(newer, settings, [(0, cut), (cut, p), (p - 3, len(newer.text))]),
                        [issue], keep=True)
    assert lost[0] is issue and lost[0].severity == "warning"


def test_a_kept_grading_follows_the_text_it_read():
    """An edit inside the text a verdict read (the badge row around the cut)
    grades the issue again, even when it is the same object."""
    row = " ".join(f"[![b{k}](https://img.example/{k}.svg)](https://ci.example/{k})" for k in range(6))
    text = f"# Badges\n\n{row}\n\nProse after the badges, with a sentence.\n"
    settings = Settings(min_tokens=0)
    doc = Document(text, path="/virtual/badges.md", kind="markdown", version=1)
    cut = text.index("[![b3")
    issue = Issue("CS006", "split-brackets", "warning", "chunk 1 ends inside a span", cut, cut + 3,
                  chunk=0, other_chunk=1, cut=cut, data={"side": "end"}, unit=None)
    spans = [(0, cut), (cut, len(text))]
    first = impact.grade(_context(doc, settings, spans), [issue], keep=True)
    assert first[0].data.get("impact") == "decoration", first[0].data
    # the last badges become words (as many characters: the blocks keep their
    # spans, only their text says otherwise): content, loud again
    at = text.index("[![b4")
    end = text.index("\n", at)
    words = ("and here many plain words tell the reader what the project does for them " * 3)
    new = doc.with_edit(at, end, words[: end - at], version=2)
    assert len(new.text) == len(text)
    spans = [(0, cut), (cut, len(new.text))]
    again = impact.grade(_context(new, settings, spans), [issue], keep=True)
    assert again[0] is issue and again[0].severity == "warning"
    want = impact.grade(_context(Document(new.text, path="/virtual/badges.md", kind="markdown"),
                                 settings, spans), [issue])
    assert again[0].severity == want[0].severity


def test_validate_keeps_no_grading_without_share():
    """A caller that gets its own copies (the CLI, the library's default)
    keeps nothing on the document for a next version."""
    doc = Document(DECORATED, path="/virtual/plain.md", version=1)
    settings = SETTINGS[0]
    from chunkseam.engine.analysis import make_chunks

    _name, chunks = make_chunks(doc, settings, None)
    validate(doc, chunks, settings)
    assert doc.memoised("impact-grading") is None
    validate(doc, chunks, settings, share=True)
    assert doc.memoised("impact-grading") is not None


def test_a_kept_grading_follows_the_blocks_around_the_cut():
    """An edit after all the text a verdict read can still change the block
    around the cut (a line of words joins the badge row's paragraph): the
    same issue object is graded again, as a fresh analysis grades it."""
    row = " ".join(f"[![b{k}](https://img.example/{k}.svg)](https://ci.example/{k})" for k in range(6))
    text = f"# Badges\n\n{row}\n\nProse after the badges, with a sentence.\n"
    settings = Settings(min_tokens=0)
    doc = Document(text, path="/virtual/joined.md", kind="markdown", version=1)
    cut = text.index("[![b3")
    issue = Issue("CS006", "split-brackets", "warning", "chunk 1 ends inside a span", cut, cut + 3,
                  chunk=0, other_chunk=1, cut=cut, data={"side": "end"}, unit=None)
    first = impact.grade(_context(doc, settings, [(0, cut), (cut, len(text))]), [issue], keep=True)
    assert first[0].data.get("impact") == "decoration", first[0].data
    at = text.index("\n\nProse") + 1  # after the row's line break: no character of the row changes
    new = doc.with_edit(at, at, "and here many plain words tell the reader what the project does\n",
                        version=2)
    assert new.text[:at] == text[:at]
    spans = [(0, cut), (cut, len(new.text))]
    again = impact.grade(_context(new, settings, spans), [issue], keep=True)
    want = impact.grade(_context(Document(new.text, path="/virtual/joined.md", kind="markdown"),
                                 settings, spans), [issue])
    assert again[0] is issue and want[0] is issue and issue.severity == "warning"


def _moved(issue: Issue, delta: int) -> Issue:
    """A new issue object: ``issue`` ``delta`` characters further on (as the
    cut judgements of a version move those past an edit)."""
    return dataclasses.replace(issue, start=issue.start + delta, end=issue.end + delta,
                               cut=issue.cut + delta,
                               unit=None if issue.unit is None else (issue.unit[0] + delta,
                                                                     issue.unit[1] + delta),
                               data=dict(issue.data))


def test_a_moved_issue_is_graded_as_before_only_where_the_same_chunks_may_hold_it():
    """An issue past an edit (a new object, moved) takes the grading the same
    issue had before the edit, unless a chunk that changed may now hold its
    unit: here the first chunk grows over the whole sentence."""
    sentence = "Builds are stopped after forty minutes of work."
    text = f"# Limits\n\nIntro line.\n\n{sentence}\n\nMore prose follows here, and it goes on.\n"
    settings = Settings(min_tokens=0)
    doc = Document(text, path="/virtual/moved.md", version=1)
    s, p = text.index(sentence), text.index("More prose")
    e = s + len(sentence)
    cut = s + 20
    issue = _sentence_issue(text, sentence, cut)
    first = impact.grade(_context(doc, settings, [(0, cut), (cut, p), (p - 3, len(text))]), [issue],
                         keep=True)
    assert first[0] is issue and issue.severity == "warning"  # no chunk holds the sentence
    at = text.index("Intro") + 2
    new = doc.with_edit(at, at, "xx", version=2)
    # the same chunks past the edit, moved: graded as before (no verdict afresh)
    moved = _moved(issue, 2)
    calls = []
    real = impact._grade_one
    impact._grade_one = lambda *a, **k: calls.append(1) or real(*a, **k)
    try:
        same = impact.grade(_context(new, settings, [(0, cut + 2), (cut + 2, p + 2), (p - 1, len(new.text))]),
                            [moved], keep=True)
    finally:
        impact._grade_one = real
    assert same[0] is moved and not calls
    # the first chunk (before the edit) now holds the sentence whole: graded afresh
    newer = doc.with_edit(at, at, "xx", version=3)
    held = impact.grade(_context(newer, settings, [(0, e + 7), (cut + 2, p + 2), (p - 1, len(newer.text))]),
                        [_moved(issue, 2)], keep=True)
    assert held[0].data.get("whole_in") == 0 and held[0].severity == "info"


def test_a_moved_issue_is_graded_afresh_when_the_edit_is_in_the_text_it_read():
    """The badges before the cut become words (as many characters, so every
    block keeps its span): the issue past the edit, the same but for being
    another object, is graded afresh: content now, loud."""
    row = " ".join(f"[![b{k}](https://img.example/{k}.svg)](https://ci.example/{k})" for k in range(6))
    text = f"# Badges\n\n{row}\n\nProse after the badges, with a sentence.\n"
    settings = Settings(min_tokens=0)
    doc = Document(text, path="/virtual/reread.md", kind="markdown", version=1)
    cut = text.index("[![b5")
    issue = Issue("CS006", "split-brackets", "warning", "chunk 1 ends inside a span", cut, cut + 3,
                  chunk=0, other_chunk=1, cut=cut, data={"side": "end"}, unit=None)
    spans = [(0, cut), (cut, len(text))]
    first = impact.grade(_context(doc, settings, spans), [issue], keep=True)
    assert first[0].data.get("impact") == "decoration", first[0].data
    at, end = text.index("[![b0"), text.index("[![b4")
    words = ("and here many plain words tell the reader what the project does for them " * 5)
    new = doc.with_edit(at, end, words[: end - at], version=2)
    again = impact.grade(_context(new, settings, spans), [_moved(issue, 0)], keep=True)
    assert again[0].severity == "warning" and not again[0].data.get("impact")


def test_a_kept_self_describing_table_verdict_follows_the_table_it_read():
    """CS004 graded "self-describing" reads the whole table: an edit inside a
    row after the cut (same length, the table's span unchanged) that turns its
    description into figures grades the issue again, loud; an edit far after
    the table hands the kept verdict out again."""
    rows = [("`retry`", "Retries a failed upload twice before it gives up."),
            ("`purge`", "Removes every cached layer that no image uses."),
            ("`sweep`", "Deletes the logs that are older than a week now.")]
    table = "| Command | What it does |\n|---|---|\n" + "".join(f"| {a} | {b} |\n" for a, b in rows)
    text = f"# Commands\n\n{table}\nProse after the table goes on for a while here.\n"
    settings = Settings(min_tokens=0)
    doc = Document(text, path="/virtual/table.md", kind="markdown", version=1)
    cut = text.index("| `purge`")
    issue = Issue("CS004", "split-table", "warning", "chunk 2 starts between body rows", cut, cut + 3,
                  chunk=0, other_chunk=1, cut=cut, data={"side": "start"}, unit=None)
    p = text.index("Prose after")
    spans = [(0, cut), (cut, p), (p, len(text))]
    first = impact.grade(_context(doc, settings, spans), [issue], keep=True)
    assert first[0].data.get("impact") == "self-describing" and first[0].severity == "info"
    # far after the table, only a chunk after it changed: the same graded issue
    end = len(text)
    later = doc.with_edit(end, end, "More.\n", version=2)
    same = impact.grade(_context(later, settings, [(0, cut), (cut, p), (p, len(later.text))]), [issue],
                        keep=True)
    assert same[0] is first[0]
    # the last row's description becomes figures, as many characters: rows of figures need their header
    old = rows[2][1]
    figures = ("12 | 40 | 7 | 3 | 9 | 81 | 2 | 5 | 60 | 4 | 11 | 8 " * 2)[: len(old)]
    at = later.text.index(old)
    new = later.with_edit(at, at + len(old), figures, version=3)
    assert len(new.text) == len(later.text)
    spans = [(0, cut), (cut, p), (p, len(new.text))]
    again = impact.grade(_context(new, settings, spans), [issue], keep=True)
    want = impact.grade(_context(Document(new.text, path="/virtual/table.md", kind="markdown"),
                                 settings, spans), [issue])
    assert again[0].severity == want[0].severity == "warning"
