"""Placeholder: the validator is being written (issue: boundary validator).

Contract: ``validate(doc, chunks, settings, *, sizer=None) -> list[Issue]`` and
``statistics(chunks, issues) -> Stats`` with ``chunks``, ``chunks_with_issues``,
``rate`` (0..1), ``per_rule`` (code -> count) and ``to_dict()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stats:
    chunks: int = 0
    chunks_with_issues: int = 0
    per_rule: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.chunks_with_issues / self.chunks if self.chunks else 0.0

    def to_dict(self) -> dict:
        return {"chunks": self.chunks, "chunks_with_issues": self.chunks_with_issues,
                "rate": self.rate, "per_rule": dict(self.per_rule)}


def validate(doc, chunks, settings=None, *, sizer=None):
    return []


def statistics(chunks, issues) -> Stats:
    broken = {i.chunk for i in issues if i.chunk is not None}
    per_rule: dict[str, int] = {}
    for i in issues:
        per_rule[i.code] = per_rule.get(i.code, 0) + 1
    return Stats(len(chunks), len(broken), per_rule)
