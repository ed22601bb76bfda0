"""``chunkseam audit --report out.html``: one self-contained page for an audit.

The page (no script, no external resource: inline CSS and SVG) shows the
broken-chunk rate per source folder (per document when the dump names no
source), the distribution of chunk sizes in tokens with the configured size
and the embedding model's limit marked, and the rules that fired most.
Everything is gathered as results stream by (:class:`ReportCollector`): memory
grows with the number of folders and histogram bins, not with the chunks.
"""

from __future__ import annotations

import html
from pathlib import PurePosixPath
from typing import Any


def _n(n: int, word: str) -> str:
    """``1 chunk``, ``2 chunks``."""
    return f"{n} {word}" + ("" if n == 1 else "s")

__all__ = ["ReportCollector"]

BINS = 40
MAX_GROUPS = 200


def _folder(r: Any) -> str:
    source = (r.extra or {}).get("source")
    if source:
        p = PurePosixPath(str(source).replace("\\", "/"))
        return str(p.parent) if str(p.parent) not in ("", ".") else "."
    return "(no source)"


class ReportCollector:
    """Counts per folder, a size histogram and rule counts, fed one result at a time."""

    def __init__(self, size: int, unit: str, limit: int | None) -> None:
        self.size, self.unit, self.limit = size, unit, limit
        top = max(2 * size, int((limit or 0) * 1.25), 1)
        self.width = max(1, -(-top // BINS))
        self.bins = [0] * (BINS + 1)  # the last bin: everything above the chart
        self.groups: dict[str, list[int]] = {}  # folder -> [documents, chunks, broken]
        self.rules: dict[str, int] = {}
        self.names: dict[str, str] = {}
        self.biggest = 0

    def add(self, r: Any) -> None:
        if r.error is not None:
            return
        g = self.groups.setdefault(_folder(r), [0, 0, 0])
        g[0] += 1
        g[1] += r.chunks
        g[2] += r.chunks_with_issues
        for n in getattr(r, "sizes", ()):
            self.bins[min(n // self.width, BINS)] += 1
            self.biggest = max(self.biggest, n)
        for rec in r.records:
            self.rules[rec.code] = self.rules.get(rec.code, 0) + 1
            self.names.setdefault(rec.code, rec.name)

    def page(self, summary: Any, title: str) -> str:
        e = html.escape
        rows = sorted(self.groups.items(), key=lambda kv: (-(kv[1][2] / kv[1][1]) if kv[1][1] else 0, kv[0]))
        shown = rows[:MAX_GROUPS]
        table = "\n".join(
            f'<tr class="cs-group" data-folder="{e(name)}" data-rate="{(b / c if c else 0):.6f}">'
            f"<td>{e(name)}</td><td>{d}</td><td>{c}</td><td>{b}</td>"
            f'<td><span class="bar" style="width:{(100 * b / c if c else 0):.1f}px"></span>'
            f"{(100 * b / c if c else 0):.1f}%</td></tr>"
            for name, (d, c, b) in shown)
        more = (f'<p class="note">{len(rows) - MAX_GROUPS} more folders not shown.</p>'
                if len(rows) > MAX_GROUPS else "")
        rules = "\n".join(
            f'<tr class="cs-rule" data-code="{e(code)}"><td><code>{e(code)}</code></td>'
            f"<td>{e(self.names.get(code, ''))}</td><td>{n}</td></tr>"
            for code, n in sorted(self.rules.items(), key=lambda kv: (-kv[1], kv[0]))[:15])
        return _PAGE.format(
            title=e(title), summary=e(f"{_n(summary.issues, 'issue')}; {summary.chunks_with_issues} of "
                                      f"{_n(summary.chunks, 'chunk')} broken ({summary.rate * 100:.1f}%) in "
                                      f"{_n(summary.files, 'document')}"),
            table=table or '<tr><td colspan="5">no documents</td></tr>', more=more,
            chart=self._chart(), rules=rules or '<tr><td colspan="3">no issues</td></tr>',
            unit=e(self.unit))

    def _chart(self) -> str:
        w, h, pad = 720, 220, 30
        bw = w / (BINS + 1)
        peak = max(self.bins) or 1
        parts = []
        for i, n in enumerate(self.bins):
            bh = (h - pad) * n / peak
            lo = i * self.width
            label = f"{lo}+ tokens" if i == BINS else f"{lo}–{lo + self.width - 1}"
            parts.append(f'<rect class="cs-bin" data-count="{n}" x="{i * bw:.1f}" y="{h - pad - bh:.1f}" '
                         f'width="{bw - 1:.1f}" height="{bh:.1f}"><title>{label}: {_n(n, "chunk")}</title></rect>')

        def marker(value: int, cls: str, text: str) -> str:
            x = min(value / self.width, BINS) * bw
            return (f'<line class="{cls}" data-value="{value}" x1="{x:.1f}" x2="{x:.1f}" y1="0" '
                    f'y2="{h - pad}"/><text x="{x + 3:.1f}" y="12">{html.escape(text)}</text>')

        parts.append(marker(self.size, "cs-size", f"size {self.size}"))
        if self.limit:
            parts.append(marker(self.limit, "cs-limit", f"embedding limit {self.limit}"))
        for i in range(0, BINS, 8):
            parts.append(f'<text class="axis" x="{i * bw:.1f}" y="{h - 10}">{i * self.width}</text>')
        return (f'<svg class="cs-hist" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
                f'aria-label="chunk sizes">{"".join(parts)}</svg>')


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{title}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ padding: 2px 10px; border-bottom: 1px solid #ddd; text-align: left; }}
.bar {{ display: inline-block; height: 10px; background: #d9534f; margin-right: 6px; }}
.cs-bin {{ fill: #5b8def; }} .cs-size {{ stroke: #2a2; stroke-width: 2; }}
.cs-limit {{ stroke: #d33; stroke-width: 2; stroke-dasharray: 4 3; }}
svg text {{ font-size: 11px; fill: #444; }} .note {{ color: #666; }}
</style></head><body>
<h1>{title}</h1>
<p id="cs-summary">{summary}</p>
<h2>Broken-chunk rate by folder</h2>
<table id="cs-groups"><tr><th>folder</th><th>documents</th><th>chunks</th><th>broken</th><th>rate</th></tr>
{table}
</table>{more}
<h2>Chunk sizes ({unit})</h2>
{chart}
<h2>Top rules</h2>
<table id="cs-rules"><tr><th>rule</th><th>name</th><th>issues</th></tr>
{rules}
</table>
</body></html>
"""
