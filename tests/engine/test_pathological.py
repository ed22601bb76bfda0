"""Pathological documents under 2 MB: same results, bounded work and memory.

No timing is asserted (benchmarks/bench_pathological.py prints the times);
the tests check that the fast paths give exactly what the simple definitions
give, and that what the engine keeps is bounded.
"""

from __future__ import annotations

import random

from chunkseam.core import cache as cache_mod
from chunkseam.engine.analysis import analyze
from chunkseam.checks.base import _SpanIndex, paired_spans
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.structure.markdown import _SEGMENTS, structure


def _innermost_by_scan(spans, c):
    """The definition: of the spans strictly containing ``c``, the greatest
    start, and of equal starts the last in (start, -end) order."""
    best = None
    for s in spans:
        if s.start >= c:
            break
        if c < s.end and (best is None or s.start >= best.start):
            best = s
    return best


def _pairs_by_scan(text):
    """The definition of bracket pairing: a closer takes the nearest open
    opener of its kind and drops the openers above it."""
    stack, pairs = [], {}
    want = {")": "(", "]": "[", "}": "{"}
    for i, ch in enumerate(text):
        if ch in "([{":
            stack.append((ch, i))
        elif ch in ")]}":
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == want[ch]:
                    pairs[stack[k][1]] = i
                    del stack[k:]
                    break
    return pairs


def test_innermost_span_equals_the_linear_definition() -> None:
    rng = random.Random(11)
    for _ in range(1500):
        text = "".join(rng.choice("([{}])ab `![]") for _ in range(rng.randint(0, 70)))
        spans = paired_spans(text, 3)
        index = _SpanIndex(spans)
        for c in range(3, len(text) + 4):
            assert index.innermost(c) == _innermost_by_scan(spans, c), (text, c)


def test_bracket_pairs_equal_the_definition_on_plain_brackets() -> None:
    rng = random.Random(12)
    for _ in range(1500):
        # "]" never directly before "(" or "[": no links, only bracket pairs
        text = "".join(rng.choice(["(", ")", "[", "]x", "{", "}", "x"])
                       for _ in range(rng.randint(0, 80)))
        got = {(s.start, s.end - 1) for s in paired_spans(text)}
        assert got == set(_pairs_by_scan(text).items()), text


def test_deeply_nested_and_unmatched_brackets_give_the_innermost_span() -> None:
    n = 20_000
    for text in ("(" * n + ")" * n, "[" * n + ")" * n + "]"):
        doc = Document(text, path="p.txt")
        a = analyze(doc, Settings(chunker="recursive", unit="chars", size=400))
        spans = paired_spans(text)
        brackets = [i for i in a.issues if i.code == "CS006"]
        if text.startswith("(("):
            assert len(spans) == n and len(brackets) == len(a.chunks) - 1
        else:  # "[" * n never meets "]" before the ")"s: only the outermost pair
            assert len(spans) == 1
        for issue in brackets:
            s = _innermost_by_scan(spans, issue.cut)
            assert s is not None and (issue.data["span"] == [s.start, s.end]), issue


def test_many_headings_give_a_bounded_cache_and_the_same_structure() -> None:
    text = "#\n" * 50_000
    doc = Document(text, path="h.md")
    st = structure(doc)
    assert len(st.blocks) == 50_000 and all(b.kind == "heading" for b in st.blocks[:50])
    # one parse of 50,000 blocks is more than a quarter of the segment budget:
    # it is not kept, so nothing of it stays after the document is gone
    assert _SEGMENTS.lru.bytes <= _SEGMENTS.lru.max_bytes
    again = structure(Document(text, path="h.md"))
    assert [(b.start, b.end, b.kind) for b in again.blocks[:100]] == \
        [(b.start, b.end, b.kind) for b in st.blocks[:100]]


def test_every_engine_cache_stays_within_its_byte_budget() -> None:
    rng = random.Random(5)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    for k in range(12):
        paras = []
        for j in range(120):
            sent = " ".join(rng.choice(words) for _ in range(rng.randint(5, 30)))
            paras.append(f"## Part {k}.{j}\n\n{sent.capitalize()} (see [{j}]). "
                         f"{sent[::-1].capitalize()}.\n")
        analyze(Document("\n".join(paras), path=f"d{k}.md"), Settings(size=60))
    stats = cache_mod.all_caches()
    assert {"segments", "sentences", "cut judgements", "markdown sections"} <= set(stats)
    for name, s in stats.items():
        assert s["bytes"] <= s["max_bytes"], (name, s)
        assert s["entries"] > 0 or name not in ("segments", "sentences"), (name, s)


def test_byte_lru_evicts_least_recently_used_and_refuses_huge_entries() -> None:
    lru = cache_mod.ByteLRU("test", 10_000)
    for i in range(100):
        lru.put(i, str(i), 500)
    assert lru.bytes <= 10_000 and 0 not in lru.data and 99 in lru.data
    lru.get(lru_oldest := next(iter(lru.data)))
    lru.put("new", "x", 500)
    assert lru_oldest in lru.data  # touched, so not the one evicted
    lru.put("huge", "y", 5_000)  # more than a quarter of the budget
    assert "huge" not in lru.data
    assert cache_mod.text_key("a" * 10) != cache_mod.text_key("a" * 11)
    assert cache_mod.text_key("\ud800x") == cache_mod.text_key("\ud800x")
