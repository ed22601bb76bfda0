"""``chunkseam compare``: the same documents under several strategies.

Per strategy: the number of chunks, mean and max size, and the broken-chunk
rate overall and per rule family (cuts CS0xx, chunks CS1xx, code CS2xx, …),
so a team can choose a strategy on its own documents. A chunk is broken as in
``lint``, ``preview`` and the library (:func:`chunkseam.engine.validate.statistics`):
an error or warning is charged to it (a cut counts against the chunk that ends
there); per family, the same with that family's issues only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Sequence, TextIO

from chunkseam.engine.analysis import make_chunks, sizer_for
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import BROKEN_SEVERITIES, charged_chunk, statistics

DEFAULT_STRATEGIES = ("fixed", "recursive", "sentence", "markdown")

FAMILIES = {
    "CS0": "cuts",       # CS001–CS099: a cut that breaks a sentence, word, fence, table…
    "CS1": "chunks",     # CS101–CS199: oversize, fragment, dangling reference, no context
    "CS2": "code",       # CS201–CS299: split definitions and strings
    "CS3": "integrity",  # CS301–CS399: offsets that do not match the text, uncovered text
    "CS4": "text-only",  # CS401–CS499: text-only checks (audit without a source)
    "CS9": "suppressions",
}


def family(code: str) -> str:
    return FAMILIES.get(code[:3], "other")


@dataclass
class StrategyStats:
    strategy: str
    files: int = 0
    chunks: int = 0
    sizes: list[int] = field(default_factory=list, repr=False)
    chunks_with_issues: int = 0
    issues: int = 0
    #: family -> broken chunks counting that family's issues only
    family_chunks: dict[str, int] = field(default_factory=dict)
    per_rule: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    @property
    def mean(self) -> float:
        return sum(self.sizes) / len(self.sizes) if self.sizes else 0.0

    @property
    def max(self) -> int:
        return max(self.sizes) if self.sizes else 0

    @property
    def rate(self) -> float:
        return self.chunks_with_issues / self.chunks if self.chunks else 0.0

    def family_rates(self) -> dict[str, float]:
        return {f: (n / self.chunks if self.chunks else 0.0) for f, n in sorted(self.family_chunks.items())}

    def add(self, chunks, issues) -> None:
        self.files += 1
        self.chunks += len(chunks)
        self.sizes.extend(c.tokens for c in chunks)
        self.issues += len(issues)
        # broken as everywhere else (chunkseam.engine.validate.statistics): an error or
        # warning charged to the chunk
        self.chunks_with_issues += statistics(chunks, issues).chunks_with_issues
        fam: dict[str, set[int]] = {}
        for i in issues:
            self.per_rule[i.code] = self.per_rule.get(i.code, 0) + 1
            c = charged_chunk(i)
            if c is not None and i.severity in BROKEN_SEVERITIES:
                fam.setdefault(family(i.code), set()).add(c)
        for f, s in fam.items():
            self.family_chunks[f] = self.family_chunks.get(f, 0) + len(s)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "strategy": self.strategy,
            "files": self.files,
            "chunks": self.chunks,
            "mean_size": round(self.mean, 2),
            "max_size": self.max,
            "issues": self.issues,
            "chunks_with_issues": self.chunks_with_issues,
            "rate": round(self.rate, 6),
            "family_rates": {k: round(v, 6) for k, v in self.family_rates().items()},
            "per_rule": dict(sorted(self.per_rule.items())),
        }
        if self.error:
            d["error"] = self.error
        return d


def run_strategy(doc: Document, settings: Settings, strategy: str):
    """(chunks, issues) of ``doc`` under ``strategy``, within the budget of one
    analysis (:mod:`chunkseam.core.budget`: over it, ``BudgetExceeded``)."""
    from chunkseam.core import budget
    from chunkseam.engine.validate import validate

    s = replace(settings, chunker=strategy)
    budget.check_document(len(doc.text))
    with budget.limits(budget.default_seconds(len(doc.text))):
        sizer = sizer_for(s)
        _, chunks = make_chunks(doc, s, sizer)
        budget.check_chunks(len(chunks))
        issues = validate(doc, chunks, s, sizer=sizer)
    return chunks, issues


def families_seen(stats: Sequence[StrategyStats]) -> list[str]:
    seen = set()
    for s in stats:
        seen.update(s.family_chunks)
    order = list(FAMILIES.values()) + ["other"]
    return [f for f in order if f in seen] or ["cuts"]


def write_text(out: TextIO, stats: Sequence[StrategyStats], *, unit: str, color: bool, files: int) -> None:
    from rich.console import Console
    from rich.table import Table

    fams = families_seen(stats)
    table = Table(title=f"{files} file{'s' if files != 1 else ''}, size unit: {unit}", title_justify="left")
    table.add_column("strategy", style="bold")
    for col in ("chunks", f"mean {unit}", f"max {unit}", "issues", "broken"):
        table.add_column(col, justify="right")
    for f in fams:
        table.add_column(f"{f} %", justify="right")
    for s in stats:
        if s.error:
            table.add_row(s.strategy, *(["—"] * (5 + len(fams))))
            continue
        rates = s.family_rates()
        table.add_row(s.strategy, str(s.chunks), f"{s.mean:.1f}", str(s.max), str(s.issues),
                      f"{s.rate * 100:.1f}%", *[f"{rates.get(f, 0.0) * 100:.1f}" for f in fams])
    console = Console(file=out, force_terminal=color, no_color=not color, width=max(100, 0), highlight=False)
    console.print(table)
    for s in stats:
        if s.error:
            console.print(f"{s.strategy}: error: {s.error}")


def write_json(out: TextIO, stats: Sequence[StrategyStats], per_file: list[dict[str, Any]], settings: Settings) -> None:
    json.dump({
        "settings": {"size": settings.size, "overlap": settings.overlap, "unit": settings.unit,
                     "encoding": settings.encoding},
        "strategies": [s.to_dict() for s in stats],
        "files": per_file,
    }, out, indent=2, ensure_ascii=False)
    out.write("\n")


def table_html(stats: Sequence[StrategyStats], unit: str) -> str:
    import html

    fams = families_seen(stats)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in
                   ["strategy", "chunks", f"mean {unit}", f"max {unit}", "issues", "broken"] + [f"{f} %" for f in fams])
    rows = []
    for s in stats:
        rates = s.family_rates()
        cells = [html.escape(s.strategy), str(s.chunks), f"{s.mean:.1f}", str(s.max), str(s.issues),
                 f"{s.rate * 100:.1f}%"] + [f"{rates.get(f, 0.0) * 100:.1f}" for f in fams]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f'<table class="cs-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
