"""chunkseam.fix.edits: every fix offered is a proof — applied to a copy and
re-simulated, it removes its issue, and its verdict says what else changed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from chunkseam.fix import edits as fixes
from chunkseam.engine.analysis import analyze
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings

FIXTURES = Path(__file__).parents[1] / "fixtures"
CODE = "# Code\n\n```python\na = 1\nb = 2\nc = 3\nd = 4\ne = 5\n```\n\nAfter the code. It ends here.\n"
CASES = [
    ("streaming.md", Settings(chunker="recursive", unit="chars", size=275)),
    ("streaming.md", Settings(chunker="fixed", unit="chars", size=275)),
    ("database.md", Settings(chunker="recursive", unit="chars", size=200, extend_select=("CS103",))),
    ("code.md", Settings(chunker="recursive", unit="chars", size=30)),
]


def _doc(name: str) -> Document:
    text = CODE if name == "code.md" else (FIXTURES / name).read_text(encoding="utf-8")
    return Document(text, path=f"/virtual/{name}")


@pytest.mark.parametrize("name,settings", CASES, ids=[f"{n}-{s.chunker}" for n, s in CASES])
def test_every_offered_fix_is_true_to_its_verdict(name, settings):
    doc = _doc(name)
    before = analyze(doc, settings)
    offered = 0
    for issue in before.issues:
        verdicts, complete = fixes.verified(doc, settings, before, [issue], budget=None)
        assert complete
        for v in verdicts:
            offered += 1
            after = analyze(fixes.apply(doc, v.candidate.edits), settings)
            # the targeted issue is gone: no issue of its code where it was
            mapper = fixes._Mapper(v.candidate.edits)
            assert not any(i.code == issue.code and mapper.back(fixes.anchor(i)) == fixes.anchor(issue)
                           for i in after.issues), v.title
            # no suppression comment that silences nothing
            if v.candidate.kind == "suppress":
                assert not ({"CS900", "CS901"} & {i.code for i in after.issues}
                            - {i.code for i in before.issues}), v.title
            # a clean fix adds no error or warning, counted over the whole document
            sev_before = Counter(i.severity for i in before.issues)
            sev_after = Counter(i.severity for i in after.issues)
            if v.clean and v.shifts_rest:
                for sev in ("error", "warning"):
                    assert sev_after[sev] <= sev_before[sev], v.title
            # the title says what the verdict found
            for sev, n in v.added.items():
                assert f"{n} new {sev}" in v.title
            if v.shifts_rest:
                assert "shifts all" in v.title or "shifts the next cut" in v.title
    assert offered


def test_split_fence_is_offered_at_the_cut_line_only_when_it_fixes():
    doc = _doc("code.md")
    settings = Settings(chunker="recursive", unit="chars", size=30)
    before = analyze(doc, settings)
    fence = [i for i in before.issues if i.code == "CS003"]
    assert fence
    for issue in fence:
        verdicts, _ = fixes.verified(doc, settings, before, [issue], budget=None)
        for v in verdicts:
            if v.candidate.title.startswith("Split the code block"):
                (edit,) = v.candidate.edits
                cut_line = doc.line_of(issue.cut)
                assert doc.line_of(edit.start) in (cut_line, cut_line + 1)
                assert v.fixed


def test_fix_all_only_improves_and_is_idempotent():
    doc = _doc("streaming.md")
    settings = Settings(chunker="recursive", unit="chars", size=275)
    before = analyze(doc, settings)
    done = fixes.fix_all(doc, settings, before)
    assert done.changed and len(done.applied) == 3
    score = lambda a: sum(i.severity in ("error", "warning") for i in a.issues)  # noqa: E731
    assert score(done.analysis) < score(before)
    assert done.analysis.issues == analyze(done.doc, settings).issues
    again = fixes.fix_all(done.doc, settings)
    assert not again.changed and again.doc.text == done.doc.text


def test_fix_all_leaves_a_windowed_document_alone():
    doc = _doc("streaming.md")
    settings = Settings(chunker="fixed", unit="chars", size=275)
    done = fixes.fix_all(doc, settings)
    assert not done.changed and done.doc.text == doc.text


def test_mapper_back():
    m = fixes._Mapper([fixes.Edit(10, 12, "abcd"), fixes.Edit(20, 20, "xy")])
    assert [m.back(o) for o in (5, 10, 13, 14, 16, 22, 24)] == [5, 10, 10, 12, 14, 20, 20]
