"""Retrieval metrics, defined as Chroma's published chunking evaluation defines them.

"Token-level" follows that evaluation (``chunking_evaluation``'s
``BaseEvaluation``): the units are the **character positions** of the corpus
document (the reference excerpts and the chunks are character ranges
``[start, end)``). For one question with reference ranges ``R_1 … R_m`` in
its document and the top ``k`` retrieved chunks ``C_1 … C_k`` (ranges in any
document):

* ``I`` = the union of ``C_i ∩ R_j`` over retrieved chunks in the question's
  document and all references (each position counted once);
* **recall** = ``|I| / Σ_j |R_j|``;
* **precision** = ``|I| / Σ_i |C_i|`` — every retrieved chunk's full length,
  overlapping chunks counted as often as they are retrieved, chunks of other
  documents included;
* **IoU** = ``|I| / (Σ_i |C_i| + Σ_j |R_j \\ ∪_i C_i|)`` — the retrieved
  lengths plus the reference positions no retrieved chunk (of that document)
  covers.

Each is 0 when its denominator is 0. Scores are averaged over questions.

Rank metrics (chunkseam's, not in the published evaluation): a retrieved
chunk is *relevant* when it shares at least one character with a reference
excerpt of the question; **recall@k** is the share of questions with a
relevant chunk in the top ``k``; **MRR** the mean of ``1/rank`` of the first
relevant chunk within the top ``k`` (0 when none); **complete@k** the share of
questions all of whose excerpts the top ``k`` chunks cover entirely (together; the
whitespace between two chunks that a splitter strips need not be covered):
the answer is all there. A split excerpt can be a hit for recall@k through either
of its halves, but it is complete only when both chunks are retrieved — which is
what a cut that breaks a passage costs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

Range = tuple[int, int]


def union(ranges: Iterable[Range]) -> list[Range]:
    """Non-empty ranges merged where they overlap or touch, sorted."""
    out: list[list[int]] = []
    for s, e in sorted(r for r in ranges if r[1] > r[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def length(ranges: Iterable[Range]) -> int:
    return sum(e - s for s, e in ranges)


def intersect(a: Range, b: Range) -> Range | None:
    s, e = max(a[0], b[0]), min(a[1], b[1])
    return (s, e) if s < e else None


def covered(r: Range, merged: Sequence[Range]) -> int:
    """How many positions of ``r`` the (merged, disjoint) ranges cover."""
    n = 0
    for s, e in merged:
        x = intersect(r, (s, e))
        if x is not None:
            n += x[1] - x[0]
    return n


@dataclass(frozen=True)
class TokenScores:
    recall: float
    precision: float
    iou: float


def token_scores(retrieved: Sequence[tuple[str, int, int]], references: Sequence[tuple[str, int, int]]) -> TokenScores:
    """Recall, precision and IoU of ``retrieved`` chunks ``(doc, start, end)``
    against ``references`` ``(doc, start, end)`` (see the module docstring)."""
    docs = {d for d, _, _ in references}
    inter: list[Range] = []
    same_doc: dict[str, list[Range]] = {}
    for d, cs, ce in retrieved:
        if d not in docs:
            continue
        same_doc.setdefault(d, []).append((cs, ce))
        for rd, rs, re_ in references:
            if rd == d:
                x = intersect((cs, ce), (rs, re_))
                if x is not None:
                    inter.append(x)
    numerator = length(union(inter))
    ref_total = sum(e - s for _, s, e in references)
    retrieved_total = sum(e - s for _, s, e in retrieved)
    merged = {d: union(rs) for d, rs in same_doc.items()}
    unused = sum((e - s) - covered((s, e), merged.get(d, ())) for d, s, e in references)
    iou_den = retrieved_total + unused
    return TokenScores(
        recall=numerator / ref_total if ref_total else 0.0,
        precision=numerator / retrieved_total if retrieved_total else 0.0,
        iou=numerator / iou_den if iou_den else 0.0,
    )


def first_relevant_rank(retrieved: Sequence[tuple[str, int, int]], references: Sequence[tuple[str, int, int]]) -> int | None:
    """1-based rank of the first retrieved chunk sharing a character with a reference, or None."""
    for rank, (d, cs, ce) in enumerate(retrieved, 1):
        for rd, rs, re_ in references:
            if rd == d and intersect((cs, ce), (rs, re_)) is not None:
                return rank
    return None


def complete(retrieved: Sequence[tuple[str, int, int]], references: Sequence[tuple[str, int, int]],
             texts: Mapping[str, str] | None = None) -> bool:
    """True when the retrieved chunks (together) cover every reference entirely —
    but for whitespace, when ``texts`` (document -> text) is given: the spaces
    between two chunks that a splitter strips belong to neither."""
    merged: dict[str, list[Range]] = {}
    for d, s, e in retrieved:
        merged.setdefault(d, []).append((s, e))
    unions = {d: union(rs) for d, rs in merged.items()}
    for d, s, e in references:
        at = s
        for cs, ce in unions.get(d, ()):
            if ce <= at:
                continue
            if cs >= e:
                break
            if cs > at and not _blank(texts, d, at, cs):
                return False
            at = max(at, ce)
            if at >= e:
                break
        if at < e and not _blank(texts, d, at, e):
            return False
    return True


def _blank(texts: Mapping[str, str] | None, doc: str, s: int, e: int) -> bool:
    return texts is not None and doc in texts and not texts[doc][s:e].strip()


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
